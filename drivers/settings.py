"""The YAML ``hardware:`` section, as frozen values the drivers are built with.

``controller.config`` reads YAML into these dataclasses; the drivers never read files.
The field names are the YAML keys, so keep them stable. Every field has a default, so an
empty ``hardware:`` section is a valid (if not very useful) table: no puck sensors, no
seat lights, and serial devices with no port, which only run simulated.

Example::

    hardware:
      simulated: false
      pin_factory: lgpio          # or leave out: GPIOZERO_PIN_FACTORY / gpiozero's choice
      gpiochip: 0                 # or leave out: gpiozero picks (4 on some Pi 5 kernels)
      puck:
        pins: {1: 5, 2: 6, 3: 13}  # seat -> BCM pin
        active_level: low
        debounce_ms: 30
      lights:
        pins: {1: 17, 2: 27, 3: 22}
        pwm: true
        active_high: true
      door:
        pin: 26                   # the compartment door's switch
        open_level: high
        debounce_ms: 50
      keypad:  {port: /dev/serial/by-id/usb-Table_Keypad-if00, baud: 115200,
                keepalive_ms: 5000}
      tray:    {port: /dev/serial/by-id/usb-Table_Tray-if00, baud: 115200}
      display: {port: /dev/serial/by-id/usb-Table_Display-if00, baud: 115200}

``validate_pins`` (GPIO conflicts) and ``validate`` (everything) return a ``Problem``
for each: the options it is about, by their YAML path, and a sentence a technician can
act on. The config reader puts each at the file position of its option.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

ActiveLevel = Literal["high", "low"]
Pull = Literal["auto", "up", "down", "none"]

#: BCM numbers of the GPIO lines on the 40-pin header of every Raspberry Pi since the B+.
HEADER_PINS = range(0, 28)

#: Serial device paths that are the Pi's primary UART on the header: GPIO 14 (TXD) and
#: GPIO 15 (RXD). ``/dev/serial0`` is the stable alias the OS keeps for it.
UART_PORTS: Mapping[str, Mapping[int, str]] = MappingProxyType(
    {
        path: MappingProxyType({14: "UART TX", 15: "UART RX"})
        for path in ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")
    }
)


def _frozen_map(value: Mapping[int, int]) -> Mapping[int, int]:
    return MappingProxyType(dict(value))


@dataclass(frozen=True, kw_only=True)
class PuckSettings:
    """``hardware.puck``: one hall-effect sensor per seat that sees the dealer button."""

    pins: Mapping[int, int] = field(default_factory=dict)
    """Seat number -> BCM pin of that seat's sensor. Default: none (no puck sensor)."""

    active_level: ActiveLevel = "low"
    """Line level when the sensor sees the puck: ``low`` (open-drain hall sensors, the
    usual kind) or ``high``. Default ``low``."""

    pull: Pull = "auto"
    """Internal pull resistor: ``auto`` (up for active-low, down for active-high),
    ``up``, ``down`` or ``none`` (the board has its own). Default ``auto``."""

    debounce_ms: int = 30
    """A reading must hold this long before it is reported; two seats seeing the puck
    for longer than this is a fault. Default 30."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "pins", _frozen_map(self.pins))


@dataclass(frozen=True, kw_only=True)
class LightsSettings:
    """``hardware.lights``: one LED per seat (whose turn, missed blinds, clock warning)."""

    pins: Mapping[int, int] = field(default_factory=dict)
    """Seat number -> BCM pin of that seat's LED. Default: none (no seat lights)."""

    pwm: bool = False
    """Drive the LEDs with PWM, which allows the ``pulse`` pattern (without PWM, pulse is
    shown as a slow blink). Default ``false``."""

    active_high: bool = True
    """``true`` when a high line lights the LED (LED to ground), ``false`` when a low line
    does (LED to 3.3 V). Default ``true``."""

    slow_blink_ms: int = 1000
    """Period of the slow blink (half on, half off). Default 1000."""

    fast_blink_ms: int = 250
    """Period of the fast blink. Default 250."""

    pulse_ms: int = 2000
    """Period of the pulse (fade in and out), PWM only. Default 2000."""

    lamp_test_ms: int = 300
    """How long the lamp test lights each seat in turn. Default 300."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "pins", _frozen_map(self.pins))


@dataclass(frozen=True, kw_only=True)
class DoorSettings:
    """``hardware.door``: the switch of the controller's locked compartment door, on one
    GPIO input. An open door stops play until it is closed."""

    pin: int | None = None
    """BCM pin of the switch. Default: none (the table has no door switch)."""

    open_level: ActiveLevel = "high"
    """Line level while the door is open: ``high`` (a switch to ground that the closed
    door holds shut, pulled up: a cut wire reads open, the usual and safe wiring) or
    ``low``. Default ``high``."""

    pull: Pull = "auto"
    """Internal pull resistor: ``auto`` (the one that reads a cut wire as an open door:
    up for open-high, down for open-low), ``up``, ``down`` or ``none`` (the board has
    its own). Default ``auto``."""

    debounce_ms: int = 50
    """A reading must hold this long before it is reported; a switch that bounces
    within it reports nothing new. Default 50."""


@dataclass(frozen=True, kw_only=True)
class SerialDeviceSettings:
    """``hardware.keypad``, ``hardware.tray``, ``hardware.display``: a serial device."""

    enabled: bool = True
    """Whether the table has this device. A disabled device is never opened and raises
    no faults. Default ``true``."""

    simulated: bool = False
    """Run this one device against its simulator even when the rest is real (bench
    work). Default ``false``."""

    port: str | None = None
    """Serial port path; use the stable ``/dev/serial/by-id/...`` name in production.
    Default: none, which is a config error for an enabled, real device."""

    baud: int = 115200
    """Baud rate (8 data bits, no parity, 1 stop bit). Default 115200."""

    ack_timeout_ms: int = 250
    """How long to wait for an acknowledgement before sending a frame again. Default 250."""

    retries: int = 4
    """How many times an unacknowledged frame is sent again before the device is
    reported faulty and the link restarted. Default 4."""

    keepalive_ms: int = 5000
    """When the device has sent nothing for this long, the host sends PING to check
    that it still answers. An unplugged USB device is found at once by the failing
    read, whatever this says; the keep-alive finds a device that is plugged in but
    hung, within ``keepalive_ms`` plus ``(1 + retries) x ack_timeout_ms``. Shorter
    finds a hung device sooner and wakes the board more often. Default 5000."""


@dataclass(frozen=True, kw_only=True)
class HardwareSettings:
    """The ``hardware:`` section."""

    simulated: bool = False
    """Run every device against its simulator (bench mode, tests). Default ``false``."""

    pin_factory: str | None = None
    """gpiozero pin factory name (``lgpio`` on a Pi, ``mock`` for tests). Default: none,
    which leaves the choice to ``GPIOZERO_PIN_FACTORY`` or gpiozero's own default."""

    gpiochip: int | None = None
    """The gpiochip number the header pins belong to (the lgpio factory's ``chip``).
    Default: none, which lets gpiozero pick for the board (0, or 4 on a Pi 5 running an
    older kernel). Setting it selects the lgpio factory unless ``pin_factory`` says
    otherwise."""

    puck: PuckSettings = field(default_factory=PuckSettings)
    """The button-puck sensors. Default: none."""

    lights: LightsSettings = field(default_factory=LightsSettings)
    """The seat lights. Default: none."""

    door: DoorSettings = field(default_factory=DoorSettings)
    """The controller's door switch. Default: none."""

    keypad: SerialDeviceSettings = field(default_factory=SerialDeviceSettings)
    """The dealer keypad. Default: enabled, no port."""

    tray: SerialDeviceSettings = field(default_factory=SerialDeviceSettings)
    """The RFID chip tray reader. Default: enabled, no port."""

    display: SerialDeviceSettings = field(default_factory=SerialDeviceSettings)
    """The clock and dealer text display. Default: enabled, no port."""

    def serial_devices(self) -> dict[str, SerialDeviceSettings]:
        """The serial devices by the name used in events and messages."""
        return {"keypad": self.keypad, "tray": self.tray, "display": self.display}


