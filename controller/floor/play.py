"""What the rules did, in poker terms: the play-by-play messages of one accepted event.

`messages.py` says which event arrived and what it changed; this module says what the
rules *did*, from the effects the rules core returned (`controller.rules.effects`), so
the floor reads the same messages whatever the input path: keys on the keypad
(`BET 3 0 ENTER`), an `act` event from the console, a replayed file.

=========  ==========  ===================================================================
leaf       kind        one per
=========  ==========  ===================================================================
actions    action      betting action: seat, action, chips put in, total `to`, who keyed it
actions    award       paid hand: each pot with its winners and shares, fees, returned bets
actions    correction  undo, dealt-in-error ruling
seats      seat        seat change: sat, leaving, left, sat_out, sat_in, moving, moved,
                       chips_pending, chips, busted, freed; and `open` for each seat the
                       event emptied (a waitlist system can call the next player)
clock      clock       action clock called, started (shot clock), extended (a time bank),
                       warned, expired
=========  ==========  ===================================================================

Pure: `play_messages` returns `(leaf, kind, body)` triples and never raises on odd
input (an unknown effect is skipped). The effects may be the rules core's dataclasses
or anything with the same attribute names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

PlayMessage = tuple[str, str, dict[str, Any]]

#: Why a hand ended, as `hand_end.ended_by` says it.
ENDINGS: Final = ("award", "fold", "clock", "misdeal", "leave")

#: What a seat change says (`seat.change`); `open`: the seat is empty now.
SEAT_CHANGES: Final = (
    "sat",
    "leaving",
    "left",
    "sat_out",
    "sat_in",
    "moving",
    "moved",
    "chips_pending",
    "chips",
    "busted",
    "freed",
    "open",
)


def _name(effect: Any) -> str:
    return type(effect).__name__


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _seats(state: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    seats = state.get("seats")
    if not isinstance(seats, Mapping):
        return {}
    return {str(k): v for k, v in seats.items() if isinstance(v, Mapping)}


def _seat_order(seat: str) -> tuple[int, str]:
    return (int(seat), "") if seat.isdigit() else (1 << 30, seat)


def ended_by(rules_type: str | None, effects: Iterable[Any] | None) -> str | None:
    """The real cause of a hand's end: `award` (the pots keyed or sent), `fold` (the
    last opponent folded), `clock` (an expiry folded the last opponent), `misdeal`
    (the hand is void), `leave` (the last opponent left the table). Without effects
    (an old caller), the input's type read the same way."""
    if effects is None:
        return {
            "act": "fold",
            "tick": "clock",
            "award": "award",
            "misdeal": "misdeal",
            "leave": "leave",
            "push": "fold",
        }.get(rules_type or "", rules_type)
    effects = list(effects)
    names = [_name(e) for e in effects]
    for effect in effects:
        if _name(effect) == "HandEnded" and getattr(effect, "voided", False):
            return "misdeal"
    if "ClockExpired" in names:
        return "clock"
    if rules_type == "award":
        return "award"
    if rules_type == "leave":
        return "leave"
    return "fold"


