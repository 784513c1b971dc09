"""What can be wrong with a journal, one class per fault, each saying what to do.

Every class derives from :class:`JournalError`. The integrity faults
(:class:`JournalCorrupt`, :class:`ChainBroken`, :class:`TornTail`,
:class:`SnapshotMissing`, :class:`AckMarkLost`, :class:`ForeignJournal`) are memory faults: the daemon shows them as a sticky
fault, locks play and waits for a technician; nothing clears them automatically.
:class:`ConfigMismatch` is a refusal, not damage: the journal is intact but was
started with another configuration. :class:`JournalBusy` and
:class:`JournalNotFound` are about where and when the journal is opened.

``code`` is a stable machine-readable name; ``display`` is short enough for the
dealer's two-line display.
"""

from __future__ import annotations

from controller.faults import Fault

RECOVERY_HINT = (
    "Play stays locked. Keep the state directory as it is for the supervisor, "
    "then run the journal salvage (docs/journal.md, 'Recovering a failed journal'), "
    "which moves the damaged files aside and keeps every event up to the damage."
)


class JournalError(Exception):
    """Base of every journal fault."""

    code = "journal_error"
    display = "JOURNAL FAULT"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class JournalBusy(JournalError, BlockingIOError):
    """Another process (usually the running daemon) holds the journal for writing."""

    code = "journal_busy"
    display = "JOURNAL IN USE"


class JournalNotFound(JournalError, FileNotFoundError):
    """A read-only open found no journal in the directory."""

    code = "journal_not_found"
    display = "NO JOURNAL"


class JournalIntegrityError(JournalError, Fault):
    """Base of the memory faults found by :meth:`Journal.verify` or at open: the
    journal's content is damaged (``controller.faults``: who acts on what)."""

    code = "journal_integrity"
    display = "MEMORY FAULT"
    kind = "MEMORY FAULT"
    lock_code = "memory_fault"


class JournalCorrupt(JournalIntegrityError):
    """SQLite cannot read the database, or ``PRAGMA quick_check`` reports damage."""

    code = "journal_corrupt"
    display = "MEMORY FAULT DB"

    def __init__(self, detail: str) -> None:
        super().__init__(f"journal database is damaged: {detail}. {RECOVERY_HINT}")
        self.detail = detail


class ChainBroken(JournalIntegrityError):
    """The hash chain does not hold at ``seq``: a record was changed, lost or inserted."""

    code = "chain_broken"
    display = "MEMORY FAULT CHAIN"

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(f"journal hash chain broken at seq {seq}: {reason}. {RECOVERY_HINT}")
        self.seq = seq
        self.reason = reason


class TornTail(JournalIntegrityError):
    """Events that were acknowledged are no longer in the journal (its end was cut off)."""

    code = "torn_tail"
    display = "MEMORY FAULT TAIL"

    def __init__(self, last_seq: int, acknowledged_seq: int, reason: str = "") -> None:
        what = reason or (
            f"the journal ends at seq {last_seq} but seq {acknowledged_seq} was "
            f"acknowledged, so {acknowledged_seq - last_seq} acknowledged event(s) are missing"
        )
        super().__init__(
            f"journal tail is torn: {what}. The storage lost written data (power cut "
            f"on a card that ignores flushes, or a copied/replaced file). {RECOVERY_HINT}"
        )
        self.last_seq = last_seq
        self.acknowledged_seq = acknowledged_seq


class AckMarkLost(JournalIntegrityError):
    """Both copies of the ack mark are missing or unreadable beside a journal database."""

    code = "ack_mark_lost"
    display = "MEMORY FAULT ACK"

    def __init__(self, detail: str, last_seq: int) -> None:
        super().__init__(
            f"the ack mark is gone ({detail}) beside a journal that ends at seq {last_seq}, "
            f"so whether acknowledged events were lost can no longer be told. The storage "
            f"lost files, or someone removed them. {RECOVERY_HINT}"
        )
        self.last_seq = last_seq


class ForeignJournal(JournalIntegrityError):
    """The journal belongs to another table than the one opening (or salvaging) it."""

    code = "journal_foreign"
    display = "MEMORY FAULT TABLE"

    def __init__(
        self, journal_table: str, this_table: str, where: str, *, message: str | None = None
    ) -> None:
        super().__init__(
            message
            or f"this journal belongs to table {journal_table} ({where}), not to table "
            f"{this_table}. Play stays locked and nothing was written to it. Put table "
            f"{this_table}'s own state directory back (or point journal.state_dir at it); "
            f"a new table starts with an empty state directory. Never salvage another "
            f"table's journal into this one."
        )
        self.journal_table = journal_table
        self.this_table = this_table


