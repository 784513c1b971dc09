"""The dealer display's words for a sticky fault (``controller.faults``), in any language.

A sticky fault shows two lines: the call for a technician, named by the fault's
``lock_code`` (``MEMORY FAULT: CALL TECHNICIAN``), and its short name, named by its
``code`` (``STORAGE FULL``). The code is the one link to the text catalogue
(``controller.rules.text``):

- the first line is ``fault.lock.<lock_code>``;
- the second line is ``fault.name.<code>``.

``tests/test_fault_words.py`` checks that every fault class (and every journal error the
daemon may show as a memory fault) has both, and that their English is the class's own
``lock_line`` and ``display`` (what logs, ``tablectl`` and refused inputs say). A code
the catalogue does not know (a fault added later without its words) is shown in
English, from the fault itself: never an exception on the way to the display.
"""

from __future__ import annotations

from controller.faults import Fault
from controller.rules.catalogue import EN
from controller.rules.text import Message, msg

NO_JOURNAL_CODE = "journal_not_found"
"""The short name shown when the daemon has no journal at all (``NO JOURNAL``)."""

NO_JOURNAL_LOCK = "memory_fault"
"""The lock code of a daemon without a journal: refused and shown as a memory fault."""


def lock_key(lock_code: str) -> str:
    return f"fault.lock.{lock_code}"


def name_key(code: str) -> str:
    return f"fault.name.{code}"


def lock_words(lock_code: str, english: str) -> Message | str:
    """The first line: the fault's call for a technician (``english`` if not catalogued)."""
    key = lock_key(lock_code)
    return msg(key) if key in EN else english


def name_words(code: str, english: str) -> Message | str:
    """The second line: the fault's short name (``english`` if not catalogued)."""
    key = name_key(code)
    return msg(key) if key in EN else english


def fault_lines(fault: Fault | None) -> tuple[Message | str, Message | str]:
    """Both lines of a sticky fault; None: the daemon has no journal at all."""
    if fault is None:
        return msg(lock_key(NO_JOURNAL_LOCK)), msg(name_key(NO_JOURNAL_CODE))
    return lock_words(fault.lock_code, fault.lock_line), name_words(fault.code, fault.display)
