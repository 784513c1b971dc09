"""Replay: the rules core over a stream of JSON event lines (DESIGN.md, the replay
contract). One output line per event line, flushed as soon as it is processed."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from controller.lines import decode_line, event_lines
from controller.rules import Refusal, RuleSettings, Table, parse_event, state_view

__all__ = ["decode", "dumps", "event_lines", "process", "replay"]

decode = decode_line  # the replay contract's name for it


def process(table: Table, obj: dict[str, Any], seq: int) -> dict[str, Any]:
    """Apply one decoded event and build its output line."""
    event = None
    try:
        event = parse_event(obj)
        table.apply(event)
    except Refusal as refusal:
        table.refused(event, refusal.message)
        return {"seq": seq, "ok": False, "error": refusal.as_dict()}
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
    return json.dumps(line, separators=(", ", ": "))
