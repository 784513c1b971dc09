"""The dealer keypad's grammar, as pure state folded like every other event.

Keys (DESIGN.md): ``0``-``9``, ``FOLD``, ``CHECK`` (checks, or calls facing a bet),
``BET`` digits ``ENTER`` (bet or raise to a total), ``ALLIN``, ``ENTER``, ``CLEAR``,
``CLOCK``, ``NEXT`` (start the next hand when idle), ``FUNC`` (menus).
``FOLD``, ``CHECK`` and ``ALLIN`` act at once for the seat to act. A refused entry
changes nothing: the digits typed so far stay until ``CLEAR``.

The entry in progress lives in ``TableState.keypad`` so that it is journalled,
snapshotted and replayed with everything else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules import effects
from controller.rules.errors import Refusal
from controller.rules.events import Act, CallClock, StartHand

if TYPE_CHECKING:
    from controller.rules.table import Table

KEYS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
        "FOLD", "CHECK", "BET", "ALLIN", "ENTER", "CLEAR", "CLOCK", "NEXT", "FUNC")
MAX_DIGITS = 9


def entry(table: Table) -> dict[str, object]:
    return table.state.keypad


def _translate(table: Table, key: str) -> tuple[object | None, dict[str, object]]:
    """What ``key`` does: (an event to apply or None, the keypad's next entry state)."""
    if key not in KEYS:
        raise Refusal("bad_key", f"UNKNOWN KEY {key!r}")
    current = dict(table.state.keypad)
    mode = current.get("mode")
    if key == "CLEAR":
        return None, {}
    if mode == "bet":
        digits = str(current.get("digits", ""))
        if key.isdigit():
            if len(digits) >= MAX_DIGITS:
                raise Refusal("bad_key", "AMOUNT TOO LONG: CLEAR")
            if not digits and key == "0":
                raise Refusal("bad_key", "AMOUNT CANNOT START WITH 0")
            return None, {"mode": "bet", "digits": digits + key}
        if key == "ENTER":
            if not digits:
                raise Refusal("bad_key", "TYPE THE AMOUNT, THEN ENTER")
            seat = _seat_to_act(table)
            return Act(seat=seat, action="raise", to=int(digits)), {}
        raise Refusal("bad_key", "FINISH THE BET WITH ENTER, OR CLEAR")
    if key.isdigit() or key == "ENTER":
        raise Refusal("bad_key", "PRESS BET BEFORE THE AMOUNT")
    if key == "FOLD":
        return Act(seat=_seat_to_act(table), action="fold"), {}
    if key == "CHECK":
        return Act(seat=_seat_to_act(table), action="call"), {}
    if key == "ALLIN":
        return Act(seat=_seat_to_act(table), action="all_in"), {}
    if key == "BET":
        legal = table.legal()
        if legal is None:
            raise Refusal("no_action", "NO ONE IS TO ACT")
        if legal.min_raise_to is None:
            raise Refusal("raise_not_allowed", f"NO RAISE: {legal.no_raise_reason or ''}".strip())
        return None, {"mode": "bet", "digits": ""}
    if key == "CLOCK":
        return CallClock(), {}
    if key == "NEXT":
        return StartHand(), {}
    raise Refusal("bad_key", "FUNC MENUS ARE NOT AVAILABLE")


def _seat_to_act(table: Table) -> int:
    h = table.state.hand
    if h is None or h.to_act is None:
        raise Refusal("no_action", "NO ONE IS TO ACT")
    return h.to_act


def check(table: Table, key: str) -> None:
    event, _ = _translate(table, key)
    if event is not None:
        table.check(event)  # type: ignore[arg-type]


def press(table: Table, key: str) -> list[effects.Effect]:
    event, next_entry = _translate(table, key)
    out: list[effects.Effect] = []
    if event is not None:
        out = table.apply(event)  # type: ignore[arg-type]
    table.state.keypad = next_entry
    return out
