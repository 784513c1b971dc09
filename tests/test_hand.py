"""controller/rules/hand.py: the one way a seat is dealt into a hand and cleared after
it, and the one seat a hand counts clockwise from; and seating's one way a seat away
comes back (issue 16, item 7)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from controller.rules.hand import button_seat, clear_hand, deal_in
from controller.rules.state import Hand, Seat, TableState

RULES = Path(__file__).resolve().parent.parent / "controller" / "rules"

#: The seat's part in the hand in progress (``state.Seat``), with their values between
#: hands.
HAND_PART = {
    "in_hand": False,
    "folded": False,
    "all_in": False,
    "bet": 0,
    "gathered": 0,
    "acted": False,
    "acted_at": 0,
    "checked": False,
}


def seat_in_a_hand() -> Seat:
    return Seat(
        player="ana",
        stack=40,
        in_hand=True,
        folded=True,
        all_in=True,
        bet=20,
        gathered=30,
        acted=True,
        acted_at=20,
        checked=True,
        away=True,
        missed_big=True,
        fresh=True,
        wait_hands=2,
        owes_post=True,
        last_dealt_hand=3,
        pending_chips=5,
    )


def test_the_hand_part_is_every_field_a_new_seat_starts_with_in_the_hand() -> None:
    new = Seat(player="ana", stack=40)
    assert {name: getattr(new, name) for name in HAND_PART} == HAND_PART
    assert {f.name for f in fields(Seat)} >= set(HAND_PART)


def test_clearing_a_seat_after_a_hand_resets_its_part_in_it_and_nothing_else() -> None:
    seat = seat_in_a_hand()
    clear_hand(seat)
    assert {name: getattr(seat, name) for name in HAND_PART} == HAND_PART
    rest = {f.name for f in fields(Seat)} - set(HAND_PART)
    assert {n: getattr(seat, n) for n in rest} == {n: getattr(seat_in_a_hand(), n) for n in rest}


def test_dealing_in_starts_a_clean_part_and_ends_a_new_players_wait() -> None:
    seat = seat_in_a_hand()
    deal_in(seat, 7)
    assert {name: getattr(seat, name) for name in HAND_PART} == {**HAND_PART, "in_hand": True}
    assert (seat.fresh, seat.wait_hands, seat.last_dealt_hand) == (False, 0, 7)
    # what the seat owes and holds across hands is not the dealing's to change
    assert (seat.stack, seat.away, seat.missed_big, seat.owes_post, seat.pending_chips) == (
        40,
        True,
        True,
        True,
        5,
    )


def test_a_hand_counts_from_the_button_or_else_from_the_last_seat_dealt() -> None:
    state = TableState(hand=Hand(number=1, dealt=[4, 6, 2]))
    assert button_seat(state) == 2
    state.positions.button = 6
    assert button_seat(state) == 6
