"""Reading one key: the table of what each key does, with or without an entry.

Without an entry (the fast path):

=========  ===================================================================
key        does
=========  ===================================================================
FOLD       the seat to act folds
CHECK      the seat to act checks, or calls when facing a bet
ALLIN      the seat to act puts every chip in
BET        starts ``BET`` amount ``ENTER``: bet or raise to that total
0-9        a seat number for the action key that follows (``5 CHECK``); at the
           showdown, the first winning seat of the award
CLOCK      calls the clock on the seat to act
NEXT       starts the next hand; pages the payouts before it, and the pots
           during a hand (``pages``)
FUNC       the menus (``FUNC`` then one digit)
CLEAR      drops the unfinished entry, and any notice
ENTER      nothing to enter (refused)
=========  ===================================================================

With an entry, digits type its number, ``ENTER`` ends the number, ``CLEAR`` drops the
entry (in a pot-by-pot award only the pot being keyed, ``award.clear``), and the
entry's mode reads every other key (``MODES``). A refused key changes nothing in the
game; after a refused ``ENTER`` the digits keyed for it are gone and the prompt stays
(``after_refusal``), so that ``BET 2 ENTER`` refused, then ``5 0 ENTER``, is a bet to
50, never 250; a seat typed before a refused action key goes too. A key meant for
something else (``FUNC``, ``BET``, ``FOLD``, ``CHECK``, ``ALLIN``) refused in the
middle of an entry holds it: the prompt stays, but the entry takes no digit and no
``ENTER`` until another key (``CLEAR``), so that ``FUNC 5 2 ENTER``, then ``FUNC 1 3
ENTER``, never buys seat 2 13 chips.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from controller.rules import effects
from controller.rules.errors import Refusal
from controller.rules.events import CallClock, Key, StartHand
from controller.rules.keypad import award, betting, menus, pages, push, supervisor, tips
from controller.rules.keypad.base import (
    HIDDEN_DIGIT,
    KEYS,
    Press,
    Step,
    context,
    live_entry,
    seat_to_act,
    type_digit,
)
from controller.rules.keypad.prompt import collecting_pin
from controller.rules.records import Entry
from controller.rules.text import refuse

if TYPE_CHECKING:
    from controller.rules.table import Table

MODES: dict[str, Callable[[Press, Entry], Step]] = {
    "seat": betting.seat_first,
    "bet": betting.bet,
    "sit": menus.sit,
    "sit_out": menus.sit_out,
    "sit_in": menus.sit_in,
    "leave": menus.leave,
    "chips": menus.chips,
    "move": menus.move,
    "sign_in": menus.sign_in,
    "award": award.award,
    "push": push.push,
    "supervisor": supervisor.supervisor,
    "tip": tips.tip,
}


def translate(table: Table, event: Key) -> Step:
    """What ``event``'s key does; raises ``Refusal`` and changes nothing if refused."""
    if event.key == HIDDEN_DIGIT:
        if not collecting_pin(table.state):
            raise refuse("bad_key", "keypad.hidden_digit")
    elif event.key not in KEYS:
        raise refuse("bad_key", "keypad.unknown_key", key=repr(event.key))
    p = Press(table, event)
    entry = p.entry
    if p.key == "CLEAR":
        if entry is not None and entry.get("mode") == "award":
            return award.clear(p, entry)
        return p.done()
    if entry is None:
        return _fast(p)
    if entry.get("mode") == "func":
        return _func(p)
    if p.held and (p.key.isdigit() or p.key in (HIDDEN_DIGIT, "ENTER")):
        raise refuse("bad_key", "keypad.entry_open")
    if "field" in entry and (p.key.isdigit() or p.key == HIDDEN_DIGIT):
        return p.stay(type_digit(entry, p.key))
    try:
        return MODES[str(entry["mode"])](p, entry)
    except Refusal:
        if holds(entry, p.key):  # the same words whatever the entry: it is held now
            raise refuse("bad_key", "keypad.entry_open") from None
        raise


