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
entry's mode reads every other key (``modes.MODES``). A refused key changes nothing in the
game; after a refused ``ENTER`` the digits keyed for it are gone and the prompt stays
(``after_refusal``), so that ``BET 2 ENTER`` refused, then ``5 0 ENTER``, is a bet to
50, never 250; a seat typed before a refused action key goes too. A key meant for
something else (``FUNC``, ``BET``, ``FOLD``, ``CHECK``, ``ALLIN``) refused in the
middle of an entry holds it: the prompt stays, but the entry takes no digit and no
``ENTER`` until another key (``CLEAR``), so that ``FUNC 5 2 ENTER``, then ``FUNC 1 3
ENTER``, never buys seat 2 13 chips.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules import effects
from controller.rules.errors import Refusal
from controller.rules.events import CallClock, Key, StartHand
from controller.rules.keypad import award, betting, pages
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
from controller.rules.keypad.modes import MODES, Mode, mode_of
from controller.rules.keypad.prompt import collecting_pin
from controller.rules.records import Entry
from controller.rules.text import refuse

if TYPE_CHECKING:
    from controller.rules.table import Table


def translate(table: Table, event: Key) -> Step:
    """What ``event``'s key does; raises ``Refusal`` and changes nothing if refused."""
    if event.key == HIDDEN_DIGIT:
        if not collecting_pin(table.state):
            raise refuse("bad_key", "keypad.hidden_digit")
    elif event.key not in KEYS:
        raise refuse("bad_key", "keypad.unknown_key", key=repr(event.key))
    p = Press(table, event)
    entry = p.entry
    if p.key == "CLEAR":  # drops any entry, even one of a mode this firmware lacks
        row = _row(entry)
        if entry is not None and row is not None and row.clear is not None:
            return row.clear(p, entry)
        return p.done()
    if entry is None:
        return _fast(p)
    mode = mode_of(entry)
    if p.held and (p.key.isdigit() or p.key in (HIDDEN_DIGIT, "ENTER")):
        raise refuse("bad_key", "keypad.entry_open")
    if "field" in entry and (p.key.isdigit() or p.key == HIDDEN_DIGIT):
        return p.stay(type_digit(entry, p.key))
    try:
        return mode.read(p, entry)
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


#: Keys meant for something else when an entry refuses them: the entry is held, unless
#: the key ends the entry's number (``modes.Mode.ends``).
#: (``NEXT`` and ``CLOCK`` are whole in themselves: refused, they hold nothing.)
HOLDERS = frozenset({"FUNC", "BET", *betting.ACTIONS})


def _row(entry: Entry | None) -> Mode | None:
    """The row of ``entry``'s mode: None without an entry, or for a mode not in
    ``MODES`` (what the key is refused for, ``modes.mode_of``)."""
    if entry is None or entry.get("mode") not in MODES:
        return None
    return MODES[entry["mode"]]


def holds(entry: Entry, key: str) -> bool:
    """Whether ``key``, refused in ``entry``, holds it: a key meant for something else
    (``FUNC 1 3`` keyed in the middle of ``FUNC 5 2 ENTER``) leaves an entry that the
    digits and ``ENTER`` keyed next must not complete. Not the menu choice itself
    (``FUNC FUNC 5`` is menu 5), nor the keys that end a seat or a pushed chip (they
    go or lose their digits as at ``ENTER``)."""
    mode = _row(entry)
    return key in HOLDERS and mode is not None and mode.holds and key not in mode.ends


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
    mode = _row(entry)
    if not entry.get("digits") or mode is None or event.key not in mode.ends:
        return
    if mode.whole:
        pad.pop("entry", None)
    else:
        pad["entry"] = {**entry, "digits": ""}
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
