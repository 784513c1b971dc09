"""Keeping a supervisor's PIN out of the journal, and so out of recall and the floor feed.

While the keypad collects a PIN (``FUNC 0``, the supervisor's id, then the PIN), each
digit key is recorded as the hidden digit ``*`` and the digit itself stays in this
object's memory only. The ``ENTER`` that ends the PIN is recorded with the verdict of
the PIN file (``pin_ok``), so the journal replays without the PIN file and without
the PIN. That verdict is this object's alone: a ``pin_ok`` carried by the input is
dropped before anything is checked or recorded. A PIN half typed when the power went
is lost with the memory: its ``ENTER`` is judged wrong, and the supervisor types the
PIN again.

While the supervisor menu is locked (wrong PINs), ``FUNC 0`` is refused and the keypad
would take the supervisor's id and PIN that follow for other entries, in the clear.
So after a ``FUNC 0`` refused as ``locked`` this object refuses every digit and
``ENTER`` itself (``SUPERVISOR MENU LOCKED: CLEAR``), recorded as refused with each
digit hidden, until another key (``CLEAR``, ``FUNC``...) goes to the keypad again. A
refused record changes nothing, so the journal folds the same without the digits.
This goes on after a restart (the journal's last key record says so).
"""

from __future__ import annotations

import logging
from typing import Any

from controller.rules import Refusal, Table
from controller.rules.keypad import HIDDEN_DIGIT, collecting_pin, pin_entry
from controller.rules.text import refuse

#: The refusal code of ``FUNC 0`` while the supervisor menu is locked.
LOCKED = "locked"

log = logging.getLogger(__name__)


class PinGuard:
    def __init__(self) -> None:
        self._typed = ""  # the digits behind the hidden ones the journal holds
        self._swallowing = False  # after FUNC 0 refused as locked: digits are refused

    def resume(self, last_key: Any) -> None:
        """After a restart: go on refusing digits if the journal's last key record
        (``last_key``: an ``EventRecord`` or None) was refused as locked."""
        if last_key is not None and not last_key.accepted and last_key.refusal_code == LOCKED:
            self._swallowing = True

    def swallowed(self, obj: dict[str, Any]) -> Refusal | None:
        """The refusal of a digit or ``ENTER`` typed after ``FUNC 0`` was refused as
        locked (the event is already in its journal form), else None."""
        if not self._swallowing or obj.get("type") != "key":
            return None  # ticks and other devices' events go on meanwhile
        key = str(obj.get("key", "")).upper()
        if key == HIDDEN_DIGIT or key == "ENTER" or (len(key) == 1 and key.isdigit()):
            return refuse(LOCKED, "keypad.locked_clear")
        self._swallowing = False
        return None

    def journal_form(self, obj: dict[str, Any], table: Table) -> tuple[dict[str, Any], str]:
        """The event as it is to be recorded, and the PIN digit it hides (or "").

        A ``pin_ok`` that arrives with the input (a console line, a replay file, any
        event handed in) is dropped: only this check's own verdict is recorded, so no
        input can open the supervisor menu without the PIN."""
        if obj.get("type") != "key":
            return obj, ""
        if "pin_ok" in obj:
            obj = {name: value for name, value in obj.items() if name != "pin_ok"}
        key = str(obj.get("key", "")).upper()
        if self._swallowing and len(key) == 1 and key.isdigit():
            return {**obj, "key": HIDDEN_DIGIT}, ""
        if not collecting_pin(table.state):
            return obj, ""
        if len(key) == 1 and key.isdigit():
            return {**obj, "key": HIDDEN_DIGIT}, key
        if key == "ENTER":
            entry = pin_entry(table.state, key)
            verdict = self._verdict(table, *entry) if entry is not None else None
            if verdict is not None:
                return {**obj, "pin_ok": verdict}, ""
        return obj, ""

    def settle(self, table: Table, digit: str, error: dict[str, str] | None = None) -> None:
        """After the event was recorded: keep ``digit`` if the keypad took it; a key
        refused as ``locked`` starts refusing the digits that follow."""
        if error is not None and error.get("code") == LOCKED:
            self._swallowing = True
        entry = table.state.keypad.get("entry") or {}
        if not collecting_pin(table.state) or not entry.get("digits"):
            self._typed = ""  # the PIN entry ended, or a refused ENTER dropped its digits
        elif digit:
            self._typed += digit

    def _verdict(self, table: Table, supervisor: str, recorded: str) -> bool | None:
        """Whether the PIN typed is right; None when there is no PIN file to ask, or it
        cannot be used (the keypad then refuses the entry as unverifiable)."""
        verifier = table.pin_verifier
        if verifier is None:
            return None
        hidden = recorded.count(HIDDEN_DIGIT)
        if hidden != len(self._typed):
            log.warning(
                "the PIN of supervisor %s was typed before a restart: judged wrong; type it again",
                supervisor,
            )
            return False
        typed = iter(self._typed)
        pin = "".join(next(typed) if c == HIDDEN_DIGIT else c for c in recorded)
        try:
            return bool(verifier(supervisor, pin))
        except Exception as error:  # a broken or unsafe PIN file: no verdict, the keypad
            log.error(
                "supervisor PIN file cannot be used: %s",  # says PIN CHECK NOT
                getattr(error, "message", None) or error,
            )  # AVAILABLE (no try lost)
            return None
