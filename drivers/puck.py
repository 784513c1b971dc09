"""The button-puck sensor: one hall-effect sensor per seat on GPIO.

A reading is the set of seats whose sensor sees the puck. A reading is reported once
it has held for ``debounce_ms``: no seat is ``PuckMoved(seat=None)`` (lifted), one seat
is ``PuckMoved(seat=n)``, two or more is ``PuckFault(seats=...)``. Only changes are
reported, and the first settled reading after start.

Debouncing is done here rather than by the pin backend (``bounce_time``), because
backends differ (``debounce``). ``PuckDebouncer`` holds the timing rule, free of
threads and clocks, so it is tested with made-up times.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gpiozero import DigitalInputDevice

from .closing import Closing
from .debounce import DebouncedInput, Debouncer
from .errors import GpioUnavailable
from .events import EventSink, PuckFault, PuckMoved
from .settings import PuckSettings

PuckEvent = PuckMoved | PuckFault


def reading_event(seen: frozenset[int]) -> PuckEvent:
    """The event for a settled reading."""
    if len(seen) >= 2:
        return PuckFault(seats=tuple(sorted(seen)))
    return PuckMoved(seat=next(iter(seen), None))


class PuckDebouncer(Debouncer[frozenset[int]]):
    """Raw readings with their times in, settled readings out (``debounce.Debouncer``)."""

    def settle(self, now: float) -> PuckEvent | None:
        """The event to report at ``now``, if the raw reading has settled and is news."""
        seen = self.settled(now)
        return None if seen is None else reading_event(seen)


def _input_options(settings: PuckSettings) -> dict[str, Any]:
    pull = settings.pull
    if pull == "auto":
        pull = "up" if settings.active_level == "low" else "down"
    if pull == "none":
        return {"pull_up": None, "active_state": settings.active_level == "high"}
    return {"pull_up": pull == "up"}  # gpiozero: pulled up means active low


class GpioPuckSensor(Closing):
    """The puck sensors on GPIO; reports on ``events`` from its own thread."""

    def __init__(
        self,
        settings: PuckSettings,
        events: EventSink,
        *,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._events = events
        self._watch = DebouncedInput(
            "puck", self.read, PuckDebouncer(settings.debounce_ms / 1000), self._settled, clock
        )
        self._seat: int | None = None
        self._fault: tuple[int, ...] = ()
        self._sensors: dict[int, Any] = {}
        options = _input_options(settings)
        try:
            for seat, pin in sorted(settings.pins.items()):
                sensor = DigitalInputDevice(
                    pin, bounce_time=None, pin_factory=pin_factory, **options
                )
                self._sensors[seat] = sensor
                sensor.when_activated = self._watch.changed
                sensor.when_deactivated = self._watch.changed
        except Exception as error:
            self._close_sensors()
            raise GpioUnavailable(f"puck sensor pins cannot be used: {error}") from error
        self._watch.start()

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(self._sensors)

    @property
    def seat(self) -> int | None:
        return self._seat

    @property
    def fault_seats(self) -> tuple[int, ...]:
        return self._fault

    def read(self) -> frozenset[int]:
        """The seats whose sensor sees the puck right now (not debounced)."""
        return frozenset(seat for seat, sensor in self._sensors.items() if sensor.is_active)

    def _settled(self, seen: frozenset[int]) -> None:
        event = reading_event(seen)
        if isinstance(event, PuckFault):
            self._seat, self._fault = None, event.seats
        else:
            self._seat, self._fault = event.seat, ()
        self._events.put(event)

    def close(self) -> None:
        self._watch.close()
        self._close_sensors()

    def _close_sensors(self) -> None:
        for sensor in self._sensors.values():
            sensor.close()
