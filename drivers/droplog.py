"""Logging of dropped input at a rate that cannot flood the log.

A noisy cable can corrupt thousands of frames a second. Each device gets one
``DropLog``: the first drop is logged at once, later ones are summed and logged at most
once per ``interval`` seconds as one line with the counts.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable

DEFAULT_INTERVAL = 10.0


class DropLog:
    """Counts drops by reason; logs a summary at most once per interval."""

    def __init__(
        self,
        device: str,
        *,
        logger: logging.Logger | None = None,
        interval: float = DEFAULT_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.device = device
        self._logger = logger or logging.getLogger("drivers")
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._pending: Counter[str] = Counter()
        self._last_logged: float | None = None
        self.lines_logged = 0

    def note(self, reason: str, count: int = 1, detail: str = "") -> None:
        """Count ``count`` drops for ``reason``; log if the interval allows."""
        with self._lock:
            self._pending[reason] += count
            self._maybe_log(detail)

    @property
    def pending(self) -> bool:
        """Drops counted and not yet logged (``tick`` logs them when their time comes)."""
        with self._lock:
            return bool(self._pending)

    def tick(self) -> None:
        """Log the pending summary if its interval has passed (call now and then)."""
        with self._lock:
            if self._pending:
                self._maybe_log("")

    def _maybe_log(self, detail: str) -> None:
        now = self._clock()
        if self._last_logged is not None and now - self._last_logged < self._interval:
            return
        counts = ", ".join(f"{reason} {n}" for reason, n in sorted(self._pending.items()))
        since = "" if self._last_logged is None else f" in the last {now - self._last_logged:.0f} s"
        suffix = f" (latest: {detail})" if detail else ""
        self._logger.warning("%s: dropped input%s: %s%s", self.device, since, counts, suffix)
        self._pending.clear()
        self._last_logged = now
        self.lines_logged += 1
