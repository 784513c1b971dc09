from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import drivers.settings as settings_module
from drivers.settings import (
    HardwareSettings,
    LightsSettings,
    Problem,
    PuckSettings,
    SerialDeviceSettings,
    validate,
    validate_pins,
)


def test_defaults_are_a_valid_simulated_table() -> None:
    settings = HardwareSettings(simulated=True)
    assert settings.puck.pins == {} and settings.lights.pins == {}
    assert settings.gpiochip is None and settings.pin_factory is None
    assert settings.keypad.baud == 115200 and settings.keypad.enabled
    assert validate(settings) == []


def test_every_field_has_a_default_and_a_docstring() -> None:
    tree = ast.parse(Path(settings_module.__file__).read_text())
    documented: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names = documented.setdefault(node.name, set())
            for field, after in zip(node.body, node.body[1:], strict=False):
                if (
                    isinstance(field, ast.AnnAssign)
                    and isinstance(field.target, ast.Name)
                    and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant)
                    and isinstance(after.value.value, str)
                    and "Default" in after.value.value
                ):
                    names.add(field.target.id)
    for cls in (HardwareSettings, PuckSettings, LightsSettings, SerialDeviceSettings):
        cls()  # every field defaults
        assert {field.name for field in dataclasses.fields(cls)} == documented[cls.__name__]


def test_settings_are_frozen_and_keyword_only() -> None:
    puck = PuckSettings(pins={1: 5})
    with pytest.raises(dataclasses.FrozenInstanceError):
        puck.debounce_ms = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        puck.pins[2] = 6  # type: ignore[index]
    with pytest.raises(TypeError):
        PuckSettings({1: 5})  # type: ignore[misc]


def test_a_pin_used_twice_names_both_uses() -> None:
    settings = HardwareSettings(
        simulated=True,
        puck=PuckSettings(pins={3: 17}),
        lights=LightsSettings(pins={5: 17}),
    )
    assert validate_pins(settings) == [
        Problem(
            ("hardware.puck.pins.3", "hardware.lights.pins.5"),
            "pin 17 is used twice: puck seat 3 and lights seat 5",
        )
    ]


def test_a_pin_used_three_times() -> None:
    settings = HardwareSettings(
        puck=PuckSettings(pins={1: 4, 2: 4}), lights=LightsSettings(pins={9: 4})
    )
    assert validate_pins(settings) == [
        Problem(
            ("hardware.puck.pins.1", "hardware.puck.pins.2", "hardware.lights.pins.9"),
            "pin 4 is used 3 times: puck seat 1, puck seat 2 and lights seat 9",
        )
    ]


@pytest.mark.parametrize("port", ["/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0"])
def test_a_pin_the_uart_needs(port: str) -> None:
    settings = HardwareSettings(
        puck=PuckSettings(pins={2: 14}),
        lights=LightsSettings(pins={4: 15}),
        keypad=SerialDeviceSettings(port=port),
    )
    assert validate_pins(settings) == [
        Problem(
            ("hardware.puck.pins.2", "hardware.keypad.port"),
            f"pin 14 is used twice: puck seat 2 and keypad serial port {port} (UART TX)",
        ),
        Problem(
            ("hardware.lights.pins.4", "hardware.keypad.port"),
            f"pin 15 is used twice: lights seat 4 and keypad serial port {port} (UART RX)",
        ),
    ]


def test_a_uart_pin_names_every_device_on_that_port() -> None:
    settings = HardwareSettings(
        lights=LightsSettings(pins={1: 14}),
        keypad=SerialDeviceSettings(port="/dev/serial0"),
        tray=SerialDeviceSettings(port="/dev/serial0"),
    )
    assert validate_pins(settings) == [
        Problem(
            ("hardware.lights.pins.1", "hardware.keypad.port", "hardware.tray.port"),
            "pin 14 is used twice: lights seat 1 and keypad serial port /dev/serial0 (UART TX)",
        )
    ]


