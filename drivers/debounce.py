"""Debouncing a GPIO input's readings: ``Debouncer`` is free of threads and clocks
(tested with made-up times): a reading is reported once it has held for the debounce
time; only news is reported (a change, and the first settled reading after start).
``DebouncedInput`` runs one on a thread of its own, woken by the input's edges. The
puck sensors (``puck.PuckDebouncer``) and the door switch (``door``) use both.

Debouncing is done here rather than by the pin backend (``bounce_time``), because
backends differ: some report the first edge and ignore the rest, which can leave the
last (true) level unreported.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
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


POLL_INTERVAL = 0.5  # re-read the input this often, in case an edge went unseen


class DebouncedInput(Generic[Reading]):
    """A GPIO input watched from a thread of its own: woken by the input's edges
    (``changed``, the gpiozero callback), re-read at least every ``POLL_INTERVAL``, and
    each settled reading that is news handed to ``on_settled`` (on that thread). The puck
    sensors and the door switch each run one."""

    def __init__(
        self,
        name: str,
        read: Callable[[], Reading],
        debouncer: Debouncer[Reading],
        on_settled: Callable[[Reading], None],
        clock: Callable[[], float],
    ) -> None:
        self._read = read
        self._debouncer = debouncer
        self._on_settled = on_settled
        self._clock = clock
        self._cond = threading.Condition()
        self._dirty = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def changed(self) -> None:
        """An edge on the input: read it now rather than at the next poll."""
        with self._cond:
            self._dirty = True
            self._cond.notify()

    def _run(self) -> None:
        while not self._stop.is_set():
            # Pins are read outside the lock: gpiozero may hold its own locks while it
            # calls ``changed``.
            seen = self._read()
            now = self._clock()
            with self._cond:
                self._debouncer.observe(seen, now)
                settled = self._debouncer.settled(now)
                due = self._debouncer.due()
            if settled is not None:
                self._on_settled(settled)
            with self._cond:
                if not self._dirty and not self._stop.is_set():
                    wait = POLL_INTERVAL if due is None else min(POLL_INTERVAL, due - self._clock())
                    self._cond.wait(max(wait, 0.0))
                self._dirty = False

    def close(self) -> None:
        """Stop the thread (from any thread but its own, which it then waits for)."""
        self._stop.set()
        self.changed()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(5.0)
