from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from drivers.interfaces import Pattern
from drivers.lights import (
    PULSE_FRAME_MS,
    GpioSeatLights,
    effective_pattern,
    level_at,
    next_change_ms,
)
from drivers.pins import mock_pin_factory
from drivers.settings import LightsSettings
from drivers.sim.pins import SimLights

from .conftest import WAIT

PINS = {1: 17, 2: 27, 3: 22, 4: 23, 5: 24}
#: the patterns the controller asks for (WINK is what a plain LED makes of PULSE)
ASKED = (Pattern.OFF, Pattern.ON, Pattern.SLOW_BLINK, Pattern.FAST_BLINK, Pattern.PULSE)
SETTINGS = LightsSettings(pins=PINS, pwm=True)  # slow 1000 ms, fast 250 ms, pulse 2000 ms


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# -- levels as a function of time ------------------------------------------------------


def test_blink_levels_and_edges() -> None:
    assert [level_at(Pattern.FAST_BLINK, ms, SETTINGS) for ms in (0, 124, 125, 249, 250)] == [
        1.0,
        1.0,
        0.0,
        0.0,
        1.0,
    ]
    assert [level_at(Pattern.SLOW_BLINK, ms, SETTINGS) for ms in (0, 499, 500, 999)] == [
        1.0,
        1.0,
        0.0,
        0.0,
    ]
    assert next_change_ms(Pattern.FAST_BLINK, 0, SETTINGS) == 125
    assert next_change_ms(Pattern.FAST_BLINK, 125, SETTINGS) == 250
    assert next_change_ms(Pattern.SLOW_BLINK, 700, SETTINGS) == 1000
    assert next_change_ms(Pattern.ON, 5, SETTINGS) is None
    assert next_change_ms(Pattern.OFF, 5, SETTINGS) is None


def test_pulse_fades_in_and_out() -> None:
    levels = [level_at(Pattern.PULSE, ms, SETTINGS) for ms in range(0, 2000, PULSE_FRAME_MS)]
    peak = 25  # the middle of the 2000 ms period
    assert levels[0] == 0.0 and levels[peak] == 1.0 == max(levels)
    assert levels[: peak + 1] == sorted(levels[: peak + 1])
    assert levels[peak:] == sorted(levels[peak:], reverse=True)
    assert next_change_ms(Pattern.PULSE, 41, SETTINGS) == 80


def test_pulse_needs_pwm_a_plain_led_winks() -> None:
    assert effective_pattern(Pattern.PULSE, pwm=False) is Pattern.WINK
    assert [level_at(Pattern.WINK, ms, SETTINGS) for ms in (0, 249, 250, 1999, 2000)] == [
        1.0,
        1.0,
        0.0,
        0.0,
        1.0,
    ]
    assert next_change_ms(Pattern.WINK, 10, SETTINGS) == 250
    assert next_change_ms(Pattern.WINK, 250, SETTINGS) == 2000
    assert effective_pattern(Pattern.PULSE, pwm=True) is Pattern.PULSE
    assert effective_pattern(Pattern.FAST_BLINK, pwm=False) is Pattern.FAST_BLINK


# -- every pattern on the mock pins' state history, at chosen instants --------------


@pytest.fixture
def pwm_factory() -> Iterator[Any]:
    factory = mock_pin_factory(pwm=True)
    yield factory
    factory.close()


@pytest.fixture
def plain_factory() -> Iterator[Any]:
    factory = mock_pin_factory(pwm=False)
    yield factory
    factory.close()


def run(lights: GpioSeatLights, clock: FakeClock, until_ms: int, step_ms: int = 10) -> None:
    for ms in range(0, until_ms + 1, step_ms):
        clock.now = ms / 1000
        lights.render(clock.now)


