"""The straddle (a live bet of two big blinds before any action, by the seat left of
the big blind), when the table allows it (``game.straddle``; fixed limit only with
``game.straddle_in_limit``). Never heads-up."""

from __future__ import annotations

from controller.rules import betting, effects
from controller.rules.errors import Refusal
from controller.rules.events import Straddle
from controller.rules.settings import RuleSettings
from controller.rules.state import TableState
from controller.rules.text import refuse


def allowed_at(settings: RuleSettings) -> bool:
    game = settings.game
    return game.straddle and (game.structure != "fixed_limit" or game.straddle_in_limit)


def out_of_phase(settings: RuleSettings) -> Refusal:
    """The refusal of a straddle outside the first betting round."""
    if not allowed_at(settings):
        return refuse("no_straddle", "refuse.no_straddle")
    return refuse("no_straddle", "refuse.straddle_first")


def check(state: TableState, settings: RuleSettings, event: Straddle) -> None:
    game = settings.game
    h = state.hand
    if not allowed_at(settings):
        raise refuse("no_straddle", "refuse.no_straddle")
    if h is None or h.log or h.straddle is not None:
        raise refuse("no_straddle", "refuse.straddle_first")
    if state.positions.heads_up:
        raise refuse("no_straddle", "refuse.no_straddle_heads_up")
    if h.kill is not None:  # the kill blind already doubled the stakes and acts last
        raise refuse("no_straddle", "refuse.no_straddle_killed")
    if event.seat != h.to_act:
        raise refuse("no_straddle", "refuse.straddle_seat", seat=h.to_act)
    s = state.seats[event.seat]
    if s.bet + betting.playable(s.stack, game.smallest_chip) < 2 * game.big_blind:
        raise refuse("no_straddle", "refuse.straddle_needs", amount=2 * game.big_blind)


def apply(state: TableState, settings: RuleSettings, event: Straddle) -> list[effects.Effect]:
    game = settings.game
    h = state.hand
    assert h is not None
    s = state.seats[event.seat]
    amount = 2 * game.big_blind
    s.stack -= amount - s.bet
    s.bet = amount
    if betting.playable(s.stack, game.smallest_chip) == 0:
        s.all_in = True
    h.straddle = event.seat
    h.current_bet = amount
    h.min_increment = amount
    h.raise_level = amount
    h.bets = 2
    h.posts.append({"seat": event.seat, "kind": "straddle", "live": amount, "dead": 0})
    h.to_act = betting.next_to_act(h, state.seats, event.seat, settings.seats)
    return [effects.Posted(event.seat, "straddle", amount, 0)]
