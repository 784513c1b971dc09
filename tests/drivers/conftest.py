"""Fixtures for the driver tests: an event queue, a directory for simulated ports, and
helpers that wait on queues with generous timeouts (never on the wall clock's luck)."""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.events import DeviceEvent
from drivers.settings import SerialDeviceSettings
from tests import waiting

WAIT = 15.0  # generous: a loaded CI machine is slow, a passing test never waits this long


@pytest.fixture
def events() -> queue.Queue[DeviceEvent]:
    return queue.Queue()


@pytest.fixture
def sim_dir(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "by-id"
    directory.mkdir()
    yield directory


# Unanswered tries before a serial device is in fault. A short acknowledgement timeout
# repairs a lost frame quickly, but with 3 retries a device was given up after 0.4 s of
# silence, which a loaded machine's scheduler gives a simulator thread now and then: a
# spurious "stopped answering" fault failed a test that expected none. 40 tries of
# 100 ms is 4.1 s of silence, which a passing test never sees except when it mutes the
# device on purpose (and then waits for that fault, on the queue, within ``WAIT``).
PATIENT_RETRIES = 40


def fast_link(port: str) -> SerialDeviceSettings:
    """Serial settings with short timeouts, so lost frames are repaired and faults found
    quickly; patient enough that a loaded machine makes no fault of its own."""
    return SerialDeviceSettings(
        port=port, ack_timeout_ms=100, retries=PATIENT_RETRIES, keepalive_ms=500
    )


def next_event(events: queue.Queue[DeviceEvent], timeout: float = WAIT) -> DeviceEvent:
    try:
        return events.get(timeout=timeout)
    except queue.Empty:
        raise AssertionError(f"no event within {timeout} s") from None


def take(events: queue.Queue[DeviceEvent], count: int, timeout: float = WAIT) -> list[DeviceEvent]:
    return [next_event(events, timeout) for _ in range(count)]


def wait_for(
    events: queue.Queue[DeviceEvent], wanted: type, timeout: float = WAIT
) -> tuple[DeviceEvent, list[DeviceEvent]]:
    """The first event of type ``wanted``, and the events skipped on the way."""
    skipped: list[DeviceEvent] = []
    while True:
        event = next_event(events, timeout)
        if isinstance(event, wanted):
            return event, skipped
        skipped.append(event)


def eventually(predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
    """Poll ``predicate`` until it holds (for state that has no event to wait on)."""
    return waiting.eventually(predicate, timeout, poll=0.002)


def assert_quiet(events: queue.Queue[DeviceEvent]) -> None:
    """Nothing more is queued now (checked without waiting)."""
    assert events.empty(), f"unexpected events: {list(events.queue)}"