@dataclass(frozen=True)
class Problem:
    """One problem with the ``hardware:`` settings."""

    options: tuple[str, ...]
    """The options it is about, as YAML paths (``hardware.puck.pins.3``,
    ``hardware.keypad.port``); for a pin or port used twice, every use. Empty when it is
    about the section as a whole."""

    message: str
    """What is wrong, as a sentence a technician can act on."""

    def __str__(self) -> str:
        return self.message


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _times(n: int) -> str:
    return "twice" if n == 2 else f"{n} times"


def validate_pins(settings: HardwareSettings) -> list[Problem]:
    """Problems with the GPIO pins: a pin off the header, a pin used twice, a pin that
    an enabled serial device on the Pi's own UART needs (GPIO 14 TX, 15 RX).

    Serial devices sharing one port are reported by ``validate``, not here.
    """
    problems: list[Problem] = []
    # pin -> (how the message names each use, the options of each use)
    uses: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
    for kind, pins in (("puck", settings.puck.pins), ("lights", settings.lights.pins)):
        for seat, pin in sorted(pins.items()):
            option = f"hardware.{kind}.pins.{seat}"
            if pin not in HEADER_PINS:
                problems.append(
                    Problem(
                        (option,),
                        f"pin {pin} ({kind} seat {seat}) is not a GPIO on the header "
                        f"(BCM {HEADER_PINS.start}-{HEADER_PINS.stop - 1})",
                    )
                )
            uses.setdefault(pin, []).append((f"{kind} seat {seat}", (option,)))
    door = settings.door.pin
    if door is not None:
        if door not in HEADER_PINS:
            problems.append(
                Problem(
                    ("hardware.door.pin",),
                    f"pin {door} (door switch) is not a GPIO on the header "
                    f"(BCM {HEADER_PINS.start}-{HEADER_PINS.stop - 1})",
                )
            )
        uses.setdefault(door, []).append(("door switch", ("hardware.door.pin",)))
    uart_devices: dict[str, list[str]] = {}
    for name, device in settings.serial_devices().items():
        if device.enabled and device.port is not None and device.port in UART_PORTS:
            uart_devices.setdefault(device.port, []).append(name)
    for port, names in uart_devices.items():
        # The message names the first device on the port; every device naming it needs the pins.
        options = tuple(f"hardware.{name}.port" for name in names)
        for pin, role in UART_PORTS[port].items():
            uses.setdefault(pin, []).append((f"{names[0]} serial port {port} ({role})", options))
    for pin, users in sorted(uses.items()):
        if len(users) > 1:
            problems.append(
                Problem(
                    tuple(option for _, options in users for option in options),
                    f"pin {pin} is used {_times(len(users))}: "
                    + _join([user for user, _ in users]),
                )
            )
    return problems


