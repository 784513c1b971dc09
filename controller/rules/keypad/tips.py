"""FUNC 7 between hands: a player tips the dealer (the ``tip`` event).

At the showdown ``FUNC 7`` is the award (``keypad.award``); between hands, right after
the pot is paid, the same keys take the winner's tip::

    FUNC 7  seat ENTER  amount ENTER

``ENTER`` alone at the seat takes the seat the last hand's pots were paid to, when one
player took them all and is still in that seat: ``FUNC 7 ENTER 5 ENTER`` is a tip of 5
from the winner (refused after a split pot, and once the winner left or moved: the
dealer keys the seat). The seat is
checked as it is keyed, the amount at its ``ENTER`` (a multiple of the smallest chip,
at most the stack). A tip over ``dealer.tip_confirm_big_blinds`` big blinds (default
10) is shown with its amount and taken only at a second ``ENTER`` (``CLEAR``: none),
so that 510 keyed for 5 is caught before it leaves the stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.events import Tip
from controller.rules.keypad.base import Press, Step, field_entry
from controller.rules.records import Entry
from controller.rules.seating import occupied
from controller.rules.state import earlier_release
from controller.rules.text import msg, refuse

if TYPE_CHECKING:
    from controller.rules.table import Table


def start(p: Press) -> Step:
    return p.stay(field_entry("tip", "seat", "seat"))


def last_winner(p: Press) -> int:
    """The seat of the one player the last hand's pots were all paid to, while that
    player is still in it (not once they left or moved, nor for someone else sitting
    there); never one seat of a split pot."""
    state = p.table.state
    if earlier_release(state):  # as the release before issue 31: the one seat paid
        seats = {seat for _, seat, _ in state.payouts}
        if len(seats) != 1:
            raise refuse("bad_key", "keypad.tip_which_seat")
        return seats.pop()
    paid = state.paid_to
    if paid is None:
        raise refuse("bad_key", "keypad.tip_which_seat")
    seat = paid["seat"]
    s = p.table.state.seats.get(seat)
    if s is None or s.player != paid["player"] or s.pending_leave:
        raise refuse("bad_key", "keypad.tip_winner_gone", seat=seat)
    return seat


def is_big(table: Table, amount: int) -> bool:
    """A tip the dealer confirms: over ``dealer.tip_confirm_big_blinds`` big blinds."""
    limit = table.settings.dealer.tip_confirm_big_blinds
    return (
        not earlier_release(table.state)
        and limit > 0
        and amount > limit * table.settings.game.big_blind
    )


def tip(p: Press, e: Entry) -> Step:
    table = p.table
    if e["step"] == "seat":
        seat = p.number(e, empty_ok=True)
        if seat is None:
            seat = last_winner(p)
        occupied(table.state, table.settings, seat)
        return p.stay(field_entry("tip", "amount", "amount", seat=seat))
    seat = int(e["seat"])
    if e["step"] == "big_tip_confirm":
        p.confirm()
        amount = int(e["amount"])
    else:
        keyed = p.number(e)
        assert keyed is not None
        amount = keyed
        if is_big(table, amount):
            table.check(Tip(by=p.by, seat=seat, amount=amount))
            return p.stay(
                {"mode": "tip", "step": "big_tip_confirm", "seat": seat, "amount": amount}
            )
    return p.done(
        Tip(by=p.by, seat=seat, amount=amount),
        notice=msg("notice.tipped", amount=amount, seat=seat),
    )
