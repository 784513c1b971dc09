"""Differential test: our rules core against PokerKit over random hands.

``tests/pokerkit_oracle.py`` plays each hand in both engines with the same seats,
stacks, actions and cards, compares what the seat to act may do at every step, and the
final stacks. Hands where one of PokerKit's known differences from docs/rulebook.md came into
play are counted by name (``EXCLUSIONS``) instead of compared; each difference is shown
on its own below, both sides, so that a PokerKit release that changes it is noticed.
``bench/pokerkit_differential.py`` runs the same with more hands.
"""

from __future__ import annotations

import dataclasses
import random
import warnings
from typing import Any

import pytest
from pokerkit import State

from controller.rules import Table
from controller.rules.events import Act, Award, Sit, StartHand
from controller.rules.hand import current_pots, winners_of
from controller.rules.pots import split
from controller.rules.settings import AnteForm
from tests.pokerkit_oracle import (
    ADJUSTMENTS,
    EXCLUSIONS,
    memoized_evaluation,
    play_hand,
    pokerkit_state,
    rule_settings,
    run,
)

# slow, out of the edit loop (README, Tests): the differential against PokerKit (the oracle)
pytestmark = pytest.mark.slow

HANDS = 2000  # half no-limit, half fixed-limit
MAX_EXCLUDED = 0.10
# with every player's ante a big blind all-in for its ante posts no blind: one more
# short big blind (B1) than without antes
MAX_EXCLUDED_EACH_ANTE = 0.12


@pytest.mark.parametrize("antes", [None, "each", "big_blind"])
def test_same_final_stacks_as_pokerkit(antes: AnteForm | None) -> None:
    """Without antes, with every player's (A1) and with the big blind's (A2)."""
    tally, mismatches = run(HANDS, seed=20260101, antes=antes)
    excluded = {kind: tally[kind] for kind in EXCLUSIONS if tally[kind]}
    print(
        f"\n{HANDS} hands, antes {antes}: {tally['agree']} agree, "
        f"{sum(excluded.values())} excluded, {len(mismatches)} mismatches"
    )
    for kind, count in sorted(excluded.items(), key=lambda item: -item[1]):
        print(f"  excluded {kind}: {count} ({EXCLUSIONS[kind][:60]}...)")
    for name in ADJUSTMENTS:
        print(f"  compared with PokerKit told our post, {name}: {tally['adjusted:' + name]}")
    assert tally["agree"] + tally["mismatch"] + sum(excluded.values()) == HANDS
    assert not mismatches, "\n\n".join(
        f"{m.detail}\n" + "\n".join(f"  {e}" for e in m.events) for m in mismatches[:5]
    )
    most = MAX_EXCLUDED_EACH_ANTE if antes == "each" else MAX_EXCLUDED
    assert sum(excluded.values()) <= most * HANDS, excluded
    if antes == "big_blind":  # the big blinds short of blind and ante were compared
        assert tally["adjusted:big_blind_ante_first"] > 0


# -- each exclusion, shown on both engines ------------------------------------------


def _table(structure: str, small: int, big: int, stacks: dict[int, int], **antes: Any) -> Table:
    settings = rule_settings(structure, small, big)
    table = Table(dataclasses.replace(settings, game=dataclasses.replace(settings.game, **antes)))
    for seat, chips in stacks.items():
        table.apply(Sit(seat=seat, player=f"p{seat}", chips=chips))
    table.apply(StartHand())
    return table


def _pokerkit(table: Table, stacks: dict[int, int]) -> State:
    hand = table.state.hand
    assert hand is not None
    pk = pokerkit_state(table.settings, [stacks[s] for s in hand.dealt])
    for index in range(len(hand.dealt)):
        pk.deal_hole("2c3d" if index == 0 else "??" * 2, index)
    return pk


def _both(table: Table, pk: State, seat: int, action: str, to: int | None = None) -> None:
    table.apply(Act(seat=seat, action=action, to=to))
    if action in ("check", "call"):
        pk.check_or_call()
    elif action == "fold":
        pk.fold()
    else:
        pk.complete_bet_or_raise_to(to)


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_R4_heads_up_limit_raising_is_unlimited_pokerkit_caps_it() -> None:
    stacks = {2: 100, 5: 100}
    table = _table("fixed_limit", 1, 2, stacks)  # button 5 posts the small blind
    pk = _pokerkit(table, stacks)
    for seat, to in ((5, 4), (2, 6), (5, 8)):
        _both(table, pk, seat, "raise", to)
    legal = table.legal()
    assert legal is not None and legal.min_raise_to == 10  # R4: heads-up, no cap
    assert not pk.can_complete_bet_or_raise_to()  # PokerKit: capped at 8