def test_usb_ports_and_disabled_devices_need_no_pins() -> None:
    settings = HardwareSettings(
        puck=PuckSettings(pins={2: 14}),
        keypad=SerialDeviceSettings(port="/dev/serial/by-id/usb-Keypad-if00"),
        tray=SerialDeviceSettings(port="/dev/serial0", enabled=False),
    )
    assert validate_pins(settings) == []


def test_a_pin_off_the_header() -> None:
    settings = HardwareSettings(lights=LightsSettings(pins={1: 40}))
    assert validate_pins(settings) == [
        Problem(
            ("hardware.lights.pins.1",),
            "pin 40 (lights seat 1) is not a GPIO on the header (BCM 0-27)",
        )
    ]


def test_validate_reports_ports_and_numbers() -> None:
    settings = HardwareSettings(
        puck=PuckSettings(pins={0: 5}, debounce_ms=-1, pull="up", active_level="high"),
        lights=LightsSettings(fast_blink_ms=0),
        keypad=SerialDeviceSettings(port="/dev/ttyUSB0"),
        tray=SerialDeviceSettings(port="/dev/ttyUSB0", baud=0),
        display=SerialDeviceSettings(),
    )
    assert validate(settings) == [
        Problem(("hardware.puck.pins.0",), "puck seat 0 is not a seat number (seats start at 1)"),
        Problem(("hardware.puck.debounce_ms",), "puck debounce_ms -1 must be 0 or more"),
        Problem(
            (),
            "puck pull up reads an active-high sensor as always seeing the puck: "
            "use pull down, none or auto",
        ),
        Problem(("hardware.lights.fast_blink_ms",), "lights fast_blink_ms 0 must be more than 0"),
        Problem(("hardware.tray.baud",), "tray baud 0 must be more than 0"),
        Problem(
            ("hardware.display.port",),
            "display has no port (give its /dev/serial/by-id/... path)",
        ),
        Problem(
            ("hardware.keypad.port", "hardware.tray.port"),
            "serial port /dev/ttyUSB0 is used twice: keypad and tray",
        ),
    ]


def test_a_simulated_device_needs_no_port() -> None:
    settings = HardwareSettings(
        keypad=SerialDeviceSettings(simulated=True),
        tray=SerialDeviceSettings(enabled=False),
        display=SerialDeviceSettings(simulated=True),
    )
    assert validate(settings) == []


def test_keepalive_must_be_positive() -> None:
    settings = HardwareSettings(
        simulated=True,
        keypad=SerialDeviceSettings(keepalive_ms=0),
        tray=SerialDeviceSettings(keepalive_ms=-5),
    )
    assert SerialDeviceSettings().keepalive_ms == 5000
    assert validate(settings) == [
        Problem(("hardware.keypad.keepalive_ms",), "keypad keepalive_ms 0 must be more than 0"),
        Problem(("hardware.tray.keepalive_ms",), "tray keepalive_ms -5 must be more than 0"),
    ]


def test_every_number_check_names_its_option() -> None:
    settings = HardwareSettings(
        simulated=True,
        gpiochip=-1,
        lights=LightsSettings(slow_blink_ms=0, pulse_ms=0, lamp_test_ms=0),
        display=SerialDeviceSettings(ack_timeout_ms=0, retries=-1),
    )
    assert validate(settings) == [
        Problem(("hardware.gpiochip",), "gpiochip -1 must be 0 or more"),
        Problem(("hardware.lights.slow_blink_ms",), "lights slow_blink_ms 0 must be more than 0"),
        Problem(("hardware.lights.pulse_ms",), "lights pulse_ms 0 must be more than 0"),
        Problem(("hardware.lights.lamp_test_ms",), "lights lamp_test_ms 0 must be more than 0"),
        Problem(
            ("hardware.display.ack_timeout_ms",), "display ack_timeout_ms 0 must be more than 0"
        ),
        Problem(("hardware.display.retries",), "display retries -1 must be 0 or more"),
    ]
