"""Wall time for floor messages, and whether it can be trusted.

A Raspberry Pi has no battery-backed clock: until NTP has set it, the wall clock may be
hours or years off. Every floor message therefore carries a `clock_synced` flag next to
its wall time (decided as the journal decides it, `controller.journal.clock`), so the
back office knows which timestamps to trust and which to place by sequence number and
arrival time instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from controller.journal.clock import WallClock

# The journal's clock: the sync flag is asked of the kernel once a minute, not per message.
_CLOCK = WallClock()


@dataclass(frozen=True)
class Stamp:
    """A wall time in nanoseconds since the epoch, and whether the clock was synced."""

    wall_ns: int
    clock_synced: bool

    @classmethod
    def now(cls) -> Stamp:
        wall_ns, synced, _ = _CLOCK.now()
        return cls(wall_ns, synced)

    @property
    def iso(self) -> str:
        """UTC, millisecond precision: `2025-03-01T21:14:05.123Z`."""
        seconds, rest = divmod(self.wall_ns, 1_000_000_000)
        moment = datetime.fromtimestamp(seconds, tz=UTC)
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{rest // 1_000_000:03d}Z"
