"""A simulated RFID chip tray reader: counts on change, every ``period`` seconds, on
request, and (for benchmarks) a flood of changing readings at a set rate."""

from __future__ import annotations

import time
from pathlib import Path

from ..messages import Message
from ..tray import TRAY, CountsMessage, RequestCounts
from .device import SimSerialDevice

DEFAULT_PERIOD = 1.0


class SimTray(SimSerialDevice):
    def __init__(
        self,
        path: Path,
        *,
        counts: dict[int, int] | None = None,
        period: float = DEFAULT_PERIOD,
        firmware: str = "sim-tray-1.0",
    ) -> None:
        self._counts: dict[int, int] = dict(counts or {})
        self._period = period
        self._next_periodic = 0.0
        self._flood_interval: float | None = None
        self._next_flood = 0.0
        self.readings_sent = 0
        super().__init__(codec=TRAY, path=path, firmware=firmware)

    @property
    def counts(self) -> dict[int, int]:
        return dict(self._counts)

    def set_counts(self, counts: dict[int, int]) -> None:
        """The chips in the tray changed: the reader reports at once."""
        new = dict(counts)
        self._post(lambda: self._change(new))

    def flood(self, rate_hz: float | None) -> None:
        """Send a changed reading ``rate_hz`` times a second (None stops)."""

        def change() -> None:
            self._flood_interval = None if not rate_hz else 1.0 / rate_hz
            self._next_flood = time.monotonic()

        self._call(change)

    def _change(self, counts: dict[int, int]) -> None:
        self._counts = counts
        self._report()

    def _report(self) -> None:
        self._next_periodic = time.monotonic() + self._period
        if self.in_session:
            self.readings_sent += 1
            self.send_acked("counts", CountsMessage(dict(self._counts)))

    def on_session(self) -> None:
        self._report()

    def on_message(self, message: Message) -> None:
        if isinstance(message, RequestCounts):
            self._report()

    def on_tick(self, now: float) -> float | None:
        if not self.in_session:
            return None
        if self._flood_interval is not None and now >= self._next_flood:
            # Keep the average rate when this thread runs late, but never burst more
            # than 50 ms worth of readings.
            self._next_flood = max(self._next_flood, now - 0.05)
            while now >= self._next_flood:
                self._next_flood += self._flood_interval
                smallest = min(self._counts, default=1)
                self._counts[smallest] = (self._counts.get(smallest, 0) + 1) % 1000
                self._report()
        elif now >= self._next_periodic:
            self._report()
        wanted = self._next_periodic
        if self._flood_interval is not None:
            wanted = min(wanted, self._next_flood)
        return wanted
