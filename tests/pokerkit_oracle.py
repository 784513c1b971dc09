"""PokerKit as an independent oracle: the same hand, the same actions, the same cards.

``play_hand(rng, structure)`` seats 2-9 players (stacks from a couple of blinds to
hundreds, seats scattered round a 9-seat table), starts the first hand of a game in our
core and the same hand in PokerKit, then plays it to the end: each action is chosen from
our ``legal`` and fed to both. Cards come from a deck shuffled by ``rng`` and are dealt
into PokerKit by hand (holes, burns, boards); at the showdown the ranking we pass to our
``award`` is computed from PokerKit's own hand evaluation (``StandardHighHand``), and
PokerKit pays its pots itself. The hand agrees when every stack ends the same.

Where PokerKit knowingly differs from our rule book (``docs/rulebook.md``), the
difference is named (``EXCLUSIONS``); a hand in which one of them shows up is counted
under that name instead of compared. Any other disagreement is a ``mismatch``.

PokerKit is set up to our rule book where it has a knob for it: cash-game mode, our
blinds, our antes (``run(..., antes=FORM)``: A1's from every player as uniform antes with
ante trimming, so that a short ante caps what it can win as our pots by contribution do;
A2's as one ante keyed to the big blind's index, without trimming: dead money in the
main pot, as ours), and in fixed limit a first-round cap of ``limit_cap_raises`` raises
over the big blind (PokerKit counts the blind as no bet, so its default would let the
first round reach five bets: 10 at 2/4 where R3 caps it at 8).
"""

from __future__ import annotations

import dataclasses
import random
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pokerkit import (
    Automation,
    Card,
    Deck,
    FixedLimitTexasHoldem,
    Hand,
    Mode,
    NoLimitTexasHoldem,
    StandardHighHand,
    State,
)

from controller.rules import Refusal, Table
from controller.rules.betting import bet_size, limit_target
from controller.rules.effects import Acted, Posted
from controller.rules.events import Act, Award, Sit, StartHand
from controller.rules.hand import current_pots
from controller.rules.settings import AnteForm, GameSettings, RuleSettings
from controller.rules.state import FIRST_ROUNDS

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
    Automation.RUNOUT_COUNT_SELECTION,
)

# Where PokerKit 0.7.7 knowingly differs from docs/rulebook.md; each was confirmed against the
# rule book and PokerKit's source (pokerkit/state.py).
EXCLUSIONS = {
    "heads_up_limit_cap": (
        "R3/R4: the fixed-limit cap counts only while three or more players are neither "
        "folded nor all-in (unlimited heads-up); PokerKit caps every round at its "
        "completion count whatever the number of players"
    ),
    "limit_short_all_in": (
        "R5 and R3: in fixed limit an all-in of less than half a bet neither reopens the "
        "betting nor counts toward the cap, and the next raise completes the bet; PokerKit "
        "has no half-bet rule: it counts every all-in as a completion and prices the next "
        "raise from the all-in"
    ),
    "short_big_blind": (
        "B1: a big blind posted all-in for less (or not at all: all-in for its ante, A1) "
        "keeps the full call and a minimum raise to 2xBB; PokerKit lowers the amount to "
        "call to what the short blind posted"
    ),
    "fold_with_nothing_to_call": (
        "docs/replay.md (act): fold is always allowed to the seat to act; PokerKit refuses a fold "
        "with nothing to call in tournament mode and only warns in cash-game mode, where "
        "it has been reported to crash (0.7.7 has not in these runs: such hands count "
        "here only if they differ)"
    ),
    "odd_chips": (
        "P4: a split pot's odd chips go one each to the tied winners first clockwise from "
        "the button, and each side pot is split on its own; PokerKit gives the whole "
        "remainder of a split to the first winner, and it kills the losing hands first "
        "and merges the pots the same tied players then contest, splitting them once"
    ),
    "short_all_ins_add_up": (
        "R6: short all-ins that together make a full raise reopen the betting for a "
        "player who already acted, whatever comes after them; PokerKit forgets them once "
        "they add up, so one more short all-in closes the betting to that player again"
    ),
    "short_all_in_reopens": (
        "R6: a no-limit all-in below the minimum bet, or below the big blind before any "
        "raise, does not reopen the betting for players who already acted (TDA 47A); "
        "PokerKit measures such an all-in against a raise size of 0 at the start of each "
        "round and so reopens the betting for everyone"
    ),
}


