"""What one event changed at the table, read from the states around it.

`messages.py` builds the floor messages; this module reads what goes in them from the
state dicts before and after the event (docs/replay.md, "The state"), the event's result and
the chip tray's reconciliation reports: the fields the event changed (`state_changes`),
a hand it ended or started (`hand_end`, `hand_start`), a supervisor's transfers
(`transfers`, `transfer_body`) and a tray discrepancy raised, changed or cleared
(`tray_change`). Pure, and it never raises on odd input shapes: a floor message must
never stop a table. `value_of` and `int_or_none` read a mapping or an object the same
way, for `messages.py` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

_TOP_FIELDS: Final = (
    "hand",
    "phase",
    "button",
    "small_blind",
    "big_blind",
    "to_act",
    "pot_total",
    "play_stopped",
)
_SEAT_FIELDS: Final = ("player", "stack", "bet", "status", "missed")
_WHOLE_FIELDS: Final = ("pots", "fees", "showdown_order", "clock", "tray")
# What moves with time alone (a whole field, or one key of it): a tick that changes
# nothing else is not news, and does not refresh the retained state.
_COUNTDOWN: Final = {
    "display": None,
    "display_text": None,
    "clock": "remaining_ms",
    "tray": "unchanged_ms",
}
_IN_HAND: Final = frozenset({"playing", "all_in", "folded"})


def value_of(source: Any, name: str, default: Any = None) -> Any:
    """A mapping's key or an object's attribute (records and results come as either)."""
    if isinstance(source, Mapping):
        return source.get(name, default)
    return getattr(source, name, default)


def int_or_none(value: Any) -> int | None:
    """The value if it is an int (a bool is not), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _seats(state: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    seats = state.get("seats")
    if not isinstance(seats, Mapping):
        return {}
    return {str(k): v for k, v in seats.items() if isinstance(v, Mapping)}


def _seat_number(seat: str) -> int | None:
    return int(seat) if seat.isascii() and seat.isdigit() else None


def _seat_key(seat: str) -> tuple[int, str]:
    number = _seat_number(seat)
    return (number, "") if number is not None else (1 << 30, seat)


def _without_countdown(state: Mapping[str, Any]) -> dict[str, Any]:
    material = {}
    for field, value in state.items():
        if field in _COUNTDOWN:
            key = _COUNTDOWN[field]
            if key is None:
                continue
            if isinstance(value, Mapping):
                value = {k: v for k, v in value.items() if k != key}
        material[field] = value
    return material


def state_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """What the event changed, each as [before, after]; the countdown and display aside."""
    material_before, material_after = _without_countdown(before), _without_countdown(after)
    if material_before == material_after:
        return {}
    changes: dict[str, Any] = {}
    for field in _TOP_FIELDS:
        if before.get(field) != after.get(field):
            changes[field] = [before.get(field), after.get(field)]
    seats_before, seats_after = _seats(before), _seats(after)
    seat_changes = {}
    for seat in sorted(seats_before.keys() | seats_after.keys(), key=_seat_key):
        old, new = seats_before.get(seat, {}), seats_after.get(seat, {})
        diff = {f: [old.get(f), new.get(f)] for f in _SEAT_FIELDS if old.get(f) != new.get(f)}
        if diff:
            seat_changes[seat] = diff
    if seat_changes:
        changes["seats"] = seat_changes
    for field in _WHOLE_FIELDS:
        if material_before.get(field) != material_after.get(field):
            changes[field] = [before.get(field), after.get(field)]
    if not changes:
        # Something the project added to the state changed: say so without guessing.
        changes["other"] = sorted(
            k
            for k in material_before.keys() | material_after.keys()
            if material_before.get(k) != material_after.get(k)
        )
    return changes


def _phase(state: Mapping[str, Any]) -> str | None:
    phase = state.get("phase")
    return phase if isinstance(phase, str) else None


def ends_hand(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    return _phase(before) not in (None, "idle") and _phase(after) == "idle"


def starts_hand(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    hand_before = int_or_none(before.get("hand")) or 0
    hand_after = int_or_none(after.get("hand"))
    return hand_after is not None and hand_after > hand_before and _phase(after) != "idle"


def _positions(state: Mapping[str, Any]) -> dict[str, Any]:
    return {f: state.get(f) for f in ("button", "small_blind", "big_blind")}


def _amount(value: Any) -> int:
    return int_or_none(value) or 0


def hand_start(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    seats_before, seats_after = _seats(before), _seats(after)
    dealt_in = [
        s
        for s in sorted(seats_after, key=_seat_key)
        if seats_after[s].get("status") in ("playing", "all_in")
    ]
    blinds = {str(after.get("small_blind")): "small", str(after.get("big_blind")): "big"}
    posts = {
        seat: {"amount": _amount(seats_after[seat].get("bet")), "blind": blinds.get(seat, "other")}
        for seat in dealt_in
        if _amount(seats_after[seat].get("bet")) > 0
    }
    pots = after.get("pots")
    dead = sum(_amount(value_of(p, "amount")) for p in pots) if isinstance(pots, list) else 0
    return {
        "hand": after.get("hand"),
        **_positions(after),
        "dealt_in": [n if (n := _seat_number(s)) is not None else s for s in dealt_in],
        "players": {s: seats_after[s].get("player") for s in dealt_in},
        "stacks": {s: seats_before.get(s, seats_after[s]).get("stack") for s in dealt_in},
        "posts": posts,
        "antes": _antes(after, dealt_in),
        "dead_money": dead,
        "dealer": after.get("hand_dealer"),
    }


def _antes(after: Mapping[str, Any], dealt_in: list[str]) -> dict[str, int]:
    """Each dealt seat's ante (the state's ``antes``: none from a state without it)."""
    antes = after.get("antes")
    if not isinstance(antes, Mapping):
        return {}
    return {s: _amount(antes.get(s)) for s in dealt_in if _amount(antes.get(s)) > 0}


def hand_end(
    cause: str | None, result: Any, before: Mapping[str, Any], after: Mapping[str, Any]
) -> dict[str, Any]:
    seats_before, seats_after = _seats(before), _seats(after)
    in_hand = [
        s for s in sorted(seats_before, key=_seat_key) if seats_before[s].get("status") in _IN_HAND
    ]
    reported = value_of(result, "awards")
    if isinstance(reported, Mapping):
        awards = {str(k): _amount(v) for k, v in reported.items()}
    else:
        # What each seat's stack gained across the ending event: pots won, or chips
        # returned (an uncalled bet, a misdeal). Checked by `reconciled` below.
        awards = {}
        for seat in in_hand:
            if seat in seats_after:
                gained = _amount(seats_after[seat].get("stack")) - _amount(
                    seats_before[seat].get("stack")
                )
                if gained > 0:
                    awards[seat] = gained
    fees = after.get("fees") if isinstance(after.get("fees"), Mapping) else {}
    pot_total = int_or_none(before.get("pot_total"))
    taken = _amount(value_of(fees, "rake")) + _amount(value_of(fees, "jackpot"))
    return {
        "hand": before.get("hand"),
        "ended_by": cause,
        "void": cause == "misdeal",
        **_positions(before),
        "players": {s: seats_before[s].get("player") for s in in_hand},
        "pot_total": pot_total,
        "pots": before.get("pots"),
        "bets": {s: b for s in in_hand if (b := _amount(seats_before[s].get("bet"))) > 0},
        "fees": fees,
        "awards": awards,
        "stacks": {s: seats_after[s].get("stack") for s in in_hand if s in seats_after},
        "dealer": before.get("hand_dealer"),
        # The pot is fully accounted for: what the seats got plus the fees taken.
        "reconciled": pot_total is not None and sum(awards.values()) + taken == pot_total,
    }


def transfers(result: Any) -> list[Mapping[str, Any]]:
    made = value_of(result, "transfers")
    if not isinstance(made, list):
        return []
    return [t for t in made if isinstance(t, Mapping)]


def transfer_body(
    transfer: Mapping[str, Any], event: Any, after: Mapping[str, Any]
) -> dict[str, Any]:
    """A supervisor's transfer between hands: who gave, who got, how much, why, by whom
    (the event's own ``by`` when the effect does not say), and the two stacks after."""
    seats = _seats(after)
    pair = [str(transfer.get("from")), str(transfer.get("to"))]
    by = transfer.get("by")
    if by is None and isinstance(event, Mapping):
        by = event.get("by")
    return {
        "hand": after.get("hand"),
        "from": transfer.get("from"),
        "to": transfer.get("to"),
        "amount": transfer.get("amount"),
        "reason": transfer.get("reason"),
        "by": by,
        "players": {s: seats[s].get("player") for s in pair if s in seats},
        "stacks": {s: seats[s].get("stack") for s in pair if s in seats},
    }


def _tray_signal(report: Mapping[str, Any] | None) -> tuple[bool, int | None]:
    """(is there a discrepancy to report, the difference) of one reconciliation."""
    if not isinstance(report, Mapping):
        return False, None
    difference = int_or_none(report.get("difference"))
    if difference is None:
        expected = int_or_none(report.get("expected"))
        counted = int_or_none(report.get("counted"))
        if expected is not None and counted is not None:
            difference = counted - expected
    alarm = report.get("alarm")
    if isinstance(alarm, bool):
        return alarm, difference
    return bool(difference), difference


def tray_change(
    before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """A discrepancy raised, changed or cleared (acknowledged or put right) by the event."""
    if after is None:
        return None
    was, was_difference = _tray_signal(before)
    now, difference = _tray_signal(after)
    if now == was and (not now or difference == was_difference):
        return None
    return {"discrepancy": difference, "alarm": now, "resolved": not now, "report": after}
