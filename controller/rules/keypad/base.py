"""Shared pieces of the key grammar: one key press being read, its result, number fields.

The keypad's state is the dict ``TableState.keypad`` (journalled like everything else):

- ``entry``: the unfinished entry, or absent. Every entry has a ``mode`` (which
  sequence) and usually a ``step``; an entry that is typing a number has ``field``
  (``seat`` | ``amount`` | ``code``) and ``digits``. ``held``: a key meant for
  something else was refused in it (``grammar.after_refusal``); it takes no digit and
  no ``ENTER`` until another key. Entries tied to the betting (a bet,
  pushed chips, an award) carry ``ctx``, the hand, phase and seat to act when they
  began, and are dropped silently once the table has moved on.
- ``pin_failures``, ``locked_until_ms``, ``lockouts``: the supervisor PIN lock-out
  (FUNC 0): wrong PINs in a row, when the menu unlocks, lock-outs since the last right PIN.
- ``notice``: a one-line message left by the last key (a wrong PIN, how pushed chips
  were read), shown until the next accepted key.
- ``page``: the payout or pot page ``NEXT`` turned to (``keypad.pages``), shown until
  the next accepted key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import EllipsisType
from typing import TYPE_CHECKING, TypedDict, TypeVar, Unpack, cast

from controller.rules import effects
from controller.rules.events import Event, Key
from controller.rules.limits import MAX_PIN_DIGITS
from controller.rules.records import (
    Context,
    Entry,
    EntryMode,
    EntryStep,
    FieldKind,
    KeypadState,
    Page,
    Phase,
)
from controller.rules.text import Message, phrase, refuse, to_record

if TYPE_CHECKING:
    from controller.rules.table import Table

T = TypeVar("T")

#: The keypad keys of the replay contract (docs/replay.md, ``key``), the one list of the rules core;
#: the drivers' ``drivers.events.KEYS`` names the same keys (tests/drivers/test_events.py).
KEYS = (
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "FOLD",
    "CHECK",
    "BET",
    "ALLIN",
    "ENTER",
    "CLEAR",
    "CLOCK",
    "NEXT",
    "FUNC",
)
#: The display's word for each betting action (what was pushed, what was done last).
ACTION_WORDS = {
    "fold": "word.fold",
    "check": "word.check",
    "call": "word.call",
    "bet": "word.bet",
    "raise": "word.raise",
    "all_in": "word.all_in",
}
#: A PIN digit the shell keeps to itself: what the journal records while a PIN is typed
#: (the ENTER that ends the PIN then carries the shell's verdict, ``pin_ok``).
HIDDEN_DIGIT = "*"
#: Longest number of each field kind (a card or PIN may be longer than an amount).
MAX_DIGITS = {"seat": 3, "amount": 9, "code": MAX_PIN_DIGITS}


class PadChanges(TypedDict, total=False):
    """What an entry's end changes in the keypad besides the entry (None: removed)."""

    pin_failures: int | None
    locked_until_ms: int | None
    lockouts: int | None
    page: Page | None


@dataclass
class Step:
    """What one key does: the keypad afterwards, and an event to apply (or none)."""

    keypad: KeypadState
    event: Event | None = None
    effects: list[effects.Effect] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Situation:
    """The hand, the phase and the seat to act when an entry or a page was keyed: while
    they last, the entry or page does (``live_entry``, ``pages.shown_page``). The
    keypad's state holds it as the list ``[hand, phase, to_act]`` (``ctx``), the form of
    the journal and the snapshots (``record``)."""

    hand: int
    phase: Phase
    to_act: int | None

    def record(self) -> Context:
        return [self.hand, self.phase, self.to_act]


def situation(table: Table) -> Situation:
    h = table.state.hand
    return Situation(
        table.state.hand_number, table.state.phase, h.to_act if h is not None else None
    )


def context(table: Table) -> Context:
    """The table's ``Situation`` as the keypad's state records it (``ctx``)."""
    return situation(table).record()


def live_entry(table: Table) -> Entry | None:
    """The unfinished entry, unless the table has moved on since it began."""
    entry = table.state.keypad.get("entry")
    if not entry:
        return None
    if "ctx" in entry and entry["ctx"] != context(table):
        return None
    return entry.copy()


