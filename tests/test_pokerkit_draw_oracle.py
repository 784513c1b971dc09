"""Differential test of the draw games (``game.form: draw | triple_draw``) against
PokerKit: its deuce-to-seven single draw (no limit) and triple draw (fixed limit), and
a fixed-limit single draw built from its parts (``tests/pokerkit_draw_oracle.py``).

Same actions, same cards, the same options for the seat to act at every step and the
same final stacks. Hands where one of PokerKit's known differences from docs/rulebook.md came
into play are counted by name (``EXCLUSIONS``, shown on both engines in
``tests/test_pokerkit_oracle.py``); the draw games add none of their own.
``bench/pokerkit_differential.py --game draw`` runs more hands.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from controller.rules import Table
from controller.rules.events import Act, Sit, StartHand
from controller.rules.settings import AnteForm
from tests.pokerkit_draw_oracle import GAMES, RULE_BOOK_CAP, draw_settings, draw_state, run_draw
from tests.pokerkit_oracle import EXCLUSIONS

# slow, out of the edit loop (README, Tests): the differential against PokerKit (the oracle)
pytestmark = pytest.mark.slow

HANDS = 1000  # of each game
MAX_EXCLUDED = 0.15


@pytest.mark.parametrize("antes", [None, "each", "big_blind"])
@pytest.mark.parametrize("name", sorted(GAMES))
def test_same_final_stacks_as_pokerkit(name: str, antes: AnteForm | None) -> None:
    """Without antes, with every player's (A1) and with the big blind's (A2)."""
    tally, mismatches = run_draw(HANDS, seed=20261201, name=name, antes=antes)
    excluded = {kind: tally[kind] for kind in EXCLUSIONS if tally[kind]}
    adjusted = {k: n for k, n in tally.items() if k.startswith("adjusted:")}
    print(
        f"\n{name}, antes {antes}: {HANDS} hands: {tally['agree']} agree, "
        f"{sum(excluded.values())} excluded {excluded}, {adjusted}, "
        f"{len(mismatches)} mismatches"
    )
    assert tally["agree"] + tally["mismatch"] + sum(excluded.values()) == HANDS
    assert not mismatches, "\n\n".join(
        f"{m.detail}\n" + "\n".join(f"  {e}" for e in m.events) for m in mismatches[:5]
    )
    assert sum(excluded.values()) <= MAX_EXCLUDED * HANDS, excluded
    assert tally["agree"] >= HANDS // 2


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_R3_two_round_cap_is_the_same_in_pokerkit() -> None:
    """Fixed-limit single draw at 2/4, three players: a bet and four raises cap the
    predraw round at 10 in both engines, and the draw round (the big bet) at 20."""
    stacks = {2: 100, 5: 100, 8: 100}
    table = Table(draw_settings("draw_limit", 1, 2))
    for seat, chips in stacks.items():
        table.apply(Sit(seat=seat, player=f"p{seat}", chips=chips))
    table.apply(StartHand())
    hand = table.state.hand
    assert hand is not None and RULE_BOOK_CAP["draw"] == 4
    pk = draw_state(table.settings, [stacks[s] for s in hand.dealt])
    for index in range(len(hand.dealt)):
        pk.deal_hole("2c3d4h5s7c" if index == 0 else "??" * 5, index)
    for seat, to in ((8, 4), (2, 6), (5, 8), (8, 10)):
        table.apply(Act(seat=seat, action="raise", to=to))
        pk.complete_bet_or_raise_to(to)
    legal = table.legal()
    assert legal is not None and legal.min_raise_to is None  # capped at 10
    assert not pk.can_complete_bet_or_raise_to()
    for seat in (2, 5):
        table.apply(Act(seat=seat, action="call"))
        pk.check_or_call()
    while pk.stand_patter_or_discarder_index is not None:
        pk.stand_pat_or_discard()  # everyone stands pat: no cards to deal
    if pk.can_burn_card():
        pk.burn_card("??")
    assert table.state.phase == "draw1" and hand.to_act == 2 and pk.actor_index == 0
    for seat, to in ((2, 4), (5, 8), (8, 12), (2, 16), (5, 20)):
        legal = table.legal()
        assert legal is not None and legal.min_raise_to == legal.max_raise_to == to
        assert pk.min_completion_betting_or_raising_to_amount == to
        table.apply(Act(seat=seat, action="raise" if to > 4 else "bet", to=to))
        pk.complete_bet_or_raise_to(to)
    legal = table.legal()
    assert legal is not None and legal.min_raise_to is None  # capped at 20
    assert not pk.can_complete_bet_or_raise_to()
