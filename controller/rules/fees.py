"""House fees: rake with a cap and "no flop, no drop", the jackpot drop, or a time fee."""

from __future__ import annotations

from controller.rules import bust, seating
from controller.rules.effects import Effect, FeesTaken
from controller.rules.events import TimeFee
from controller.rules.settings import FeeSettings, RuleSettings
from controller.rules.state import TableState
from controller.rules.text import refuse


def hand_fees(settings: FeeSettings, pot: int, saw_flop: bool, chip: int) -> tuple[int, int]:
    """(rake, jackpot drop) taken from a hand whose pot, after uncalled bets, is ``pot``."""
    if settings.mode != "rake":
        return 0, 0
    rake = 0
    if saw_flop or not settings.no_flop_no_drop:
        rake = pot * settings.rake_percent // 100
        rake -= rake % chip
        rake = min(rake, settings.rake_cap)
    jackpot = 0
    if settings.jackpot_drop and saw_flop and pot >= settings.jackpot_min_pot:
        jackpot = min(settings.jackpot_drop, pot - rake)
    return rake, jackpot


def check_time_fee(state: TableState, settings: RuleSettings, event: TimeFee) -> None:
    """A time fee is collected from a seat's stack between its hands."""
    if settings.fees.mode != "time":
        raise refuse("no_time_fee", "refuse.no_time_fee")
    s = seating.occupied(state, settings, event.seat)
    if s.in_hand:
        raise refuse("in_hand", "refuse.time_between_hands", seat=event.seat)
    seating.check_amount(settings, event.amount)
    if event.amount > s.stack:
        raise refuse("bad_amount", "refuse.seat_has_only", seat=event.seat, amount=s.stack)


def take_time_fee(state: TableState, settings: RuleSettings, event: TimeFee) -> list[Effect]:
    """The fee leaves the stack; a stack left with no chip that plays is busted
    (``bust``), as at the end of a hand, after a tip or a transfer."""
    state.seats[event.seat].stack -= event.amount
    state.time_fees_total += event.amount
    out: list[Effect] = [FeesTaken(0, 0)]
    return out + bust.chips_left(state, settings, [event.seat], fee=True)
