"""The door switch driver (drivers/door.py) on gpiozero mock pins, and the debounce rule
it shares with the puck sensors (drivers/debounce.py)."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

import pytest

from drivers.debounce import Debouncer
from drivers.door import GpioDoorSwitch
from drivers.events import DeviceEvent, DoorChanged
from drivers.pins import mock_pin_factory
from drivers.settings import DoorSettings
from drivers.sim.pins import SimDoor

from .conftest import assert_quiet, next_event

PIN = 26


def test_a_bouncing_reading_is_reported_once_it_has_held() -> None:
    debouncer: Debouncer[str] = Debouncer(0.05)
    debouncer.observe("closed", 0.0)
    assert debouncer.settled(0.049) is None
    assert debouncer.settled(0.05) == "closed"
    for n in range(10):  # chatter every 10 ms: never settled
        debouncer.observe("open" if n % 2 == 0 else "closed", 1.0 + n * 0.01)
        assert debouncer.settled(1.0 + n * 0.01 + 0.009) is None
    debouncer.observe("open", 1.2)
    assert debouncer.settled(1.25) == "open"
    assert debouncer.settled(2.0) is None  # reported once


@pytest.fixture
def factory() -> Iterator[Any]:
    pins = mock_pin_factory(pwm=False)
    yield pins
    pins.close()


def open_door(
    factory: Any, events: queue.Queue[DeviceEvent], **options: Any
) -> tuple[GpioDoorSwitch, SimDoor]:
    settings = DoorSettings(pin=PIN, debounce_ms=20, **options)
    return GpioDoorSwitch(settings, events, pin_factory=factory), SimDoor(settings, factory)


@pytest.mark.parametrize(
    ("level", "pull"), [(lv, p) for lv in ("high", "low") for p in ("auto", "up", "down", "none")]
)
def test_the_door_opens_and_closes_at_every_level_and_pull(
    factory: Any, events: queue.Queue[DeviceEvent], level: str, pull: str
) -> None:
    switch, door = open_door(factory, events, open_level=level, pull=pull)
    with switch:
        door.close()
        assert next_event(events) == DoorChanged(status="closed")
        door.open()
        assert next_event(events) == DoorChanged(status="open")
        assert switch.status == "open" and switch.read() == "open"
        assert factory.pin(PIN).state == (1 if level == "high" else 0)
        door.close()
        assert next_event(events) == DoorChanged(status="closed")
        assert_quiet(events)


@pytest.mark.parametrize("level", ["high", "low"])
def test_a_cut_wire_reads_as_an_open_door(
    factory: Any, events: queue.Queue[DeviceEvent], level: str
) -> None:
    """pull auto: the pull the switch's absence leaves the line at is the open level."""
    switch, _ = open_door(factory, events, open_level=level)
    with switch:
        assert next_event(events) == DoorChanged(status="open")
        assert factory.pin(PIN).pull == ("up" if level == "high" else "down")


def test_a_bouncing_switch_reports_only_where_it_settles(
    factory: Any, events: queue.Queue[DeviceEvent]
) -> None:
    switch, door = open_door(factory, events)
    with switch:
        door.close()
        assert next_event(events) == DoorChanged(status="closed")
        door.bounce(20, end_open=False)  # a knock on the door: it stays closed
        assert_quiet(events)
        door.bounce(20, end_open=True)
        assert next_event(events) == DoorChanged(status="open")
        door.open()  # opened "again": nothing new
        assert_quiet(events)
