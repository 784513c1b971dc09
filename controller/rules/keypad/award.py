"""FUNC 7 (or any seat number at the showdown): award the pots, pot by pot.

The display names a pot and its amount (``MAIN POT 300: WINNER``); the dealer keys a
winning seat and ``ENTER``, more seats and ``ENTER`` for a split, then ``ENTER`` alone
to close the pot. The display goes on to the next pot that no winner so far is
eligible for; a pot with one seat eligible, or one where a seat already keyed is
eligible, is settled by the ranking without asking (a seat that won a larger pot beats
everyone in the smaller one too). After the last pot the keyed winners, in the order
keyed, are the ``award`` ranking: each group is the best hand among the seats not yet
ranked, so every pot goes to the seats keyed for it. Seats never keyed forfeit (P5).

``CLEAR`` drops only the pot being keyed: its winners and digits, never the winners of
the pots already closed. At the first pot with nothing keyed it ends the award entry
(nothing is lost); at a later pot with nothing keyed it does nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.events import Award
from controller.rules.hand import current_pots
from controller.rules.keypad.base import Press, Step, context, type_digit
from controller.rules.keypad.pages import pot_name, seat_list
from controller.rules.pots import Pot
from controller.rules.records import Entry
from controller.rules.text import refuse

if TYPE_CHECKING:
    from controller.rules.table import Table


def _ranked(entry: Entry) -> set[int]:
    return {seat for group in entry["winners"] for seat in group}


def _next_pot(pots: list[Pot], entry: Entry, start: int) -> int | None:
    """The first pot from ``start`` whose winner is not settled yet."""
    ranked = _ranked(entry)
    for index in range(start, len(pots)):
        eligible = set(pots[index].eligible)
        if len(eligible) > 1 and not eligible & ranked:
            return index
    return None


def start(p: Press, first_digit: str | None = None) -> Step:
    table = p.table
    if table.state.phase != "showdown":
        raise refuse("not_showdown", "refuse.not_showdown")
    entry: Entry = {
        "mode": "award",
        "pot": 0,
        "winners": [],
        "current": [],
        "field": "seat",
        "digits": "",
        "ctx": context(table),
    }
    pots = current_pots(table.state)
    index = _next_pot(pots, entry, 0)
    if index is None:  # nothing contested: every pot has one seat eligible
        return p.done(_award(p, pots, entry))
    entry["pot"] = index
    if first_digit is not None:
        entry = type_digit(entry, first_digit)
    return p.stay(entry)


def _award(p: Press, pots: list[Pot], entry: Entry) -> Award:
    groups = [list(group) for group in entry["winners"]]
    ranked = _ranked(entry)
    for pot in pots:  # uncontested pots: their only seat
        if not set(pot.eligible) & ranked:
            groups.append(list(pot.eligible))
            ranked |= set(pot.eligible)
    return Award(by=p.by, ranking=tuple(tuple(sorted(g)) for g in groups))


def award(p: Press, entry: Entry) -> Step:
    if p.key != "ENTER":
        raise refuse("bad_key", "keypad.award_keys")
    pots = current_pots(p.table.state)
    index = int(entry["pot"])
    pot = pots[index]
    current = list(entry["current"])
    seat = p.number(entry, empty_ok=True)
    if seat is not None:
        if seat not in pot.eligible:
            raise refuse("bad_ranking", "keypad.not_in_pot", seat=seat, name=pot_name(index))
        if seat in current:
            raise refuse("bad_ranking", "keypad.already_winner", seat=seat)
        return p.stay({**entry, "current": current + [seat], "digits": ""})
    if not current:
        raise refuse(
            "bad_ranking",
            "keypad.pot_needs_winner",
            name=pot_name(index),
            seats=seat_list(pot.eligible),
        )
    entry = {**entry, "winners": entry["winners"] + [current], "current": [], "digits": ""}
    following = _next_pot(pots, entry, index + 1)
    if following is not None:
        return p.stay({**entry, "pot": following})
    return p.done(_award(p, pots, entry))


def clear(p: Press, entry: Entry) -> Step:
    if entry["current"] or entry["digits"]:
        return p.stay({**entry, "current": [], "digits": ""})
    if entry["winners"]:
        return p.stay(entry)
    return p.done()


def prompt_pot(table: Table, entry: Entry) -> tuple[str, Pot]:
    pots = current_pots(table.state)
    index = int(entry["pot"])
    return pot_name(index), pots[index]
