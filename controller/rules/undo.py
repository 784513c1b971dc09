"""R12: the last action may be taken back while no later action exists.

Each action leaves an undo record in the state (so that it survives a snapshot): what
the action changed, and only that, so chips bought or a sit-out meanwhile stay. A
later action, a street or hand ending, a correction or a departure clears it; the
seat's own departure (a ``leave`` after its fold) is a later action of that seat, so
its undo is refused.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from controller.rules import effects, out_of_turn
from controller.rules.errors import Refusal
from controller.rules.state import (
    ACTION_FIELDS,
    HAND_ACTION_FIELDS,
    Clock,
    Hand,
    HandBefore,
    Seat,
    SeatBefore,
    TableState,
    UndoRecord,
    earlier_release,
)
from controller.rules.text import refuse

# typed here rather than cast at each call: this runs before every action
_seat_before: Callable[[Seat], SeatBefore] = operator.attrgetter(*ACTION_FIELDS)
_hand_before: Callable[[Hand], HandBefore] = operator.attrgetter(*HAND_ACTION_FIELDS)


def remember(state: TableState, seat: int) -> UndoRecord:
    """The record to take back the action ``seat`` is about to take."""
    h = state.hand
    assert h is not None
    c = state.clock
    return UndoRecord(
        seat,
        _seat_before(state.seats[seat]),
        _hand_before(h),
        Clock(c.seat, c.remaining_ms, c.warning) if c is not None else None,
        len(h.log),
    )


def out_of_phase() -> Refusal:
    return refuse("nothing_to_undo", "refuse.nothing_to_undo")


def check(state: TableState) -> None:
    if state.undo is None or state.hand is None:
        raise out_of_phase()
    clock = state.undo.clock
    if clock is not None and clock.seat == state.undo.seat and clock.remaining_ms == 0:
        # P6: the clock's expiry acted (a clock stands at zero only then): the house's
        # ruling, not a keying mistake; taking it back would leave the seat with no clock
        raise refuse("clock_acted", "refuse.undo_clock", seat=state.undo.seat)
    s = state.seats.get(state.undo.seat)
    if (s is None or s.pending_leave) and not earlier_release(state):
        # R8: the seat's leave is a later action of that seat; taking its action back
        # would put a player who left back in the hand
        raise refuse("nothing_to_undo", "refuse.undo_left", seat=state.undo.seat)
    out_of_turn.check_undo(state.hand, state.undo.hand_before[-1])  # its out_of_turn


def apply(state: TableState) -> list[effects.Effect]:
    record = state.undo
    assert record is not None
    current = state.seats[record.seat]
    for name, value in zip(ACTION_FIELDS, record.seat_before, strict=True):
        setattr(current, name, value)
    h = state.hand
    assert h is not None
    for name, before in zip(HAND_ACTION_FIELDS, record.hand_before, strict=True):
        setattr(h, name, before)
    del h.log[record.log_length :]
    old = record.clock
    state.clock = Clock(old.seat, old.remaining_ms, old.warning) if old is not None else None
    state.undo = None
    return [effects.Corrected("undo", record.seat)]
