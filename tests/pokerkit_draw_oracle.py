"""PokerKit as an independent oracle for the draw games (``game.form: draw | triple_draw``).

The same differential as ``tests/pokerkit_oracle.py`` (same seats, stacks, actions and
cards in both engines, the seat to act's options compared at every step, the final
stacks compared), with the two draw games PokerKit 0.7.7 ships:

- deuce-to-seven single draw, no limit (``NoLimitDeuceToSevenLowballSingleDraw``):
  our ``structure: no_limit, form: draw``, two betting rounds;
- deuce-to-seven triple draw, fixed limit (``FixedLimitDeuceToSevenLowballTripleDraw``):
  our ``structure: fixed_limit, form: triple_draw``, four rounds, the small bet in the
  first two and the big bet in the last two.

Each player is dealt five cards; between rounds every player still in (all-in or not)
stands pat or discards up to five random cards in PokerKit, and the replacements come
from the same shuffled deck (the discards are shuffled back in when it runs short, as
a card room does). Our core does not see cards: it only moves to the next round. At the
showdown the ranking passed to our ``award`` is PokerKit's own deuce-to-seven
evaluation of each live hand (``StandardLowHand``: the better low hand ranks first).

The known differences are those of the hold'em differential (``EXCLUSIONS``): the
fixed-limit cap heads-up and the half-bet all-in rule (R3-R5), a short big blind (B1),
the no-limit reopening rules (R6) and odd chips (P4). PokerKit is set to our rule
book's cap the same way: its first round counts the big blind as no bet, so that
round's completion count is ``cap_raises``; the later rounds keep PokerKit's four
(a bet and three raises, docs/rulebook.md R3 for a game of four rounds).
"""

from __future__ import annotations

import dataclasses
import random
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

from pokerkit import (
    Card,
    FixedLimitDeuceToSevenLowballTripleDraw,
    Mode,
    NoLimitDeuceToSevenLowballSingleDraw,
    StandardLowHand,
    State,
)
from pokerkit.games import DeuceToSevenLowballMixin, FixedLimitPokerMixin, SingleDraw

from controller.rules.settings import AnteForm, GameSettings, RuleSettings
from tests.pokerkit_oracle import AUTOMATIONS, Outcome, Variant, play_hand, pokerkit_antes

#: The games compared: (our form, our structure) by name.
GAMES = {
    "draw": ("draw", "no_limit"),  # PokerKit's deuce-to-seven single draw
    "triple_draw": ("triple_draw", "fixed_limit"),  # PokerKit's deuce-to-seven triple draw
    "draw_limit": ("draw", "fixed_limit"),  # built here from PokerKit's parts (below)
}


#: R3: raises after the bet in a fixed-limit round, from the rule book (not from our
#: settings, so that the oracle does not inherit a mistake in them).
RULE_BOOK_CAP = {"draw": 4, "triple_draw": 3}


class FixedLimitDeuceToSevenLowballSingleDraw(
    FixedLimitPokerMixin, DeuceToSevenLowballMixin, SingleDraw
):
    """Fixed-limit single draw, which PokerKit does not ship, from the parts of the
    games it does: its streets are set in ``draw_state`` (the small bet before the
    draw, the big bet after it; a bet and four raises, docs/rulebook.md R3 for two rounds)."""


def draw_settings(name: str, small_blind: int, big_blind: int) -> RuleSettings:
    form, structure = GAMES[name]
    return RuleSettings(
        seats=9,
        game=GameSettings(
            structure=structure,  # type: ignore[arg-type]
            form=form,  # type: ignore[arg-type]
            small_blind=small_blind,
            big_blind=big_blind,
            small_bet=big_blind,
            big_bet=2 * big_blind,
            smallest_chip=1,
        ),
    )


