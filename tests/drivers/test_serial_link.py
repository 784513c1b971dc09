from __future__ import annotations

import dataclasses
import itertools
import logging
import queue
import termios
from pathlib import Path
from typing import Any

import pytest
import serial

from drivers.droplog import DropLog
from drivers.events import DeviceCleared, DeviceEvent, DeviceFault, KeyPressed
from drivers.keypad import KEYPAD, SerialKeypad
from drivers.messages import Message
from drivers.serial_link import MAX_BACKOFF, SerialLink, backoff_delays
from drivers.settings import SerialDeviceSettings
from drivers.sim.keypad import SimKeypad

from .conftest import WAIT, assert_quiet, eventually, fast_link, next_event, wait_for


def test_backoff_doubles_up_to_two_seconds() -> None:
    delays = list(itertools.islice(backoff_delays(), 12))
    assert delays[:4] == [0.05, 0.1, 0.2, 0.4]
    assert max(delays) == MAX_BACKOFF == 2.0
    assert delays[-3:] == [2.0, 2.0, 2.0]


def test_missing_at_start_then_plugged_in(sim_dir: Path, events: queue.Queue[DeviceEvent]) -> None:
    path = sim_dir / "usb-Table_Keypad-if00"
    with SerialKeypad(fast_link(str(path)), events) as driver:
        fault = next_event(events)
        assert fault == DeviceFault(
            device="keypad",
            message=f"keypad is missing: nothing at {path} (unplugged or wrong port setting)",
        )
        assert driver.fault == fault.message and not driver.connected
        with SimKeypad(path) as sim:
            assert next_event(events) == DeviceCleared(device="keypad")
            sim.press("NEXT")
            assert next_event(events) == KeyPressed(key="NEXT")
        assert isinstance(next_event(events), DeviceFault)  # the simulator closed


def test_a_path_that_is_not_a_serial_port(tmp_path: Path, events: queue.Queue[DeviceEvent]) -> None:
    not_a_port = tmp_path / "notes.txt"
    not_a_port.write_text("hello")
    with SerialKeypad(fast_link(str(not_a_port)), events):
        fault = next_event(events)
        assert isinstance(fault, DeviceFault)
        assert fault.message.startswith(f"keypad port {not_a_port} cannot be opened")


def test_a_failing_handler_does_not_stop_the_link(
    sim_dir: Path, events: queue.Queue[DeviceEvent], caplog: pytest.LogCaptureFixture
) -> None:
    delivered: list[Message] = []

    def handler(message: Message) -> None:
        delivered.append(message)
        if len(delivered) == 1:
            raise RuntimeError("bug in the handler")

    with SimKeypad(sim_dir / "port") as sim:
        link = SerialLink(
            device="keypad",
            codec=KEYPAD,
            port=sim.path,
            baud=115200,
            events=events,
            on_message=handler,
            ack_timeout=0.1,
            retries=3,
        )
        with caplog.at_level(logging.ERROR), link:
            link.start()
            sim.press("1", "2")
            assert sim.wait_delivered(2, WAIT)
        assert len(delivered) == 2
        assert "handling KeyMessage(key='1') failed" in caplog.text
    assert events.empty()


def test_noise_is_logged_at_a_limited_rate(
    sim_dir: Path, events: queue.Queue[DeviceEvent], caplog: pytest.LogCaptureFixture
) -> None:
    drop_log = DropLog("keypad", interval=3600.0)  # a slow machine cannot reach the next line
    with SimKeypad(sim_dir / "port") as sim, caplog.at_level(logging.WARNING, logger="drivers"):
        with SerialKeypad(fast_link(sim.path), events, drop_log=drop_log) as driver:
            assert driver.wait_connected(WAIT)
            for _ in range(200):
                sim.send_garbage(b"\xa5\x5a\x01\x01" + bytes(30))
            sim.press("CLEAR")
            assert next_event(events) == KeyPressed(key="CLEAR")
            assert driver.counters.bad_header == 200
        lines = [r for r in caplog.records if "dropped input" in r.getMessage()]
        assert len(lines) == 1  # one line, not 200
        assert lines[0].getMessage().startswith("keypad: dropped input: bad_header 1")


