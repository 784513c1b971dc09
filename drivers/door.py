"""The controller's door switch: one GPIO input that says whether the locked
compartment door is open.

A reading (open or closed) is reported as ``DoorChanged`` once it has held for
``debounce_ms`` (``debounce.Debouncer``, as the puck sensors): a switch that bounces
reports nothing until it settles, and only changes are reported, with the first settled
reading after start. The line level that means open is ``open_level``; the pull
``auto`` reads a cut wire as an open door.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

from gpiozero import DigitalInputDevice

from .closing import Closing
from .debounce import DebouncedInput, Debouncer
from .errors import GpioUnavailable
from .events import DoorChanged, EventSink
from .settings import DoorSettings

DoorStatus = Literal["open", "closed"]


def _pull(settings: DoorSettings) -> str:
    if settings.pull != "auto":
        return settings.pull
    return "up" if settings.open_level == "high" else "down"


class GpioDoorSwitch(Closing):
    """The door switch on GPIO; reports on ``events`` from its own thread."""

    def __init__(
        self,
        settings: DoorSettings,
        events: EventSink,
        *,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        assert settings.pin is not None
        self._events = events
        self._status: DoorStatus | None = None
        pull = _pull(settings)
        open_high = settings.open_level == "high"
        # gpiozero: pulled up is active low, pulled down active high; without a pull
        # the active level is said. "Active" is then open or closed as the level says.
        if pull == "none":
            options: dict[str, Any] = {"pull_up": None, "active_state": open_high}
            self._active_is_open = True
        else:
            options = {"pull_up": pull == "up"}
            self._active_is_open = (pull == "down") == open_high
        try:
            self._switch = DigitalInputDevice(
                settings.pin, bounce_time=None, pin_factory=pin_factory, **options
            )
        except Exception as error:
            raise GpioUnavailable(f"door switch pin cannot be used: {error}") from error
        debouncer: Debouncer[DoorStatus] = Debouncer(settings.debounce_ms / 1000)
        self._watch = DebouncedInput("door", self.read, debouncer, self._settled, clock)
        self._switch.when_activated = self._watch.changed
        self._switch.when_deactivated = self._watch.changed
        self._watch.start()

    @property
    def status(self) -> DoorStatus | None:
        """The last reported reading (None before the first has settled)."""
        return self._status

    def read(self) -> DoorStatus:
        """The switch right now (not debounced)."""
        return "open" if bool(self._switch.is_active) == self._active_is_open else "closed"

    def _settled(self, status: DoorStatus) -> None:
        self._status = status
        self._events.put(DoorChanged(status=status))

    def close(self) -> None:
        self._watch.close()
        self._switch.close()
