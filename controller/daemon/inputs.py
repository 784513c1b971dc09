"""Device events (``drivers.events``) turned into what the controller loop handles.

The drivers know nothing of the rules: a key, a puck reading, tray counts, a fault.
Here a key becomes a ``key`` event, a puck reading a ``puck`` event, tray counts a
``tray`` event, a door switch reading a ``door`` event when the state says otherwise
(rules events, journalled and folded); a fault or a recovery becomes a
``DeviceNotice`` (the journal's system log and the display, never the rules).

Besides device events the loop's one queue carries the daemon's own requests
(``Stop``, ``Reload``), ``Submit``: a rules event handed in directly (tests, the
bench, a supervisor's console), journalled like a device's, and ``LinkNotice``: the
floor link went up or down, or its outbox alarm changed (from the publisher's thread).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller import device_faults
from controller.rules.errors import Refusal
from controller.rules.events import DEVICE_EVENTS, SUPERVISOR_EVENTS
from drivers.events import (
    DeviceCleared,
    DeviceEvent,
    DeviceFault,
    DoorChanged,
    KeyPressed,
    PuckFault,
    PuckMoved,
    TrayCounts,
)


@dataclass(frozen=True)
class RulesInput:
    """A rules event (its JSON form) and the device it came from."""

    event: dict[str, Any]
    source: str


@dataclass(frozen=True)
class DeviceNotice:
    """A device fault (``message`` set: the driver's words, the fault's detail) or its
    end (``message`` None); ``code`` is the fault's stable code
    (``controller.device_faults``), None for an end."""

    device: str
    message: str | None
    seats: tuple[int, ...] = ()
    code: str | None = None


@dataclass(frozen=True)
class Stop:
    """End the loop cleanly (SIGTERM)."""

    reason: str = "stop requested"


@dataclass(frozen=True)
class Reload:
    """Read the configuration file again (SIGHUP)."""


@dataclass
class Submit:
    """A rules event handed to the loop directly; ``done`` is called with the outcome."""

    event: dict[str, Any]
    by: str | None = None
    done: Any = field(default=None, compare=False)
    console: bool = False  # a line of ``tablectl run --stdin-events`` (``console_refusal``)


#: What the console (``tablectl run --stdin-events``) may not send: a supervisor's
#: events need the PIN (key them: ``FUNC 0``, id, PIN), and time and device readings
#: come from the controller's clock and its devices (a forged ``tick`` would end a
#: PIN lock-out or a player's clock). docs/daemon.md, "Commands".
CONSOLE_REFUSALS = {
    **{kind: ("needs_pin", "SUPERVISOR ONLY: FUNC 0 AND THE PIN") for kind in SUPERVISOR_EVENTS},
    **{kind: ("device_only", "ONLY THE DEVICE OR CLOCK SENDS THIS") for kind in DEVICE_EVENTS},
}


def console_refusal(event: dict[str, Any]) -> Refusal | None:
    """Why the console may not send ``event`` (None: it may)."""
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in CONSOLE_REFUSALS:
        return None
    code, message = CONSOLE_REFUSALS[kind]
    return Refusal(code, message)


@dataclass(frozen=True)
class LinkNotice:
    """The floor link's status changed in a way the display and the system log show
    (``controller.floor.publisher.LinkStatus``)."""

    status: Any


LoopItem = DeviceEvent | Stop | Reload | Submit | LinkNotice


def translate(event: DeviceEvent) -> RulesInput | DeviceNotice:
    if isinstance(event, KeyPressed):
        return RulesInput({"type": "key", "key": event.key}, "keypad")
    if isinstance(event, PuckMoved):
        return RulesInput({"type": "puck", "seat": event.seat}, "puck")
    if isinstance(event, DoorChanged):
        return RulesInput({"type": "door", "status": event.status}, "door")
    if isinstance(event, TrayCounts):
        counts = {str(value): count for value, count in sorted(event.counts.items())}
        return RulesInput({"type": "tray", "counts": counts}, "tray")
    if isinstance(event, PuckFault):
        seats = " ".join(str(seat) for seat in event.seats)
        return DeviceNotice(
            "puck",
            f"puck sensors of seats {seats} all see the button",
            tuple(event.seats),
            device_faults.PUCK_TWO_SEATS,
        )
    if isinstance(event, DeviceFault):
        return DeviceNotice(event.device, event.message, code=device_faults.lost(event.device))
    if isinstance(event, DeviceCleared):
        return DeviceNotice(event.device, None)
    raise TypeError(f"not a device event: {event!r}")
