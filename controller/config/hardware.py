"""`hardware:` -> `drivers.settings.HardwareSettings`, the YAML keys 1:1 onto its fields.

The drivers own the meaning of these settings and their cross-device checks
(`drivers.settings.validate`, which runs `validate_pins`); this module reads the
values with their bounds and puts each of the drivers' problems at the line and column
of the pin or port it is about.
"""

from __future__ import annotations

import re
from typing import cast, get_args

from controller.config.reader import Section, Where, read_value, where_position
from drivers.settings import (
    UART_PORTS,
    ActiveLevel,
    HardwareSettings,
    LightsSettings,
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

# (where, dotted path) of every pin or port, for placing the drivers' problems.
Located = tuple[Where, str]


def read_hardware(hardware: Section, seats: int) -> HardwareSettings:
    simulated = hardware.get_bool("simulated", False)
    node = hardware.get_node("pin_factory")
    factory = None
    if node is not None and read_value(node).kind != "null":
        factory = hardware.choice_of("pin_factory", node, PIN_FACTORIES, "") or None
    gpiochip = hardware.get_optional_int(
        "gpiochip", 0, 31, none_means="let gpiozero pick the chip"
    )
    pin_places: dict[int, list[Located]] = {}
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
    port_places: dict[str, list[Located]] = {}
    devices = {
        name: _read_serial(hardware.get_section(name), simulated, port_places)
        for name in SERIAL_DEVICES
    }
    for port, places in port_places.items():
        for pin in UART_PORTS.get(port, {}):
            pin_places.setdefault(pin, []).extend(places)
    settings = HardwareSettings(
        simulated=simulated,
        pin_factory=factory,
        gpiochip=gpiochip,
        puck=puck,
        lights=lights,
        keypad=devices["keypad"],
        tray=devices["tray"],
        display=devices["display"],
    )
    # An absent section is read too (for "did you mean"), but only a given one is checked.
    for problem in validate(settings) if hardware.present else []:
        where, path = _locate(problem, hardware, pin_places, port_places)
        hardware.report.error(where, f"{path}: {problem}")
    return settings


def _read_pins(section: Section, seats: int, places: dict[int, list[Located]]) -> dict[int, int]:
    entries = section.get_int_map(
        "pins", "seat", (1, seats), "BCM pin", (0, MAX_PIN), key_note=" (table.seats)"
    )
    for seat, entry in entries.items():
        places.setdefault(entry.value, []).append((entry.value_node, f"{section.path}.pins.{seat}"))
    if entries and section.ok("pins"):
        missing = [str(seat) for seat in range(1, seats + 1) if seat not in entries]
        if missing:
            seat_word = "seat" if len(missing) == 1 else "seats"
            section.warn(
                "pins",
                f"no pin for {seat_word} {', '.join(missing)} of the {seats} seats (table.seats)",
            )
    return {seat: entry.value for seat, entry in entries.items()}


def _read_serial(
    section: Section, all_simulated: bool, places: dict[str, list[Located]]
) -> SerialDeviceSettings:
    enabled = section.get_bool("enabled", True)
    simulated = section.get_bool("simulated", False)
    port = section.get_optional_text(
        "port", pattern=r"/\S+", pattern_help="a device path like /dev/serial/by-id/..."
    )
    if port is not None and enabled:
        places.setdefault(port, []).append((section.where("port"), section.path_of("port")))
        if re.fullmatch(UNSTABLE_PORT, port) and not (all_simulated or simulated):
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


def _last(places: list[Located]) -> Located:
    """The place read last in the file: for a pin or port used twice, the second use."""
    return max(places, key=lambda place: where_position(place[0]))


def _locate(
    problem: str,
    hardware: Section,
    pins: dict[int, list[Located]],
    ports: dict[str, list[Located]],
) -> Located:
    if match := re.match(r"pin (\d+) \((puck|lights) seat (\d+)\)", problem):
        path = f"hardware.{match[2]}.pins.{match[3]}"
        for place in pins.get(int(match[1]), []):
            if place[1] == path:
                return place
    if (match := re.match(r"pin (\d+) is used", problem)) and pins.get(int(match[1])):
        return _last(pins[int(match[1])])
    if (match := re.match(r"serial port (\S+) is used", problem)) and ports.get(match[1]):
        return _last(ports[match[1]])
    if match := re.match(r"(keypad|tray|display) has no port", problem):
        return hardware.where_key(match[1]), f"hardware.{match[1]}.port"
    return hardware.anchor, "hardware"
