"""Recovery: the state is the fold of the journal (latest snapshot + the events after it).

The daemon, ``tablectl state``, durable replay and recall all fold the same way:

- start from the newest snapshot (or an empty table when the journal has none and
  begins at seq 1);
- for every record after it, in seq order (``fold_records``): an accepted event is
  applied through the rules core under the configuration it was recorded with; a
  refused one changed nothing but what ``Table.refused`` leaves (the digits a
  refused ``ENTER`` dropped), as replay does (``controller.replay``'s
  ``step`` and ``refuse``), except ``invalid`` audit rows (lines that were not JSON
  objects), which change nothing at all.

An accepted record that the rules now refuse, or a snapshot that cannot be read, means
the journal and the firmware disagree about the past: that is a memory fault like a
broken hash chain, never something to skip.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from controller.config import ConfigError, load_config_text
from controller.daemon import snapshots
from controller.journal import EventRecord, Journal, JournalIntegrityError
from controller.replay import refuse, step
from controller.rules import RuleSettings, Table
from controller.rules.effects import Effect
from controller.rules.state import EARLIER_EDITION, TableState, older_edition

log = logging.getLogger(__name__)

INVALID_TYPE = "invalid"
"""The ``type`` of the audit row recorded for an input line that is not a JSON object."""


class ReplayDiverged(JournalIntegrityError):
    """An accepted record is refused when folded again (firmware and journal disagree)."""

    code = "replay_diverged"
    display = "MEMORY FAULT REPLAY"

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(
            f"the journal cannot be folded again: seq {seq} was accepted when recorded but "
            f"is refused now ({reason}). Play stays locked; call a technician "
            f"(`tablectl journal salvage --before {seq}` keeps the events before it)."
        )
        self.seq = seq


class SnapshotUnreadable(JournalIntegrityError):
    code = "snapshot_unreadable"
    display = "MEMORY FAULT SNAP"

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(f"the snapshot at seq {seq} cannot be read: {reason}")
        self.seq = seq


class ConfigUnreadable(JournalIntegrityError):
    code = "config_unreadable"
    display = "MEMORY FAULT CONFIG"

    def __init__(self, config_id: int, problems: list[str]) -> None:
        shown = "; ".join(problems[:3])
        super().__init__(
            f"configuration record {config_id} of the journal is no longer valid: {shown}"
        )
        self.config_id = config_id


class RulesBook:
    """The rule settings of every configuration recorded in one journal, read once."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._rules: dict[int, RuleSettings] = {}

    def rules(self, config_id: int) -> RuleSettings:
        found = self._rules.get(config_id)
        if found is None:
            for record in self._journal.configs():
                if record.id == config_id:
                    try:
                        found = load_config_text(record.text, f"<journal config {record.id}>").rules
                    except ConfigError as error:
                        raise ConfigUnreadable(record.id, list(error.problems)) from None
                    break
            else:
                raise ConfigUnreadable(config_id, ["it is missing"])
            self._rules[config_id] = found
        return found

    def edition_at(self, seq: int) -> int:
        """The rules edition of the snapshot recorded with ``seq`` (the rules that
        record was applied under)."""
        found = snapshot_before(self._journal, seq)
        if found is None or found[0] != seq:
            raise SnapshotUnreadable(seq, "it is missing")
        try:
            return snapshots.decode(found[1]).rules_edition
        except ValueError as error:
            raise SnapshotUnreadable(seq, str(error)) from None

    def rules_for_seq(self, seq: int) -> tuple[int, RuleSettings]:
        config_id = self._journal.config_for_seq(seq).id
        return config_id, self.rules(config_id)


@dataclass
class Folded:
    """A table folded from the journal: where it stands, and how much was replayed to get there."""

    table: Table
    last_seq: int
    snapshot_seq: int  # 0: folded from the first event
    replayed: int  # records read after the snapshot
    config_id: int


def apply_record(
    table: Table, record: EventRecord, book: RulesBook, config_id: int
) -> tuple[int, list[Effect]]:
    """Fold one record into ``table``; returns the config id in force and the effects."""
    if record.config_id != config_id:
        config_id = record.config_id
        table.reconfigure(book.rules(config_id))
    if record.accepted and record.has_snapshot and older_edition(table.state):
        # this release's first event in the journal (its snapshot says so): from it on
        # the events are this release's (a fold from an earlier snapshot, recall's)
        table.state.rules_edition = book.edition_at(record.seq)
    if not record.accepted:
        if record.event.get("type") != INVALID_TYPE:
            refuse(table, record.event, recorded=True)
        return config_id, []
    done = step(table, record.event, recorded=True)
    if done.refusal is not None:
        raise ReplayDiverged(record.seq, done.refusal.message)
    return config_id, done.effects