class SnapshotMissing(JournalIntegrityError):
    """A snapshot recorded with the event at ``seq`` is gone."""

    code = "snapshot_missing"
    display = "MEMORY FAULT SNAP"

    def __init__(self, seq: int) -> None:
        super().__init__(
            f"journal snapshot for seq {seq} is missing although its event records one. "
            f"{RECOVERY_HINT}"
        )
        self.seq = seq


class StorageFault(JournalError, Fault):
    """The storage under the state directory cannot be written: not damage. The journal
    is left as it is; the salvage is not the answer (``controller.faults``: who acts)."""

    code = "storage_fault"
    display = "STORAGE FAULT"
    kind = "STORAGE FAULT"
    lock_code = "storage_fault"

    def __init__(self, directory: object, doing: str, what: str, advice: str) -> None:
        super().__init__(
            f"{doing} failed: {what} ({directory}). {advice} This is not damage to the "
            f"journal and the salvage cannot help; play stays locked until the service "
            f"starts on working storage."
        )
        self.directory = directory


class StorageFull(StorageFault):
    code = "storage_full"
    display = "STORAGE FULL"

    def __init__(self, directory: object, doing: str, free_bytes: int | None) -> None:
        free = f"{free_bytes:,} bytes free" if free_bytes is not None else "no space"
        super().__init__(
            directory,
            doing,
            f"the filesystem is full ({free})",
            "Free space on it (old archive/ and damaged/ folders, logs), then restart the "
            "service: systemctl restart table-controller.",
        )
        self.free_bytes = free_bytes


class StorageReadOnly(StorageFault):
    code = "storage_read_only"
    display = "STORAGE READ-ONLY"

    def __init__(self, directory: object, doing: str) -> None:
        super().__init__(
            directory,
            doing,
            "the filesystem is read-only",
            "It was mounted read-only, or the kernel remounted it after I/O errors: check "
            "the card or disk (dmesg), mount it read-write, then restart the service.",
        )


class StorageNotWritable(StorageFault):
    code = "storage_not_writable"
    display = "STORAGE NO ACCESS"

    def __init__(self, directory: object, doing: str) -> None:
        super().__init__(
            directory,
            doing,
            "the service user may not write there",
            "Give the directory back to the service user (chown tablectl: it, or "
            "StateDirectory= in the unit), then restart the service.",
        )


class StateDirectoryMoved(StorageFault):
    """The state directory the journal was opened in (or its database) was renamed,
    replaced or deleted while the journal was open (``place.py``): nothing more is
    recorded in it."""

    code = "state_dir_moved"
    display = "STATE DIR MOVED"

    def __init__(self, directory: object, what: str, now_at: str | None) -> None:
        where = f"; the journal it had open is now {now_at}" if now_at else ""
        put_back = (
            f"put it back (mv {now_at} {directory}, after moving aside what is at "
            f"{directory} now: a copy, or a new journal a second start made) or point "
            f"journal.state_dir at {now_at}"
            if now_at
            else f"keep the state directory {directory} as it is for the supervisor"
        )
        super().__init__(
            directory,
            "recording an event",
            f"{what} while the service was running{where}. No more events are recorded, "
            f"so none is acknowledged into a journal the next start would not read",
            f"Stop the service; {put_back}; then start the service. Never move, replace or "
            f"copy back a running table's state directory.",
        )
        self.now_at = now_at


class ConfigMismatch(JournalError):
    """The journal was started with another configuration than the one given."""

    code = "config_mismatch"
    display = "CONFIG DIFFERS"

    def __init__(self, recorded_sha256: str, given_sha256: str, diff: str) -> None:
        super().__init__(
            f"the journal was started with another configuration "
            f"(recorded {recorded_sha256[:12]}, given {given_sha256[:12]}):\n{diff}\n"
            f"Use the configuration the journal was started with, or a new state "
            f"directory for the new configuration."
        )
        self.recorded_sha256 = recorded_sha256
        self.given_sha256 = given_sha256
        self.diff = diff
