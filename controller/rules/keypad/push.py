"""FUNC 9: chips pushed by the seat to act (R14, R15, R16).

Key each chip's value and ``ENTER`` (one ``ENTER`` per chip: a single chip matters to
R15), then end with what the player declared: ``CHECK`` (said "call"), ``BET`` (said
"raise"), or ``ENTER`` alone (said nothing). A value typed before ``CHECK``/``BET``
counts as the last chip. Each chip's value is checked when its ``ENTER`` (or the
``CHECK``/``BET`` after it) is keyed: refused, its digits are gone, the chips keyed
before it stay. The keypad sends a ``push`` event; the engine reads it
(``controller.rules.pushed``) and the display says how (``READ AS CALL (R15)``).
"""

from __future__ import annotations

from controller.rules import pushed
from controller.rules.events import Push
from controller.rules.keypad.base import (
    ACTION_WORDS,
    Press,
    Step,
    context,
    pushed_chips,
    seat_to_act,
)
from controller.rules.records import Entry
from controller.rules.text import msg, phrase, refuse

DECLARATIONS = {"CHECK": "call", "BET": "raise", "ENTER": None}


def start(p: Press) -> Step:
    seat = seat_to_act(p.table)
    return p.stay(
        {
            "mode": "push",
            "seat": seat,
            "chips": [],
            "field": "amount",
            "digits": "",
            "ctx": context(p.table),
        }
    )


def push(p: Press, entry: Entry) -> Step:
    if p.key not in DECLARATIONS:
        raise refuse("bad_key", "keypad.push_keys")
    chips = list(pushed_chips(entry))
    if entry["digits"]:
        chip = p.table.settings.game.smallest_chip
        if int(entry["digits"]) % chip:  # checked as it is keyed, not at the end
            raise refuse("bad_amount", "refuse.chip_units", amount=chip)
        chips.append(int(entry["digits"]))
        if p.key == "ENTER":
            return p.stay({**entry, "chips": chips, "digits": ""})
    if not chips:
        raise refuse("bad_key", "keypad.push_needs_chips")
    event = Push(by=p.by, seat=int(entry["seat"]), chips=tuple(chips), declared=DECLARATIONS[p.key])
    h = p.table.state.hand
    assert h is not None
    act, rule = pushed.read(h, p.table.state.seats, event, p.table.settings.game)
    notice = None
    if rule is not None:
        word = phrase(ACTION_WORDS[act.action])
        notice = (
            msg("notice.pushed", action=word, rule=rule)
            if act.to is None
            else msg("notice.pushed_to", action=word, amount=act.to, rule=rule)
        )
    return p.done(event, notice=notice)
