"""``NEXT`` pages what does not fit on the dealer display's two lines of 40.

- **Payouts.** After a hand is paid, until the next hand is dealt, the display shows
  each payout, one a page, pot after pot: ``PAY SEAT 3: 1200`` over
  ``MAIN POT 1/2  NEXT: MORE``. ``NEXT`` shows the next payout; on the last one
  (``NEXT: DEAL``) ``NEXT`` deals the next hand, as it does when nothing was paid.
- **Pots.** During a hand (the showdown included) ``NEXT`` shows the pots one a page,
  each with its amount and the seats that can win it (``SIDE POT 1 400 (2/3)`` over
  ``SEATS 3 7``); ``NEXT`` after the last pot goes back to what happens next. While
  there are side pots the display's second line says ``NEXT: POTS``.

The page being shown lives in ``TableState.keypad["page"]`` with the hand, phase and
seat to act it was keyed in (``context``): like a notice, it lasts until the next
accepted key, and a page keyed in a situation that has moved on is not shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.hand import current_pots
from controller.rules.keypad.base import Press, Step, context
from controller.rules.pots import Pot
from controller.rules.state import TableState
from controller.rules.text import Message, Phrase, msg, phrase

if TYPE_CHECKING:
    from controller.rules.table import Table


def pot_name(index: int) -> Phrase:
    """A pot's name (``MAIN POT``, ``SIDE POT 2``), inside another message."""
    return phrase("word.main_pot") if index == 0 else phrase("word.side_pot", index=index)


def seat_list(seats: list[int] | tuple[int, ...]) -> str:
    return " ".join(str(s) for s in seats) or "-"


def _pots(table: Table) -> list[Pot]:
    return current_pots(table.state) if table.state.hand is not None else []


def page_count(table: Table) -> int:
    """How many pages ``NEXT`` steps through now (0: ``NEXT`` does not page)."""
    if table.state.hand is None:
        return len(table.state.payouts)
    return len(_pots(table))


def shown_page(table: Table) -> int | None:
    """The page the dealer paged to, while the situation it was keyed in lasts."""
    page = table.state.keypad.get("page")
    if not page or page.get("ctx") != context(table):
        return None
    index = page["index"]
    return index if index < page_count(table) else None


def turn(p: Press, shown: int | None) -> Step | None:
    """``NEXT`` with no entry: the next page (a Step), or None when ``NEXT`` is to deal
    (between hands, on the last payout or with none) or is refused (no pots to show)."""
    table = p.table
    count = page_count(table)
    if table.state.hand is None:
        index = 0 if shown is None else shown
        if index + 1 >= count:
            return None
        return p.done(page={"ctx": context(table), "index": index + 1})
    if count == 0:
        return None
    index = 0 if shown is None else shown + 1
    if index >= count:
        return p.done()  # back to what happens next
    return p.done(page={"ctx": context(table), "index": index})


def payout_lines(state: TableState, index: int) -> list[Message]:
    payouts = state.payouts
    pot, seat, amount = payouts[index]
    name = pot_name(pot)
    count = len(payouts)
    if count == 1:
        second = msg("display.pay_deal", name=name)
    elif index + 1 < count:
        second = msg("display.pay_more", name=name, page=index + 1, pages=count)
    else:
        second = msg("display.pay_last", name=name, page=index + 1, pages=count)
    return [msg("display.pay", seat=seat, amount=amount), second]


def pot_lines(table: Table, index: int) -> list[Message]:
    pots = _pots(table)
    pot = pots[index]
    return [
        msg(
            "display.pot_page",
            name=pot_name(index),
            amount=pot.amount,
            page=index + 1,
            pages=len(pots),
        ),
        msg("display.pot_seats", seats=seat_list(pot.eligible)),
    ]


def lines(table: Table) -> list[Message] | None:
    """The page shown instead of what happens next, or None."""
    shown = shown_page(table)
    if table.state.hand is None:
        if not table.state.payouts:
            return None
        return payout_lines(table.state, shown or 0)
    if shown is None:
        return None
    return pot_lines(table, shown)


def side_pots(table: Table) -> bool:
    """There are side pots: the display offers ``NEXT: POTS``."""
    return len(_pots(table)) > 1