# Where PokerKit knowingly differs but the hand can still be compared: PokerKit is told
# what our rule book made of the post, and the hand is compared as usual (counted in the
# tally as ``adjusted:NAME``, over and above its outcome).
ADJUSTMENTS = {
    "big_blind_ante_first": (
        "A2: a big blind that cannot cover both its blind and the big-blind ante pays "
        "the blind first and the ante gets what is left; PokerKit posts every ante "
        "before the blinds, so it would take the ante first and the blind from what is "
        "left: it is given the ante we took (none when the blind took every chip)"
    ),
}


@contextmanager
def memoized_evaluation() -> Iterator[None]:
    """Memoize PokerKit's hand evaluation while the oracle runs (3x faster).

    Evaluation is a pure function of the cards, so this changes nothing PokerKit
    decides; the original methods come back on exit.
    """
    entry_property = Hand.__dict__["entry"]
    original = StandardHighHand.from_game.__func__  # inherited from CombinationHand
    hands: dict[tuple[Any, ...], Hand] = {}

    def entry(self: Hand) -> Any:
        memo = self.__dict__.get("_oracle_entry")
        if memo is None:
            memo = self.__dict__["_oracle_entry"] = self.lookup.get_entry(self.cards)
        return memo

    def cached_from_game(cls: type[Hand], hole_cards: Any, board_cards: Any = ()) -> Hand:
        hole, board = tuple(Card.clean(hole_cards)), tuple(Card.clean(board_cards))
        key = (cls, hole, board)
        found = hands.get(key)
        if found is None:
            found = hands[key] = original(cls, hole, board)
        return found

    Hand.entry = property(entry)
    StandardHighHand.from_game = classmethod(cached_from_game)
    try:
        yield
    finally:
        Hand.entry = entry_property
        del StandardHighHand.from_game


@dataclass
class Outcome:
    kind: str  # "agree", "mismatch", or a key of EXCLUSIONS
    actions: int
    detail: str = ""
    adjusted: str | None = None  # a key of ADJUSTMENTS, when PokerKit was told our post
    events: list[dict[str, Any]] = field(default_factory=list)  # ours, as replay events
    operations: list[tuple[Any, ...]] = field(default_factory=list)  # PokerKit's
    stacks: list[int] = field(default_factory=list)  # PokerKit's starting stacks
    settings: RuleSettings | None = None


class Recording:
    """A PokerKit state that records the operations done on it (for the benchmark,
    which replays them on a fresh state)."""

    OPERATIONS = (
        "deal_hole",
        "burn_card",
        "deal_board",
        "fold",
        "check_or_call",
        "complete_bet_or_raise_to",
        "stand_pat_or_discard",
    )

    def __init__(self, state: State) -> None:
        self.state = state
        self.operations: list[tuple[Any, ...]] = []

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.state, name)
        if name in self.OPERATIONS:

            def operation(*args: Any) -> Any:
                self.operations.append((name, *args))
                return value(*args)

            return operation
        return value


def shuffled_deck(rng: random.Random) -> list[Card]:
    cards = list(Deck.STANDARD)
    rng.shuffle(cards)
    return cards


def random_stacks(rng: random.Random, count: int, big_blind: int) -> list[int]:
    stacks = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.15:
            stacks.append(rng.randint(1, 3 * big_blind))  # short: often all-in at once
        elif kind < 0.35:
            stacks.append(rng.randint(3 * big_blind, 20 * big_blind))
        elif kind < 0.9:
            stacks.append(rng.randint(20 * big_blind, 200 * big_blind))
        else:
            stacks.append(rng.randint(200 * big_blind, 1000 * big_blind))
    return stacks


