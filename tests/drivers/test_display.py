from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.display import (
    DISPLAY,
    ClockMessage,
    LampTestMessage,
    SerialClockDisplay,
    TextMessage,
    display_line,
)
from drivers.errors import BadPayload
from drivers.events import DeviceCleared, DeviceEvent, DeviceFault
from drivers.frames import Frame
from drivers.messages import Message
from drivers.sim.display import Shown, SimDisplay

from .conftest import WAIT, assert_quiet, fast_link, next_event, wait_for
from .fuzz import EXAMPLES, check_protocol


@pytest.fixture
def display(
    sim_dir: Path, events: queue.Queue[DeviceEvent]
) -> Iterator[tuple[SimDisplay, SerialClockDisplay]]:
    sim = SimDisplay(sim_dir / "usb-Table_Display-if00")
    driver = SerialClockDisplay(fast_link(sim.path), events)
    assert driver.wait_connected(WAIT)
    yield sim, driver
    driver.close()
    sim.close()


@pytest.mark.parametrize(
    "message",
    [
        ClockMessage(45000, False),
        ClockMessage(9000, True),
        ClockMessage(None),
        ClockMessage(None, True),
        ClockMessage(0xFFFFFFFF),
        TextMessage("SEAT 7 TO ACT", "CALL 40"),
        TextMessage("", ""),
        TextMessage("x" * 40, "~" * 40),
        LampTestMessage(1500),
    ],
)
def test_display_frames_round_trip(message: Message) -> None:
    frame = Frame(5, message.TYPE, message.payload())
    assert DISPLAY.parse(frame, at_host=False).message == message


@pytest.mark.parametrize(
    ("frame_type", "payload", "error"),
    [
        (ClockMessage.TYPE, b"\x01\x00", "CLOCK payload is 2 bytes"),
        (ClockMessage.TYPE, b"\x04\x00\x00\x00\x00", "unknown bits"),
        (ClockMessage.TYPE, b"\x00\x00\x00\x00\x01", "blank digits must carry 0 ms"),
        (TextMessage.TYPE, b"", "TEXT payload is empty"),
        (TextMessage.TYPE, b"\x05AB", "0 to 40 characters"),
        (TextMessage.TYPE, b"\x01A" + b"B" * 41, "0 to 40 characters"),
        (TextMessage.TYPE, b"\x01\x07", "not printable ASCII"),
        (LampTestMessage.TYPE, b"\x01", "LAMP_TEST payload is 1 bytes"),
    ],
)
def test_bad_display_frames(frame_type: int, payload: bytes, error: str) -> None:
    with pytest.raises(BadPayload, match=error):
        DISPLAY.parse(Frame(1, frame_type, payload), at_host=False)


def test_display_line_keeps_to_what_the_display_shows() -> None:
    assert display_line("MISE À 40\n") == "MISE ? 40?"
    assert display_line("A" * 50) == "A" * 40


@pytest.mark.slow  # a property test: out of the edit loop
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), noise=st.floats(0.0, 0.8), chunking=st.integers(0, 200))
def test_display_decoder_fuzz(seed: int, noise: float, chunking: int) -> None:
    check_protocol(DISPLAY, seed, noise, chunking)


def test_clock_text_and_lamp_test_are_shown(
    display: tuple[SimDisplay, SerialClockDisplay], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = display
    driver.show_clock(45000, warning=False)
    driver.show_text("SEAT 7 TO ACT", "CALL 40")
    assert sim.wait_shown(clock_ms=45000, warning=False, line1="SEAT 7 TO ACT", line2="CALL 40")
    driver.show_clock(9000, warning=True)
    assert sim.wait_shown(clock_ms=9000, warning=True)
    driver.show_clock(None)
    assert sim.wait_shown(clock_ms=None, warning=False)
    driver.lamp_test(1500)
    assert sim.wait_until(lambda: sim.lamp_tests == [1500])
    assert sim.wait_until(driver.delivered)
    assert_quiet(events)


def test_latest_update_wins(display: tuple[SimDisplay, SerialClockDisplay]) -> None:
    sim, driver = display
    for ms in range(60000, 0, -100):
        driver.show_clock(ms)
    assert sim.wait_shown(clock_ms=100)
    assert sim.wait_until(driver.delivered)
    shown = [m.ms for m in sim.history if isinstance(m, ClockMessage)]
    assert shown == sorted(shown, reverse=True)  # older values never come after newer


def test_lost_updates_and_lost_acks_are_repaired(
    display: tuple[SimDisplay, SerialClockDisplay],
) -> None:
    sim, driver = display
    sim.drop_incoming(1, only=TextMessage)
    driver.show_text("LOST ONCE", "")
    assert sim.wait_shown(line1="LOST ONCE")
    sim.drop_outgoing(1)  # the display's ACK is lost: the update comes again
    driver.show_clock(30000)
    assert sim.wait_shown(clock_ms=30000)
    assert sim.wait_until(driver.delivered)
    assert driver.counters.retransmits >= 2


def test_unplugged_display_shows_the_current_state_when_back(
    display: tuple[SimDisplay, SerialClockDisplay], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = display
    driver.show_text("BEFORE", "")
    assert sim.wait_shown(line1="BEFORE")
    sim.unplug()
    fault = next_event(events)
    assert isinstance(fault, DeviceFault) and fault.device == "display"
    driver.show_text("WHILE AWAY", "2")  # the controller does not wait for the display
    driver.show_clock(12000, warning=True)
    assert sim.shown == Shown()
    sim.replug()
    _, skipped = wait_for(events, DeviceCleared)
    assert all(isinstance(event, DeviceFault) for event in skipped)
    assert sim.wait_shown(line1="WHILE AWAY", line2="2", clock_ms=12000, warning=True)


@pytest.mark.slow  # waits out the 4 s of silence a device is given (PATIENT_RETRIES)
def test_display_that_stops_acknowledging_faults(
    display: tuple[SimDisplay, SerialClockDisplay], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = display
    sim.mute()
    driver.show_text("ANYONE?", "")
    fault = next_event(events)
    assert isinstance(fault, DeviceFault)
    assert f"display at {sim.path} stopped answering" in fault.message
    sim.mute(False)
    wait_for(events, DeviceCleared)
    assert sim.wait_shown(line1="ANYONE?")
