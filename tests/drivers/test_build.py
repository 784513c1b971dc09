from __future__ import annotations

import queue
from pathlib import Path

import pytest

from drivers.absent import AbsentDisplay, AbsentPuck, AbsentTray
from drivers.build import open_devices
from drivers.errors import HardwareConfigError
from drivers.events import (
    DeviceCleared,
    DeviceEvent,
    DeviceFault,
    KeyPressed,
    PuckMoved,
    TrayCounts,
)
from drivers.interfaces import Pattern
from drivers.settings import (
    HardwareSettings,
    LightsSettings,
    PuckSettings,
    SerialDeviceSettings,
)

from .conftest import PATIENT_RETRIES, WAIT, next_event, take, wait_for

TABLE = HardwareSettings(
    puck=PuckSettings(pins={1: 5, 2: 6, 3: 13}, debounce_ms=10),
    lights=LightsSettings(pins={1: 17, 2: 27, 3: 22}, pwm=True),
    keypad=SerialDeviceSettings(
        port="/dev/serial/by-id/usb-Keypad", ack_timeout_ms=100, retries=PATIENT_RETRIES
    ),
    tray=SerialDeviceSettings(
        port="/dev/serial/by-id/usb-Tray", ack_timeout_ms=100, retries=PATIENT_RETRIES
    ),
    display=SerialDeviceSettings(
        port="/dev/serial/by-id/usb-Display", ack_timeout_ms=100, retries=PATIENT_RETRIES
    ),
)


def test_a_whole_simulated_table(events: queue.Queue[DeviceEvent]) -> None:
    with open_devices(TABLE, events, simulated=True) as devices:
        sim = devices.sim
        assert sim is not None
        assert sim.puck and sim.lights and sim.keypad and sim.tray and sim.display
        assert sim.keypad.path.startswith(str(sim.directory))
        initial = take(events, 2)  # the first puck reading and the tray's first counts
        assert PuckMoved(seat=None) in initial and TrayCounts(counts={}) in initial
        sim.puck.place(3)
        assert next_event(events) == PuckMoved(seat=3)
        sim.keypad.press("CHECK")
        assert next_event(events) == KeyPressed(key="CHECK")
        sim.tray.set_counts({5: 20})
        assert next_event(events) == TrayCounts(counts={5: 20})
        devices.lights.show(2, Pattern.ON)
        assert sim.lights.wait_for_level(2, 1.0, WAIT)
        devices.display.show_text("SEAT 3 TO ACT", "CHECK OR BET")
        assert sim.display.wait_shown(line1="SEAT 3 TO ACT")
        # One device unplugged: the rest keep working.
        sim.tray.unplug()
        fault, _ = wait_for(events, DeviceFault)
        assert fault.device == "tray"
        sim.keypad.press("FOLD")
        event, skipped = wait_for(events, KeyPressed)
        assert event == KeyPressed(key="FOLD")
        assert all(isinstance(e, DeviceFault) and e.device == "tray" for e in skipped)
        sim.tray.replug()
        cleared, _ = wait_for(events, DeviceCleared)
        assert cleared.device == "tray"
        directory = sim.directory
    assert not Path(directory).exists()


def test_disabled_and_pinless_devices_are_absent(events: queue.Queue[DeviceEvent]) -> None:
    settings = HardwareSettings(
        simulated=True,
        tray=SerialDeviceSettings(enabled=False),
        display=SerialDeviceSettings(enabled=False),
    )
    with open_devices(settings, events) as devices:
        assert isinstance(devices.puck, AbsentPuck)
        assert isinstance(devices.tray, AbsentTray) and isinstance(devices.display, AbsentDisplay)
        assert devices.lights.lamp_test().is_set()
        devices.display.show_clock(100)
        assert devices.sim is not None and devices.sim.tray is None and devices.sim.puck is None
        assert devices.sim.keypad is not None
        devices.sim.keypad.press("1")
        assert next_event(events) == KeyPressed(key="1")


def test_one_simulated_device_on_a_real_table(events: queue.Queue[DeviceEvent]) -> None:
    settings = HardwareSettings(
        keypad=SerialDeviceSettings(simulated=True),
        tray=SerialDeviceSettings(enabled=False),
        display=SerialDeviceSettings(enabled=False),
    )
    with open_devices(settings, events) as devices:
        assert devices.sim is not None and devices.sim.keypad is not None
        assert devices.sim.puck is None and devices.pin_factory is None
        devices.sim.keypad.press("NEXT")
        assert next_event(events) == KeyPressed(key="NEXT")


def test_bad_settings_are_refused_with_every_problem(events: queue.Queue[DeviceEvent]) -> None:
    settings = HardwareSettings(
        puck=PuckSettings(pins={1: 17}),
        lights=LightsSettings(pins={1: 17}),
        keypad=SerialDeviceSettings(port="/dev/serial0"),
        tray=SerialDeviceSettings(port="/dev/ttyUSB0"),
        display=SerialDeviceSettings(port="/dev/ttyUSB0"),
    )
    with pytest.raises(HardwareConfigError) as raised:
        open_devices(settings, events)
    assert raised.value.problems == [
        "pin 17 is used twice: puck seat 1 and lights seat 1",
        "serial port /dev/ttyUSB0 is used twice: tray and display",
    ]
    assert events.empty()