def test_every_pattern_on_pwm_pins(pwm_factory: Any) -> None:
    clock = FakeClock()
    with GpioSeatLights(SETTINGS, pin_factory=pwm_factory, clock=clock, animate=False) as lights:
        eyes = SimLights(SETTINGS, pwm_factory)
        for seat, pattern in zip(PINS, ASKED, strict=True):
            lights.show(seat, pattern)  # 1 off, 2 on, 3 slow, 4 fast, 5 pulse
        run(lights, clock, 2000)
        assert eyes.history(1) == [0.0]
        assert eyes.history(2) == [0.0, 1.0]
        assert eyes.history(3) == [0.0] + [1.0, 0.0] * 2 + [1.0]  # 1000 ms period, 2 s
        assert eyes.history(4) == [0.0] + [1.0, 0.0] * 8 + [1.0]  # 250 ms period
        pulse = eyes.history(5)
        peak = pulse.index(1.0)
        assert pulse[: peak + 1] == sorted(set(pulse[: peak + 1]))  # rising steps
        assert pulse[peak:] == sorted(set(pulse[peak:]), reverse=True)  # falling steps
        assert pulse[-1] == 0.0 and min(pulse[1:-1]) > 0 and len(pulse) > 40
        assert lights.pattern(5) is Pattern.PULSE


def test_every_pattern_on_plain_pins(plain_factory: Any) -> None:
    settings = LightsSettings(pins=PINS, pwm=False)
    clock = FakeClock()
    with GpioSeatLights(settings, pin_factory=plain_factory, clock=clock, animate=False) as lights:
        eyes = SimLights(settings, plain_factory)
        for seat, pattern in zip(PINS, ASKED, strict=True):
            lights.show(seat, pattern)
        run(lights, clock, 2000)
        assert [pin.state for pin in eyes.pin(4).states] == [False] + [True, False] * 8 + [True]
        assert eyes.history(1) == [0.0]
        assert eyes.history(2) == [0.0, 1.0]
        assert eyes.history(3) == [0.0] + [1.0, 0.0] * 2 + [1.0]
        # Pulse without PWM is a wink: lit for the first eighth of each 2000 ms, so it
        # never looks like the slow blink (issue 11 item 7: "on the clock" vs "all-in")
        assert eyes.history(5) == [0.0, 1.0, 0.0, 1.0]
        assert lights.pattern(5) is Pattern.PULSE  # what it was told


def test_every_asked_pattern_looks_different_on_a_plain_led(plain_factory: Any) -> None:
    """What an eye sees of each pattern on a plain pin, every 10 ms for 4 s (the
    fake clock's instants): no two alike (issue 11 item 7: "on the clock" and "all-in"
    looked the same)."""
    settings = LightsSettings(pins=PINS, pwm=False)
    clock = FakeClock()
    with GpioSeatLights(settings, pin_factory=plain_factory, clock=clock, animate=False) as lights:
        eyes = SimLights(settings, plain_factory)
        for seat, pattern in zip(PINS, ASKED, strict=True):
            lights.show(seat, pattern)
        seen: dict[int, list[float]] = {seat: [] for seat in PINS}
        for ms in range(0, 4000, 10):
            clock.now = ms / 1000
            lights.render(clock.now)
            for seat in PINS:
                seen[seat].append(eyes.level(seat))
        looks = {pattern: tuple(seen[seat]) for seat, pattern in zip(PINS, ASKED, strict=True)}
        assert len(set(looks.values())) == len(ASKED)
        wink = looks[Pattern.PULSE]
        assert wink[:25] == (1.0,) * 25 and wink[25:200] == (0.0,) * 175  # 250 on, 1750 off
        assert sum(looks[Pattern.SLOW_BLINK]) == 200  # half of the time


def test_active_low_lights_invert_the_pin(plain_factory: Any) -> None:
    settings = LightsSettings(pins={1: 17}, active_high=False)
    clock = FakeClock()
    with GpioSeatLights(settings, pin_factory=plain_factory, clock=clock, animate=False) as lights:
        pin = plain_factory.pin(17)
        lights.show(1, Pattern.ON)
        lights.render(0.0)
        # The first entry is the pin before it became an output; then off (high), on (low).
        assert [entry.state for entry in pin.states][1:] == [True, False]
        assert SimLights(settings, plain_factory).history(1)[1:] == [0.0, 1.0]


