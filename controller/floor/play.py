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

from collections.abc import Callable, Iterable, Mapping
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
    play = _Play(rules_event, before, after, by)
    for effect in effects:
        step = _STEPS.get(_name(effect))
        if step is not None:
            step(play, effect)
    play.add_award(effects)
    for seat in sorted(play.seats_before.keys() - play.seats_after.keys(), key=_seat_order):
        play.out.append(
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
    return play.out


class _Play:
    """The play-by-play of one event as its effects are read, in order: each seat's bet
    and stack as they move, the betting round, the award being gathered."""

    def __init__(
        self,
        rules_event: Mapping[str, Any] | None,
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        by: str | None,
    ) -> None:
        self.rules_event = rules_event
        self.rules_type = rules_event.get("type") if isinstance(rules_event, Mapping) else None
        self.before, self.by = before, by
        self.seats_before, self.seats_after = _seats(before), _seats(after)
        self.hand, self.street = before.get("hand"), before.get("phase")
        self.bets = {s: _int(v.get("bet")) for s, v in self.seats_before.items()}
        self.stacks = {s: _int(v.get("stack")) for s, v in self.seats_before.items()}
        self.out: list[PlayMessage] = []
        self.award: dict[str, Any] | None = None
        self.award_at = 0
        self.returned: dict[str, int] = {}
        self.fees: dict[str, int] | None = None
        self.expired = False
        self.moved = False  # an action has been taken in this event

    def posted(self, effect: Any) -> None:
        seat = str(getattr(effect, "seat", ""))
        live = _int(getattr(effect, "live", 0))
        self.bets[seat] = self.bets.get(seat, 0) + live
        self.stacks[seat] = self.stacks.get(seat, 0) - live - _int(getattr(effect, "dead", 0))

    def street_dealt(self, effect: Any) -> None:
        self.bets = dict.fromkeys(self.bets, 0)
        self.street = getattr(effect, "street", self.street)

    def acted(self, effect: Any) -> None:
        seat = str(getattr(effect, "seat", ""))
        action = getattr(effect, "action", None)
        total = _int(getattr(effect, "total", 0))
        put_in = 0 if action == "fold" else max(0, total - self.bets.get(seat, 0))
        self.bets[seat] = total
        self.stacks[seat] = self.stacks.get(seat, 0) - put_in
        cause = (
            "clock"
            if self.expired
            else {"tick": "clock", "leave": "leave", "push": "push"}.get(
                self.rules_type or "", "act"
            )
        )
        acted: dict[str, Any] = {
            "hand": self.hand,
            "phase": self.street,
            "seat": _seat_value(seat),
            "player": self.seats_before.get(seat, {}).get("player"),
            "action": action,
            "amount": put_in,
            "to": total,
            "all_in": action != "fold" and self.stacks[seat] == 0,
        }
        full_raise = getattr(effect, "full_raise", None)
        if action in ("bet", "raise") and isinstance(full_raise, bool):
            acted["full_raise"] = full_raise  # False: a short all-in, not reopening
        acted.update({"stack": self.stacks[seat], "cause": cause, "by": self.by})
        self.out.append(("actions", "action", acted))
        self.expired = False
        self.moved = True

    def uncalled_returned(self, effect: Any) -> None:
        seat = str(getattr(effect, "seat", ""))
        amount = _int(getattr(effect, "amount", 0))
        self.returned[seat] = self.returned.get(seat, 0) + amount
        self.stacks[seat] = self.stacks.get(seat, 0) + amount

    def fees_taken(self, effect: Any) -> None:
        self.fees = {
            "rake": _int(getattr(effect, "rake", 0)),
            "jackpot": _int(getattr(effect, "jackpot", 0)),
        }

    def pot_awarded(self, effect: Any) -> None:
        if self.award is None:
            self.award = {"hand": self.hand, "pots": []}
            self.award_at = len(self.out)  # told where the pots were paid: before the busts
        shares = {str(seat): _int(amount) for seat, amount in getattr(effect, "shares", ()) or ()}
        self.award["pots"].append(
            {
                "index": _int(getattr(effect, "index", 0)),
                "amount": _int(getattr(effect, "amount", 0)),
                "winners": [_seat_value(s) for s in shares],
                "shares": shares,
            }
        )

    def clock(self, effect: Any) -> None:
        name = _name(effect)
        # a tick restarting the running clock of the same seat before anyone acts:
        # its time bank; any other start is the shot clock timing the next decision
        clock_before = self.before.get("clock")
        extends = (
            self.rules_type == "tick"
            and not self.moved
            and isinstance(clock_before, Mapping)
            and clock_before.get("seat") == getattr(effect, "seat", None)
        )
        started = (
            "called" if self.rules_type == "call_clock" else "extended" if extends else "started"
        )
        what = {"ClockStarted": started, "ClockWarning": "warning", "ClockExpired": "expired"}[name]
        body: dict[str, Any] = {
            "hand": self.hand,
            "seat": getattr(effect, "seat", None),
            "clock": what,
        }
        if name == "ClockExpired":
            body["action"] = getattr(effect, "action", None)
            body["remaining_ms"] = 0
            self.expired = True
        else:
            body["remaining_ms"] = _int(getattr(effect, "remaining_ms", 0))
        body["by"] = self.by if what == "called" else None
        self.out.append(("clock", "clock", body))

    def seat_changed(self, effect: Any) -> None:
        self.out.append(
            ("seats", "seat", _seat_change(effect, self.seats_before, self.seats_after, self.by))
        )

    def corrected(self, effect: Any) -> None:
        self.out.append(
            (
                "actions",
                "correction",
                {
                    "hand": self.hand,
                    "correction": getattr(effect, "kind", None),
                    "seat": getattr(effect, "seat", None),
                    "by": self.by,
                },
            )
        )

    def add_award(self, effects: list[Any]) -> None:
        """The award, told where its first pot was paid (before the busts)."""
        award = self.award
        if award is None:
            return
        award["ended_by"] = ended_by(self.rules_type, effects)
        award["ranking"] = (
            self.rules_event.get("ranking")
            if self.rules_type == "award" and isinstance(self.rules_event, Mapping)
            else None
        )
        award["returned"] = self.returned
        award["fees"] = self.fees or {"rake": 0, "jackpot": 0}
        award["by"] = self.by
        self.out.insert(self.award_at, ("actions", "award", award))


#: What each effect (by its class name) adds to the play-by-play; one not listed, none.
_STEPS: Final[dict[str, Callable[[_Play, Any], None]]] = {
    "Posted": _Play.posted,
    "StreetDealt": _Play.street_dealt,
    "Acted": _Play.acted,
    "UncalledReturned": _Play.uncalled_returned,
    "FeesTaken": _Play.fees_taken,
    "PotAwarded": _Play.pot_awarded,
    "ClockStarted": _Play.clock,
    "ClockWarning": _Play.clock,
    "ClockExpired": _Play.clock,
    "SeatChanged": _Play.seat_changed,
    "Corrected": _Play.corrected,
}


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
