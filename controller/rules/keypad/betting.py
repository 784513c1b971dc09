"""The fast path: acting for a seat, bets, the clock and the next hand.

``FOLD`` / ``CHECK`` / ``ALLIN`` act at once for the seat to act; ``BET`` digits
``ENTER`` bets or raises to a total. Typing a seat number first names the seat
(``5 CHECK``, ``5 BET 40 ENTER``): the same as the plain keys for the seat to act, and
under ``game.out_of_turn: record`` the way to key an action out of turn (R10).
"""

from __future__ import annotations

from controller.rules import betting
from controller.rules.events import Act
from controller.rules.keypad.base import Press, Step, context, seat_to_act
from controller.rules.records import Action, Entry
from controller.rules.text import refuse

ACTIONS: dict[str, Action] = {"FOLD": "fold", "CHECK": "call", "ALLIN": "all_in"}


def act(p: Press, seat: int) -> Step:
    return p.done(Act(by=p.by, seat=seat, action=ACTIONS[p.key]))


def start_bet(p: Press, seat: int) -> Step:
    """``BET``: refused at once when the seat may not bet or raise."""
    table = p.table
    h = table.state.hand
    to_act = seat_to_act(table)
    table.check(Act(seat=seat, action="fold"))  # the seat may act now (or out of turn)
    assert h is not None
    if seat == to_act:
        legal = table.legal()
        assert legal is not None
    else:
        legal = betting.legal_for(h, table.state.seats, seat, table.settings.game)
    if legal.min_raise_to is None:
        raise refuse("raise_not_allowed", "refuse.no_raise", reason=legal.no_raise_reason or "")
    return p.stay(
        {"mode": "bet", "seat": seat, "field": "amount", "digits": "", "ctx": context(table)}
    )


def bet(p: Press, entry: Entry) -> Step:
    if p.key != "ENTER":
        raise refuse("bad_key", "keypad.finish_bet")
    to = p.number(entry)
    return p.done(Act(by=p.by, seat=int(entry["seat"]), action="raise", to=to))


def seat_first(p: Press, entry: Entry) -> Step:
    """A seat number was typed: the action key that follows is that seat's."""
    seat = int(entry["digits"])
    if p.key in ACTIONS:
        return act(p, seat)
    if p.key == "BET":
        return start_bet(p, seat)
    raise refuse("bad_key", "keypad.press_action", seat=seat)