def play_messages(
    rules_event: Mapping[str, Any] | None,
    effects: Iterable[Any],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    *,
    by: str | None,
) -> list[PlayMessage]:
    """The play-by-play of one accepted event. `rules_event`: what the input amounted
    to (for a key, the event the keypad made of it; None when it made none)."""
    effects = list(effects)
    rules_type = rules_event.get("type") if isinstance(rules_event, Mapping) else None
    seats_before, seats_after = _seats(before), _seats(after)
    hand, phase = before.get("hand"), before.get("phase")
    bets = {s: _int(v.get("bet")) for s, v in seats_before.items()}
    stacks = {s: _int(v.get("stack")) for s, v in seats_before.items()}
    out: list[PlayMessage] = []
    award: dict[str, Any] | None = None
    award_at = 0
    returned: dict[str, int] = {}
    fees: dict[str, int] | None = None
    street = phase
    expired = False
    moved = False  # an action has been taken in this event
    for effect in effects:
        name = _name(effect)
        if name == "Posted":
            seat = str(getattr(effect, "seat", ""))
            live = _int(getattr(effect, "live", 0))
            bets[seat] = bets.get(seat, 0) + live
            stacks[seat] = stacks.get(seat, 0) - live - _int(getattr(effect, "dead", 0))
        elif name == "StreetDealt":
            bets = dict.fromkeys(bets, 0)
            street = getattr(effect, "street", street)
        elif name == "Acted":
            seat = str(getattr(effect, "seat", ""))
            action = getattr(effect, "action", None)
            total = _int(getattr(effect, "total", 0))
            put_in = 0 if action == "fold" else max(0, total - bets.get(seat, 0))
            bets[seat] = total
            stacks[seat] = stacks.get(seat, 0) - put_in
            cause = (
                "clock"
                if expired
                else {"tick": "clock", "leave": "leave", "push": "push"}.get(
                    rules_type or "", "act"
                )
            )
            acted: dict[str, Any] = {
                "hand": hand,
                "phase": street,
                "seat": _seat_value(seat),
                "player": seats_before.get(seat, {}).get("player"),
                "action": action,
                "amount": put_in,
                "to": total,
                "all_in": action != "fold" and stacks[seat] == 0,
            }
            full_raise = getattr(effect, "full_raise", None)
            if action in ("bet", "raise") and isinstance(full_raise, bool):
                acted["full_raise"] = full_raise  # False: a short all-in, not reopening
            acted.update({"stack": stacks[seat], "cause": cause, "by": by})
            out.append(("actions", "action", acted))
            expired = False
            moved = True
        elif name == "UncalledReturned":
            seat = str(getattr(effect, "seat", ""))
            amount = _int(getattr(effect, "amount", 0))
            returned[seat] = returned.get(seat, 0) + amount
            stacks[seat] = stacks.get(seat, 0) + amount
        elif name == "FeesTaken":
            fees = {
                "rake": _int(getattr(effect, "rake", 0)),
                "jackpot": _int(getattr(effect, "jackpot", 0)),
            }
        elif name == "PotAwarded":
            if award is None:
                award = {"hand": hand, "pots": []}
                award_at = len(out)  # told where the pots were paid: before the busts
            shares = {
                str(seat): _int(amount) for seat, amount in getattr(effect, "shares", ()) or ()
            }
            award["pots"].append(
                {
                    "index": _int(getattr(effect, "index", 0)),
                    "amount": _int(getattr(effect, "amount", 0)),
                    "winners": [_seat_value(s) for s in shares],
                    "shares": shares,
                }
            )
        elif name in ("ClockStarted", "ClockWarning", "ClockExpired"):
            # a tick restarting the running clock of the same seat before anyone acts:
            # its time bank; any other start is the shot clock timing the next decision
            clock_before = before.get("clock")
            extends = (
                rules_type == "tick"
                and not moved
                and isinstance(clock_before, Mapping)
                and clock_before.get("seat") == getattr(effect, "seat", None)
            )
            started = (
                "called" if rules_type == "call_clock" else "extended" if extends else "started"
            )
            what = {"ClockStarted": started, "ClockWarning": "warning", "ClockExpired": "expired"}[
                name
            ]
            body: dict[str, Any] = {
                "hand": hand,
                "seat": getattr(effect, "seat", None),
                "clock": what,
            }
            if name == "ClockExpired":
                body["action"] = getattr(effect, "action", None)
                body["remaining_ms"] = 0
                expired = True
            else:
                body["remaining_ms"] = _int(getattr(effect, "remaining_ms", 0))
            body["by"] = by if what == "called" else None
            out.append(("clock", "clock", body))
        elif name == "SeatChanged":
            out.append(("seats", "seat", _seat_change(effect, seats_before, seats_after, by)))
        elif name == "Corrected":
            out.append(
                (
                    "actions",
                    "correction",
                    {
                        "hand": hand,
                        "correction": getattr(effect, "kind", None),
                        "seat": getattr(effect, "seat", None),
                        "by": by,
                    },
                )
            )
    if award is not None:
        award["ended_by"] = ended_by(rules_type, effects)
        award["ranking"] = (
            rules_event.get("ranking")
            if rules_type == "award" and isinstance(rules_event, Mapping)
            else None
        )
        award["returned"] = returned
        award["fees"] = fees or {"rake": 0, "jackpot": 0}
        award["by"] = by
        out.insert(award_at, ("actions", "award", award))
    for seat in sorted(seats_before.keys() - seats_after.keys(), key=_seat_order):
        out.append(
            (
                "seats",
                "seat",
                {
                    "seat": _seat_value(seat),
                    "change": "open",
                    "player": None,
                    "stack": None,
                    "by": by,
                },
            )
        )
    return out


def _seat_value(seat: str) -> int | str:
    return int(seat) if seat.isdigit() else seat


def _seat_change(
    effect: Any,
    before: Mapping[str, Mapping[str, Any]],
    after: Mapping[str, Mapping[str, Any]],
    by: str | None,
) -> dict[str, Any]:
    seat = str(getattr(effect, "seat", ""))
    change = getattr(effect, "change", None)
    now = after.get(seat) or before.get(seat) or {}
    gone = seat not in after
    body: dict[str, Any] = {
        "seat": _seat_value(seat),
        "change": change,
        "player": now.get("player"),
        "stack": None if gone else now.get("stack"),
        "by": by,
    }
    if change == "moved":
        player = now.get("player")
        origin = next(
            (
                s
                for s, v in before.items()
                if s != seat
                and v.get("player") == player
                and (s not in after or after[s].get("player") != player)
            ),
            None,
        )
        body["from"] = _seat_value(origin) if origin is not None else None
    return body
