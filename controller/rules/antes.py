"""Antes (A1-A3): forced dead money taken at the deal.

``game.ante_form: each`` (A1): every seat dealt in antes before the blinds, in dealing
order, recorded in the hand's posts as ``kind: ante``, the whole amount dead. A seat's
ante is no part of its bet (it counts toward no call or raise) but is part of what it
put into the hand (``hand.current_pots`` reads it from the posts), so the pots are
layered by contribution with the antes included: a stack short of the ante is all-in
for what it has, posts no blind, and can win from each other player only as much as it
anted.

``game.ante_form: big_blind`` (A2): the big blind alone puts in the whole table's ante,
after its blind (a stack short of both pays the blind first), recorded as ``kind:
big_blind_ante``; this ante is dead money in the main pot (``Hand.dead_money``), like a
dead blind. A big blind that posted no blind posts no ante.

The posts are the antes' one record: no field of the seat holds them, so a snapshot
written with antes reads as any other (an earlier release reads this one's snapshots).
A misdeal gives them back with the rest of the hand (the table before the hand is
restored); an undo, which takes back only an action, never touches them (A3).
"""

from __future__ import annotations

from controller.rules import betting, effects
from controller.rules.records import PostKind, PostRecord
from controller.rules.settings import GameSettings
from controller.rules.state import Hand, Seat

#: The posts that are antes: a player's (A1) and the big blind's (A2).
ANTE_KINDS: frozenset[PostKind] = frozenset({"ante", "big_blind_ante"})


def posted(hand: Hand | None) -> dict[int, int]:
    """The antes of the hand by seat (none between hands)."""
    if hand is None:
        return {}
    return {p["seat"]: p["dead"] for p in hand.posts if p["kind"] in ANTE_KINDS}


def post_each(
    hand: Hand, seats: dict[int, Seat], dealt: tuple[int, ...], game: GameSettings
) -> list[effects.Posted]:
    """A1: every seat dealt in antes (``ante_form: each``), before the blinds."""
    if not game.ante or game.ante_form != "each":
        return []
    out: list[effects.Posted] = []
    for number in dealt:
        s = seats[number]
        amount = min(game.ante, betting.playable(s.stack, game.smallest_chip))
        s.stack -= amount
        out.append(_record(hand, s, number, "ante", amount, game))
    return out


def post_big_blind(
    hand: Hand, seats: dict[int, Seat], big_blind: int, game: GameSettings
) -> list[effects.Effect]:
    """A2: the big blind's ante, after its blind (``ante_form: big_blind``); none
    when the seat posted no big blind."""
    if not game.ante or game.ante_form != "big_blind":
        return []
    blind = next(
        (p for p in hand.posts if p["seat"] == big_blind and p["kind"] == "big_blind"), None
    )
    if blind is None or not blind["live"]:
        return []
    s = seats[big_blind]
    amount = min(game.ante, betting.playable(s.stack, game.smallest_chip))
    if not amount:
        return []  # all-in for the blind: nothing left for the ante
    s.stack -= amount
    hand.dead_money += amount
    return [_record(hand, s, big_blind, "big_blind_ante", amount, game)]


def _record(
    hand: Hand, s: Seat, number: int, kind: PostKind, amount: int, game: GameSettings
) -> effects.Posted:
    if betting.playable(s.stack, game.smallest_chip) == 0:
        s.all_in = True
    record: PostRecord = {"seat": number, "kind": kind, "live": 0, "dead": amount}
    hand.posts.append(record)
    return effects.Posted(number, kind, 0, amount)
