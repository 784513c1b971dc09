"""drivers/serial_device.py: the base of the serial drivers, the one place a device's
settings become its link's (issue 16, item 7: the keypad, the tray and the display each
wrote the translation out)."""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

from drivers.display import SerialClockDisplay
from drivers.events import DeviceEvent
from drivers.keypad import KEYPAD, SerialKeypad
from drivers.serial_device import SerialDevice
from drivers.settings import SerialDeviceSettings
from drivers.tray import SerialChipTray

DRIVERS = Path(__file__).resolve().parent.parent.parent / "drivers"
SETTINGS = SerialDeviceSettings(
    port="/dev/serial/by-id/usb-Table-if00",
    baud=57600,
    ack_timeout_ms=300,
    retries=7,
    keepalive_ms=1500,
)


def link_settings(device: SerialDevice) -> tuple[object, ...]:
    link = device._link
    return (
        link.device,
        link.port,
        link.baud,
        link._ack_timeout,
        link._retries,
        link._ping_interval,
    )


class Probe(SerialDevice):
    device = "keypad"


def test_the_link_is_made_from_the_devices_settings() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    probe = Probe(SETTINGS, events, codec=KEYPAD, on_message=lambda message: None)
    assert link_settings(probe) == (
        "keypad",
        "/dev/serial/by-id/usb-Table-if00",
        57600,
        0.3,
        7,
        1.5,
    )
    assert Probe(SETTINGS, events, codec=KEYPAD, on_message=print, port="/tmp/x").port == "/tmp/x"
    unset = Probe(SerialDeviceSettings(), events, codec=KEYPAD, on_message=print)
    assert unset.port == ""  # no port: the link reports the device missing


@pytest.mark.parametrize("driver", [SerialKeypad, SerialChipTray, SerialClockDisplay])
def test_every_serial_driver_takes_its_link_from_the_base(
    driver: type[SerialKeypad | SerialChipTray | SerialClockDisplay],
    tmp_path: Path,
) -> None:
    port = str(tmp_path / "nothing-here")
    device = driver(SETTINGS, queue.Queue(), port=port)
    try:
        assert link_settings(device) == (driver.device, port, 57600, 0.3, 7, 1.5)
    finally:
        device.close()
