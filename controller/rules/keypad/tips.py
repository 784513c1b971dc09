"""FUNC 7 between hands: a player tips the dealer (the ``tip`` event).

At the showdown ``FUNC 7`` is the award (``keypad.award``); between hands, right after
the pot is paid, the same keys take the winner's tip::

    FUNC 7  seat ENTER  amount ENTER

``ENTER`` alone at the seat takes the seat the last hand's pots were paid to, when one
seat took them all: ``FUNC 7 ENTER 5 ENTER`` is a tip of 5 from the winner. The seat is
checked as it is keyed, the amount at its ``ENTER`` (a multiple of the smallest chip,
at most the stack).
"""

from __future__ import annotations

from controller.rules.events import Tip
from controller.rules.keypad.base import Press, Step, field_entry
from controller.rules.records import Entry
from controller.rules.seating import occupied
from controller.rules.text import msg, refuse


def start(p: Press) -> Step:
    return p.stay(field_entry("tip", "seat", "seat"))


def last_winner(p: Press) -> int:
    """The one seat the last hand's pots were paid to (the display's payouts)."""
    seats = {seat for _, seat, _ in p.table.state.payouts}
    if len(seats) != 1:
        raise refuse("bad_key", "keypad.tip_which_seat")
    return seats.pop()


def tip(p: Press, e: Entry) -> Step:
    table = p.table
    if e["step"] == "seat":
        seat = p.number(e, empty_ok=True)
        if seat is None:
            seat = last_winner(p)
        occupied(table.state, table.settings, seat)
        return p.stay(field_entry("tip", "amount", "amount", seat=seat))
    seat = int(e["seat"])
    amount = p.number(e)
    assert amount is not None
    return p.done(
        Tip(by=p.by, seat=seat, amount=amount),
        notice=msg("notice.tipped", amount=amount, seat=seat),
    )
