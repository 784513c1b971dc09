"""`hardware:` -> `drivers.settings.HardwareSettings`, the YAML keys 1:1 onto its fields.

The drivers own the meaning of these settings and their cross-device checks
(`drivers.settings.validate`, which runs `validate_pins`); this module reads the
values with their bounds and puts each of the drivers' problems at the line and column
of the option it names (for a pin or port used twice, the use last in the file).
"""

from __future__ import annotations

import re
from typing import cast, get_args

from controller.config.reader import Section, Where, read_value, where_position
from drivers.settings import (
    ActiveLevel,
    DoorSettings,
    HardwareSettings,
    LightsSettings,
    Problem,
    PuckSettings,
    Pull,
    SerialDeviceSettings,
    validate,
)

PIN_FACTORIES = ("lgpio", "rpigpio", "pigpio", "native", "mock")
ACTIVE_LEVELS: tuple[str, ...] = get_args(ActiveLevel)
PULLS: tuple[str, ...] = get_args(Pull)
BAUD_RATES = (
    1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200,
    230400, 460800, 500000, 576000, 921600, 1000000,
)  # fmt: skip
SERIAL_DEVICES = ("keypad", "tray", "display")
#: Kernel names that change with plug order; /dev/serial/by-id/... names do not.
UNSTABLE_PORT = r"/dev/tty(USB|ACM)\d+"
MAX_PIN = 999  # off-header pins are the drivers' check, with their own message

# (where, dotted path): the place a drivers' problem is reported at.
Located = tuple[Where, str]


def read_hardware(hardware: Section, seats: int) -> HardwareSettings:
    simulated = hardware.get_bool("simulated", False)
    node = hardware.get_node("pin_factory")
    factory = None
    if node is not None and read_value(node).kind != "null":
        factory = hardware.choice_of("pin_factory", node, PIN_FACTORIES, "") or None
    gpiochip = hardware.get_optional_int("gpiochip", 0, 31, none_means="let gpiozero pick the chip")
    pin_places: dict[str, Where] = {}
    puck_section = hardware.get_section("puck")
    puck = PuckSettings(
        pins=_read_pins(puck_section, seats, pin_places),
        active_level=cast(
            ActiveLevel, puck_section.get_choice("active_level", ACTIVE_LEVELS, "low")
        ),
        pull=cast(Pull, puck_section.get_choice("pull", PULLS, "auto")),
        debounce_ms=puck_section.get_int("debounce_ms", 30, 0, 1000),
    )
    lights_section = hardware.get_section("lights")
    lights = LightsSettings(
        pins=_read_pins(lights_section, seats, pin_places),
        pwm=lights_section.get_bool("pwm", False),
        active_high=lights_section.get_bool("active_high", True),
        slow_blink_ms=lights_section.get_int("slow_blink_ms", 1000, 1, 60_000),
        fast_blink_ms=lights_section.get_int("fast_blink_ms", 250, 1, 60_000),
        pulse_ms=lights_section.get_int("pulse_ms", 2000, 1, 60_000),
        lamp_test_ms=lights_section.get_int("lamp_test_ms", 300, 1, 60_000),
    )
    door_section = hardware.get_section("door")
    door = DoorSettings(
        pin=door_section.get_optional_int("pin", 0, MAX_PIN, none_means="no door switch"),
        open_level=cast(ActiveLevel, door_section.get_choice("open_level", ACTIVE_LEVELS, "high")),
        pull=cast(Pull, door_section.get_choice("pull", PULLS, "auto")),
        debounce_ms=door_section.get_int("debounce_ms", 50, 0, 1000),
    )
    devices = {name: _read_serial(hardware.get_section(name), simulated) for name in SERIAL_DEVICES}
    settings = HardwareSettings(
        simulated=simulated,
        pin_factory=factory,
        gpiochip=gpiochip,
        puck=puck,
        lights=lights,
        door=door,
        keypad=devices["keypad"],
        tray=devices["tray"],
        display=devices["display"],
    )
    # An absent section is read too (for "did you mean"), but only a given one is checked.
    for problem in validate(settings) if hardware.present else []:
        where, path = _place(problem, hardware, pin_places)
        hardware.report.error(where, f"{path}: {problem.message}")
    return settings


def _read_pins(section: Section, seats: int, places: dict[str, Where]) -> dict[int, int]:
    entries = section.get_int_map(
        "pins", "seat", (1, seats), "BCM pin", (0, MAX_PIN), key_note=" (table.seats)"
    )
    for seat, entry in entries.items():
        places[f"{section.path}.pins.{seat}"] = entry.value_node
    if entries and section.ok("pins"):
        missing = [str(seat) for seat in range(1, seats + 1) if seat not in entries]
        if missing:
            seat_word = "seat" if len(missing) == 1 else "seats"
            section.warn(
                "pins",
                f"no pin for {seat_word} {', '.join(missing)} of the {seats} seats (table.seats)",
            )
    return {seat: entry.value for seat, entry in entries.items()}


def _read_serial(section: Section, all_simulated: bool) -> SerialDeviceSettings:
    enabled = section.get_bool("enabled", True)
    simulated = section.get_bool("simulated", False)
    port = section.get_optional_text(
        "port", pattern=r"/\S+", pattern_help="a device path like /dev/serial/by-id/..."
    )
    unstable = port is not None and re.fullmatch(UNSTABLE_PORT, port)
    if unstable and enabled and not (all_simulated or simulated):
        section.warn(
            "port",
            f"{port} may name another device after a reboot; use its /dev/serial/by-id/... path",
        )
    return SerialDeviceSettings(
        enabled=enabled,
        simulated=simulated,
        port=port,
        baud=_read_baud(section),
        ack_timeout_ms=section.get_int("ack_timeout_ms", 250, 1, 60_000),
        retries=section.get_int("retries", 4, 0, 100),
        keepalive_ms=section.get_int("keepalive_ms", 5000, 100, 3_600_000),
    )


def _read_baud(section: Section) -> int:
    baud = section.get_int("baud", 115200, BAUD_RATES[0], BAUD_RATES[-1])
    if section.ok("baud") and baud not in BAUD_RATES:
        rates = ", ".join(str(rate) for rate in BAUD_RATES)
        section.fail("baud", f"must be a standard rate ({rates}), got {baud}")
        return 115200
    return baud


def _place(problem: Problem, hardware: Section, pins: dict[str, Where]) -> Located:
    """Where to report one of the drivers' problems: at the option it names, or, when it
    names several (a pin or port used twice), at the one last in the file; at the
    ``hardware:`` section when it names none."""
    places = [(_where(option, hardware, pins), option) for option in problem.options]
    if not places:
        return hardware.anchor, "hardware"
    return max(places, key=lambda place: where_position(place[0]))


def _where(option: str, hardware: Section, pins: dict[str, Where]) -> Where:
    """The value of `option` (a ``hardware.`` path); for an option not in the file, the
    nearest mapping it belongs in that is."""
    if option in pins:
        return pins[option]
    section = hardware
    *parents, key = option.split(".")[1:]
    for parent in parents:
        if parent not in section.children:
            return section.where_key(parent)
        section = section.children[parent]
    return section.where(key)
