"""A simulated dealer keypad: ``press(key)`` sends a key as the real keypad would."""

from __future__ import annotations

from collections import deque
from pathlib import Path

from ..events import KEYS
from ..keypad import KEYPAD, KeyMessage
from .device import SimSerialDevice


class SimKeypad(SimSerialDevice):
    """Keys go out one at a time, each repeated until acknowledged, in order.

    Keys pressed while unplugged are lost (the keypad has no power); keys pressed after
    ``replug`` wait for the driver's handshake and are then delivered.
    """

    def __init__(self, path: Path, *, firmware: str = "sim-keypad-1.0") -> None:
        self._keys: deque[str] = deque()
        self.delivered = 0
        super().__init__(codec=KEYPAD, path=path, firmware=firmware)

    def press(self, *keys: str) -> None:
        """Press ``keys`` in order (returns at once)."""
        for key in keys:
            if key not in KEYS:
                raise ValueError(f"unknown keypad key {key!r}")
        self._post(lambda: self._queue(keys))

    def wait_delivered(self, count: int, timeout: float = 10.0) -> bool:
        """Block until ``count`` keys in all have been acknowledged by the driver."""
        return self.wait_until(lambda: self.delivered >= count, timeout)

    def _queue(self, keys: tuple[str, ...]) -> None:
        if not self.plugged:
            return
        self._keys.extend(keys)
        self._pump()

    def _pump(self) -> None:
        if self._keys and not self.slot_busy("key"):
            self.send_acked("key", KeyMessage(self._keys[0]))

    def on_session(self) -> None:
        self._pump()

    def on_acked(self, slot: str) -> None:
        if slot == "key" and self._keys:
            self._keys.popleft()
            self.delivered += 1
        self._pump()

    def on_unplug(self) -> None:
        self._keys.clear()
