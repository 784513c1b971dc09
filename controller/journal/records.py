"""What the journal hands back: records read from it and reports of its operations."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from controller.journal.errors import JournalIntegrityError


class LogKind(StrEnum):
    """Kinds of system log entries the journal itself writes or the daemon is expected to.

    ``Journal.log_system`` accepts any non-empty kind; these are the agreed names.
    """

    POWER_UP = "power_up"  # journal opened for writing; detail says whether the board rebooted
    SHUTDOWN = "shutdown"  # orderly close (the clean-shutdown marker is set with it)
    UNCLEAN_SHUTDOWN = "unclean_shutdown"  # found at open: the last run did not close
    CONFIG_LOADED = "config_loaded"  # at every open, with the configuration's SHA-256
    CONFIG_CHANGE = "config_change"  # an accepted configuration change between hands
    INTEGRITY = "integrity"  # result of verify()
    FAULT = "fault"  # a sticky fault that is no damage to the journal: storage, software
    CLOCK_SYNC = "clock_sync"  # wall clock became synchronised (wall and monotonic time)
    CLOCK_UNSYNC = "clock_unsync"  # wall clock no longer synchronised
    CLOCK_STEP = "clock_step"  # wall clock stepped against the monotonic clock (by how much)
    POWER_LOSS = "power_loss"  # the daemon's start after an unclean stop: when, which hand
    DEVICE_FAULT = "device_fault"
    DEVICE_CLEAR = "device_clear"
    DOOR = "door"  # the controller's door opened or closed (its switch, hardware.door)
    FLOOR_LINK = "floor_link"  # the floor link went down or came up, its outbox alarm
    FLOOR_QUEUED = "floor_queued"  # floor messages of no event, and the hash that covers them
    CORRECTION = "correction"  # a supervisor's correction
    PRUNE = "prune"
    SALVAGE = "salvage"


def _utc(wall_ns: int) -> datetime:
    return datetime.fromtimestamp(wall_ns / 1e9, tz=UTC)


@dataclass(frozen=True, slots=True, kw_only=True)
class EventRecord:
    """One stored input event (accepted, or refused and kept as an audit record)."""

    seq: int
    hand: int | None
    event: dict[str, Any]
    accepted: bool
    by: str | None
    refusal_code: str | None
    refusal_message: str | None
    wall_ns: int
    clock_synced: bool
    mono_ns: int
    config_id: int
    has_snapshot: bool

    @property
    def wall_time(self) -> datetime:
        """Wall time in UTC; meaningful as a date only when ``clock_synced``."""
        return _utc(self.wall_ns)


@dataclass(frozen=True, slots=True, kw_only=True)
class SystemLogRecord:
    """One entry of the journal's system log (power up, clock sync, faults...)."""

    id: int
    kind: str
    detail: dict[str, Any]
    wall_ns: int
    clock_synced: bool
    mono_ns: int
    last_seq: int  # the journal's last seq when the entry was written

    @property
    def wall_time(self) -> datetime:
        return _utc(self.wall_ns)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigRecord:
    """A configuration the journal recorded, with the first event recorded under it."""

    id: int
    sha256: str
    text: str
    from_seq: int  # first seq recorded under this configuration
    wall_ns: int
    clock_synced: bool
    by: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyResult:
    """The outcome of :meth:`Journal.verify`. ``problems`` empty means all checks passed."""

    last_seq: int
    checked_from_seq: int  # the chain was checked from here (1, or the prune checkpoint + 1)
    events_checked: int
    quick_check: str
    problems: tuple[JournalIntegrityError, ...] = ()
    warnings: tuple[str, ...] = ()
    verified: tuple[int, bytes] | None = None  # (seq, chain hash) the check reached, if ok

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first_problem(self) -> JournalIntegrityError | None:
        return self.problems[0] if self.problems else None

    def raise_for_problems(self) -> None:
        """Raise the first problem found (the most basic one: corruption before chain)."""
        if self.problems:
            raise self.problems[0]

    def summary(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "last_seq": self.last_seq,
            "checked_from_seq": self.checked_from_seq,
            "events_checked": self.events_checked,
            "quick_check": self.quick_check,
            "problems": [{"code": p.code, "message": p.message} for p in self.problems],
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class PruneReport:
    """What a prune removed or archived, and the journal's size before and after."""

    removed_events: int
    removed_snapshots: int
    removed_outbox: int
    removed_log_entries: int
    kept_from_seq: int  # first seq still in the journal (last_seq + 1 when empty)
    archive: Path | None
    bytes_before: int
    bytes_after: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SalvageReport:
    """What :func:`salvage` did. The damaged files are in ``moved_to``, untouched."""

    moved_to: Path
    kept_last_seq: int  # the rebuilt journal ends here
    damaged_last_seq: int | None  # the damaged database's last readable seq, if any
    acknowledged_seq: int | None  # the ack mark found, if any
    reason: str  # why the salvage stopped where it did
    snapshots_kept: int
    notes: tuple[str, ...] = field(default=())
    kept_events: int = 0  # events in the rebuilt journal (after the prune checkpoint)
    dropped_events: int = 0  # events found or acknowledged beyond the kept prefix
