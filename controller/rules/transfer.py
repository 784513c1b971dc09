"""A supervisor's correction after the hand: chips moved from one seat's stack to
another's (the ``transfer`` event of docs/replay.md), when a pot was paid to the wrong
player or chips ended up in front of the wrong seat.

Only between hands (a hand's chips are put right by ``undo`` or a void while it is
played), between two occupied seats, a positive multiple of the smallest chip and no
more than the giver's stack (nor taking the other past ``MAX_AMOUNT``), for a reason
from ``TRANSFER_REASONS``. Chips are conserved: what one stack loses the other gains,
nothing goes to or from the tray.
A giver left with no chips to play is busted as after a hand (``bust``).
"""

from __future__ import annotations

from controller.rules import bust, effects
from controller.rules.errors import Refusal
from controller.rules.events import Transfer
from controller.rules.seating import check_stack_limit, occupied
from controller.rules.settings import RuleSettings
from controller.rules.state import TableState
from controller.rules.text import refuse


def out_of_phase() -> Refusal:
    """The refusal of a transfer during a hand (the engine accepts it only between hands)."""
    return refuse("hand_in_progress", "refuse.transfer_between_hands")


def check(state: TableState, settings: RuleSettings, event: Transfer) -> None:
    giver = occupied(state, settings, event.from_seat)
    taker = occupied(state, settings, event.to_seat)
    if event.from_seat == event.to_seat:
        raise refuse("bad_transfer", "refuse.transfer_same_seat", seat=event.from_seat)
    chip = settings.game.smallest_chip
    if event.amount <= 0 or event.amount % chip:
        raise refuse("bad_amount", "refuse.chip_units", amount=chip)
    if event.amount > giver.stack:
        raise refuse("bad_amount", "refuse.seat_has_only", seat=event.from_seat, amount=giver.stack)
    check_stack_limit(event.to_seat, taker.stack + taker.pending_chips, event.amount)


def apply(state: TableState, settings: RuleSettings, event: Transfer) -> list[effects.Effect]:
    giver, taker = state.seats[event.from_seat], state.seats[event.to_seat]
    giver.stack -= event.amount
    taker.stack += event.amount
    state.payouts = []  # the display's payouts no longer say how the chips lie
    state.paid_to = None
    out: list[effects.Effect] = [
        effects.Transferred(event.from_seat, event.to_seat, event.amount, event.reason, event.by)
    ]
    return out + bust.chips_left(state, settings, [event.from_seat])