def test_R5_short_limit_all_in_is_completed_pokerkit_raises_over_it() -> None:
    stacks = {2: 100, 5: 100, 8: 12}
    table = _table("fixed_limit", 5, 10, stacks)  # small bet 10; button 8 acts first
    pk = _pokerkit(table, stacks)
    _both(table, pk, 8, "raise", 12)  # +2: less than half a bet
    legal = table.legal()
    assert legal is not None and (legal.min_raise_to, legal.max_raise_to) == (20, 20)
    assert pk.min_completion_betting_or_raising_to_amount == 22


def test_R5_half_bet_all_in_reopens_pokerkit_does_not() -> None:
    stacks = {2: 100, 5: 100, 8: 100, 9: 26}
    table = _table("fixed_limit", 5, 10, stacks)  # button 9, blinds 2 and 5
    pk = _pokerkit(table, stacks)
    _both(table, pk, 8, "raise", 20)
    _both(table, pk, 9, "raise", 26)  # +6 of a 10 bet: half or more, a full raise
    _both(table, pk, 2, "call")
    _both(table, pk, 5, "call")
    legal = table.legal()
    assert table.state.hand is not None and table.state.hand.to_act == 8
    assert legal is not None and legal.min_raise_to == 36  # reopened for seat 8
    assert not pk.can_complete_bet_or_raise_to()


def test_B1_short_big_blind_keeps_the_full_call_pokerkit_lowers_it() -> None:
    stacks = {2: 100, 5: 5, 8: 100}
    table = _table("no_limit", 5, 10, stacks)  # seat 5 posts a big blind of 5, all-in
    pk = _pokerkit(table, stacks)
    legal = table.legal()
    assert legal is not None and (legal.call, legal.min_raise_to) == (10, 20)
    assert pk.checking_or_calling_amount == 5


def test_A2_short_big_blind_pays_the_blind_first_pokerkit_the_ante() -> None:
    stacks = {2: 100, 5: 15, 8: 100}
    table = _table("no_limit", 5, 10, stacks, ante=10, ante_form="big_blind")
    pk = _pokerkit(table, stacks)
    # ours: the blind of 10 first, the ante gets the 5 left (dead in the pot)
    assert table.state.seats[5].bet == 10 and table.state.hand is not None
    assert table.state.hand.dead_money == 5
    legal = table.legal()
    assert legal is not None and legal.call == 10
    # PokerKit: the ante of 10 first, a blind of the 5 left
    assert pk.bets[1] == 5 and pk.checking_or_calling_amount == 5


def test_A2_pokerkit_told_the_ante_we_took_agrees() -> None:
    """``ADJUSTMENTS``: given the ante our rule book took, PokerKit posts the same."""
    stacks = {2: 100, 5: 15, 8: 100}
    table = _table("no_limit", 5, 10, stacks, ante=10, ante_form="big_blind")
    told = dataclasses.replace(
        table.settings, game=dataclasses.replace(table.settings.game, ante=5)
    )
    pk = pokerkit_state(told, [stacks[s] for s in (2, 5, 8)])
    for index in range(3):
        pk.deal_hole("??" * 2, index)
    legal = table.legal()
    assert legal is not None and pk.bets[1] == 10
    assert pk.checking_or_calling_amount == legal.call == 10
    assert pk.stacks[1] == table.state.seats[5].stack == 0


def test_R6_all_in_below_the_big_blind_does_not_reopen_pokerkit_reopens() -> None:
    stacks = {2: 15, 5: 100, 8: 100}
    table = _table("no_limit", 5, 10, stacks)
    pk = _pokerkit(table, stacks)
    _both(table, pk, 8, "call")
    _both(table, pk, 2, "raise", 15)  # +5: short of a raise
    _both(table, pk, 5, "call")
    legal = table.legal()
    assert table.state.hand is not None and table.state.hand.to_act == 8
    assert legal is not None and legal.min_raise_to is None  # seat 8 limped: closed
    assert pk.can_complete_bet_or_raise_to()