def _fast(p: Press) -> Step:
    table = p.table
    key = p.key
    if key.isdigit():
        if table.state.phase == "showdown":
            return award.start(p, first_digit=key)
        if table.state.phase == "idle":
            raise refuse("bad_key", "keypad.idle_digits")
        seat_to_act(table)
        entry: Entry = {"mode": "seat", "field": "seat", "digits": "", "ctx": context(table)}
        return p.stay(type_digit(entry, key))
    if key in betting.ACTIONS:
        return betting.act(p, seat_to_act(table))
    if key == "BET":
        return betting.start_bet(p, seat_to_act(table))
    if key == "CLOCK":
        return p.done(CallClock(by=p.by))
    if key == "NEXT":
        step = pages.turn(p, pages.shown_page(table))
        return step if step is not None else p.done(StartHand(by=p.by))
    if key == "FUNC":
        return p.stay({"mode": "func"})
    raise refuse("bad_key", "keypad.nothing_to_enter")


def _func(p: Press) -> Step:
    key = p.key
    idle = p.table.state.phase == "idle"
    if key in menus.MENUS:
        first, _ = menus.MENUS[key]
        return p.stay(first.copy())
    if key == "7":
        return tips.start(p) if idle else award.start(p)
    if key == "9":
        return push.start(p)
    if key == "0":
        return supervisor.start(p)
    raise refuse("bad_key", "keypad.choose_menu")


#: The keys that end a seat typed before an action (``5 FOLD``): refused, the seat goes.
SEAT_ENDERS = frozenset({"ENTER", *betting.ACTIONS, "BET"})
#: The keys that end a pushed chip's value besides ENTER (``2 5 CHECK``).
PUSH_ENDERS = frozenset({"CHECK", "BET"})
#: Keys meant for something else when an entry refuses them: the entry is held.
#: (``NEXT`` and ``CLOCK`` are whole in themselves: refused, they hold nothing.)
HOLDERS = frozenset({"FUNC", "BET", *betting.ACTIONS})


def holds(entry: Entry, key: str) -> bool:
    """Whether ``key``, refused in ``entry``, holds it: a key meant for something else
    (``FUNC 1 3`` keyed in the middle of ``FUNC 5 2 ENTER``) leaves an entry that the
    digits and ``ENTER`` keyed next must not complete. Not the menu choice itself
    (``FUNC FUNC 5`` is menu 5), nor the keys that end a seat or a pushed chip (they
    go or lose their digits as at ``ENTER``)."""
    mode = entry.get("mode")
    if key not in HOLDERS or mode == "func":
        return False
    if mode == "seat" and key in SEAT_ENDERS:
        return False
    return not (mode == "push" and key in PUSH_ENDERS)


def after_refusal(table: Table, event: Key) -> None:
    """What a refused key leaves behind: after a refused ``ENTER`` the digits keyed for
    it are gone and the prompt stays. A seat typed before an action key is the whole
    entry: when the key that ends it is refused (``5 FOLD`` while seat 8 is to act),
    it goes, so that the next seat typed is not read as ``58``; a pushed chip's value
    refused at the ``CHECK`` or ``BET`` after it goes as at ``ENTER``. A key meant for
    something else holds the entry (``holds``). Called by ``Table.refused`` wherever a
    refusal is folded."""
    entry = live_entry(table)
    if entry is None:
        return
    pad = table.state.keypad.copy()
    if holds(entry, event.key):
        pad["entry"] = {**pad["entry"], "held": True}
        table.state.keypad = pad
        return
    if not entry.get("digits"):
        return
    if entry.get("mode") == "seat" and event.key in SEAT_ENDERS:
        pad.pop("entry", None)
    elif event.key == "ENTER" or (entry.get("mode") == "push" and event.key in PUSH_ENDERS):
        pad["entry"] = {**entry, "digits": ""}
    else:
        return
    table.state.keypad = pad


def check(table: Table, event: Key) -> None:
    step = translate(table, event)
    if step.event is not None:
        table.check(step.event)


def press(table: Table, event: Key) -> list[effects.Effect]:
    step = translate(table, event)
    out: list[effects.Effect] = []
    if step.event is not None:
        out = table.apply(step.event)
    # after the event: a misdeal replaces table.state (keeping the keypad as it was)
    table.state.keypad = step.keypad
    return out + step.effects
