"""Errors by who must act on them, and the sticky faults that lock play.

===========================  ==============================================  ==================
who acts                     what went wrong                                 class
===========================  ==============================================  ==================
the dealer                   an event the rules do not allow ("MIN RAISE")   ``rules.Refusal``
a technician: configuration  a file or a ``hardware:`` section unusable      ``ConfigError``,
                                                                             ``HardwareConfigError``
a technician: a device       a device lost or talking nonsense; cleared      ``device_faults``,
                             when it comes back, not sticky                  ``drivers.errors``
a technician: the journal    its content is damaged (memory fault): salvage  ``JournalIntegrityError``
a technician: the storage    the journal cannot be written (disk full,       ``StorageFault``
                             read-only, I/O error): fix the storage; the     (``controller.journal``)
                             journal is not damaged, salvage cannot help
the firmware's developers    a bug escaped while handling an input: report   ``SoftwareFault``
                             it; the journal is intact, restart once fixed
===========================  ==============================================  ==================

The last three are *sticky faults* (:class:`Fault`): the daemon locks play, refuses
every input with the fault's ``lock_code`` and shows ``kind``: CALL TECHNICIAN with
its short ``display`` name, until a technician acts. Each says what it is: a full disk
is never shown or logged as a memory fault, nor a bug as damage to the journal.

This module imports nothing of the project, so the journal's errors can derive from it
(``JournalIntegrityError`` and ``StorageFault`` are the journal's: it finds them).
"""

from __future__ import annotations


class Fault(Exception):
    """A sticky fault: play stays locked until a technician acts."""

    code = "fault"  # stable machine-readable name (logs, floor link status)
    display = "FAULT"  # short name for the dealer display's second line
    kind = "FAULT"  # what it is, in words: the display's first line, the log
    lock_code = "fault"  # every input is refused with this code while it stands

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @property
    def lock_line(self) -> str:
        """The dealer display's first line, and the message of every refused input."""
        return f"{self.kind}: CALL TECHNICIAN"

    def lock_error(self) -> dict[str, str]:
        """The refusal of an input while the fault stands (the replay contract's error)."""
        return {"code": self.lock_code, "message": self.lock_line}


class SoftwareFault(Fault):
    """An unexpected error in the firmware while handling an input: play is locked
    because the state may no longer be the fold of the journal."""

    code = "software_fault"
    display = "SOFTWARE FAULT"
    kind = "SOFTWARE FAULT"
    lock_code = "software_fault"
