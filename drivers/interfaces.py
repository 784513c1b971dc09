"""One interface per device kind, as the controller sees it.

Inputs arrive as events (``drivers.events``) on the queue given when a device is
opened; outputs are these method calls, made from the controller's thread. Every
method returns at once: the device's own thread does the slow part.

=============  =====================================  ===================================
interface      real driver                            simulated with
=============  =====================================  ===================================
PuckSensor     ``puck.GpioPuckSensor`` (gpiozero)     gpiozero MockFactory + ``SimPuck``
SeatLights     ``lights.GpioSeatLights`` (gpiozero)   gpiozero MockFactory + ``SimLights``
DoorSwitch     ``door.GpioDoorSwitch`` (gpiozero)     gpiozero MockFactory + ``SimDoor``
Keypad         ``keypad.SerialKeypad`` (pyserial)     ``sim.SimKeypad`` on a pty
ChipTray       ``tray.SerialChipTray`` (pyserial)     ``sim.SimTray`` on a pty
ClockDisplay   ``display.SerialClockDisplay``         ``sim.SimDisplay`` on a pty
=============  =====================================  ===================================

A simulated device runs the real driver against a simulated device, so what is tested
is the code that runs on the table. A device switched off in the settings
(``enabled: false``) is an ``absent`` stand-in that does nothing.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the serial library only where a link is built, not for the names here
    import threading

    from .serial_link import LinkCounters


class Pattern(StrEnum):
    """What a seat light does."""

    OFF = "off"
    ON = "on"
    SLOW_BLINK = "slow_blink"
    FAST_BLINK = "fast_blink"
    PULSE = "pulse"  # PWM lights; a plain LED shows it as WINK
    WINK = "wink"  # a short flash once a pulse period: PULSE on a plain on/off LED


class Closeable(Protocol):
    def close(self) -> None:
        """Stop the device's thread and release its pins or port. Safe to call twice."""


class PuckSensor(Closeable, Protocol):
    """Where the dealer button is. Reports ``PuckMoved`` and ``PuckFault``."""

    @property
    def seat(self) -> int | None:
        """The seat of the last reported reading (None: lifted, faulty or unknown)."""

    @property
    def fault_seats(self) -> tuple[int, ...]:
        """The seats of a puck fault in force, or ()."""


class DoorSwitch(Closeable, Protocol):
    """The controller's door. Reports ``DoorChanged``."""

    @property
    def status(self) -> str | None:
        """``open`` or ``closed`` as last reported (None: no switch, or not yet read)."""


class SeatLights(Closeable, Protocol):
    """One light per seat."""

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats that have a light."""

    def show(self, seat: int, pattern: Pattern) -> None:
        """Set a seat's pattern (a seat without a light is ignored)."""

    def pattern(self, seat: int) -> Pattern:
        """The pattern last set for ``seat``."""

    def lamp_test(self) -> threading.Event:
        """Light each seat in turn, then go back to the patterns; the event is set when
        the test is over."""


class SerialDeviceState(Closeable, Protocol):
    @property
    def connected(self) -> bool:
        """True while the device is there and has shaken hands."""

    @property
    def fault(self) -> str | None:
        """The fault in force, or None."""

    @property
    def counters(self) -> LinkCounters:
        """Frames received, dropped by reason, repeated, sessions, faults."""


class Keypad(SerialDeviceState, Protocol):
    """The dealer keypad. Reports ``KeyPressed`` in order, each once."""


class ChipTray(SerialDeviceState, Protocol):
    """The RFID chip tray reader. Reports ``TrayCounts`` on change."""

    @property
    def counts(self) -> dict[int, int] | None:
        """The latest reading, or None before the first."""

    def request_counts(self) -> None:
        """Ask for a fresh reading, reported even if unchanged."""


class ClockDisplay(SerialDeviceState, Protocol):
    """The action-clock digits and the dealer's two text lines."""

    def show_clock(self, ms: int | None, warning: bool = False) -> None:
        """Show the time left, or blank the digits with None."""

    def show_text(self, line1: str, line2: str = "") -> None:
        """Show two lines of text."""

    def lamp_test(self, ms: int = 2000) -> None:
        """Light every segment and pixel for ``ms``."""
