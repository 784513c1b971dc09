"""A misdeal (B7, the ``misdeal`` event of docs/replay.md): the hand in progress is void.

Every chip of the hand goes back where it was before the hand; the next hand deals the
voided hand's plan again (same button, blinds and seats: a player who sat down
meanwhile waits). Seats not dealt in keep what happened to them meanwhile (chips
bought, a time fee paid, a departure, a seat change), and so do the devices, the
ledger and table time: the voided hand still counts in ``hand``.
"""

from __future__ import annotations

from controller.rules import effects, hand
from controller.rules.errors import Refusal
from controller.rules.positions import plan_hand, plan_to_dict
from controller.rules.settings import RuleSettings
from controller.rules.state import TableState
from controller.rules.text import refuse


def out_of_phase() -> Refusal:
    return refuse("no_hand", "refuse.no_hand_to_void")


def check(state: TableState) -> None:
    if state.hand is None or state.before_hand is None:
        raise out_of_phase()


def void(state: TableState, settings: RuleSettings) -> tuple[TableState, list[effects.Effect]]:
    """The table as it was before the hand, with what the hand did not touch kept;
    and the effects (the hand ended void, then what waited for the hand to end)."""
    current = state
    assert current.before_hand is not None and current.hand is not None
    dealt = set(current.hand.dealt)
    restored = TableState.from_dict(current.before_hand.to_dict())
    restored.hand_number = current.hand_number
    restored.puck, restored.tray, restored.keypad = current.puck, current.tray, current.keypad
    restored.elapsed_ms, restored.tray_read = current.elapsed_ms, current.tray_read
    restored.tray_since_ms = current.tray_since_ms
    restored.tray_moves, restored.tray_acks = current.tray_moves, current.tray_acks
    restored.bought_in, restored.cashed_out = current.bought_in, current.cashed_out
    restored.time_fees_total = current.time_fees_total
    restored.payouts = current.payouts  # none: the voided hand paid nothing
    restored.play_stopped = current.play_stopped
    restored.dealer, restored.dealer_since_ms = current.dealer, current.dealer_since_ms
    restored.hand_dealer = current.hand_dealer
    restored.push_due, restored.tips_total = current.push_due, current.tips_total
    restored.shift, restored.shifts = current.shift, current.shifts  # the hand still counts
    seats = {}
    for number, seat in current.seats.items():
        old = restored.seats.get(number)
        if number not in dealt or old is None:
            if old is not None and old.player == seat.player:
                # the voided hand's plan gave these; the replayed hand decides again
                seat.missed_small, seat.missed_big = old.missed_small, old.missed_big
                seat.wait_hands = old.wait_hands
                seat.absent_hands = old.absent_hands
            seats[number] = seat
            continue
        old.pending_chips = seat.pending_chips
        old.pending_sit_out, old.pending_leave = seat.pending_sit_out, seat.pending_leave
        old.pending_move, old.pending_move_entry = seat.pending_move, seat.pending_move_entry
        seats[number] = old
    restored.seats = seats
    # B7: the re-deal keeps the voided hand's plan; a plan depends only on the table
    # before the hand, so it is made again from there
    voided = TableState.from_dict(current.before_hand.to_dict())
    try:
        restored.redeal = plan_to_dict(plan_hand(voided, settings), voided)
    except Refusal:  # not expected: the same table was planned when the hand began
        restored.redeal = None
    restored.undo = None
    out: list[effects.Effect] = [effects.HandEnded(current.hand_number, voided=True)]
    return restored, out + hand.settle_between_hands(restored, settings)