def fold_records(
    table: Table, records: Iterable[EventRecord], book: RulesBook, config_id: int
) -> Iterator[tuple[EventRecord, list[Effect]]]:
    """Fold ``records`` into ``table`` one by one (``apply_record``), yielding each
    record with its effects once it is folded: the one loop over a journal's records
    (recovery, recall). Between two records ``table`` is the state before the next."""
    for record in records:
        config_id, effects = apply_record(table, record, book, config_id)
        yield record, effects


def edition_marks(journal: Journal) -> list[int]:
    """The snapshots a fold from the journal's first event reads to learn under which
    rules its events were recorded (``apply_record``): while the journal holds its
    first event, every snapshot up to the first this release recorded (from it on the
    events are this release's); none once that event is pruned (no fold starts there
    any more). Retention keeps them, however old (``Journal.prune(keep_snapshots=)``):
    the snapshot of a journal's first event, in a journal this release began."""
    if first_seq(journal) != 1:
        return []
    marks: list[int] = []
    with journal.mutex:
        rows = journal.connection.execute("SELECT seq, state FROM snapshots ORDER BY seq")
        for seq, text in rows:
            marks.append(int(seq))
            try:
                if not older_edition(snapshots.decode(str(text))):
                    break
            except ValueError:  # the fold reports it (SnapshotUnreadable)
                break
    return marks


def snapshot_before(journal: Journal, seq: int) -> tuple[int, str] | None:
    """The newest snapshot taken at or before ``seq``."""
    with journal.mutex:
        row = journal.connection.execute(
            "SELECT seq, state FROM snapshots WHERE seq <= ? ORDER BY seq DESC LIMIT 1", (seq,)
        ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def first_seq(journal: Journal) -> int:
    """The first seq still in the journal (after pruning), or last_seq + 1 when empty."""
    with journal.mutex:
        row = journal.connection.execute("SELECT MIN(seq) FROM events").fetchone()
    return journal.last_seq + 1 if row is None or row[0] is None else int(row[0])


def start_table(
    journal: Journal, book: RulesBook, snapshot: tuple[int, str] | None
) -> tuple[Table, int, int]:
    """The table a fold starts from: ``(table, after_seq, config_id)``."""
    if snapshot is None:
        if first_seq(journal) > 1 and journal.last_seq > 0:
            raise SnapshotUnreadable(
                0,
                "events before the first kept one were pruned "
                "and no snapshot is left to start from",
            )
        config_id, rules = book.rules_for_seq(1)
        # no snapshot: the events were recorded by the release before issue 31 (this
        # one records a snapshot with its first event), and are folded as it played them
        return Table(rules, TableState(rules_edition=EARLIER_EDITION)), 0, config_id
    seq, text = snapshot
    try:
        state = snapshots.decode(text)
    except ValueError as error:
        raise SnapshotUnreadable(seq, str(error)) from None
    config_id, rules = book.rules_for_seq(seq)
    return Table(rules, state), seq, config_id


def _in_bounds(journal: Journal, start: tuple[int, str] | None) -> tuple[int, str] | None:
    """The newest snapshot from ``start`` back whose amounts are within today's bounds.
    One past them (an older firmware took a stack of thousands of digits) is passed
    over, so the fold meets the event that brought the amount, which today's rules
    refuse: ``ReplayDiverged`` names its seq, and ``journal salvage --before SEQ`` is
    the way out, instead of a table that locks again at every start."""
    while start is not None and not snapshots.within_bounds(start[1]):
        log.warning(
            "the snapshot at seq %d holds an amount past today's bounds; folding "
            "from an earlier one",
            start[0],
        )
        start = snapshot_before(journal, start[0] - 1)
    return start


def fold(
    journal: Journal,
    book: RulesBook | None = None,
    *,
    on_record: Callable[[EventRecord, Table, list[Effect]], None] | None = None,
    snapshot: tuple[int, str] | None | bool = True,
) -> Folded:
    """Fold the whole journal: the state the daemon resumes with.

    ``snapshot`` True starts from the newest snapshot; a ``(seq, text)`` from that one;
    None (or False) from the empty table.
    """
    book = book or RulesBook(journal)
    try:
        start = journal.latest_snapshot() if snapshot is True else snapshot or None
        if snapshot is True:
            start = _in_bounds(journal, start)
        table, after, config_id = start_table(journal, book, start)
        replayed = 0
        last = after
        for record, effects in fold_records(
            table, journal.iter_events(after_seq=after), book, config_id
        ):
            if on_record is not None:
                on_record(record, table, effects)
            replayed += 1
            last = record.seq
            config_id = record.config_id  # the configuration in force after it
    except sqlite3.DatabaseError as error:
        from controller.journal import JournalCorrupt

        raise JournalCorrupt(f"reading the journal to recover: {error}") from error
    return Folded(
        table=table, last_seq=last, snapshot_seq=after, replayed=replayed, config_id=config_id
    )