def rule_settings(structure: str, small_blind: int, big_blind: int) -> RuleSettings:
    return RuleSettings(
        seats=9,
        game=GameSettings(
            structure=structure,
            small_blind=small_blind,
            big_blind=big_blind,
            small_bet=big_blind,
            big_bet=2 * big_blind,
            smallest_chip=1,
        ),
    )


def pokerkit_antes(game: GameSettings) -> tuple[bool, Any]:
    """PokerKit's ``ante_trimming_status`` and ``raw_antes`` for our antes: A1's from
    every player (uniform, trimmed: a short ante caps what it can win), A2's from the
    big blind alone (keyed to the big blind's index, 1; PokerKit turns it round
    heads-up, where index 0 is the big blind; untrimmed: dead money in the main pot)."""
    if not game.ante:
        return True, 0
    if game.ante_form == "big_blind":
        return False, {1: game.ante}
    return True, game.ante


def pokerkit_state(settings: RuleSettings, stacks: list[int]) -> State:
    game = settings.game
    blinds = (game.sb_amount, game.big_blind)
    trimming, antes = pokerkit_antes(game)
    if game.structure == "fixed_limit":
        definition: Any = FixedLimitTexasHoldem(
            AUTOMATIONS,
            trimming,
            antes,
            blinds,
            game.small_bet_amount,
            game.big_bet_amount,
            mode=Mode.CASH_GAME,
        )
        first, *rest = definition.streets
        definition.streets = (
            dataclasses.replace(first, max_completion_betting_or_raising_count=game.cap_raises),
            *rest,
        )
    else:
        definition = NoLimitTexasHoldem(
            AUTOMATIONS, trimming, antes, blinds, game.big_blind, mode=Mode.CASH_GAME
        )
    return definition(tuple(stacks), len(stacks))


def deal_pending(pk: State, deck: list[Card]) -> None:
    """Burn and deal in PokerKit until it needs a player to act or the hand is over."""
    while pk.status and pk.actor_index is None:
        if pk.can_burn_card():
            pk.burn_card(deck.pop())
        elif pk.can_deal_board():
            count = pk.street.board_dealing_count if pk.street is not None else 1
            pk.deal_board([deck.pop() for _ in range(count)])
        elif pk.can_deal_hole():
            break  # the caller deals holes
        else:
            break


def skip_idle_checks(pk: State, deal: Callable[[State], None], ours: int | None) -> None:
    """PokerKit still asks a seat that can only check (the big blind when everyone else
    is all-in); our core does not ask it. Checking for it changes nothing."""
    while (
        pk.status
        and pk.actor_index is not None
        and pk.actor_index != ours
        and pk.checking_or_calling_amount == 0
        and not pk.can_complete_bet_or_raise_to()
    ):
        pk.check_or_call()
        deal(pk)


def choose_action(rng: random.Random, table: Table) -> tuple[str, int | None]:
    legal = table.legal()
    assert legal is not None
    roll = rng.random()
    low, high = legal.min_raise_to, legal.max_raise_to
    if legal.check:
        if roll < 0.01:
            return "fold", None
        if low is not None and high is not None and roll < 0.35:
            return "bet", rng.choice((low, low, high, rng.randint(low, high)))
        if low is not None and roll < 0.40:
            return "all_in", None
        return "check", None
    if roll < 0.25:
        return "fold", None
    if low is not None and high is not None and roll < 0.45:
        return "raise", rng.choice((low, low, high, rng.randint(low, high)))
    if roll < 0.52:
        return "all_in", None
    return "call", None


def ranking_from(
    pk: State, holes: dict[int, list[Card]], board: list[Card], seats: Iterable[int]
) -> list[list[int]]:
    """Our award ranking from PokerKit's evaluation of each live seat's best hand."""
    hands = {seat: StandardHighHand.from_game(holes[seat], board) for seat in seats}
    groups: list[list[int]] = []
    for seat in sorted(hands, key=lambda s: hands[s], reverse=True):
        if groups and hands[groups[-1][0]] == hands[seat]:
            groups[-1].append(seat)
        else:
            groups.append([seat])
    return groups