def draw_state(settings: RuleSettings, stacks: list[int]) -> State:
    game = settings.game
    blinds = (game.sb_amount, game.big_blind)
    if game.form == "triple_draw":
        definition: Any = FixedLimitDeuceToSevenLowballTripleDraw(
            AUTOMATIONS,
            *pokerkit_antes(game),
            blinds,
            game.small_bet_amount,
            game.big_bet_amount,
            mode=Mode.CASH_GAME,
        )
        first, *rest = definition.streets
        definition.streets = (
            dataclasses.replace(
                first, max_completion_betting_or_raising_count=RULE_BOOK_CAP[game.form]
            ),
            *rest,
        )
    elif game.structure == "fixed_limit":
        definition = FixedLimitDeuceToSevenLowballSingleDraw(
            AUTOMATIONS, *pokerkit_antes(game), blinds, game.small_bet_amount, mode=Mode.CASH_GAME
        )
        first, second = definition.streets
        definition.streets = (
            dataclasses.replace(
                first, max_completion_betting_or_raising_count=RULE_BOOK_CAP[game.form]
            ),
            dataclasses.replace(
                second,
                min_completion_betting_or_raising_amount=game.big_bet_amount,
                max_completion_betting_or_raising_count=RULE_BOOK_CAP[game.form] + 1,
            ),
        )
    else:
        definition = NoLimitDeuceToSevenLowballSingleDraw(
            AUTOMATIONS, *pokerkit_antes(game), blinds, game.big_blind, mode=Mode.CASH_GAME
        )
    return definition(tuple(stacks), len(stacks))


class Drawing:
    """The draws between betting rounds: discards at random, replacements from the deck."""

    def __init__(self, rng: random.Random, deck: list[Card]) -> None:
        self.rng = rng
        self.deck = list(deck)
        self.discards: list[Card] = []
        self.hands: dict[int, list[Card]] = {}  # each player's cards after the last draw
        self.reshuffles = 0

    def card(self) -> Card:
        if not self.deck:  # the discards, shuffled, make the new stub
            self.deck, self.discards = self.discards, []
            self.rng.shuffle(self.deck)
            self.reshuffles += 1
        return self.deck.pop()

    def __call__(self, pk: State) -> None:
        if not self.hands:  # the cards as dealt, before any betting
            self.hands = {i: list(cards) for i, cards in enumerate(pk.hole_cards)}
        # kept here as they change: the showdown at the end mucks the losing hands
        while pk.status and pk.actor_index is None:
            player = pk.stand_patter_or_discarder_index
            if player is not None:
                hole = list(pk.hole_cards[player])
                count = self.rng.choice((0, 0, 1, 1, 2, 3, 5))
                thrown = self.rng.sample(hole, min(count, len(hole)))
                pk.stand_pat_or_discard(thrown)
                self.discards.extend(thrown)
                self.hands[player] = [c for c in self.hands[player] if c not in thrown]
            elif pk.can_burn_card():
                pk.burn_card(self.card())
            elif (dealee := pk.hole_dealee_index) is not None:
                card = self.card()
                self.hands[dealee].append(card)
                pk.deal_hole(card, dealee)
            else:
                break


class DrawVariant(Variant):
    hole_count = 5

    def __init__(self, name: str) -> None:
        self.name = name

    def settings(self, structure: str, small_blind: int, big_blind: int) -> RuleSettings:
        return draw_settings(self.name, small_blind, big_blind)

    def state(self, settings: RuleSettings, stacks: list[int]) -> State:
        return draw_state(settings, stacks)

    def dealer(self, rng: random.Random, deck: list[Card]) -> Callable[[State], None]:
        self.drawing = Drawing(rng, deck)
        return self.drawing

    def ranking(
        self, pk: State, holes: dict[int, list[Card]], order: list[int], live: list[int]
    ) -> list[list[int]]:
        drawn = self.drawing.hands
        index_of = {seat: i for i, seat in enumerate(order)}
        hands = {seat: StandardLowHand.from_game(drawn[index_of[seat]]) for seat in live}
        groups: list[list[int]] = []
        for seat in sorted(hands, key=lambda s: hands[s], reverse=True):
            if groups and hands[groups[-1][0]] == hands[seat]:
                groups[-1].append(seat)
            else:
                groups.append([seat])
        return groups


VARIANTS = {name: DrawVariant(name) for name in GAMES}


def play_draw_hand(rng: random.Random, name: str, antes: AnteForm | None = None) -> Outcome:
    return play_hand(rng, GAMES[name][1], VARIANTS[name], antes)


def run_draw(
    count: int, seed: int, name: str, antes: AnteForm | None = None
) -> tuple[Counter[str], list[Outcome]]:
    """``count`` random hands of one draw game (a name of ``GAMES``; ``antes``: with an
    ante of that form drawn for each hand)."""
    rng = random.Random(seed)
    tally: Counter[str] = Counter()
    mismatches: list[Outcome] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(count):
            outcome = play_draw_hand(rng, name, antes)
            tally[outcome.kind] += 1
            if outcome.adjusted:
                tally[f"adjusted:{outcome.adjusted}"] += 1
            if outcome.kind == "mismatch":
                mismatches.append(outcome)
    return tally, mismatches
