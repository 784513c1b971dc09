"""Opening the table's five devices from the ``hardware:`` settings.

API
---
::

    events: queue.Queue[DeviceEvent] = queue.Queue()   # or the controller's own queue
    devices = open_devices(settings, events)                  # as the settings say
    devices = open_devices(settings, events, simulated=True)  # everything simulated
    with devices:
        devices.puck      # PuckSensor    -> PuckMoved, PuckFault on `events`
        devices.lights    # SeatLights    .show(seat, Pattern.FAST_BLINK), .lamp_test()
        devices.keypad    # Keypad        -> KeyPressed
        devices.tray      # ChipTray      -> TrayCounts; .request_counts()
        devices.display   # ClockDisplay  .show_clock(ms, warning), .show_text(l1, l2)
        # every device may also put DeviceFault / DeviceCleared on `events`

``simulated=None`` (the default) takes ``settings.simulated``; a serial device with
``simulated: true`` in its own section is simulated either way. Simulated devices run
the real drivers: pins on a gpiozero ``MockFactory``, serial devices on a pty pair
published as a symlink in a temporary directory (the way ``/dev/serial/by-id/`` names
USB adapters). A device with ``enabled: false``, or pins with no seats, is an absent
stand-in.

``devices.sim`` (a ``Simulators``, or None when nothing is simulated) holds the handles
that play the devices; each is None when that device is not simulated::

    sim.puck.place(3); sim.puck.lift(); sim.puck.see([2, 5]); sim.puck.bounce(3)
    sim.door.open(); sim.door.close(); sim.door.bounce(5)   # devices.door -> DoorChanged
    sim.lights.level(4); sim.lights.history(4); sim.lights.wait_for_level(4, 1.0)
    sim.keypad.press("BET", "1", "2", "0", "ENTER")
    sim.tray.set_counts({5: 100, 25: 40}); sim.tray.flood(1000); sim.tray.flood(None)
    sim.display.shown; sim.display.wait_shown(line1="SEAT 7 TO ACT")
    sim.keypad.unplug(); sim.keypad.replug()       # also tray and display
    sim.keypad.send_garbage(b"\\xa5\\x5a\\x03")         # noise, torn frames
    sim.keypad.drop_outgoing(2); sim.display.drop_incoming(1); sim.tray.mute()
    sim.directory                                   # where the symlinks live

``open_devices`` checks the settings first (``settings.validate``) and raises
``HardwareConfigError`` listing every problem; ``GpioUnavailable`` when the pins cannot
be used. ``Devices.close()`` stops everything and removes the temporary directory.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .absent import AbsentDisplay, AbsentDoor, AbsentKeypad, AbsentLights, AbsentPuck, AbsentTray
from .closing import Closing
from .display import SerialClockDisplay
from .door import GpioDoorSwitch
from .errors import HardwareConfigError
from .events import EventSink
from .interfaces import ChipTray, ClockDisplay, DoorSwitch, Keypad, PuckSensor, SeatLights
from .keypad import SerialKeypad
from .lights import GpioSeatLights
from .pins import mock_pin_factory, real_pin_factory
from .puck import GpioPuckSensor
from .settings import HardwareSettings, SerialDeviceSettings, validate
from .sim.display import SimDisplay
from .sim.keypad import SimKeypad
from .sim.pins import SimDoor, SimLights, SimPuck
from .sim.tray import SimTray
from .tray import SerialChipTray


@dataclasses.dataclass
class Simulators:
    """The simulated devices' handles (None where the device is not simulated)."""

    directory: Path
    puck: SimPuck | None = None
    lights: SimLights | None = None
    door: SimDoor | None = None
    keypad: SimKeypad | None = None
    tray: SimTray | None = None
    display: SimDisplay | None = None
    pin_factory: Any = None

    def close(self) -> None:
        for device in (self.keypad, self.tray, self.display):
            if device is not None:
                device.close()
        shutil.rmtree(self.directory, ignore_errors=True)


@dataclasses.dataclass
class Devices(Closing):
    """The table's five devices, and the simulators when there are any."""

    puck: PuckSensor
    lights: SeatLights
    keypad: Keypad
    tray: ChipTray
    display: ClockDisplay
    sim: Simulators | None = None
    pin_factory: Any = None
    door: DoorSwitch = dataclasses.field(default_factory=AbsentDoor)

    def close(self) -> None:
        """Stop every device, then the simulators. Safe to call twice."""
        for device in (self.keypad, self.tray, self.display, self.puck, self.lights, self.door):
            device.close()
        if self.sim is not None:
            self.sim.close()
        if self.pin_factory is not None:
            with contextlib.suppress(Exception):
                self.pin_factory.close()
            self.pin_factory = None


