"""A misdeal (B7, the ``misdeal`` event of docs/replay.md): the hand in progress is void.

Every chip of the hand goes back where it was before the hand; the next hand deals the
voided hand's plan again (same button, blinds and seats: a player who sat down
meanwhile waits). Seats not dealt in keep what happened to them meanwhile (chips
bought, a time fee paid, a departure, a seat change), and so do the devices, the
ledger and table time: the voided hand still counts in ``hand``. A seat the floor
kept in after the deal (B11 ``keep``) is one that was not dealt in: it keeps what
happened to it before it joined and takes back what it put in.
"""

from __future__ import annotations

from controller.rules import antes, effects, hand
from controller.rules.errors import Refusal
from controller.rules.positions import plan_hand, plan_to_dict
from controller.rules.settings import RuleSettings
from controller.rules.state import KEPT_THROUGH_A_VOID, Seat, TableState
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
    for name in KEPT_THROUGH_A_VOID:  # (payouts: none, the voided hand paid nothing)
        setattr(restored, name, getattr(current, name))
    seats = {}
    planned = set(current.positions.dealt)  # dealt when the hand began
    anted = antes.posted(current.hand)
    for number, seat in current.seats.items():
        old = restored.seats.get(number)
        same = old if old is not None and old.player == seat.player else None
        if number in dealt and number not in planned:
            seats[number] = _kept_in(seat, same, anted.get(number, 0))
            continue
        if number not in dealt or old is None:
            if same is not None:
                _plan_markers_back(seat, same)
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


def _kept_in(seat: Seat, before: Seat | None, ante: int) -> Seat:
    """A seat the floor kept in the voided hand after it began (B11 ``keep``): as it
    was when it joined. What happened to it before then stays (chips bought, a time fee
    paid, the seat taken during the hand), what it put into the hand comes back, and
    what the ruling gave it is taken back: it was never dealt this hand, so it is not
    past its first hand and owes no post for it (``before``: the same player's seat
    before the hand, None for a player who sat down during it; ``ante``: the ante it
    put in when it was kept, A1)."""
    seat.stack += seat.bet + seat.gathered + ante
    hand.clear_hand(seat)
    if before is None:  # as ``sit`` seated it
        seat.fresh, seat.last_dealt_hand, seat.owes_post, seat.wait_hands = True, 0, False, 0
        return seat
    seat.fresh, seat.last_dealt_hand = before.fresh, before.last_dealt_hand
    seat.owes_post = before.owes_post
    _plan_markers_back(seat, before)  # as for a seat not dealt in
    return seat


def _plan_markers_back(seat: Seat, before: Seat) -> None:
    """What the voided hand's plan gave a seat it did not deal in, taken back to the
    same player's seat before the hand: the replayed hand decides again."""
    seat.missed_small, seat.missed_big = before.missed_small, before.missed_big
    seat.wait_hands = before.wait_hands
    seat.absent_hands = before.absent_hands
