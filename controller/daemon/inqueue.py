"""The controller loop's one input queue: in order, bounded, readings merged.

Every input reaches the loop in the order it was put, with two exceptions that keep a
flooding device from ever delaying a key:

- **Readings are merged.** A chip tray reports its counts over and over while the
  chips settle, a puck sensor its seat; only the newest of each matters. At most one
  tray reading and one puck reading wait in the queue: a new one replaces the waiting
  one and takes its place at the end. So a key put after a thousand tray readings
  waits behind at most one of them. A tray reading is also handed to the loop at most
  once every ``TRAY_EVERY`` seconds (the newest one when that time comes; anything else
  passes it meanwhile), so the journal gets a few tray rows per second while the chips
  settle instead of one per reading (the probe's 1,000 readings/s gave 20,199 rows in
  20 s and a key waited up to 0.97 s).
- **Device events are bounded.** At most ``DEVICE_BOUND`` device events wait; beyond
  that a device event is dropped and counted (a stuck key repeating, a device gone
  mad), with a warning the first time and every ``WARN_EVERY`` drops. The daemon's own
  requests (stop, reload, a submitted event, the floor link's notices) are never
  dropped, nor is a door switch reading (debounced, it comes at most once per
  ``debounce_ms``; one dropped would leave the door wrong in the state).

``put`` never blocks a driver's thread. ``get``/``get_nowait``/``empty``/``qsize``
are those of ``queue.Queue`` (``queue.Empty`` included), which the loop was written for.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from drivers.events import (
    DeviceCleared,
    DeviceFault,
    KeyPressed,
    PuckFault,
    PuckMoved,
    TrayCounts,
)

log = logging.getLogger("table-controller")

DEVICE_BOUND = 256
"""Device events that may wait; a human at a keypad never gets near it."""
WARN_EVERY = 1000
TRAY_EVERY = 0.25
"""Seconds between two tray readings handed to the loop (journalled rows) at most."""

_DEVICE_EVENTS = (KeyPressed, PuckMoved, PuckFault, TrayCounts, DeviceFault, DeviceCleared)
_MERGED: dict[type, str] = {TrayCounts: "tray", PuckMoved: "puck"}


class InputQueue:
    """See the module docstring."""

    def __init__(
        self,
        device_bound: int = DEVICE_BOUND,
        *,
        tray_every: float = TRAY_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.device_bound = device_bound
        self.tray_every = tray_every
        self._clock = clock
        self._tray_taken: float | None = None
        self._items: deque[Any] = deque()
        self._waiting: dict[str, Any] = {}  # merged kind -> the reading waiting for it
        self._devices = 0  # device events waiting
        self._ready = threading.Condition()
        self.merged = 0  # readings replaced by a newer one before the loop took them
        self.dropped = 0  # device events refused at the bound

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        del block, timeout  # never blocks: a driver's thread must not wait on the loop
        kind = _MERGED.get(type(item))
        device = isinstance(item, _DEVICE_EVENTS)
        with self._ready:
            old = self._waiting.get(kind) if kind is not None else None
            if old is not None:
                self._remove(old)
                self.merged += 1
            elif device and self._devices >= self.device_bound:
                self.dropped += 1
                if self.dropped % WARN_EVERY == 1:
                    log.warning(
                        "input queue full (%d device events waiting): %s dropped "
                        "(%d so far); is a device flooding?",
                        self._devices,
                        type(item).__name__,
                        self.dropped,
                    )
                return
            self._items.append(item)
            if kind is not None:
                self._waiting[kind] = item
            if device:
                self._devices += 1
            self._ready.notify()

    def _remove(self, old: Any) -> None:
        for index, waiting in enumerate(self._items):
            if waiting is old:
                del self._items[index]
                self._devices -= 1
                return

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        deadline = None if timeout is None or not block else self._clock() + timeout
        with self._ready:
            while True:
                index, tray_due = self._first_ready()
                if index is not None:
                    return self._take(index)
                if not block:
                    raise queue.Empty
                now = self._clock()
                waits = [t - now for t in (deadline, tray_due) if t is not None]
                if deadline is not None and deadline <= now:
                    raise queue.Empty
                self._ready.wait(max(0.0, min(waits)) if waits else None)

    def _first_ready(self) -> tuple[int | None, float | None]:
        """The first item that may go now, and when a held tray reading may go."""
        tray_due = None
        if self._tray_taken is not None:
            tray_due = self._tray_taken + self.tray_every
            if tray_due <= self._clock():
                tray_due = None
        for index, item in enumerate(self._items):
            if tray_due is None or not isinstance(item, TrayCounts):
                return index, None
        return None, tray_due

    def _take(self, index: int) -> Any:
        item = self._items[index]
        del self._items[index]
        kind = _MERGED.get(type(item))
        if kind is not None and self._waiting.get(kind) is item:
            del self._waiting[kind]
        if isinstance(item, TrayCounts):
            self._tray_taken = self._clock()
        if isinstance(item, _DEVICE_EVENTS):
            self._devices -= 1
        return item

    def get_nowait(self) -> Any:
        return self.get(block=False)

    def qsize(self) -> int:
        with self._ready:
            return len(self._items)

    def empty(self) -> bool:
        return self.qsize() == 0
