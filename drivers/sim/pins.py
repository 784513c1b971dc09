"""Simulated pins: the hands that move the puck and open the door, and the eyes that
watch the lights.

Both work on gpiozero ``MockFactory`` pins, the same pins the real drivers were given,
so the puck driver sees real edges and the lights' history is the pins' own
(``MockPin.states``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from ..settings import DoorSettings, LightsSettings, PuckSettings


class SimPuck:
    """Moves the simulated puck by driving the seat sensors' mock pins."""

    def __init__(self, settings: PuckSettings, factory: Any) -> None:
        self._active_low = settings.active_level == "low"
        self._pins = {seat: factory.pin(pin) for seat, pin in settings.pins.items()}

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(sorted(self._pins))

    def see(self, seats: Iterable[int]) -> None:
        """Exactly these seats' sensors see the puck (two or more is a fault)."""
        wanted = set(seats)
        unknown = wanted - set(self._pins)
        if unknown:
            raise ValueError(f"no puck sensor at seat(s) {sorted(unknown)}")
        # Release first, then press: a move never shows two seats at once by accident.
        for seat, pin in sorted(self._pins.items()):
            if seat not in wanted:
                self._drive(pin, False)
        for seat in sorted(wanted):
            self._drive(self._pins[seat], True)

    def place(self, seat: int) -> None:
        """Put the puck at ``seat``."""
        self.see([seat])

    def lift(self) -> None:
        """Take the puck off the table."""
        self.see([])

    def bounce(self, seat: int, times: int = 3) -> None:
        """Chatter ``seat``'s sensor ``times`` times, leaving it seeing the puck."""
        pin = self._pins[seat]
        for _ in range(times):
            self._drive(pin, True)
            self._drive(pin, False)
        self._drive(pin, True)

    def _drive(self, pin: Any, sees: bool) -> None:
        if sees != self._active_low:
            pin.drive_high()
        else:
            pin.drive_low()


class SimDoor:
    """Opens and closes the simulated door by driving its switch's mock pin."""

    def __init__(self, settings: DoorSettings, factory: Any) -> None:
        assert settings.pin is not None
        self._open_high = settings.open_level == "high"
        self._pin = factory.pin(settings.pin)

    def open(self) -> None:
        self._drive(True)

    def close(self) -> None:
        self._drive(False)

    def bounce(self, times: int = 3, *, end_open: bool = True) -> None:
        """Chatter the switch ``times`` times, leaving the door open (or closed)."""
        for _ in range(times):
            self._drive(not end_open)
            self._drive(end_open)

    @property
    def is_open(self) -> bool:
        return bool(self._pin.state) == self._open_high

    def _drive(self, opened: bool) -> None:
        if opened == self._open_high:
            self._pin.drive_high()
        else:
            self._pin.drive_low()


class SimLights:
    """Reads the seat lights off their mock pins."""

    def __init__(self, settings: LightsSettings, factory: Any) -> None:
        self._active_high = settings.active_high
        self._pins = {seat: factory.pin(pin) for seat, pin in settings.pins.items()}

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(sorted(self._pins))

    def pin(self, seat: int) -> Any:
        """The seat's ``MockPin`` (``states`` holds its history)."""
        return self._pins[seat]

    def level(self, seat: int) -> float:
        """The seat light's brightness now, 0..1."""
        return self._brightness(self._pins[seat].state)

    def history(self, seat: int) -> list[float]:
        """Every brightness the seat light has had, oldest first."""
        return [self._brightness(entry.state) for entry in self._pins[seat].states]

    def clear_history(self) -> None:
        """Forget the history (it grows while the lights animate)."""
        for pin in self._pins.values():
            pin.clear_states()

    def wait_for_history(self, seat: int, count: int, timeout: float = 10.0) -> bool:
        """Block until the seat's history holds ``count`` entries (polls the pin)."""
        deadline = time.monotonic() + timeout
        while len(self._pins[seat].states) < count:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        return True

    def wait_for_level(self, seat: int, level: float, timeout: float = 10.0) -> bool:
        """Block until the seat light shows ``level`` (polls the pin)."""
        deadline = time.monotonic() + timeout
        while abs(self.level(seat) - level) > 1e-9:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        return True

    def _brightness(self, state: float) -> float:
        value = float(state)
        return value if self._active_high else 1.0 - value
