"""Replay's durable mode: ``tablectl replay --state-dir DIR`` (docs/replay.md, "Durable mode").

Every input line (refusals, ``state`` queries and lines that are not JSON objects
included) is recorded in the journal of ``DIR`` before its output line is printed and
flushed, so a line seen by the caller survives a power cut. An existing journal is
continued: the first new line gets ``last_seq + 1``, and ``seq`` in the output is the
journal's. A lines that is not a JSON object is recorded as a refused
``{"type": "invalid", "raw": LINE}`` audit row, so the numbering stays that of the
non-durable replay.

A directory started with another configuration is refused, naming the difference;
so is a journal that fails its integrity check (the technician's salvage first).
With a `floor:` section in the configuration, each line's floor messages go into the
journal's outbox with it, as the daemon's do: the daemon's publisher sends them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import IO, Any

from controller import statedir
from controller.config import ConfigError, Settings, load_config_text, rules_differences
from controller.daemon.recorder import Recorder, describe
from controller.daemon.recovery import RulesBook, fold
from controller.journal import (
    ConfigMismatch,
    Journal,
    JournalBusy,
    JournalError,
    JournalIntegrityError,
)
from controller.replay import dumps, event_lines
from controller.rules import state_view
from controller.supervisor_pins import PinFile

EXIT_CONFIG = 2
EXIT_JOURNAL = 3


def durable_replay(
    settings: Settings, state_dir: str, lines: Iterable[bytes | str], out: IO[str]
) -> int:
    """Replay ``lines`` through the journal in ``state_dir``; the exit status."""
    unusable = statedir.problem(state_dir)
    if unusable is not None:
        _say(f"tablectl replay: {unusable}")
        return EXIT_JOURNAL
    try:
        journal = Journal.open(state_dir, settings.config_text, table_id=settings.rules.table_id)
    except (OSError, ValueError) as error:  # the folder went bad since the check
        _say(
            f"tablectl replay: the state directory {state_dir} cannot be used: "
            f"{getattr(error, 'strerror', None) or error}"
        )
        return EXIT_JOURNAL
    except ConfigMismatch as mismatch:
        _say(config_mismatch_message(state_dir, settings, mismatch))
        return EXIT_CONFIG
    except JournalBusy as error:
        _say(f"tablectl replay: {state_dir}: {error.message} (is the daemon running?)")
        return EXIT_JOURNAL
    except JournalError as error:
        _say(f"tablectl replay: {state_dir}: {error.message}")
        return EXIT_JOURNAL
    with journal:
        try:
            verdict = journal.verify()
            if not verdict.ok:
                raise verdict.problems[0]
            folded = fold(journal, RulesBook(journal))
        except JournalIntegrityError as fault:
            journal.fault = journal.fault or fault
            _say(f"tablectl replay: {state_dir}: MEMORY FAULT ({fault.code}): {fault.message}")
            return EXIT_JOURNAL
        # the daemon's PIN check: a PIN typed in the file is judged as at the table
        folded.table.pin_verifier = PinFile(settings.supervisor.pin_file)
        snapshot = journal.latest_snapshot()
        recorder = Recorder(
            journal,
            folded.table,
            snapshot_every=settings.journal.snapshot_every,
            last_snapshot_seq=snapshot[0] if snapshot else 0,
            outbox=_floor_feed(settings, journal),
        )
        for text in event_lines(lines):
            outcome = recorder.record_text(text)
            if outcome.seq is None:
                failure = recorder.fault
                _say(
                    f"tablectl replay: {state_dir}: the journal failed, line not recorded: "
                    f"{describe(failure) if failure else 'unknown fault'}"
                )
                return EXIT_JOURNAL
            line = outcome.line()
            if outcome.ok and outcome.event.get("type") == "state":
                line["state"] = state_view(recorder.table)
            out.write(dumps(line) + "\n")
            out.flush()
    return 0


def _floor_feed(settings: Settings, journal: Journal) -> Any:
    """With a `floor:` section, the lines replayed into the table's journal get their
    floor messages like the daemon's inputs: the daemon's publisher sends them."""
    if settings.floor is None:
        return None
    from controller.floor.feed import feed_for

    return feed_for(settings, chain_head=journal.chain_head)


def config_mismatch_message(state_dir: str, settings: Settings, mismatch: ConfigMismatch) -> str:
    """Names the difference: the rule settings that differ, else the text diff."""
    lines = [f"tablectl replay: {state_dir} was started with another configuration"]
    try:
        with Journal.open_readonly(state_dir) as journal:
            recorded = load_config_text(journal.config_text, "<recorded configuration>")
        differences = rules_differences(recorded.rules, settings.rules)
    except (JournalError, ConfigError):
        differences = []
    if differences:
        lines.append("rule settings that differ (recorded -> given):")
        lines += [f"  {difference}" for difference in differences]
    lines.append("configuration text (recorded -> given):")
    lines.append(mismatch.diff)
    lines.append("Use the configuration the journal was started with, or a new state directory.")
    return "\n".join(lines)


def _say(text: str) -> None:
    print(text, file=sys.stderr)
