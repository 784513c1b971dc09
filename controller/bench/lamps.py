"""The seat lights as an eye sees them, read off the simulated pins.

The bench does not ask the lights driver which pattern it was told: it watches the
pins the driver writes (gpiozero ``MockPin.states``, each entry the time since the
previous change and the new level), so what the screen shows is what the LEDs do,
lamp test and driver bugs included.

What a light is doing is named as the drivers name the patterns
(``drivers.interfaces.Pattern``), the one list of them: ``on``/``off`` (``dim`` for a
steady PWM level in between, which is no pattern) when it has held its level for a
while; ``slow_blink``, ``fast_blink`` or ``wink`` (a plain LED's pulse) when its last
``RHYTHM_CHANGES`` changes keep that pattern's time exactly: the driver switches a
pattern on its own clock, to within milliseconds, so every change falls within
``RHYTHM_SLACK`` of where the pattern puts it (counted from the first of them, so a
late write followed by an early one still fits). A light that the keys switch (to
act, then not) keeps no such time, however fast or steady the keys: it is ``on`` or
``off``; so is a light lit for a while and then put out, however long it was dark
before. ``pulse`` when it went through levels in between.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from drivers.interfaces import Pattern
from drivers.lights import wink_ms
from drivers.settings import LightsSettings

RHYTHM_CHANGES = 6
"""Changes of a light, its last ones, that must all keep a pattern's time before the
pattern is named (five gaps: a fast blink is named 0.6 to 0.75 s after it starts, a
slow one 2.5 to 3 s, a wink 4.25 to 6.25 s, the first change being where it was shown)."""

RHYTHM_SLACK = 0.05
"""Seconds a change may be off where the pattern's time puts it (the driver's writes
are a few milliseconds late at most; a key pressed in rhythm is tens off)."""

MAX_HISTORY = 256
"""Pin history entries kept before the watcher clears them (they grow while a light
blinks)."""


@dataclass(frozen=True)
class Lamp:
    """One seat light now: its brightness (0..1) and what it is doing."""

    level: float
    kind: Pattern | Literal["dim"]  # a pattern, or a steady level between off and on

    @property
    def lit(self) -> bool:
        return self.level >= 0.5


class _Seat:
    def __init__(self, now: float) -> None:
        self.pin_states: list[Any] | None = None  # the list object last read
        self.seen = 0  # entries of it already taken
        self.cursor = now  # when its latest entry happened
        self.changes: deque[tuple[float, float]] = deque()  # (when, level)


class LampWatcher:
    """Call ``read()`` from one thread (the screen's); it is cheap enough for 10 Hz."""

    def __init__(
        self,
        pins: dict[int, Any],
        settings: LightsSettings,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._pins = pins
        self._active_high = settings.active_high
        self._clock = clock
        fast, slow = settings.fast_blink_ms / 2000, settings.slow_blink_ms / 2000
        wink = wink_ms(settings) / 1000
        # each pattern's time: how long it stays lit, and dark, in seconds
        self._rhythms = {
            Pattern.FAST_BLINK: (fast, fast),
            Pattern.SLOW_BLINK: (slow, slow),
            Pattern.WINK: (wink, settings.pulse_ms / 1000 - wink),
        }
        # long enough to hold a wink's RHYTHM_CHANGES, and the wait for the next one
        longest = max(settings.fast_blink_ms, settings.slow_blink_ms, settings.pulse_ms)
        self._window = longest / 1000 * (RHYTHM_CHANGES / 2 + 0.2)
        now = clock()
        self._seats = {seat: _Seat(now) for seat in pins}
        for seat, pin in pins.items():
            self._restart(seat, pin, now)

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(sorted(self._pins))

    def read(self) -> dict[int, Lamp]:
        now = self._clock()
        return {seat: self._read(seat, pin, now) for seat, pin in sorted(self._pins.items())}

    def _brightness(self, state: Any) -> float:
        value = float(state)
        return value if self._active_high else 1.0 - value

    def _restart(self, seat: int, pin: Any, now: float) -> None:
        pin.clear_states()
        watch = self._seats[seat]
        watch.pin_states = pin.states
        watch.seen = len(watch.pin_states)
        watch.cursor = now

    def _read(self, seat: int, pin: Any, now: float) -> Lamp:
        watch = self._seats[seat]
        states = pin.states
        if states is not watch.pin_states:  # cleared by someone else: start over
            watch.pin_states, watch.seen, watch.cursor = states, len(states), now
        for entry in states[watch.seen :]:
            watch.cursor += float(entry.timestamp)
            watch.changes.append((watch.cursor, self._brightness(entry.state)))
        watch.seen = len(states)
        if watch.seen > MAX_HISTORY:
            self._restart(seat, pin, now)
        while watch.changes and watch.changes[0][0] < now - self._window:
            watch.changes.popleft()
        level = self._brightness(pin.state)
        return Lamp(level, self._kind(list(watch.changes), level, now))

    def _kind(
        self,
        changes: list[tuple[float, float]],
        level: float,
        now: float,
    ) -> Pattern | Literal["dim"]:
        steady: Pattern | Literal["dim"] = (
            Pattern.ON if level >= 0.999 else Pattern.OFF if level <= 0.001 else "dim"
        )
        if any(0.001 < value < 0.999 for _, value in changes) and len(changes) >= 3:
            return Pattern.PULSE
        last = changes[-RHYTHM_CHANGES:]
        if len(last) < RHYTHM_CHANGES:
            return steady
        for pattern, (lit, dark) in self._rhythms.items():
            if _keeps_time(last, now, lit, dark):
                return pattern
        return steady


def _keeps_time(changes: list[tuple[float, float]], now: float, lit: float, dark: float) -> bool:
    """The changes alternate and each falls where a pattern lit ``lit`` and dark
    ``dark`` seconds puts it, counted from the first (within ``RHYTHM_SLACK``), and the
    next is not half its time overdue: the light is still switching."""
    due = changes[0][0]
    for (_, level), (after, next_level) in zip(changes, changes[1:], strict=False):
        if (level >= 0.5) == (next_level >= 0.5):
            return False
        due += lit if level >= 0.5 else dark
        if abs(after - due) > RHYTHM_SLACK:
            return False
    after_last = lit if changes[-1][1] >= 0.5 else dark  # the next change is due then
    return now <= due + after_last * 1.5 + RHYTHM_SLACK
