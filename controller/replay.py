"""Replay: the rules core over a stream of JSON event lines (the replay
contract, docs/replay.md). One output line per event line; ``tablectl replay`` flushes each as soon as
it is processed when the events come from standard input, and whenever it is about to
read more of a named file (``controller.commands.replay``, docs/replay.md).

``step`` and ``refuse`` are the one way an input event is folded into a table, here and
wherever events are folded again: the chip-tray report (``controller.tray``), the
daemon's recorder, recovery from the journal and game recall
(``controller.daemon.recovery.fold_records``)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from controller.lines import decode_line, event_lines
from controller.rules import Event, Refusal, RuleSettings, Table, parse_event, state_view
from controller.rules.effects import Effect

__all__ = [
    "Step",
    "answers",
    "decode",
    "dumps",
    "event_lines",
    "ok_text",
    "process",
    "refuse",
    "replay",
    "step",
]

decode = decode_line  # the replay contract's name for it


class Step(NamedTuple):
    """What one input event did to a table: its effects, or the refusal. (A named
    tuple: replay makes one per line, and it is the cheapest record to make.)"""

    event: Event | None  # None: the object is not an event (its shape is wrong)
    effects: list[Effect]
    refusal: Refusal | None = None

    @property
    def ok(self) -> bool:
        return self.refusal is None


def step(table: Table, obj: Mapping[str, Any], *, recorded: bool = False) -> Step:
    """Fold one input event into ``table``: applied when the rules accept it; refused,
    it leaves only what ``refuse`` leaves. ``recorded``: read back from the journal
    (``parse_event``: its free text taken as recorded)."""
    event = None
    try:
        event = parse_event(obj, recorded=recorded)
        return Step(event, table.apply(event))
    except Refusal as refusal:
        table.refused(event)  # as ``refuse``: the event is known here
        # kept without its traceback: the frames it holds would outlive the call
        return Step(event, [], refusal.with_traceback(None))


def refuse(
    table: Table,
    obj: Mapping[str, Any],
    event: Event | None = None,
    *,
    recorded: bool = False,
) -> None:
    """Fold a refused input event: it changes nothing in the game, but leaves what
    ``Table.refused`` says (after a refused ``ENTER``, an entry without its digits).
    ``event``: the event already parsed from ``obj``, if it could be."""
    if event is None:
        with contextlib.suppress(Refusal):
            event = parse_event(obj, recorded=recorded)
    table.refused(event)


def process(table: Table, obj: dict[str, Any], seq: int) -> dict[str, Any]:
    """Apply one decoded event and build its output line."""
    return _answer(table, obj, seq, step(table, obj)) or {"seq": seq, "ok": True}


def _answer(table: Table, obj: Mapping[str, Any], seq: int, done: Step) -> dict[str, Any] | None:
    """The output line of an event folded into ``table``, or None when it is the plain
    ``{"seq": seq, "ok": true}`` (most lines are: ``answers`` leaves it to the caller)."""
    if done.refusal is not None:
        return {"seq": seq, "ok": False, "error": done.refusal.as_dict()}
    if obj.get("type") == "state":
        return {"seq": seq, "ok": True, "state": state_view(table)}
    return None


def replay(settings: RuleSettings, lines: Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """One output line per event line; a bad line (``controller.lines``) is refused and
    replay goes on with the next."""
    for seq, line in answers(settings, lines):
        yield {"seq": seq, "ok": True} if line is None else line


def answers(
    settings: RuleSettings, lines: Iterable[bytes | str]
) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """``replay``'s lines as (seq, output line), the plain ``{"seq": seq, "ok": true}``
    as None: ``tablectl replay`` writes it as text (``ok_text``) without making it."""
    table = Table(settings)
    for seq, text in enumerate(event_lines(lines), start=1):
        try:
            obj = decode_line(text)
        except Refusal as refusal:
            yield seq, {"seq": seq, "ok": False, "error": refusal.as_dict()}
            continue
        yield seq, _answer(table, obj, seq, step(table, obj))


def ok_text(seq: int) -> str:
    """``dumps({"seq": seq, "ok": True})``, written directly: the same text at a fraction
    of the cost, and most lines are this one."""
    return f'{{"seq": {seq}, "ok": true}}'


def dumps(line: dict[str, Any]) -> str:
    """An output line as JSON text (``json.dumps``); the common ``{"seq": N, "ok":
    true}`` as ``ok_text``."""
    if (
        len(line) == 2
        and line.get("ok") is True
        and type(seq := line.get("seq")) is int
        and next(iter(line)) == "seq"  # the keys in the order json.dumps writes them
    ):
        return ok_text(seq)
    return json.dumps(line, separators=(", ", ": "))
