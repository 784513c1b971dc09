"""Snapshots of the folded state, as the journal stores them (opaque text).

A snapshot is ``TableState.to_dict()`` as compact JSON, zlib-compressed and base64
encoded behind a ``zlib:`` prefix: a 9-seat state mid-hand is about 4 KB of JSON and
under 1 KB stored, which keeps the journal's bytes per hand small. Plain JSON text
(no prefix) is read too.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

from controller.rules.records import entry_mode
from controller.rules.state import TableState

PREFIX = "zlib:"


def encode(state: TableState) -> str:
    text = json.dumps(state.to_dict(), separators=(",", ":"), sort_keys=True)
    return PREFIX + base64.b64encode(zlib.compress(text.encode("utf-8"), 6)).decode("ascii")


def decode(stored: str) -> TableState:
    """The state a snapshot holds; ``ValueError`` when it cannot be read (a keypad
    entry of a mode the keypad does not have included)."""
    try:
        if stored.startswith(PREFIX):
            raw = zlib.decompress(base64.b64decode(stored[len(PREFIX) :], validate=True))
            data: Any = json.loads(raw.decode("utf-8"))
        else:
            data = json.loads(stored)
        if not isinstance(data, dict):
            raise ValueError("a snapshot must hold a JSON object")
        state = TableState.from_dict(data)
        entry: object = state.keypad.get("entry")
        if entry:  # a key would find no mode to read it (BadEvent, a ValueError)
            if not isinstance(entry, dict):
                raise ValueError(f"the keypad entry must be a JSON object, not {entry!r}")
            entry_mode(entry)
        return state
    except (zlib.error, ValueError, TypeError, KeyError, UnicodeDecodeError) as error:
        raise ValueError(f"unreadable snapshot: {error}") from None


def within_bounds(stored: str) -> bool:
    """Whether every number in the snapshot is inside the bounds of an input line
    (±2^53, ``controller.lines``). An older firmware took amounts past them (a stack of
    thousands of digits); such a snapshot is not folded from (``recovery.fold``). An
    unreadable snapshot counts as within: reading it reports what is wrong."""
    from controller.lines import check_value
    from controller.rules.errors import BadEvent

    try:
        if stored.startswith(PREFIX):
            data: Any = json.loads(zlib.decompress(base64.b64decode(stored[len(PREFIX) :])))
        else:
            data = json.loads(stored)
    except (zlib.error, ValueError, TypeError):
        return True
    try:
        check_value(data)
    except BadEvent:
        return False
    return True
