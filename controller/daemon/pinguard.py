"""Keeping a supervisor's PIN out of the journal, and so out of recall and the floor feed.

While the keypad collects a PIN (``FUNC 0``, the supervisor's id, then the PIN), each
digit key is recorded as the hidden digit ``*`` and the digit itself stays in this
object's memory only. The ``ENTER`` that ends the PIN is recorded with the verdict of
the PIN file (``pin_ok``), so the journal replays without the PIN file and without
the PIN. A PIN half typed when the power went is lost with the memory: its ``ENTER``
is judged wrong, and the supervisor types the PIN again.
"""

from __future__ import annotations

import logging
from typing import Any

from controller.rules import Table
from controller.rules.keypad import HIDDEN_DIGIT, collecting_pin, pin_entry

log = logging.getLogger(__name__)


class PinGuard:
    def __init__(self) -> None:
        self._typed = ""  # the digits behind the hidden ones the journal holds

    def journal_form(self, obj: dict[str, Any], table: Table) -> tuple[dict[str, Any], str]:
        """The event as it is to be recorded, and the PIN digit it hides (or "")."""
        if obj.get("type") != "key" or not collecting_pin(table.state):
            return obj, ""
        key = str(obj.get("key", "")).upper()
        if len(key) == 1 and key.isdigit():
            return {**obj, "key": HIDDEN_DIGIT}, key
        if key == "ENTER" and "pin_ok" not in obj:
            entry = pin_entry(table.state, key)
            verdict = self._verdict(table, *entry) if entry is not None else None
            if verdict is not None:
                return {**obj, "pin_ok": verdict}, ""
        return obj, ""

    def settle(self, table: Table, digit: str) -> None:
        """After the event was recorded: keep ``digit`` if the keypad took it."""
        if not collecting_pin(table.state):
            self._typed = ""
        elif digit:
            self._typed += digit

    def _verdict(self, table: Table, supervisor: str, recorded: str) -> bool | None:
        """Whether the PIN typed is right; None when there is no PIN file to ask (the
        keypad then refuses the entry as unverifiable)."""
        verifier = table.pin_verifier
        if verifier is None:
            return None
        hidden = recorded.count(HIDDEN_DIGIT)
        if hidden != len(self._typed):
            log.warning("the PIN of supervisor %s was typed before a restart: judged wrong; "
                        "type it again", supervisor)
            return False
        typed = iter(self._typed)
        pin = "".join(next(typed) if c == HIDDEN_DIGIT else c for c in recorded)
        try:
            return bool(verifier(supervisor, pin))
        except Exception as error:  # a missing or broken PIN file: the PIN is wrong
            log.error("supervisor PIN file cannot be used: %s",
                      getattr(error, "message", None) or error)
            return False
