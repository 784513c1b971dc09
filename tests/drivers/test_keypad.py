from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.errors import BadPayload
from drivers.events import KEYS, DeviceCleared, DeviceEvent, DeviceFault, KeyPressed
from drivers.frames import Frame, encode_frame
from drivers.keypad import KEY_CODES, KEYPAD, KeyMessage, SerialKeypad
from drivers.messages import Ack
from drivers.sim.keypad import SimKeypad

from .conftest import WAIT, assert_quiet, fast_link, next_event, take, wait_for
from .fuzz import EXAMPLES, check_protocol


@pytest.fixture
def keypad(
    sim_dir: Path, events: queue.Queue[DeviceEvent]
) -> Iterator[tuple[SimKeypad, SerialKeypad]]:
    sim = SimKeypad(sim_dir / "usb-Table_Keypad-if00")
    driver = SerialKeypad(fast_link(sim.path), events)
    assert driver.wait_connected(WAIT)
    yield sim, driver
    driver.close()
    sim.close()


def test_key_codes_cover_the_key_set_once() -> None:
    assert sorted(KEY_CODES) == sorted(KEYS)
    assert len(set(KEY_CODES.values())) == len(KEYS)
    assert KEY_CODES["0"] == 0x30 and KEY_CODES["FOLD"] == ord("F")


@pytest.mark.parametrize("key", KEYS)
def test_key_frame_round_trips(key: str) -> None:
    frame = Frame(1, KeyMessage.TYPE, KeyMessage(key).payload())
    assert KEYPAD.parse(frame, at_host=True).message == KeyMessage(key)


@pytest.mark.parametrize(
    ("payload", "error"), [(b"", "KEY payload is 0 bytes"), (b"\xff", "KEY code 0xFF is not a key")]
)
def test_bad_key_frames(payload: bytes, error: str) -> None:
    with pytest.raises(BadPayload, match=error):
        KEYPAD.parse(Frame(1, KeyMessage.TYPE, payload), at_host=True)


@pytest.mark.slow  # a property test: out of the edit loop
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), noise=st.floats(0.0, 0.8), chunking=st.integers(0, 200))
def test_keypad_decoder_fuzz(seed: int, noise: float, chunking: int) -> None:
    check_protocol(KEYPAD, seed, noise, chunking)


def test_handshake_and_every_key_in_order(
    keypad: tuple[SimKeypad, SerialKeypad], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = keypad
    assert driver.connected and driver.fault is None
    assert driver.firmware == "sim-keypad-1.0"
    assert sim.handshakes >= 1  # more if a slow machine made the driver repeat HELLO
    sim.press(*KEYS)
    assert take(events, len(KEYS)) == [KeyPressed(key=key) for key in KEYS]
    assert sim.wait_delivered(len(KEYS))
    assert driver.counters.frames >= len(KEYS) and driver.counters.dropped == 0
    assert_quiet(events)


def test_lost_ack_does_not_repeat_a_key(
    keypad: tuple[SimKeypad, SerialKeypad], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = keypad
    sim.drop_incoming(1, only=Ack)  # the driver's ACK for the first key is lost
    sim.press("1", "2")
    assert take(events, 2) == [KeyPressed(key="1"), KeyPressed(key="2")]
    assert sim.wait_delivered(2)
    assert driver.counters.duplicates >= 1  # more when a slow machine repeats early
    assert_quiet(events)


def test_lost_and_damaged_key_frames_are_sent_again(
    keypad: tuple[SimKeypad, SerialKeypad], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = keypad
    sim.drop_outgoing(1)
    sim.press("BET")
    sim.corrupt_outgoing(1)
    sim.press("5")
    assert take(events, 2) == [KeyPressed(key="BET"), KeyPressed(key="5")]
    assert driver.counters.bad_crc == 1
    assert_quiet(events)


def test_garbage_unknown_and_bad_frames_are_counted(
    keypad: tuple[SimKeypad, SerialKeypad], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = keypad
    sim.send_garbage(b"\x00\x13\xa5\x5a\x40noise")
    sim.send_raw(encode_frame(200, 0x7E, b"?"))  # a type the keypad protocol lacks
    sim.send_raw(encode_frame(201, KeyMessage.TYPE, b"\xff"))  # no such key
    sim.press("ENTER")
    assert next_event(events) == KeyPressed(key="ENTER")
    counters = driver.counters
    assert counters.unknown == 1 and counters.bad_payload == 1
    assert counters.bad_header == 1 and counters.garbage_bytes > 0
    assert_quiet(events)


def test_wrong_device_on_the_port(sim_dir: Path, events: queue.Queue[DeviceEvent]) -> None:
    with SimKeypad(sim_dir / "port") as sim:
        sim.identify_as(kind="T")
        with SerialKeypad(fast_link(sim.path), events):
            fault = next_event(events)
            assert isinstance(fault, DeviceFault) and fault.device == "keypad"
            assert f"{sim.path} answers as device kind 'T', not a keypad" in fault.message
            sim.identify_as()
            assert next_event(events) == DeviceCleared(device="keypad")
            sim.press("7")
            assert next_event(events) == KeyPressed(key="7")


def test_wrong_protocol_version(sim_dir: Path, events: queue.Queue[DeviceEvent]) -> None:
    with SimKeypad(sim_dir / "port") as sim:
        sim.identify_as(major=2)
        with SerialKeypad(fast_link(sim.path), events) as driver:
            fault = next_event(events)
            assert isinstance(fault, DeviceFault)
            assert "speaks protocol 2.0, this controller speaks 1.x" in fault.message
            assert driver.fault == fault.message and not driver.connected


@pytest.mark.slow  # waits out the 4 s of silence a device is given (PATIENT_RETRIES)
def test_silent_device_faults_and_clears(
    keypad: tuple[SimKeypad, SerialKeypad], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = keypad
    sim.mute()
    fault = next_event(events)  # the keep-alive goes unanswered
    assert isinstance(fault, DeviceFault) and "stopped answering" in fault.message
    sim.mute(False)
    _, skipped = wait_for(events, DeviceCleared)
    # While muted, reopening may also have found no answer to the handshake.
    assert all(isinstance(event, DeviceFault) for event in skipped)
    sim.press("FOLD")
    assert next_event(events) == KeyPressed(key="FOLD")


def test_device_restart_is_a_new_handshake_not_a_fault(
    keypad: tuple[SimKeypad, SerialKeypad], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = keypad
    sim.press("1")
    assert next_event(events) == KeyPressed(key="1")
    sim.restart()
    sim.press("2", "3")  # held until the driver shakes hands again
    assert take(events, 2) == [KeyPressed(key="2"), KeyPressed(key="3")]
    assert driver.counters.sessions == 2 and driver.counters.faults == 0
    assert_quiet(events)


def test_unplug_and_replug_loses_nothing_after_the_return(
    keypad: tuple[SimKeypad, SerialKeypad], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = keypad
    sim.press("9")
    assert next_event(events) == KeyPressed(key="9")
    sim.unplug()
    fault = next_event(events)
    assert isinstance(fault, DeviceFault) and fault.device == "keypad"
    assert not Path(sim.path).exists()
    sim.replug()
    keys = [KEYS[n % len(KEYS)] for n in range(60)]
    sim.press(*keys)  # pressed at once, before the driver has even reopened the port
    cleared, skipped = wait_for(events, DeviceCleared)
    assert all(isinstance(event, DeviceFault) for event in skipped)  # lost, then missing
    assert take(events, len(keys)) == [KeyPressed(key=key) for key in keys]
    assert driver.connected and driver.fault is None
    assert_quiet(events)
