"""Replay: the rules core over a stream of JSON event lines (DESIGN.md, the replay
contract). One output line per event line; ``tablectl replay`` flushes each as soon as
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

__all__ = ["Step", "decode", "dumps", "event_lines", "process", "refuse", "replay", "step"]

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
    done = step(table, obj)
    if done.refusal is not None:
        return {"seq": seq, "ok": False, "error": done.refusal.as_dict()}
    out: dict[str, Any] = {"seq": seq, "ok": True}
    if obj.get("type") == "state":
        out["state"] = state_view(table)
    return out


def replay(settings: RuleSettings, lines: Iterable[bytes | str]) -> Iterator[dict[str, Any]]:
    """One output line per event line; a bad line (``controller.lines``) is refused and
    replay goes on with the next."""
    table = Table(settings)
    for seq, text in enumerate(event_lines(lines), start=1):
        try:
            obj = decode_line(text)
        except Refusal as refusal:
            yield {"seq": seq, "ok": False, "error": refusal.as_dict()}
            continue
        yield process(table, obj, seq)


def dumps(line: dict[str, Any]) -> str:
    """An output line as JSON text (``json.dumps``); the common ``{"seq": N, "ok":
    true}`` is written directly, the same text at a fraction of the cost."""
    if (
        len(line) == 2
        and line.get("ok") is True
        and type(seq := line.get("seq")) is int
        and next(iter(line)) == "seq"  # the keys in the order json.dumps writes them
    ):
        return f'{{"seq": {seq}, "ok": true}}'
    return json.dumps(line, separators=(", ", ": "))
