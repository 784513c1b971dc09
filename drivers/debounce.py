"""Debouncing a GPIO input's readings, free of threads and clocks (tested with made-up
times): a reading is reported once it has held for the debounce time; only news is
reported (a change, and the first settled reading after start). The puck sensors
(``puck.PuckDebouncer``) and the door switch (``door``) use it.

Debouncing is done here rather than by the pin backend (``bounce_time``), because
backends differ: some report the first edge and ignore the rest, which can leave the
last (true) level unreported.
"""

from __future__ import annotations

from typing import Generic, TypeVar

Reading = TypeVar("Reading")


class Debouncer(Generic[Reading]):
    """Raw readings with their times in, settled readings out."""

    def __init__(self, debounce: float) -> None:
        self._debounce = debounce
        self._raw: Reading | None = None
        self._since = 0.0
        self._reported: Reading | None = None

    def observe(self, seen: Reading, now: float) -> None:
        """The input read ``seen`` at ``now``."""
        if seen != self._raw:
            self._raw = seen
            self._since = now

    def due(self) -> float | None:
        """When the current raw reading will have settled, if it is news."""
        if self._raw is None or self._raw == self._reported:
            return None
        return self._since + self._debounce

    def settled(self, now: float) -> Reading | None:
        """The reading to report at ``now``, if the raw one has settled and is news."""
        due = self.due()
        if due is None or now < due or self._raw is None:
            return None
        self._reported = self._raw
        return self._raw