def validate(settings: HardwareSettings) -> list[Problem]:
    """Every problem with the section: ``validate_pins`` plus ports, bauds and timings."""
    problems: list[Problem] = []
    for kind, pins in (("puck", settings.puck.pins), ("lights", settings.lights.pins)):
        for seat in sorted(pins):
            if seat < 1:
                problems.append(
                    Problem(
                        (f"hardware.{kind}.pins.{seat}",),
                        f"{kind} seat {seat} is not a seat number (seats start at 1)",
                    )
                )
    problems += validate_pins(settings)
    if settings.gpiochip is not None and settings.gpiochip < 0:
        problems.append(
            Problem(("hardware.gpiochip",), f"gpiochip {settings.gpiochip} must be 0 or more")
        )
    problems += _validate_timings(settings)
    problems += _validate_serial(settings)
    return problems


def _validate_timings(settings: HardwareSettings) -> list[Problem]:
    """The puck's and the door's debounce, the puck's pull against its level, the
    lights' periods."""
    problems: list[Problem] = []
    puck = settings.puck
    if puck.debounce_ms < 0:
        problems.append(
            Problem(
                ("hardware.puck.debounce_ms",),
                f"puck debounce_ms {puck.debounce_ms} must be 0 or more",
            )
        )
    clash = {("up", "high"): "down", ("down", "low"): "up"}.get((puck.pull, puck.active_level))
    if clash is not None:
        # About the pair of options, so about the section (check-config names hardware).
        problems.append(
            Problem(
                (),
                f"puck pull {puck.pull} reads an active-{puck.active_level} sensor as always "
                f"seeing the puck: use pull {clash}, none or auto",
            )
        )
    if settings.door.debounce_ms < 0:
        problems.append(
            Problem(
                ("hardware.door.debounce_ms",),
                f"door debounce_ms {settings.door.debounce_ms} must be 0 or more",
            )
        )
    lights = settings.lights
    for name in ("slow_blink_ms", "fast_blink_ms", "pulse_ms", "lamp_test_ms"):
        value = getattr(lights, name)
        if value <= 0:
            problems.append(
                Problem((f"hardware.lights.{name}",), f"lights {name} {value} must be more than 0")
            )
    return problems


def _validate_serial(settings: HardwareSettings) -> list[Problem]:
    """Each enabled serial device's bounds and port, and a port used twice."""
    problems: list[Problem] = []
    ports: dict[str, list[str]] = {}
    for name, device in settings.serial_devices().items():
        if not device.enabled:
            continue
        for option, value, least in (
            ("baud", device.baud, 1),
            ("ack_timeout_ms", device.ack_timeout_ms, 1),
            ("retries", device.retries, 0),
            ("keepalive_ms", device.keepalive_ms, 1),
        ):
            if value < least:
                bound = "0 or more" if least == 0 else "more than 0"
                problems.append(
                    Problem(
                        (f"hardware.{name}.{option}",), f"{name} {option} {value} must be {bound}"
                    )
                )
        if device.port is None:
            if not (settings.simulated or device.simulated):
                problems.append(
                    Problem(
                        (f"hardware.{name}.port",),
                        f"{name} has no port (give its /dev/serial/by-id/... path)",
                    )
                )
            continue
        ports.setdefault(device.port, []).append(name)
    for port, names in sorted(ports.items()):
        if len(names) > 1:
            problems.append(
                Problem(
                    tuple(f"hardware.{name}.port" for name in names),
                    f"serial port {port} is used {_times(len(names))}: {_join(names)}",
                )
            )
    return problems
