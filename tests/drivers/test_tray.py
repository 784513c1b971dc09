from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.errors import BadPayload
from drivers.events import DeviceCleared, DeviceEvent, DeviceFault, TrayCounts
from drivers.frames import Frame, encode_frame
from drivers.messages import Ack
from drivers.sim.tray import SimTray
from drivers.tray import MAX_DENOMINATIONS, TRAY, CountsMessage, RequestCounts, SerialChipTray

from .conftest import WAIT, assert_quiet, eventually, fast_link, next_event, wait_for
from .fuzz import EXAMPLES, check_protocol

START = {5: 100, 25: 40, 100: 12}


@pytest.fixture
def tray(
    sim_dir: Path, events: queue.Queue[DeviceEvent]
) -> Iterator[tuple[SimTray, SerialChipTray]]:
    sim = SimTray(sim_dir / "usb-Table_Tray-if00", counts=START, period=0.2)
    driver = SerialChipTray(fast_link(sim.path), events)
    assert driver.wait_connected(WAIT)
    yield sim, driver
    driver.close()
    sim.close()


@pytest.mark.parametrize(
    "counts", [{}, {1: 0}, {5: 100, 25: 40}, {n + 1: n for n in range(MAX_DENOMINATIONS)}]
)
def test_counts_frame_round_trips(counts: dict[int, int]) -> None:
    message = CountsMessage(counts)
    assert TRAY.parse(Frame(3, message.TYPE, message.payload()), at_host=True).message == message


def test_request_frame_round_trips() -> None:
    frame = Frame(4, RequestCounts.TYPE, RequestCounts().payload())
    assert TRAY.parse(frame, at_host=False).message == RequestCounts()


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        (b"\x00" * 5, "not whole entries"),
        (bytes(6), "above 0 and ascending"),
        ((25).to_bytes(4) + b"\x00\x01" + (5).to_bytes(4) + b"\x00\x01", "ascending"),
    ],
)
def test_bad_counts_frames(payload: bytes, error: str) -> None:
    with pytest.raises(BadPayload, match=error):
        TRAY.parse(Frame(1, CountsMessage.TYPE, payload), at_host=True)


def test_too_many_denominations_do_not_encode() -> None:
    with pytest.raises(ValueError, match="at most 21 chip values"):
        CountsMessage({n + 1: 1 for n in range(MAX_DENOMINATIONS + 1)}).payload()


@pytest.mark.slow  # a property test: out of the edit loop
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), noise=st.floats(0.0, 0.8), chunking=st.integers(0, 200))
def test_tray_decoder_fuzz(seed: int, noise: float, chunking: int) -> None:
    check_protocol(TRAY, seed, noise, chunking)


def test_first_reading_then_changes_only(
    tray: tuple[SimTray, SerialChipTray], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = tray
    assert next_event(events) == TrayCounts(counts=START)
    assert driver.counts == START
    # The tray repeats its reading every 0.2 s; unchanged readings are not reported.
    assert sim.wait_until(lambda: sim.readings_sent >= 4)
    assert_quiet(events)
    sim.set_counts({5: 99, 25: 40, 100: 12})
    assert next_event(events) == TrayCounts(counts={5: 99, 25: 40, 100: 12})
    sim.set_counts({})
    assert next_event(events) == TrayCounts(counts={})
    assert driver.counts == {}


def test_request_counts_reports_even_unchanged(
    tray: tuple[SimTray, SerialChipTray], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = tray
    assert next_event(events) == TrayCounts(counts=START)
    driver.request_counts()
    assert next_event(events) == TrayCounts(counts=START)


def test_lost_counts_are_sent_again(sim_dir: Path, events: queue.Queue[DeviceEvent]) -> None:
    # No periodic readings here, so the frames in flight are the ones the test sends.
    with (
        SimTray(sim_dir / "tray", counts=START, period=3600) as sim,
        SerialChipTray(fast_link(sim.path), events) as driver,
    ):
        assert next_event(events) == TrayCounts(counts=START)
        # Quiet first: the first reading and the one the driver asked for are answered.
        assert eventually(lambda: driver.idle and not sim.slot_busy("counts"))
        sim.drop_outgoing(1)
        sim.set_counts({5: 1})
        assert next_event(events) == TrayCounts(counts={5: 1})
        assert eventually(lambda: not sim.slot_busy("counts"))  # its ACK is in
        sim.drop_incoming(1, only=Ack)  # the ACK is lost: the reading comes again
        sim.set_counts({5: 2})
        assert next_event(events) == TrayCounts(counts={5: 2})
        assert sim.wait_until(lambda: not sim.slot_busy("counts"))
        assert driver.counters.duplicates >= 1  # more when a slow machine repeats early
        assert_quiet(events)


def test_bad_frames_are_counted_not_raised(
    tray: tuple[SimTray, SerialChipTray], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = tray
    assert next_event(events) == TrayCounts(counts=START)
    sim.send_raw(encode_frame(77, CountsMessage.TYPE, b"\x00" * 7))
    sim.send_raw(encode_frame(78, RequestCounts.TYPE, b""))  # host-bound only
    sim.send_garbage(bytes(range(256)))
    sim.set_counts({25: 3})
    assert next_event(events) == TrayCounts(counts={25: 3})
    assert driver.counters.bad_payload == 1 and driver.counters.unknown == 1


def test_unplug_replug_reports_fresh_counts(
    tray: tuple[SimTray, SerialChipTray], events: queue.Queue[DeviceEvent]
) -> None:
    sim, driver = tray
    assert next_event(events) == TrayCounts(counts=START)
    sim.unplug()
    fault = next_event(events)
    assert isinstance(fault, DeviceFault) and fault.device == "tray"
    sim.replug()
    _, skipped = wait_for(events, DeviceCleared)
    assert all(isinstance(event, DeviceFault) for event in skipped)
    assert next_event(events) == TrayCounts(counts=START)  # reported although unchanged
    sim.set_counts({5: 7})
    assert next_event(events) == TrayCounts(counts={5: 7})
