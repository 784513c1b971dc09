"""Busting out (B12) and play stopping (docs/rules.md "Play stopped"): one rule for
every way a stack can empty, a hand lost, a time fee, a tip, a transfer
(``controller.rules.bust``, issue 31 item 4).

A stack left with less than the smallest chip is busted, whether nothing is left or an
odd remainder below the chip (R7); a busted seat sits out, and play does not stop
while it holds its seat: a player back before the next hand plays on (heads-up the
big blind alternates, B3), and an away player keeps the markers owed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controller.rules import Refusal, RuleSettings, Table, parse_event, state_view
from controller.rules.effects import SeatChanged
from controller.rules.settings import FeeSettings, GameSettings


def play(table: Table, *events: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for obj in events:
        out += table.apply(parse_event(obj))
    return out


def fold_round(table: Table) -> None:
    """Every seat to act folds until the hand ends."""
    while table.state.hand is not None:
        hand = table.state.hand
        assert hand.to_act is not None
        play(table, {"type": "act", "seat": hand.to_act, "action": "fold"})


def lose_all(table: Table, seat: int, other: int) -> list[Any]:
    """``seat`` (to act, heads-up against ``other``) goes all in and loses."""
    out = play(
        table,
        {"type": "act", "seat": seat, "action": "all_in"},
        {"type": "act", "seat": other, "action": "call"},
    )
    if table.state.phase == "showdown":
        out += play(table, {"type": "award", "ranking": [[other], [seat]]})
    return out


#: Each way a stack empties, between hands after hand 1 (button and small blind 5,
#: big blind 2): takes every chip of seat 5 that plays, from a stack of ``stack``.
def by_hand(table: Table, stack: int) -> list[Any]:
    play(table, {"type": "start_hand"})
    return lose_all(table, 5, 2)


def by_time_fee(table: Table, stack: int) -> list[Any]:
    play(table, {"type": "start_hand"})
    fold_round(table)
    left = table.state.seats[5].stack
    return play(table, {"type": "time_fee", "seat": 5, "amount": left - left % 5})


def by_tip(table: Table, stack: int) -> list[Any]:
    play(table, {"type": "start_hand"})
    fold_round(table)
    left = table.state.seats[5].stack
    return play(table, {"type": "tip", "seat": 5, "amount": left - left % 5})


def by_transfer(table: Table, stack: int) -> list[Any]:
    play(table, {"type": "start_hand"})
    fold_round(table)
    left = table.state.seats[5].stack
    return play(
        table,
        {"type": "transfer", "from": 5, "to": 2, "amount": left - left % 5, "reason": "other"},
    )


WAYS: dict[str, Callable[[Table, int], list[Any]]] = {
    "hand": by_hand,
    "time_fee": by_time_fee,
    "tip": by_tip,
    "transfer": by_transfer,
}


def heads_up(remainder: int, *, seats: int = 2) -> Table:
    """ana (2) and luis (5) heads-up, and with ``seats`` 3 cy (8) sitting out owing the
    big blind; luis's stack has ``remainder`` chip units below the smallest chip of 5
    (bought under a smallest chip of 1, then the table's chip became 5, as a
    configuration change between hands does)."""
    fees = FeeSettings(mode="time")
    fine = Table(
        RuleSettings(game=GameSettings(big_blind=10, small_blind=5, smallest_chip=1), fees=fees)
    )
    play(
        fine,
        {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
        {"type": "sit", "seat": 5, "player": "luis", "chips": 300 + remainder},
    )
    if seats == 3:
        play(fine, {"type": "sit", "seat": 8, "player": "cy", "chips": 1000})
    game = GameSettings(big_blind=10, small_blind=5, smallest_chip=5)
    return Table(RuleSettings(game=game, fees=fees), fine.state)


@pytest.mark.parametrize("remainder", [0, 3], ids=["empty", "odd_remainder"])
@pytest.mark.parametrize("way", WAYS)
def test_every_way_a_stack_empties_busts_the_seat(way: str, remainder: int) -> None:
    table = heads_up(remainder)
    out = WAYS[way](table, 300 + remainder)
    seat = table.state.seats[5]
    assert seat.stack == remainder
    # one status for a busted seat: away, said once, as the floor and the lights hear it
    assert seat.away
    assert [e for e in out if isinstance(e, SeatChanged) and e.seat == 5] == [
        SeatChanged(5, "busted")
    ]
    assert state_view(table)["seats"]["5"]["status"] == "sitting_out"
    with pytest.raises(Refusal) as refused:  # ana alone has chips: no hand
        play(table, {"type": "start_hand"})
    assert refused.value.code == "not_enough_players"


@pytest.mark.parametrize("way", WAYS)
def test_heads_up_a_bust_and_a_rebuy_before_the_next_hand_keep_the_big_blind_alternating(
    way: str,
) -> None:
    """Hand 1: luis (5) has the button and the small blind, ana (2) the big blind; he
    busts, buys again before hand 2: he has the big blind of hand 2 (B3), never ana twice."""
    table = heads_up(0)
    WAYS[way](table, 300)
    play(table, {"type": "chips", "seat": 5, "amount": 200}, {"type": "start_hand"})
    view = state_view(table)
    assert (view["hand"], view["button"], view["small_blind"], view["big_blind"]) == (2, 2, 2, 5)


@pytest.mark.parametrize("way", WAYS)
def test_a_bust_keeps_an_away_players_markers_and_the_game_going(way: str) -> None:
    """Three seated, cy (8) away: hand 1 passes his big blind (he owes it); luis busts
    and buys again: hand 2 is no new game, cy still owes his big blind and is not dealt
    in."""
    table = heads_up(0, seats=3)
    play(table, {"type": "sit_out", "seat": 8})
    WAYS[way](table, 300)
    assert state_view(table)["seats"]["8"]["missed"] == ["big"]
    play(table, {"type": "chips", "seat": 5, "amount": 200}, {"type": "start_hand"})
    view = state_view(table)
    assert view["seats"]["8"]["missed"] == ["big"]
    assert view["seats"]["8"]["status"] == "sitting_out"
    assert (view["button"], view["big_blind"]) == (2, 5)


@pytest.mark.parametrize("way", ["leave", "leave_in_hand"])
def test_a_lone_player_stops_play_and_the_next_players_start_a_new_game(way: str) -> None:
    """Heads-up, luis (5) leaves (between hands, or during hand 2 so that his seat is
    freed at its end): ana (2) is alone and play stops. cy (7) sits down waiting: the
    next hand is the first of a new game, so he is dealt in at once (B13), the button
    on the last seat (7) with the small blind, ana the big blind."""
    table = heads_up(0)
    by_tip(table, 0)  # hand 1 played; luis tips the rest of his stack
    play(table, {"type": "chips", "seat": 5, "amount": 100})
    if way == "leave":
        play(table, {"type": "leave", "seat": 5})
    else:
        play(table, {"type": "start_hand"})
        play(table, {"type": "leave", "seat": 5})  # folds; freed at the hand's end
        fold_round(table)
    play(table, {"type": "sit", "seat": 7, "player": "cy", "chips": 500, "entry": "wait"})
    play(table, {"type": "start_hand"})
    view = state_view(table)
    assert (view["button"], view["small_blind"], view["big_blind"]) == (7, 7, 2)
    assert view["dealt"] == [2, 7]