def open_devices(
    settings: HardwareSettings,
    events: EventSink,
    simulated: bool | None = None,
) -> Devices:
    """Open every device named in ``settings``; see the module documentation."""
    if simulated is not None:
        settings = dataclasses.replace(settings, simulated=simulated)
    problems = validate(settings)
    if problems:
        raise HardwareConfigError([problem.message for problem in problems])
    opening = _Opening(settings, events)
    try:
        opening.pin_factory()
        puck, lights, door = opening.pin_devices()
        keypad, tray, display = opening.serial_devices()
    except BaseException:
        opening.close()
        raise
    return Devices(
        puck=puck,
        lights=lights,
        keypad=keypad,
        tray=tray,
        display=display,
        sim=opening.sim,
        pin_factory=opening.factory,
        door=door,
    )


class _Opening:
    """The devices opened so far, in order, so that a failure closes them again."""

    def __init__(self, settings: HardwareSettings, events: EventSink) -> None:
        self.settings = settings
        self.events = events
        self.opened: list[Any] = []
        self.sim: Simulators | None = None
        self.factory: Any = None

    def close(self) -> None:
        for device in reversed(self.opened):
            with contextlib.suppress(Exception):
                device.close()
        if self.factory is not None:
            with contextlib.suppress(Exception):
                self.factory.close()

    def pin_factory(self) -> None:
        """The simulators' directory when simulated; the pin factory if a pin is used."""
        settings = self.settings
        has_pins = bool(settings.puck.pins or settings.lights.pins or settings.door.pin is not None)
        if settings.simulated:
            sim = self.sim_dir()
            if has_pins:
                self.factory = mock_pin_factory(pwm=settings.lights.pwm)
                sim.pin_factory = self.factory
        elif has_pins:
            self.factory = real_pin_factory(settings)

    def sim_dir(self) -> Simulators:
        if self.sim is None:
            self.sim = Simulators(directory=Path(tempfile.mkdtemp(prefix="table-sim-")))
            self.opened.append(self.sim)
        return self.sim

    def pin_devices(self) -> tuple[PuckSensor, SeatLights, DoorSwitch]:
        settings, factory, sim = self.settings, self.factory, self.sim
        puck: PuckSensor = AbsentPuck()
        if settings.puck.pins:
            puck = GpioPuckSensor(settings.puck, self.events, pin_factory=factory)
            self.opened.append(puck)
            if sim is not None:
                sim.puck = SimPuck(settings.puck, factory)
        lights: SeatLights = AbsentLights()
        if settings.lights.pins:
            lights = GpioSeatLights(settings.lights, pin_factory=factory)
            self.opened.append(lights)
            if sim is not None:
                sim.lights = SimLights(settings.lights, factory)
        door: DoorSwitch = AbsentDoor()
        if settings.door.pin is not None:
            door = GpioDoorSwitch(settings.door, self.events, pin_factory=factory)
            self.opened.append(door)
            if sim is not None:  # a simulated door starts closed (its pull set, then driven)
                sim.door = SimDoor(settings.door, factory)
                sim.door.close()
        return puck, lights, door

    def serial_port(self, name: str, device: SerialDeviceSettings, simulator: Any) -> str | None:
        """The device's own port, or the path of a new simulator of it."""
        if not (self.settings.simulated or device.simulated):
            return device.port
        simulators = self.sim_dir()
        sim_device = simulator(simulators.directory / f"usb-Table_Sim_{name.title()}-if00")
        setattr(simulators, name, sim_device)
        return str(sim_device.path)

    def serial_devices(self) -> tuple[Keypad, ChipTray, ClockDisplay]:
        settings, events = self.settings, self.events
        keypad: Keypad = AbsentKeypad()
        if settings.keypad.enabled:
            port = self.serial_port("keypad", settings.keypad, SimKeypad)
            keypad = SerialKeypad(settings.keypad, events, port=port)
            self.opened.append(keypad)
        tray: ChipTray = AbsentTray()
        if settings.tray.enabled:
            port = self.serial_port("tray", settings.tray, SimTray)
            tray = SerialChipTray(settings.tray, events, port=port)
            self.opened.append(tray)
        display: ClockDisplay = AbsentDisplay()
        if settings.display.enabled:
            port = self.serial_port("display", settings.display, SimDisplay)
            display = SerialClockDisplay(settings.display, events, port=port)
            self.opened.append(display)
        return keypad, tray, display
