"""The keypad's entry modes, one row each: what reads its keys, what the display says,
which keys end its number.

An unfinished entry (``TableState.keypad["entry"]``) names its mode (``Entry.mode``,
one of ``records.ENTRY_MODES``). Its row in ``MODES`` holds:

- ``read``: reads every key the grammar does not take first (digits of its number,
  ``CLEAR``: ``grammar.translate``) and gives the ``Step``;
- ``prompt``: the display's two lines while the entry is unfinished;
- ``ends``: the keys that end the number being typed. Refused, they leave the entry
  without the digits keyed for them (``grammar.after_refusal``); any other key meant
  for something else (``grammar.HOLDERS``), refused, holds the entry;
- ``whole``: the number typed is the whole entry (a seat before an action key): a
  refused ending key drops the entry rather than its digits;
- ``holds``: whether a refused key can hold the entry at all (not the menu choice
  after ``FUNC``: ``FUNC FUNC 5`` is menu 5);
- ``clear``: what ``CLEAR`` does, when it does more than drop the entry (the award
  drops only the pot being keyed).

A mode that is in no row (a snapshot damaged, or written by another firmware) is a
``BadEvent`` naming it (``mode_of``), never a ``KeyError`` in the middle of a key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from controller.rules.keypad import award, betting, menus, push, supervisor, tips
from controller.rules.keypad.base import Press, Step, live_entry
from controller.rules.keypad.prompt import (
    award_prompt,
    bet_prompt,
    chips_prompt,
    func_prompt,
    leave_prompt,
    move_prompt,
    notice,
    push_prompt,
    seat_prompt,
    sign_in_prompt,
    signed_in,
    sit_in_prompt,
    sit_out_prompt,
    sit_prompt,
    supervisor_prompt,
    tip_prompt,
)
from controller.rules.records import Entry, EntryMode, entry_mode
from controller.rules.text import Message, render

if TYPE_CHECKING:
    from controller.rules.table import Table

#: The one key that ends the number of most entries.
ENTER = frozenset({"ENTER"})


@dataclass(frozen=True, slots=True)
class Mode:
    """One entry mode's row of ``MODES`` (the module's docstring says what each does)."""

    read: Callable[[Press, Entry], Step]
    prompt: Callable[[Table, Entry], list[Message]]
    ends: frozenset[str] = ENTER
    whole: bool = False
    holds: bool = True
    clear: Callable[[Press, Entry], Step] | None = None


MODES: dict[EntryMode, Mode] = {
    "seat": Mode(
        betting.seat_first,
        seat_prompt,
        ends=frozenset({"ENTER", "BET", *betting.ACTIONS}),
        whole=True,
    ),
    "bet": Mode(betting.bet, bet_prompt),
    "func": Mode(menus.menu, func_prompt, holds=False),
    "sit": Mode(menus.sit, sit_prompt),
    "sit_out": Mode(menus.sit_out, sit_out_prompt),
    "sit_in": Mode(menus.sit_in, sit_in_prompt),
    "leave": Mode(menus.leave, leave_prompt),
    "chips": Mode(menus.chips, chips_prompt),
    "move": Mode(menus.move, move_prompt),
    "sign_in": Mode(menus.sign_in, sign_in_prompt),
    "award": Mode(award.award, award_prompt, clear=award.clear),
    "tip": Mode(tips.tip, tip_prompt),
    "push": Mode(push.push, push_prompt, ends=frozenset({"ENTER", *push.DECLARATIONS})),
    "supervisor": Mode(supervisor.supervisor, supervisor_prompt, clear=supervisor.clear),
}


def mode_of(entry: Entry) -> Mode:
    """The row of ``entry``'s mode; ``BadEvent`` naming the mode when it has none."""
    return MODES[entry_mode(entry)]


def prompt(table: Table) -> list[Message] | None:
    """The entry's two lines, or None when no entry is unfinished."""
    entry = live_entry(table)
    return None if entry is None else mode_of(entry).prompt(table, entry)


class KeypadView(TypedDict):
    """The keypad in the state view (docs/replay.md)."""

    entry: dict[str, object] | None  # the entry's mode, step and seat
    prompt: list[str] | None
    notice: str | None
    dealer: str | None
    supervisor_locked_ms: int


def view(table: Table) -> KeypadView:
    """The keypad as the state view shows it (never a PIN digit)."""
    entry = live_entry(table)
    shown = prompt(table)
    note = notice(table.state)
    return {
        "entry": (
            None
            if entry is None
            else {k: v for k, v in entry.items() if k in ("mode", "step", "seat")}
        ),
        "prompt": [render(line) for line in shown] if shown is not None else None,
        "notice": render(note) if note is not None else None,
        "dealer": signed_in(table.state),
        "supervisor_locked_ms": supervisor.locked_ms(table.state),
    }