def test_a_port_that_vanishes_while_being_set_up_is_tried_again(
    sim_dir: Path, events: queue.Queue[DeviceEvent]
) -> None:
    """A device unplugged between opening its port and setting the port up makes
    pyserial raise ``termios.error`` (EIO), which is not an OSError: seen once in
    bench/daemon.py's 100,000-hand soak, where it ended the display's link thread. The
    first opening fails that way here; the link reports the fault and opens again."""
    tries: list[str] = []

    def vanishing_then_real(port: str, **options: Any) -> serial.Serial:
        tries.append(port)
        if len(tries) == 1:
            raise termios.error(5, "Input/output error")
        return serial.Serial(port, **options)

    with SimKeypad(sim_dir / "port") as sim:
        link = SerialLink(
            device="keypad",
            codec=KEYPAD,
            port=sim.path,
            baud=115200,
            events=events,
            on_message=lambda message: None,
            opener=vanishing_then_real,
        )
        with link:
            link.start()
            fault = next_event(events)
            assert fault == DeviceFault(
                device="keypad",
                message=f"keypad port {sim.path} cannot be opened: (5, 'Input/output error')",
            )
            assert next_event(events) == DeviceCleared(device="keypad")
            sim.press("FOLD")
            assert sim.wait_delivered(1, WAIT)
        assert len(tries) == 2


def test_close_twice_is_harmless(sim_dir: Path, events: queue.Queue[DeviceEvent]) -> None:
    with SimKeypad(sim_dir / "port") as sim:
        driver = SerialKeypad(fast_link(sim.path), events)
        assert driver.wait_connected(WAIT)
        driver.close()
        driver.close()
        assert events.empty()


def test_an_idle_link_sleeps_until_its_keepalive(
    sim_dir: Path, events: queue.Queue[DeviceEvent]
) -> None:
    """Idle, the link thread blocks in its read until the keep-alive is due: no 50 ms
    polling, no PING before ``keepalive_ms``."""
    settings = SerialDeviceSettings(port="", ack_timeout_ms=100, retries=3, keepalive_ms=60_000)
    with (
        SimKeypad(sim_dir / "port") as sim,
        SerialKeypad(dataclasses.replace(settings, port=sim.path), events) as driver,
    ):
        assert driver.wait_connected(WAIT)
        assert eventually(lambda: driver.idle)
        wakeups, heard = driver.counters.wakeups, sim.counters.frames
        # Half a second of nothing: the old 50 ms read slices woke the thread ten times.
        assert not sim.wait_until(lambda: sim.counters.frames > heard, timeout=0.5)
        assert driver.counters.wakeups - wakeups <= 1
        sim.press("CHECK")  # input still wakes it at once
        assert next_event(events) == KeyPressed(key="CHECK")
    assert_quiet(events)


def test_the_keepalive_pings_a_quiet_device_at_its_interval(
    sim_dir: Path, events: queue.Queue[DeviceEvent]
) -> None:
    # (An acknowledgement given time: the PINGs are answered, however loaded the machine.)
    settings = SerialDeviceSettings(port="", ack_timeout_ms=5000, retries=3, keepalive_ms=200)
    with (
        SimKeypad(sim_dir / "port") as sim,
        SerialKeypad(dataclasses.replace(settings, port=sim.path), events) as driver,
    ):
        assert driver.wait_connected(WAIT)
        heard = sim.counters.frames
        assert sim.wait_until(lambda: sim.counters.frames >= heard + 3, timeout=WAIT)  # PINGs
        assert driver.connected and driver.counters.retransmits == 0
    assert_quiet(events)


def test_an_unplugged_device_is_found_by_the_read_not_by_the_keepalive(
    sim_dir: Path, events: queue.Queue[DeviceEvent]
) -> None:
    settings = SerialDeviceSettings(port="", ack_timeout_ms=100, retries=3, keepalive_ms=600_000)
    with (
        SimKeypad(sim_dir / "port") as sim,
        SerialKeypad(dataclasses.replace(settings, port=sim.path), events) as driver,
    ):
        assert driver.wait_connected(WAIT)
        assert eventually(lambda: driver.idle)
        sim.unplug()
        fault = next_event(events)  # within WAIT: the keep-alive would take ten minutes
        assert isinstance(fault, DeviceFault) and "was lost (unplugged?)" in fault.message
        sim.replug()
        wait_for(events, DeviceCleared)
