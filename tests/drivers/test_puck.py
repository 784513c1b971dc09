from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

import pytest

from drivers.events import DeviceEvent, PuckFault, PuckMoved
from drivers.pins import mock_pin_factory
from drivers.puck import GpioPuckSensor, PuckDebouncer
from drivers.settings import PuckSettings
from drivers.sim.pins import SimPuck

from .conftest import assert_quiet, next_event

PINS = {1: 5, 2: 6, 3: 13, 4: 19}


# -- the debounce rule, with made-up times -------------------------------------------


def test_first_reading_is_reported_once_settled() -> None:
    debouncer = PuckDebouncer(0.03)
    debouncer.observe(frozenset(), 10.0)
    assert debouncer.due() == pytest.approx(10.03)
    assert debouncer.settle(10.029) is None
    assert debouncer.settle(10.03) == PuckMoved(seat=None)
    assert debouncer.due() is None
    assert debouncer.settle(99.0) is None  # nothing new


def test_bounces_restart_the_wait() -> None:
    debouncer = PuckDebouncer(0.03)
    debouncer.observe(frozenset(), 0.0)
    assert debouncer.settle(0.1) == PuckMoved(seat=None)
    debouncer.observe(frozenset({3}), 1.0)
    debouncer.observe(frozenset(), 1.005)
    debouncer.observe(frozenset({3}), 1.01)
    assert debouncer.settle(1.035) is None
    assert debouncer.settle(1.04) == PuckMoved(seat=3)


def test_a_blip_back_to_the_reported_reading_reports_nothing() -> None:
    debouncer = PuckDebouncer(0.03)
    debouncer.observe(frozenset({3}), 0.0)
    assert debouncer.settle(0.03) == PuckMoved(seat=3)
    debouncer.observe(frozenset(), 1.0)
    debouncer.observe(frozenset({3}), 1.01)
    assert debouncer.due() is None
    assert debouncer.settle(5.0) is None


def test_two_seats_briefly_during_a_move_is_no_fault() -> None:
    debouncer = PuckDebouncer(0.03)
    debouncer.observe(frozenset({3}), 0.0)
    assert debouncer.settle(0.03) == PuckMoved(seat=3)
    debouncer.observe(frozenset({3, 4}), 1.0)
    assert debouncer.settle(1.029) is None
    debouncer.observe(frozenset({4}), 1.029)
    assert debouncer.settle(1.058) is None
    assert debouncer.settle(1.059) == PuckMoved(seat=4)


def test_two_seats_for_longer_than_the_debounce_is_a_fault() -> None:
    debouncer = PuckDebouncer(0.03)
    debouncer.observe(frozenset({4, 2}), 0.0)
    assert debouncer.settle(0.03) == PuckFault(seats=(2, 4))
    debouncer.observe(frozenset({2, 4, 7}), 1.0)
    assert debouncer.settle(1.03) == PuckFault(seats=(2, 4, 7))
    debouncer.observe(frozenset({7}), 2.0)
    assert debouncer.settle(2.03) == PuckMoved(seat=7)  # the fault is over


def test_zero_debounce_reports_at_once() -> None:
    debouncer = PuckDebouncer(0.0)
    debouncer.observe(frozenset({1}), 5.0)
    assert debouncer.settle(5.0) == PuckMoved(seat=1)


# -- the driver on gpiozero mock pins ------------------------------------------------


@pytest.fixture
def factory() -> Iterator[Any]:
    pins = mock_pin_factory(pwm=False)
    yield pins
    pins.close()


def open_puck(
    factory: Any, events: queue.Queue[DeviceEvent], **options: Any
) -> tuple[GpioPuckSensor, SimPuck]:
    settings = PuckSettings(pins=PINS, debounce_ms=20, **options)
    return GpioPuckSensor(settings, events, pin_factory=factory), SimPuck(settings, factory)


@pytest.mark.parametrize("level", ["low", "high"])
def test_puck_moves_lifts_and_faults(
    factory: Any, events: queue.Queue[DeviceEvent], level: str
) -> None:
    sensor, puck = open_puck(factory, events, active_level=level)
    with sensor:
        assert next_event(events) == PuckMoved(seat=None)
        puck.place(2)
        assert next_event(events) == PuckMoved(seat=2)
        assert sensor.seat == 2 and sensor.fault_seats == ()
        puck.see([2, 3])
        assert next_event(events) == PuckFault(seats=(2, 3))
        assert sensor.seat is None and sensor.fault_seats == (2, 3)
        puck.place(3)
        assert next_event(events) == PuckMoved(seat=3)
        puck.lift()
        assert next_event(events) == PuckMoved(seat=None)
        assert sensor.read() == frozenset()
        assert_quiet(events)


def test_the_pins_are_read_with_their_active_level(factory: Any) -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    sensor, puck = open_puck(factory, events, active_level="low")
    with sensor:
        pin = factory.pin(PINS[4])
        assert pin.state == 1  # pulled up: nothing sees the puck
        puck.place(4)
        assert pin.state == 0 and sensor.read() == frozenset({4})
        assert pin.pull == "up"


def test_a_chattering_sensor_settles_to_one_report(
    factory: Any, events: queue.Queue[DeviceEvent]
) -> None:
    sensor, puck = open_puck(factory, events)
    with sensor:
        assert next_event(events) == PuckMoved(seat=None)
        puck.bounce(1, times=10)
        assert next_event(events) == PuckMoved(seat=1)
        puck.place(1)  # still there
        assert_quiet(events)
