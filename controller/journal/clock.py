"""Wall time for journal records, and whether it can be believed.

The board may have no real-time clock: until NTP (systemd-timesyncd, chrony, ...)
has set the clock, wall time may be 1970 or whatever ``fake-hwclock`` saved. Every
record therefore stores the wall time, a ``clock_synced`` flag and the monotonic
time, so recall can mark unsynchronised times and, with the ``clock_sync`` system
log entry (wall and monotonic time at the moment sync was first seen, same boot),
re-date earlier records of that boot.

How "synchronised" is decided (cheap enough to ask once a minute):

* the kernel's NTP status through ``adjtimex(2)`` called read-only (``modes = 0``)
  via ``ctypes``; a return value other than ``TIME_ERROR`` means an NTP daemon has
  disciplined the clock (this is what ``timedatectl``'s ``NTPSynchronized`` reads);
* or the flag file ``/run/systemd/timesync/synchronized`` that systemd-timesyncd
  touches once it has synchronised.

Running ``timedatectl`` per event would cost a process and a D-Bus call; the answer
is cached for :data:`RECHECK_SECONDS`.

A **clock fault**: a wall clock outside what a record can hold (SQLite's integers, so
nanoseconds since 1970 within a signed 64-bit number: 1677-09-21 to 2262-04-11; an RTC
or a ``date -s`` gone wrong can read year 2300) is never a traceback. The reading is
stored as the nearest time that can be held, marked unsynchronised, and the clock
keeps a :class:`ClockFault` (logged for the technician, and written to the journal's
system log as ``clock_fault`` with the next record) when it goes out of range; coming
back is a step like any other. :func:`storable_wall_ns` is the one bound every wall
time read elsewhere (the floor link's stamps and outbox rows) goes through.

A **step** of the wall clock (NTP setting it at once, a technician's ``date -s``, an
RTC read late) is seen as a change, between two readings, of the wall clock's offset
from the monotonic clock by more than :data:`STEP_SECONDS`; a slewing NTP moves it by
at most 0.5 ms a second, far below. Each step is kept in :attr:`WallClock.steps`, and
the journal records it in its system log (``clock_step``) with the next record.
"""

from __future__ import annotations

import ctypes
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller import clock_guard
from controller.clock_guard import WALL_NS_MAX, WALL_NS_MIN
from controller.journal.records import LogKind

RECHECK_SECONDS = 60.0
STEP_SECONDS = 2.0
TIMESYNCD_FLAG = Path("/run/systemd/timesync/synchronized")
_TIME_ERROR = 5
_TIMEX_BUFFER = 512  # larger than struct timex on every Linux ABI; modes (first field) = 0

log = logging.getLogger(__name__)