class Press:
    """One key being read against the table; builds the ``Step``."""

    def __init__(self, table: Table, event: Key) -> None:
        self.table = table
        self.key = event.key
        self.pin_ok = event.pin_ok
        pad = table.state.keypad.copy()
        pad.pop("notice", None)  # a notice lasts until the next accepted key
        pad.pop("page", None)  # and so does a page NEXT turned to (keypad.pages)
        pad.pop("entry", None)
        self.pad = pad
        self.by = event.by if event.by is not None else table.state.dealer
        self.entry = live_entry(table)
        #: the entry is held (a key meant for something else was refused in it); the
        #: entry that goes on after this key is never held (``grammar.translate``)
        self.held = bool(self.entry.pop("held", False)) if self.entry is not None else False

    # -- results ----------------------------------------------------------------------

    def stay(self, entry: Entry) -> Step:
        """Keep typing: the entry goes on."""
        return Step({**self.pad, "entry": entry})

    def done(
        self,
        event: Event | None = None,
        *,
        notice: Message | None = None,
        extra: list[effects.Effect] | None = None,
        **pad: Unpack[PadChanges],
    ) -> Step:
        """The entry is over; ``event`` (if any) is applied; ``pad`` updates the keypad."""
        new: dict[str, object] = {**self.pad, **pad}
        for name in [k for k, v in new.items() if v is None]:
            del new[name]
        if notice is not None:
            new["notice"] = to_record(notice)
        return Step(cast(KeypadState, new), event, list(extra or []))

    # -- reading fields ------------------------------------------------------------------

    def number(self, entry: Entry, *, empty_ok: bool = False) -> int | None:
        """The number typed, once ``ENTER`` ends it (None when empty and allowed)."""
        digits = self.text(entry, empty_ok=empty_ok)
        return int(digits) if digits else None

    def text(self, entry: Entry, *, empty_ok: bool = False) -> str:
        if self.key != "ENTER":
            raise refuse("bad_key", "keypad.entry_open")
        digits = str(entry.get("digits", ""))
        if not digits and not empty_ok:
            what = "keypad.type_amount" if entry.get("field") == "amount" else "keypad.type_number"
            raise refuse("bad_key", what)
        return digits

    def choice(
        self,
        options: Mapping[str, T],
        choice_key: str,
        default: T | EllipsisType = ...,
        *,
        paged: bool = False,
    ) -> T:
        """A one-key choice among ``options`` (``ENTER`` takes ``default`` if given;
        ``paged``: a menu ``NEXT`` pages, and the refusal says so)."""
        if self.key in options:
            return options[self.key]
        if self.key == "ENTER" and not isinstance(default, EllipsisType):
            return default
        raise refuse(
            "bad_key",
            "keypad.choose_or_page" if paged else "keypad.choose",
            choice=phrase(choice_key),
        )

    def confirm(self) -> None:
        if self.held:  # ENTER is refused too (``grammar.translate``): say what takes it
            raise refuse("bad_key", "keypad.entry_open")
        if self.key != "ENTER":
            raise refuse("bad_key", "keypad.confirm")


def type_digit(entry: Entry, key: str) -> Entry:
    """``entry`` with one more digit in its number field."""
    kind = entry["field"]
    digits = str(entry.get("digits", ""))
    if len(digits) >= MAX_DIGITS[kind]:
        raise refuse("bad_key", "keypad.too_long")
    if not digits and key == "0" and kind != "code":
        raise refuse("bad_key", "keypad.leading_zero")
    return {**entry, "digits": digits + key}


def field_entry(
    mode: EntryMode, step: EntryStep, kind: FieldKind, /, **values: Unpack[Entry]
) -> Entry:
    return {"mode": mode, "step": step, "field": kind, "digits": "", **values}


def buy_in(entry: Entry) -> int:
    """The chips of a player sitting down (FUNC 1), keyed at its ``chips`` step."""
    chips = entry["chips"]
    assert isinstance(chips, int)
    return chips


def pushed_chips(entry: Entry) -> list[int]:
    """The chips keyed so far in a push (FUNC 9), one value each."""
    chips = entry["chips"]
    assert isinstance(chips, list)
    return chips


def seat_to_act(table: Table) -> int:
    h = table.state.hand
    if h is None or h.to_act is None:
        raise refuse("no_action", "refuse.no_one_to_act")
    return h.to_act
