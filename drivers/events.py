"""Device-level input events, as the drivers put them on the controller's queue.

The drivers know nothing of the rules: they say what a device reported (a key, a puck
reading, tray counts) or what happened to a device (a fault, a recovery). The shell
turns these into rules events. Every event is a small frozen value that checks itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

#: The dealer keypad's keys, exactly as ``KeyPressed.key`` spells them: the one list of
#: the drivers (``keypad.KEY_CODES`` gives each its byte). The same names as the rules
#: core's ``KEYS`` (the replay contract), which the drivers may not import; the test of
#: this module holds the two equal.
KEYS: tuple[str, ...] = (
    *(str(digit) for digit in range(10)),
    "FOLD",
    "CHECK",
    "BET",
    "ALLIN",
    "ENTER",
    "CLEAR",
    "CLOCK",
    "NEXT",
    "FUNC",
)

#: Device names as used in ``DeviceFault.device`` and ``DeviceCleared.device``.
DeviceName = Literal["puck", "lights", "keypad", "tray", "display"]
DEVICE_NAMES: tuple[DeviceName, ...] = ("puck", "lights", "keypad", "tray", "display")


@dataclass(frozen=True, kw_only=True, slots=True)
class KeyPressed:
    """The dealer pressed one key (one of ``KEYS``)."""

    key: str

    def __post_init__(self) -> None:
        if self.key not in KEYS:
            raise ValueError(f"unknown keypad key {self.key!r}")


@dataclass(frozen=True, kw_only=True, slots=True)
class PuckMoved:
    """The button puck settled at ``seat``, or was lifted (``seat`` is None).

    A ``PuckMoved`` after a ``PuckFault`` also means the fault is over.
    """

    seat: int | None

    def __post_init__(self) -> None:
        if self.seat is not None and self.seat < 1:
            raise ValueError(f"puck seat {self.seat} is not a seat number")


@dataclass(frozen=True, kw_only=True, slots=True)
class PuckFault:
    """Two or more seat sensors see the puck at once for longer than the debounce."""

    seats: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.seats) < 2:
            raise ValueError("a puck fault names at least two seats")


@dataclass(frozen=True, kw_only=True, slots=True)
class DoorChanged:
    """The controller's door switch settled ``open`` or ``closed`` (held for the
    debounce time): reported at each change, and the first settled reading after start."""

    status: Literal["open", "closed"]

    def __post_init__(self) -> None:
        if self.status not in ("open", "closed"):
            raise ValueError(f"door status {self.status!r} is not open or closed")


@dataclass(frozen=True, kw_only=True)
class TrayCounts:
    """A chip tray reading: chip value (in smallest units) -> number of chips.

    Reported when the counts change and after every (re)connection of the reader.
    """

    counts: dict[int, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", dict(self.counts))
        for value, count in self.counts.items():
            if value <= 0 or count < 0:
                raise ValueError(f"bad tray count {count} of chips worth {value}")


@dataclass(frozen=True, kw_only=True, slots=True)
class DeviceFault:
    """``device`` stopped working: missing, lost, not answering, or the wrong device.

    ``message`` says what a technician can check. Raised again if the reason changes;
    stays in force until ``DeviceCleared`` for the same device.
    """

    device: DeviceName
    message: str


@dataclass(frozen=True, kw_only=True, slots=True)
class DeviceCleared:
    """``device`` works again after a ``DeviceFault``."""

    device: DeviceName


DeviceEvent = (
    KeyPressed | PuckMoved | PuckFault | DoorChanged | TrayCounts | DeviceFault | DeviceCleared
)


class EventSink(Protocol):
    """Where drivers put their events: the controller's ``queue.Queue`` (any item type
    that includes ``DeviceEvent``), or anything else with a ``put``."""

    def put(self, item: DeviceEvent, /) -> None: ...
