"""A clock for the daemon whose time moves only when a test says so, like trio's
``MockClock``: ``Daemon(settings, clock=MockClock())``, then ``clock.jump(1.0)`` is one
second of table time, at once. The driver threads (light blinking, serial keep-alives,
debouncing) keep real time: only the daemon's loop reads this clock."""

from __future__ import annotations

import queue
import threading
from typing import Any

NS = 1_000_000_000


class _Wake:
    """Put on a waiting loop's queue by ``jump`` so that it looks at the time again."""


_WAKE = _Wake()


class MockClock:
    """``controller.daemon.timekeeping.Clock`` with time that jumps."""

    def __init__(self, start_ns: int = 0) -> None:
        self._now_ns = start_ns
        self._lock = threading.Lock()
        self._queues: list[queue.Queue[Any]] = []

    def now_ns(self) -> int:
        with self._lock:
            return self._now_ns

    def jump(self, seconds: float) -> None:
        """Move the time forward; a loop waiting for an instant now passed wakes."""
        if seconds < 0:
            raise ValueError(f"time cannot go back ({seconds} s)")
        with self._lock:
            self._now_ns += round(seconds * NS)
            waiting = list(self._queues)
        for inputs in waiting:
            inputs.put(_WAKE)

    def next_input(self, inputs: queue.Queue[Any], until_ns: int | None) -> Any | None:
        with self._lock:
            if not any(known is inputs for known in self._queues):
                self._queues.append(inputs)
        while True:
            if until_ns is not None and self.now_ns() >= until_ns:
                try:
                    item = inputs.get_nowait()
                except queue.Empty:
                    return None
            else:
                item = inputs.get()  # an input, or a jump
            if item is not _WAKE:
                return item
