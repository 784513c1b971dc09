"""Replay: the rules core over a stream of JSON event lines (DESIGN.md, the replay
contract). One output line per event line, flushed as soon as it is processed."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from controller.rules import Refusal, RuleSettings, Table, parse_event, state_view
from controller.rules.errors import BadEvent


def event_lines(lines: Iterable[str]) -> Iterator[str]:
    """The lines that are events: blank lines and ``#`` comments are skipped."""
    for line in lines:
        text = line.strip()
        if text and not text.startswith("#"):
            yield text


def decode(text: str) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadEvent(f"NOT JSON: {error.msg} AT COLUMN {error.colno}") from None
    if not isinstance(obj, dict):
        raise BadEvent("AN EVENT MUST BE A JSON OBJECT")
    return obj


def process(table: Table, obj: dict[str, Any], seq: int) -> dict[str, Any]:
    """Apply one decoded event and build its output line."""
    try:
        event = parse_event(obj)
        table.apply(event)
    except Refusal as refusal:
        table.state.last_refusal = refusal.message
        return {"seq": seq, "ok": False, "error": refusal.as_dict()}
    out: dict[str, Any] = {"seq": seq, "ok": True}
    if obj.get("type") == "state":
        out["state"] = state_view(table)
    return out


def replay(settings: RuleSettings, lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    table = Table(settings)
    for seq, text in enumerate(event_lines(lines), start=1):
        try:
            obj = decode(text)
        except Refusal as refusal:
            yield {"seq": seq, "ok": False, "error": refusal.as_dict()}
            continue
        yield process(table, obj, seq)


def dumps(line: dict[str, Any]) -> str:
    return json.dumps(line, separators=(", ", ": "))