def test_R6_short_all_ins_adding_up_reopen_pokerkit_forgets_them() -> None:
    stacks = {1: 210, 2: 1000, 3: 1000, 4: 150, 5: 200}
    table = _table("no_limit", 5, 10, stacks)  # button 5, blinds 1 and 2
    pk = _pokerkit(table, stacks)
    _both(table, pk, 3, "raise", 100)  # a full raise of 90
    _both(table, pk, 4, "raise", 150)  # all-in, +50
    _both(table, pk, 5, "raise", 200)  # all-in, +50: 100 in all, a full raise's worth
    _both(table, pk, 1, "raise", 210)  # all-in, +10
    _both(table, pk, 2, "call")
    legal = table.legal()
    assert table.state.hand is not None and table.state.hand.to_act == 3
    assert legal is not None and legal.min_raise_to == 300  # 110 more faces seat 3
    assert not pk.can_complete_bet_or_raise_to()


def _to_showdown(events: list[dict[str, Any]]) -> Table:
    table = Table(rule_settings("no_limit", 1, 2))
    for event in events:
        kind = event["type"]
        if kind == "sit":
            table.apply(Sit(seat=event["seat"], player=event["player"], chips=event["chips"]))
        elif kind == "start_hand":
            table.apply(StartHand())
        elif kind == "act":
            table.apply(Act(seat=event["seat"], action=event["action"], to=event["to"]))
    return table


def test_P4_odd_chips_one_each_left_of_button_pokerkit_gives_all_to_one() -> None:
    """A hand of the random run (seed 4040): a pot of 32 split three ways. We give its
    two odd chips one each to the first two tied winners left of the button (seats 1
    and 4, button 9); PokerKit gives both to the first."""
    with memoized_evaluation():
        outcome = play_hand(random.Random(4040), "no_limit")
    assert outcome.kind == "odd_chips", outcome.detail
    table = _to_showdown(outcome.events)
    main = current_pots(table.state)[0]
    assert (main.amount, main.eligible) == (32, (1, 4, 8))
    assert split(main.amount, [1, 4, 8], 9, 9, 1) == {1: 11, 4: 11, 8: 10}
    ours, theirs = outcome.detail.removeprefix("stacks: ours ").split(", PokerKit ")
    assert ours == "[385, 11, 90, 160, 1, 16, 336]"  # dealt order 1, 4, 5, 6, 7, 8, 9
    assert theirs == "[386, 10, 90, 160, 1, 16, 336]"  # seat 4's odd chip went to seat 1


def test_P4_side_pots_split_separately_pokerkit_merges_them() -> None:
    """A hand of the random run (seed 5) where two tied winners share two pots: we
    split each pot on its own (docs/rulebook.md, Pots); PokerKit mucks the losers, merges the
    pots the same two players contest and splits once, moving an odd chip."""
    with memoized_evaluation():
        outcome = play_hand(random.Random(5), "no_limit")
    assert outcome.kind == "odd_chips", outcome.detail
    table = _to_showdown(outcome.events)
    award = outcome.events[-1]
    ranking = award["ranking"]
    button = table.state.positions.button
    assert button is not None
    separately: dict[int, int] = {}
    shared = []
    for pot in current_pots(table.state):
        winners = winners_of(pot, ranking)
        if len(winners) > 1:
            shared.append((pot, winners))
        for seat, amount in split(pot.amount, winners, button, 9, 1).items():
            separately[seat] = separately.get(seat, 0) + amount
    tied = shared[0][1]
    assert len(shared) > 1 and all(set(w) == set(tied) for _, w in shared)
    merged = split(sum(p.amount for p, _ in shared), tied, button, 9, 1)
    apart = {s: sum(split(p.amount, tied, button, 9, 1)[s] for p, _ in shared) for s in tied}
    assert merged != apart  # the odd chips land differently
    before = {s: table.state.seats[s].stack for s in separately}
    table.apply(Award(ranking=tuple(tuple(g) for g in ranking)))
    won = {s: table.state.seats[s].stack - before[s] for s in separately}
    assert won == separately