def test_lamp_test_lights_each_seat_in_turn(pwm_factory: Any) -> None:
    clock = FakeClock()
    with GpioSeatLights(SETTINGS, pin_factory=pwm_factory, clock=clock, animate=False) as lights:
        eyes = SimLights(SETTINGS, pwm_factory)
        lights.show(2, Pattern.ON)
        lights.render(0.0)
        done = lights.lamp_test()
        lit_per_step = []
        for step in range(len(PINS)):
            clock.now = step * 0.3 + 0.01
            assert lights.render(clock.now) == pytest.approx(clock.now + 0.3)
            lit_per_step.append([seat for seat in PINS if eyes.level(seat) == 1.0])
            assert lights.render(clock.now + 0.299) == pytest.approx(clock.now + 0.3)
            assert not done.is_set()
        assert lit_per_step == [[1], [2], [3], [4], [5]]
        clock.now = 4 * 0.3 + 0.01 + 0.3
        lights.render(clock.now)
        assert done.is_set()
        assert [seat for seat in PINS if eyes.level(seat) == 1.0] == [2]  # patterns are back
        for seat in PINS:
            assert 1.0 in eyes.history(seat)


def test_a_late_lamp_test_still_lights_every_seat(pwm_factory: Any) -> None:
    clock = FakeClock()
    with GpioSeatLights(SETTINGS, pin_factory=pwm_factory, clock=clock, animate=False) as lights:
        eyes = SimLights(SETTINGS, pwm_factory)
        done = lights.lamp_test()
        lit = []
        while not done.is_set():
            clock.now += 5.0  # the thread is seconds late every time
            lights.render(clock.now)
            lit.append([seat for seat in PINS if eyes.level(seat) == 1.0])
        assert lit == [[1], [2], [3], [4], [5], []]


def test_unknown_seats_are_ignored_and_patterns_checked(pwm_factory: Any) -> None:
    with GpioSeatLights(SETTINGS, pin_factory=pwm_factory, animate=False) as lights:
        lights.show(9, Pattern.ON)
        lights.show(1, "fast_blink")
        assert lights.pattern(1) is Pattern.FAST_BLINK
        assert lights.pattern(9) is Pattern.OFF
        assert lights.seats == (1, 2, 3, 4, 5)
        with pytest.raises(ValueError):
            lights.show(1, "disco")


# -- the animation thread -----------------------------------------------------------------


def test_animation_thread_blinks_pulses_and_lamp_tests(pwm_factory: Any) -> None:
    settings = LightsSettings(
        pins=PINS, pwm=True, fast_blink_ms=40, slow_blink_ms=80, pulse_ms=400, lamp_test_ms=20
    )
    with GpioSeatLights(settings, pin_factory=pwm_factory) as lights:
        eyes = SimLights(settings, pwm_factory)
        lights.show(1, Pattern.ON)
        lights.show(2, Pattern.FAST_BLINK)
        lights.show(3, Pattern.PULSE)
        assert eyes.wait_for_level(1, 1.0, WAIT)
        assert eyes.wait_for_history(2, 9, WAIT)
        blink = eyes.history(2)[:9]
        assert blink == [0.0] + [1.0, 0.0] * 4
        assert eyes.wait_for_history(3, 20, WAIT)
        assert all(0.0 <= level <= 1.0 for level in eyes.history(3))
        lights.show(2, Pattern.OFF)
        lights.show(3, Pattern.OFF)
        assert eyes.wait_for_level(2, 0.0, WAIT) and eyes.wait_for_level(3, 0.0, WAIT)
        eyes.clear_history()
        assert lights.lamp_test().wait(WAIT)
        for seat in PINS:
            assert 1.0 in eyes.history(seat)
        assert eyes.wait_for_level(1, 1.0, WAIT)  # seat 1's ON is back
        assert eyes.level(4) == 0.0
