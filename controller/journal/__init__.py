"""The durable journal of input events (see ``store.py`` for the theory of operation).

Public surface::

    Journal.open(dir, config_text)       write: append, record_config, log_system, prune
    Journal.open_readonly(dir)           read: iter_events, latest_snapshot, recall, verify
    Journal.salvage(dir) / salvage(dir)  the technician's recovery after a failed check

Technician's documentation: ``docs/journal.md``.
"""

from controller.journal.clock import WallClock, kernel_clock_synced
from controller.journal.errors import (
    AckMarkLost,
    ChainBroken,
    ConfigMismatch,
    ForeignJournal,
    JournalBusy,
    JournalCorrupt,
    JournalError,
    JournalIntegrityError,
    JournalNotFound,
    SnapshotMissing,
    StateDirectoryMoved,
    StorageFault,
    StorageFull,
    StorageNotWritable,
    StorageReadOnly,
    TornTail,
)
from controller.journal.integrity import verify_archive
from controller.journal.records import (
    ConfigRecord,
    EventRecord,
    LogKind,
    PruneReport,
    SalvageReport,
    SystemLogRecord,
    VerifyResult,
)
from controller.journal.salvage import salvage
from controller.journal.schema import RECALL_HANDS
from controller.journal.store import Journal

__all__ = [
    "RECALL_HANDS",
    "AckMarkLost",
    "ChainBroken",
    "ConfigMismatch",
    "ConfigRecord",
    "EventRecord",
    "ForeignJournal",
    "Journal",
    "JournalBusy",
    "JournalCorrupt",
    "JournalError",
    "JournalIntegrityError",
    "JournalNotFound",
    "LogKind",
    "PruneReport",
    "SalvageReport",
    "SnapshotMissing",
    "StateDirectoryMoved",
    "StorageFault",
    "StorageFull",
    "StorageNotWritable",
    "StorageReadOnly",
    "SystemLogRecord",
    "TornTail",
    "VerifyResult",
    "WallClock",
    "kernel_clock_synced",
    "salvage",
    "verify_archive",
]
