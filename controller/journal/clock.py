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

A **step** of the wall clock (NTP setting it at once, a technician's ``date -s``, an
RTC read late) is seen as a change, between two readings, of the wall clock's offset
from the monotonic clock by more than :data:`STEP_SECONDS`; a slewing NTP moves it by
at most 0.5 ms a second, far below. Each step is kept in :attr:`WallClock.steps`, and
the journal records it in its system log (``clock_step``) with the next record.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

RECHECK_SECONDS = 60.0
STEP_SECONDS = 2.0
TIMESYNCD_FLAG = Path("/run/systemd/timesync/synchronized")
_TIME_ERROR = 5
_TIMEX_BUFFER = 512  # larger than struct timex on every Linux ABI; modes (first field) = 0


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
        time_ns: Callable[[], int] = time.time_ns,
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
        self.steps: list[ClockStep] = []  # every step seen, oldest first

    def synced(self) -> bool:
        now = self._monotonic_ns()
        if self._checked_at is None or now - self._checked_at >= self._recheck_ns:
            self._synced = bool(self._probe())
            self._checked_at = now
        return self._synced

    def now(self) -> tuple[int, bool, int]:
        """``(wall_ns, clock_synced, monotonic_ns)`` for one record."""
        synced = self.synced()
        wall_ns, mono_ns = self._time_ns(), self._monotonic_ns()
        offset = wall_ns - mono_ns
        if self._offset_ns is not None and abs(offset - self._offset_ns) > self._step_ns:
            self.steps.append(ClockStep(offset - self._offset_ns, wall_ns, mono_ns, synced))
        self._offset_ns = offset
        return wall_ns, synced, mono_ns


@dataclass(frozen=True)
class ClockStep:
    """The wall clock moved by ``step_ns`` against the monotonic clock (positive:
    forward) before the reading at ``wall_ns`` / ``mono_ns``."""

    step_ns: int
    wall_ns: int
    mono_ns: int
    synced: bool