class Features:
    """The known differences that came into play in a hand, in the order they did."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.short_all_ins: tuple[str, int] = ("preflop", 0)  # street, since a full raise

    def note(self, kind: str) -> None:
        if kind not in self.found:
            self.found.append(kind)


def note_action(
    features: Features,
    game: GameSettings,
    kind: str,
    total: int,
    legal_check: bool,
    before: dict[str, Any],
) -> None:
    """Note the known differences an action brings into play."""
    if kind == "fold" and legal_check:
        features.note("fold_with_nothing_to_call")
    if kind not in ("bet", "raise"):
        return
    if game.structure == "fixed_limit":
        if total < before["limit_target"]:
            features.note("limit_short_all_in")
        return
    street, count = features.short_all_ins
    if street != before["street"]:
        count = 0
    if total - before["current_bet"] >= before["min_increment"]:
        count = 0  # a full bet or raise
    else:
        count += 1
        if not before["opened"]:
            features.note("short_all_in_reopens")
        if count > 1:
            features.note("short_all_ins_add_up")
    features.short_all_ins = (before["street"], count)


def legal_difference(table: Table, pk: State) -> str | None:
    """Where PokerKit's options for the seat to act differ from our ``legal``."""
    legal = table.legal()
    assert legal is not None
    if pk.checking_or_calling_amount != legal.call:
        return f"call: ours {legal.call}, PokerKit {pk.checking_or_calling_amount}"
    ours = legal.min_raise_to is not None
    theirs = pk.can_complete_bet_or_raise_to()
    if ours != theirs:
        return f"may raise: ours {ours} ({legal.no_raise_reason}), PokerKit {theirs}"
    if ours:
        low = pk.min_completion_betting_or_raising_to_amount
        high = pk.max_completion_betting_or_raising_to_amount
        if (low, high) != (legal.min_raise_to, legal.max_raise_to):
            return (
                f"raise range: ours {legal.min_raise_to}-{legal.max_raise_to}, "
                f"PokerKit {low}-{high}"
            )
    return None


def explain_legal(table: Table, features: Features) -> None:
    """A fixed-limit raise we allow past the cap count: only while fewer than three
    players can bet (R3/R4), unless a short all-in made PokerKit count one more."""
    h = table.state.hand
    legal = table.legal()
    game = table.settings.game
    if (
        h is not None
        and legal is not None
        and game.structure == "fixed_limit"
        and legal.min_raise_to is not None
        and h.bets >= game.cap_raises + 1
        and "limit_short_all_in" not in features.found
    ):
        features.note("heads_up_limit_cap")


class Variant:
    """How one game is set up in both engines, dealt and ranked: Texas hold'em here;
    the draw games in ``tests/pokerkit_draw_oracle.py``."""

    name = "holdem"
    hole_count = 2

    def settings(self, structure: str, small_blind: int, big_blind: int) -> RuleSettings:
        return rule_settings(structure, small_blind, big_blind)

    def state(self, settings: RuleSettings, stacks: list[int]) -> State:
        return pokerkit_state(settings, stacks)

    def dealer(self, rng: random.Random, deck: list[Card]) -> Callable[[State], None]:
        """What deals in PokerKit between betting rounds (``deck``: the cards left)."""
        board_deck = list(deck)
        return lambda pk: deal_pending(pk, board_deck)

    def ranking(
        self, pk: State, holes: dict[int, list[Card]], order: list[int], live: list[int]
    ) -> list[list[int]]:
        board = [card for cards in pk.board_cards for card in cards]
        return ranking_from(pk, holes, board, live)


HOLDEM = Variant()


def act_in_pokerkit(pk: Any, acted: Acted) -> None:
    """Our action, as our core carried it out, done in PokerKit: a fold, a check or call,
    or a bet or raise to the same total."""
    if acted.action == "fold":
        pk.fold()
    elif acted.action in ("check", "call"):
        pk.check_or_call()
    else:
        pk.complete_bet_or_raise_to(acted.total)


