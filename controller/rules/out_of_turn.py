"""R10 with ``game.out_of_turn: record``: actions keyed out of turn wait for the seat's turn.

Theory of operation. An ``act`` for a seat that still has to act on this street, but
is not the seat to act, is recorded in ``Hand.out_of_turn`` as pending, with where the
hand log stood and the wager the seat faced. When the action reaches that seat, the
record is settled before anything else happens:

- binding when every seat that acted in between checked or folded and the wager is
  the same: the recorded action is carried out as if keyed now (if it is still legal);
- void otherwise (someone bet, called or raised): the seat acts afresh.

A check keyed out of turn holds the seat to it for the rest of the street: whether the
record was binding or void, that seat may not bet or raise on this street (it may still
call or fold). With ``out_of_turn: reject`` (the default) nothing here is used.

Records are replaced, never mutated in place: the engine's undo keeps a shallow copy of
the hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from controller.rules import betting, effects
from controller.rules.events import Act
from controller.rules.records import Action, OutOfTurnEntry, OutOfTurnStatus
from controller.rules.settings import RuleSettings
from controller.rules.state import Hand, TableState
from controller.rules.text import refuse

PASSIVE = ("check", "fold")


@dataclass(frozen=True, slots=True)
class OutOfTurnRecorded(effects.Effect):
    """An action keyed out of turn was recorded for the seat, to be settled when its turn comes
    (R10)."""

    seat: int
    action: Action
    to: int | None


@dataclass(frozen=True, slots=True)
class OutOfTurnSettled(effects.Effect):
    """A recorded out-of-turn action was settled: binding (it stands) or not (R10)."""

    seat: int
    binding: bool


@dataclass(frozen=True, slots=True)
class RightToActLost(effects.Effect):
    """R11: three or more players acted (out of turn) behind the seat to act before it
    stopped the action: it lost its right to act; ``action``: check, or fold facing a bet."""

    seat: int
    action: Action


#: R11: how many players acting behind the seat to act cost it its right to act
ACTED_BEHIND = 3


def right_to_act_lost(state: TableState, settings: RuleSettings) -> RightToActLost | None:
    """R11 (``game.lose_right_to_act``): the seat to act let three or more players act
    behind it, out of turn, while it was its turn (records keyed since its turn began:
    a player waiting for someone whose turn came first keeps the right, 004 #11). It is
    then checked if it may check, else folded."""
    h = state.hand
    if not settings.game.lose_right_to_act or h is None or h.to_act is None:
        return None
    behind = [
        r
        for r in h.out_of_turn
        if r["status"] == "pending" and r["street"] == h.street and r["log_at"] == len(h.log)
    ]
    if len(behind) < ACTED_BEHIND:
        return None
    may_check = betting.legal_for(h, state.seats, h.to_act, settings.game).check
    return RightToActLost(h.to_act, "check" if may_check else "fold")


def pending(hand: Hand, seat: int) -> OutOfTurnEntry | None:
    for record in hand.out_of_turn:
        if (
            record["seat"] == seat
            and record["status"] == "pending"
            and record["street"] == hand.street
        ):
            return record
    return None


def held_to_check(hand: Hand, seat: int) -> bool:
    """The seat checked out of turn on this street: it may not bet or raise (R10)."""
    return any(
        r["seat"] == seat and r["street"] == hand.street and r["action"] == "check"
        for r in hand.out_of_turn
    )


def check_record(state: TableState, settings: RuleSettings, event: Act) -> tuple[str, int]:
    """Refuse an out-of-turn action that cannot be recorded; else (kind, total)."""
    h = state.hand
    assert h is not None and h.to_act is not None
    seat = state.seats.get(event.seat)
    if seat is None or not betting.needs_to_act(h, state.seats, event.seat):
        raise refuse("not_your_turn", "refuse.not_your_turn", seat=event.seat, to_act=h.to_act)
    if pending(h, event.seat) is not None:
        raise refuse("out_of_turn", "refuse.already_out_of_turn", seat=event.seat)
    kind, total = betting.check_action(
        h, state.seats, event.seat, event.action, event.to, settings.game
    )
    check_held(h, event.seat, kind)
    return kind, total


def check_held(hand: Hand, seat: int, kind: str) -> None:
    if kind in ("bet", "raise") and held_to_check(hand, seat):
        raise refuse("raise_not_allowed", "refuse.held_to_check", seat=seat)


def check_undo(hand: Hand, records_then: list[OutOfTurnEntry]) -> None:
    """R12 with R10: an action keyed out of turn after the last action is a later
    action, so the last action can no longer be taken back (the undo would drop the
    record). ``records_then``: the hand's records when that action was taken; records
    are only ever added at the end (``record``), settled ones keep their place."""
    later = hand.out_of_turn[len(records_then) :]
    if later:
        raise refuse("nothing_to_undo", "refuse.out_of_turn_since", seat=later[0]["seat"])


def record(state: TableState, settings: RuleSettings, event: Act) -> list[effects.Effect]:
    h = state.hand
    assert h is not None
    kind, total = check_record(state, settings, event)
    action = "check" if kind == "check" else event.action
    to = total if kind in ("bet", "raise") else None
    entry: OutOfTurnEntry = {
        "seat": event.seat,
        "action": action,
        "to": to,
        "street": h.street,
        "log_at": len(h.log),
        "facing": h.current_bet,
        "status": "pending",
    }
    h.out_of_turn = [*h.out_of_turn, entry]
    return [OutOfTurnRecorded(event.seat, action, to)]


def due(state: TableState) -> OutOfTurnEntry | None:
    """The pending record of the seat now to act, if any."""
    h = state.hand
    if h is None or h.to_act is None:
        return None
    return pending(h, h.to_act)


def is_binding(hand: Hand, entry: OutOfTurnEntry) -> bool:
    between = [a for a in hand.log[entry["log_at"] :] if a["street"] == entry["street"]]
    return hand.current_bet == entry["facing"] and all(a["action"] in PASSIVE for a in between)


def settle(state: TableState, entry: OutOfTurnEntry, binding: bool) -> effects.Effect:
    """Mark the record bound or void (the caller carries out a binding action)."""
    h = state.hand
    assert h is not None
    status: OutOfTurnStatus = "bound" if binding else "void"
    h.out_of_turn = [_with_status(r, status) if r is entry else r for r in h.out_of_turn]
    return OutOfTurnSettled(entry["seat"], binding)


def _with_status(entry: OutOfTurnEntry, status: OutOfTurnStatus) -> OutOfTurnEntry:
    changed = entry.copy()
    changed["status"] = status
    return changed


class PendingView(TypedDict):
    """A pending out-of-turn action in the state view."""

    seat: int
    action: Action
    to: int | None


def public(hand: Hand | None) -> list[PendingView]:
    """The pending records, for the state view."""
    if hand is None:
        return []
    return [
        {"seat": r["seat"], "action": r["action"], "to": r["to"]}
        for r in hand.out_of_turn
        if r["status"] == "pending" and r["street"] == hand.street
    ]
