"""The betting round: who acts next, what the seat to act may do, and doing it.

R1-R7, R6b, R16, B1, B8, B9. The reopening rule is kept per seat: a seat that has
acted may raise again only when the wager it now faces grew by a full raise since it
last acted (no/pot limit: by at least the round's minimum raise, which lets several
short all-ins add up; fixed limit: when a full bet or raise, or an all-in of half a bet
or more, came after it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

from controller.rules.pots import clockwise_from
from controller.rules.records import Action, ActionKind
from controller.rules.settings import GameSettings
from controller.rules.state import SMALL_BET_ROUNDS, Hand, Seat
from controller.rules.text import Phrase, phrase, refuse


class LegalView(TypedDict):
    """``Legal`` in the state view (docs/replay.md)."""

    check: bool
    call: int
    min_raise_to: int | None
    max_raise_to: int | None


@dataclass(frozen=True, slots=True)
class Legal:
    """What the seat to act may do (the state's ``legal``)."""

    check: bool
    call: int
    min_raise_to: int | None
    max_raise_to: int | None
    no_raise_reason: Phrase | None = None

    def as_dict(self) -> LegalView:
        return {
            "check": self.check,
            "call": self.call,
            "min_raise_to": self.min_raise_to,
            "max_raise_to": self.max_raise_to,
        }


def playable(stack: int, chip: int) -> int:
    """R7: a stack's odd remainder below the smallest chip does not play."""
    return stack - stack % chip


def bet_size(game: GameSettings, hand: Hand) -> int:
    """The fixed-limit bet of the hand's street, or the no/pot-limit minimum bet; doubled
    in a killed hand (lowball seat change, ``entry: kill``: a full kill)."""
    stakes = 2 if hand.kill is not None else 1
    if game.structure == "fixed_limit":
        small = hand.street in SMALL_BET_ROUNDS[game.form]
        return stakes * (game.small_bet_amount if small else game.big_bet_amount)
    return stakes * game.big_blind


def limit_target(hand: Hand, size: int) -> int:
    """R5: a fixed-limit raise goes one bet above the last full level (completing a
    short all-in), or one bet above the current wager when that is higher."""
    target = hand.raise_level + size
    return target if target > hand.current_bet else hand.current_bet + size


def others_can_act(hand: Hand, seats: Mapping[int, Seat], seat: int) -> bool:
    for other in hand.dealt:  # a loop, not any(): next_to_act asks this often
        if other != seat:
            s = seats[other]
            if s.can_act:
                return True
    return False


def needs_to_act(hand: Hand, seats: Mapping[int, Seat], seat: int) -> bool:
    s = seats[seat]
    if not s.can_act:
        return False
    return s.bet < hand.current_bet or (not s.acted and others_can_act(hand, seats, seat))


def next_to_act(hand: Hand, seats: Mapping[int, Seat], after: int, table_seats: int) -> int | None:
    """The first seat clockwise after ``after`` that needs to act (``needs_to_act``,
    written out here: this runs after every action)."""
    dealt = hand.dealt
    if after in dealt:  # dealt is in dealing order, clockwise: rotate it
        at = dealt.index(after) + 1
        order = dealt[at:] + dealt[:at]
    else:
        order = clockwise_from(after, dealt, table_seats)
    current = hand.current_bet
    for seat in order:
        s = seats[seat]
        if s.can_act and (s.bet < current or (not s.acted and others_can_act(hand, seats, seat))):
            return seat
    return None


def one_left(hand: Hand, seats: Mapping[int, Seat]) -> bool:
    """Everyone else has folded: the hand is over."""
    live = 0
    for seat in hand.dealt:
        if seats[seat].live:
            live += 1
            if live > 1:
                return False
    return live == 1


def active_count(hand: Hand, seats: Mapping[int, Seat]) -> int:
    """Seats neither folded nor all-in (R3's "three or more players")."""
    return sum(1 for s in hand.dealt if seats[s].can_act)


def cap_reached(hand: Hand, seats: Mapping[int, Seat], game: GameSettings) -> bool:
    """R4: the fixed-limit street's bets have reached the cap, and it holds: three or
    more seats can act (heads-up raising is unlimited). Once reached, ``hand.capped``
    keeps it for the street, even when the action becomes heads-up."""
    return hand.bets >= game.cap_raises + 1 and active_count(hand, seats) >= 3


def pot_total(hand: Hand, seats: Mapping[int, Seat]) -> int:
    antes = sum(p["dead"] for p in hand.posts if p["kind"] == "ante")  # A1
    return hand.dead_money + antes + sum(seats[s].gathered + seats[s].bet for s in hand.dealt)


def _no_raise_reason(
    hand: Hand, seats: Mapping[int, Seat], seat: int, game: GameSettings, chips: int
) -> Phrase | None:
    s = seats[seat]
    owed = hand.current_bet - s.bet
    if chips <= owed:
        return phrase("reason.all_chips")
    if not any(
        t != seat and seats[t].can_act and seats[t].stack + seats[t].bet > hand.current_bet
        for t in hand.dealt
    ):
        return phrase("reason.no_answer")
    if s.acted:
        if game.structure == "fixed_limit":
            reopened = s.acted_at < hand.raise_level
        else:
            reopened = hand.current_bet - s.acted_at >= hand.min_increment
        if not reopened:
            return phrase("reason.not_reopened")
    if s.checked and not game.check_raise and hand.current_bet > 0:
        return phrase("reason.no_check_raise")
    if game.structure == "fixed_limit":
        # R4: the cap holds while three or more can act; heads-up raising is unlimited,
        # unless the cap was reached before the action became heads-up (``capped``)
        if hand.capped or cap_reached(hand, seats, game):
            return phrase("reason.capped")
    elif (
        game.max_raises_big_bet is not None
        and hand.current_bet > 0
        and hand.raises >= game.max_raises_big_bet
    ):
        return phrase("reason.raises_capped")
    return None


def legal_for(hand: Hand, seats: Mapping[int, Seat], seat: int, game: GameSettings) -> Legal:
    s = seats[seat]
    chips = playable(s.stack, game.smallest_chip)
    owed = max(hand.current_bet - s.bet, 0)
    call = min(owed, chips)
    reason = _no_raise_reason(hand, seats, seat, game, chips)
    if reason is not None:
        return Legal(owed == 0, call, None, None, reason)
    low, high = _raise_range(hand, seats, s, game, chips)
    return Legal(owed == 0, call, low, high)


def _raise_range(
    hand: Hand, seats: Mapping[int, Seat], s: Seat, game: GameSettings, chips: int
) -> tuple[int, int]:
    """The least and the most seat ``s`` may bet or raise to, when it may (``chips``:
    its playable stack)."""
    all_in_to = s.bet + chips
    size = bet_size(game, hand)
    if game.structure == "fixed_limit":
        low = high = min(limit_target(hand, size), all_in_to)
    else:
        # R6: at least the largest full bet or raise of the round, unless all-in
        low = hand.current_bet + hand.min_increment
        if game.structure == "pot_limit":
            owed = max(hand.current_bet - s.bet, 0)
            high = min(all_in_to, hand.current_bet + pot_total(hand, seats) + owed)
        else:
            high = all_in_to
        if all_in_to < low:
            low = high = all_in_to
    return low, high


def check_action(
    hand: Hand,
    seats: Mapping[int, Seat],
    seat: int,
    action: Action,
    to: int | None,
    game: GameSettings,
) -> tuple[ActionKind, int]:
    """Refuse an illegal action, or say what it amounts to: (kind, the seat's new bet)."""
    s = seats[seat]
    if action == "fold":
        return "fold", s.bet
    chips = playable(s.stack, game.smallest_chip)
    call = min(max(hand.current_bet - s.bet, 0), chips)  # as legal_for has it
    if action == "check":
        if hand.current_bet > s.bet:
            raise refuse("cannot_check", "refuse.cannot_check", call=call)
        return "check", s.bet
    if action == "call":
        return ("check", s.bet) if call == 0 else ("call", s.bet + call)
    all_in_to = s.bet + chips
    if action == "all_in":
        if chips == 0:
            raise refuse("bad_action", "refuse.no_chips_to_put_in", seat=seat)
        if all_in_to <= hand.current_bet:
            return "call", all_in_to
        to = all_in_to
    if to is None:
        raise refuse("bad_amount", "refuse.needs_amount", action=phrase(f"word.{action}"))
    # only a bet or raise needs what legal_for works out (the slower part: a reason is
    # a phrase, rendered when made), and no Legal record of it
    reason = _no_raise_reason(hand, seats, seat, game, chips)
    if reason is not None:
        may_check = hand.current_bet <= s.bet  # Legal.check
        only = phrase("word.check_or_fold" if may_check else "word.call_or_fold")
        raise refuse("raise_not_allowed", "refuse.may_only", seat=seat, only=only, reason=reason)
    low, high = _raise_range(hand, seats, s, game, chips)
    if to % game.smallest_chip:
        raise refuse("bad_amount", "refuse.amount_units", amount=game.smallest_chip)
    if to <= hand.current_bet:
        raise refuse("bad_amount", "refuse.more_than", amount=hand.current_bet)
    if to > all_in_to:
        raise refuse("bad_amount", "refuse.only_in_all", seat=seat, amount=all_in_to)
    if to > high:
        raise refuse("bad_amount", "refuse.max", verb=_verb(hand), amount=high)
    if to < low and to != all_in_to:
        raise refuse("bad_amount", "refuse.min", verb=_verb(hand), amount=low)
    return ("raise" if hand.current_bet else "bet"), to


def _verb(hand: Hand) -> Phrase:
    """``RAISE TO`` or ``BET``, for a refusal's words (rendered only when refusing: a
    phrase renders its text when made)."""
    return phrase("word.raise_to" if hand.current_bet else "word.bet")


def apply_action(
    hand: Hand,
    seats: Mapping[int, Seat],
    seat: int,
    kind: ActionKind,
    to: int,
    game: GameSettings,
) -> None:
    """Carry out an action ``check_action`` approved (it must have been checked)."""
    s = seats[seat]
    chip = game.smallest_chip
    s.acted = True
    if kind == "fold":
        s.folded = True
        return
    if kind == "check":
        s.checked = True
        s.acted_at = hand.current_bet
        return
    s.stack -= to - s.bet
    s.bet = to
    if playable(s.stack, chip) == 0:
        s.all_in = True
    if kind == "call":
        s.acted_at = hand.current_bet
        return
    increment = to - hand.current_bet
    if game.structure == "fixed_limit":
        size = bet_size(game, hand)
        full = to >= limit_target(hand, size) or 2 * increment >= size
        if full:
            hand.raise_level = to
            hand.bets += 1
    else:
        # R6: only a full raise sets the new minimum (a short all-in does not)
        full = increment >= hand.min_increment
        if full:
            hand.min_increment = increment
            if hand.current_bet:
                hand.raises += 1
            hand.bets += 1
    hand.current_bet = to
    s.acted_at = to
    hand.street_aggressor = seat
    if game.structure == "fixed_limit" and full and cap_reached(hand, seats, game):
        hand.capped = True


def start_round(hand: Hand, seats: Mapping[int, Seat], game: GameSettings) -> None:
    """Reset the per-street betting state for a new street after the flop."""
    hand.current_bet = 0
    hand.min_increment = bet_size(game, hand)
    hand.raise_level = 0
    hand.bets = 0
    hand.raises = 0
    hand.capped = False
    hand.street_aggressor = None
    for seat in hand.dealt:
        s = seats[seat]
        s.acted = False
        s.acted_at = 0
        s.checked = False


def return_uncalled(hand: Hand, seats: Mapping[int, Seat]) -> tuple[int, int] | None:
    """Give back the part of the largest bet nobody matched: (seat, amount) or None."""
    # the largest bet and its seat, and the next largest (equal to it on a tie, when
    # nothing is returned, whichever seat is taken for the largest)
    top, seat, second = 0, 0, 0
    for number in hand.dealt:
        bet = seats[number].bet
        if bet > top:
            top, seat, second = bet, number, top
        elif bet > second:
            second = bet
    if top == 0:
        return None
    if top <= second or not seats[seat].live:
        return None  # a bettor who left the hand leaves its chips in the pot (docs/replay.md, ``leave``)
    excess = top - second
    seats[seat].bet -= excess
    seats[seat].stack += excess
    if seats[seat].all_in and seats[seat].stack > 0:
        seats[seat].all_in = False
    return seat, excess


def gather(hand: Hand, seats: Mapping[int, Seat]) -> None:
    for seat in hand.dealt:
        s = seats[seat]
        s.gathered += s.bet
        s.bet = 0