def with_antes(
    rng: random.Random, settings: RuleSettings, ante_form: AnteForm | None
) -> RuleSettings:
    """The settings with an ante drawn for ``ante_form`` (None: none, nothing drawn)."""
    if ante_form is None:
        return settings
    big_blind = settings.game.big_blind
    if ante_form == "big_blind":
        ante = rng.choice((big_blind, big_blind, big_blind // 2, 2 * big_blind))
    else:
        ante = rng.choice((1, big_blind // 2, big_blind))
    game = dataclasses.replace(settings.game, ante=ante, ante_form=ante_form)
    return dataclasses.replace(settings, game=game)


def note_posts(features: Features, table: Table, start: list[Any]) -> RuleSettings:
    """Note the known difference the posts bring into play, a big blind short of the
    full blind (B1; one all-in for its ante posts none, A1); and the settings to give
    PokerKit: ours, but for a big blind short of its blind and its big-blind ante
    together, the ante it could post (A2, ``ADJUSTMENTS``)."""
    game = table.settings.game
    blind = sum(e.live for e in start if isinstance(e, Posted) and e.kind == "big_blind")
    if blind < game.big_blind:
        features.note("short_big_blind")
    if game.ante_form != "big_blind":
        return table.settings
    ante = sum(e.dead for e in start if isinstance(e, Posted) and e.kind == "big_blind_ante")
    if ante == game.ante:
        return table.settings
    features.note("big_blind_ante_first")
    return dataclasses.replace(table.settings, game=dataclasses.replace(game, ante=ante))


def play_hand(
    rng: random.Random,
    structure: str,
    variant: Variant = HOLDEM,
    ante_form: AnteForm | None = None,
) -> Outcome:
    big_blind = rng.choice((2, 2, 10))
    small_blind = big_blind // 2
    settings = with_antes(rng, variant.settings(structure, small_blind, big_blind), ante_form)
    count = rng.randint(2, 9)
    seats = sorted(rng.sample(range(1, 10), count))
    stacks = random_stacks(rng, count, big_blind)
    table = Table(settings)
    log: list[dict[str, Any]] = []
    for index, (seat, stack) in enumerate(zip(seats, stacks, strict=True)):
        table.apply(Sit(seat=seat, player=f"p{index}", chips=stack))
        log.append({"type": "sit", "seat": seat, "player": f"p{index}", "chips": stack})
    start = table.apply(StartHand())
    log.append({"type": "start_hand"})
    hand = table.state.hand
    assert hand is not None
    order = list(hand.dealt)  # PokerKit's player indices: left of the button first
    index_of = {seat: i for i, seat in enumerate(order)}
    features = Features()
    posted = note_posts(features, table, start)
    deck = shuffled_deck(rng)
    holes = {seat: [deck.pop() for _ in range(variant.hole_count)] for seat in order}
    odd_chip_bound = 0  # at a showdown with a tie: tied seats x pots
    actions = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        starting = [stacks[seats.index(s)] for s in order]
        pk: Any = Recording(variant.state(posted, starting))
        for seat in order:
            pk.deal_hole(holes[seat], index_of[seat])
        try:
            deal = variant.dealer(rng, deck)
            deal(pk)
            while table.state.hand is not None and table.state.hand.to_act is not None:
                h = table.state.hand
                seat = h.to_act
                assert seat is not None
                skip_idle_checks(pk, deal, index_of[seat])
                if pk.actor_index != index_of[seat]:
                    return _differ(
                        features,
                        actions,
                        log,
                        f"to act: ours seat {seat}, PokerKit {pk.actor_index}",
                    )
                difference = legal_difference(table, pk)
                if difference is not None:
                    explain_legal(table, features)
                    return _differ(features, actions, log, f"seat {seat}: {difference}")
                legal = table.legal()
                assert legal is not None
                action, to = choose_action(rng, table)
                try:
                    table.check(Act(seat=seat, action=action, to=to))
                except Refusal:  # all-in for more than a fixed-limit bet
                    action, to = "call", None
                before = {
                    "current_bet": h.current_bet,
                    "min_increment": h.min_increment,
                    "bets": h.bets,
                    "limit_target": _limit_target(table),
                    "street": h.street,
                    # a full bet or raise this round (before the flop the blind is none)
                    "opened": h.raises > 0 if h.street in FIRST_ROUNDS else h.bets > 0,
                }
                effects = table.apply(Act(seat=seat, action=action, to=to))
                log.append({"type": "act", "seat": seat, "action": action, "to": to})
                actions += 1
                acted = next(e for e in effects if isinstance(e, Acted))
                note_action(features, settings.game, acted.action, acted.total, legal.check, before)
                act_in_pokerkit(pk, acted)
                deal(pk)
            skip_idle_checks(pk, deal, None)
            if table.state.phase == "showdown":
                deal(pk)
                live = [s for s in order if table.state.seats[s].live]
                ranking = variant.ranking(pk, holes, order, live)
                tied = max(len(group) for group in ranking)
                if tied > 1:
                    odd_chip_bound = tied * len(current_pots(table.state))
                table.apply(Award(ranking=tuple(tuple(g) for g in ranking)))
                log.append({"type": "award", "ranking": ranking})
        except (ValueError, AssertionError) as error:
            return _differ(features, actions, log, f"PokerKit refused: {error}")
    if table.state.phase != "idle":
        return _differ(features, actions, log, f"our hand is still in {table.state.phase}")
    if pk.status:
        return _differ(features, actions, log, "PokerKit's hand is not over")
    ours = [table.state.seats[s].stack for s in order]
    theirs = list(pk.stacks)
    if ours != theirs:
        odd_chips = sum(ours) == sum(theirs) and all(
            abs(a - b) < odd_chip_bound for a, b in zip(ours, theirs, strict=True)
        )
        if odd_chips:  # only chips moved between tied winners, fewer than a share each
            features.note("odd_chips")
        return _differ(features, actions, log, f"stacks: ours {ours}, PokerKit {theirs}")
    return Outcome(
        "agree",
        actions,
        adjusted=_adjusted(features),
        events=log,
        operations=pk.operations,
        stacks=starting,
        settings=settings,
    )


def _limit_target(table: Table) -> int:
    h = table.state.hand
    assert h is not None
    return limit_target(h, bet_size(table.settings.game, h))


# When several known differences came into play, the one named is the first of these
# (the most direct cause of what can differ).
ATTRIBUTION = (
    "odd_chips",
    "limit_short_all_in",
    "heads_up_limit_cap",
    "short_all_ins_add_up",
    "short_all_in_reopens",
    "short_big_blind",
    "fold_with_nothing_to_call",
)


def _differ(features: Features, actions: int, log: list[dict[str, Any]], detail: str) -> Outcome:
    kind = next((k for k in ATTRIBUTION if k in features.found), "mismatch")
    return Outcome(kind, actions, detail, _adjusted(features), log)


def _adjusted(features: Features) -> str | None:
    return next((k for k in ADJUSTMENTS if k in features.found), None)


def run(count: int, seed: int, antes: AnteForm | None = None) -> tuple[Counter[str], list[Outcome]]:
    """``count`` hands, alternating no-limit and fixed-limit (``antes``: with an
    ante of that form drawn for each hand)."""
    rng = random.Random(seed)
    tally: Counter[str] = Counter()
    mismatches: list[Outcome] = []
    with memoized_evaluation():
        for number in range(count):
            structure = "no_limit" if number % 2 == 0 else "fixed_limit"
            outcome = play_hand(rng, structure, ante_form=antes)
            tally[outcome.kind] += 1
            if outcome.adjusted:
                tally[f"adjusted:{outcome.adjusted}"] += 1
            if outcome.kind == "mismatch":
                mismatches.append(outcome)
    return tally, mismatches