def _year_of(wall_ns: int) -> int:
    """The proleptic Gregorian year of ``wall_ns`` (any size: ``datetime`` stops at 9999)."""
    days = wall_ns // (86_400 * 10**9) + 719_468  # from 0000-03-01
    era = days // 146_097
    day_of_era = days - era * 146_097
    year_of_era = (
        day_of_era - day_of_era // 1_460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153  # 0 is March
    return year_of_era + era * 400 + (1 if month_index >= 10 else 0)


def storable_wall_ns(wall_ns: int) -> int:
    """``wall_ns`` bounded to what a record can hold (see "clock fault" above)."""
    return min(max(wall_ns, WALL_NS_MIN), WALL_NS_MAX)


def wall_ns_now() -> int:
    """The system's wall time in ns, bounded to what a record can hold."""
    return storable_wall_ns(clock_guard.raw_wall_ns())


def _adjtimex_synced() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        adjtimex = libc.adjtimex
    except (OSError, AttributeError):
        return False
    buffer = ctypes.create_string_buffer(_TIMEX_BUFFER)
    state = int(adjtimex(buffer))
    return 0 <= state != _TIME_ERROR


def kernel_clock_synced() -> bool:
    """True once the system clock has been synchronised (see the module docstring)."""
    return TIMESYNCD_FLAG.exists() or _adjtimex_synced()


def boot_id() -> str:
    """The kernel's id of this boot: monotonic times compare only within one boot."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "unknown"


class WallClock:
    """Wall time with a cached synchronisation flag.

    ``probe`` and ``monotonic_ns``/``time_ns`` are injectable so tests can play a
    board that boots unsynchronised and later gets NTP.
    """

    def __init__(
        self,
        probe: Callable[[], bool] = kernel_clock_synced,
        *,
        time_ns: Callable[[], int] = clock_guard.raw_wall_ns,
        monotonic_ns: Callable[[], int] = time.monotonic_ns,
        recheck_seconds: float = RECHECK_SECONDS,
        step_seconds: float = STEP_SECONDS,
    ) -> None:
        self._probe = probe
        self._time_ns = time_ns
        self._monotonic_ns = monotonic_ns
        self._recheck_ns = int(recheck_seconds * 1e9)
        self._step_ns = int(step_seconds * 1e9)
        self._synced = False
        self._checked_at: int | None = None
        self._offset_ns: int | None = None  # wall - monotonic at the last reading
        self._out_of_range = False  # the last reading was a clock fault
        self.steps: list[ClockStep | ClockFault] = []  # every step and fault, oldest first

    def synced(self) -> bool:
        now = self._monotonic_ns()
        if self._checked_at is None or now - self._checked_at >= self._recheck_ns:
            self._synced = bool(self._probe())
            self._checked_at = now
        return self._synced

    def now(self) -> tuple[int, bool, int]:
        """``(wall_ns, clock_synced, monotonic_ns)`` for one record."""
        synced = self.synced()
        reading, mono_ns = self._time_ns(), self._monotonic_ns()
        wall_ns = storable_wall_ns(reading)
        offset = reading - mono_ns
        if self._offset_ns is not None and abs(offset - self._offset_ns) > self._step_ns:
            self.steps.append(ClockStep(offset - self._offset_ns, wall_ns, mono_ns, synced))
        self._offset_ns = offset
        if wall_ns != reading:  # a clock fault: never believed, never a traceback
            if not self._out_of_range:
                fault = ClockFault(reading, wall_ns, mono_ns)
                log.error("clock fault: %s", fault.message)
                self.steps.append(fault)
            self._out_of_range = True
            return wall_ns, False, mono_ns
        self._out_of_range = False
        return wall_ns, synced, mono_ns


@dataclass(frozen=True)
class ClockStep:
    """The wall clock moved by ``step_ns`` against the monotonic clock (positive:
    forward) before the reading at ``wall_ns`` / ``mono_ns``."""

    step_ns: int
    wall_ns: int
    mono_ns: int
    synced: bool

    def log_entry(self) -> tuple[str, dict[str, Any]]:
        """The journal's system log entry for it (kind, detail)."""
        detail = {
            "step_ns": self.step_ns,
            "step_s": round(self.step_ns / 1e9, 3),
            "wall_ns": self.wall_ns,
            "mono_ns": self.mono_ns,
            "synced": self.synced,
        }
        return LogKind.CLOCK_STEP, detail


@dataclass(frozen=True)
class ClockFault:
    """The wall clock read ``reading_ns``, outside what a record can hold; records
    store ``stored_ns`` (the nearest that can be held), unsynchronised, until it is set
    right."""

    reading_ns: int
    stored_ns: int
    mono_ns: int

    @property
    def message(self) -> str:
        year = _year_of(self.reading_ns)
        bound = "2262-04-11" if self.reading_ns > WALL_NS_MAX else "1677-09-21"
        return (
            f"the board's wall clock reads about year {year}, beyond what a record can "
            f"hold: times are recorded as {bound} and marked unsynchronised until the "
            f"clock is set right (check NTP with timedatectl, or the board's RTC); play "
            f"goes on, durations use the monotonic clock"
        )

    def log_entry(self) -> tuple[str, dict[str, Any]]:
        """The journal's system log entry for it (kind, detail)."""
        detail = {
            "reading_ns": str(self.reading_ns),
            "stored_ns": self.stored_ns,
            "mono_ns": self.mono_ns,
            "message": self.message,
        }
        return LogKind.CLOCK_FAULT, detail
