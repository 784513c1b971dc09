"""R12: the last action may be taken back while no later action exists.

Each action leaves an undo record in the state (so that it survives a snapshot): what
the action changed, and only that, so chips bought or a sit-out meanwhile stay. Any
later action, a street or hand ending, a correction or a departure clears it.
"""

from __future__ import annotations

from typing import Any

from controller.rules import betting, effects, out_of_turn
from controller.rules.errors import Refusal
from controller.rules.state import Clock, TableState
from controller.rules.text import refuse


def remember(state: TableState, seat: int) -> list[Any]:
    """The record to take back the action ``seat`` is about to take."""
    h = state.hand
    assert h is not None
    clock = state.clock
    return [
        seat, list(betting.action_fields(state.seats[seat])),
        list(betting.hand_action_fields(h)),
        [clock.seat, clock.remaining_ms, clock.warning] if clock is not None else None,
        len(h.log),
    ]


def out_of_phase() -> Refusal:
    return refuse("nothing_to_undo", "refuse.nothing_to_undo")


def check(state: TableState) -> None:
    if state.undo is None or state.hand is None:
        raise out_of_phase()
    old_hand = state.undo[2]
    out_of_turn.check_undo(state.hand, old_hand[betting.HAND_ACTION_FIELDS.index("out_of_turn")])


def apply(state: TableState) -> list[effects.Effect]:
    assert state.undo is not None
    seat, old_seat, old_hand, old_clock, log_length = state.undo
    current = state.seats[seat]
    for name, value in zip(betting.ACTION_FIELDS, old_seat, strict=True):
        setattr(current, name, value)
    h = state.hand
    assert h is not None
    for name, value in zip(betting.HAND_ACTION_FIELDS, old_hand, strict=True):
        setattr(h, name, value)
    del h.log[log_length:]
    state.clock = Clock(*old_clock) if old_clock is not None else None
    state.undo = None
    return [effects.Corrected("undo", seat)]
