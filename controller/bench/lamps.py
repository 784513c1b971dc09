"""The seat lights as an eye sees them, read off the simulated pins.

The bench does not ask the lights driver which pattern it was told: it watches the
pins the driver writes (gpiozero ``MockPin.states``, each entry the time since the
previous change and the new level), so what the screen shows is what the LEDs do,
lamp test and driver bugs included.

What a light is doing is named as the drivers name the patterns
(``drivers.interfaces.Pattern``), the one list of them: ``on``/``off`` (``dim`` for a
steady PWM level in between, which is no pattern) when it has held its level for a
while; ``slow_blink`` or ``fast_blink`` when it has switched at least four times lately
at a steady rhythm near a configured blink period (told apart at their geometric
mean; a light lit for a while and then put out is no blink, however long it was dark
before);
``wink`` when it flashes briefly and stays dark much longer (a plain LED's pulse);
``pulse`` when it went through levels in between.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from drivers.interfaces import Pattern
from drivers.settings import LightsSettings

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
        fast, slow = settings.fast_blink_ms, settings.slow_blink_ms
        self._fast_below = math.sqrt(fast * slow) / 1000  # seconds per period
        self._periods = {Pattern.FAST_BLINK: fast / 1000, Pattern.SLOW_BLINK: slow / 1000}
        self._window = max(fast, slow, settings.pulse_ms) / 1000 * 2.2
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
        if len(changes) < 3:
            return steady
        times = [when for when, _ in changes]
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        last, before = gaps[-1], gaps[-2]
        if now - times[-1] <= 1.5 * max(last, before) and self._winks(changes, gaps):
            return Pattern.WINK
        if not 0.5 <= last / max(before, 1e-6) <= 2.0:
            return steady  # two changes that happened to be close: not a rhythm
        if now - times[-1] > 1.5 * max(last, before):
            return steady  # it stopped switching
        blink = Pattern.FAST_BLINK if last + before < self._fast_below else Pattern.SLOW_BLINK
        # a blink's third gap back is alike too, and the gaps are near its half period:
        # a light that was lit a while and then put out has no such rhythm
        third = gaps[-3] if len(gaps) >= 3 else 0.0
        half = self._periods[blink] / 2
        if not all(half / 1.5 <= gap <= half * 1.5 for gap in (third, before, last)):
            return steady
        return blink

    @staticmethod
    def _winks(changes: list[tuple[float, float]], gaps: list[float]) -> bool:
        """Lit briefly, dark at least three times as long, the last two times alike."""
        lit = [gap for (_, level), gap in zip(changes, gaps, strict=False) if level >= 0.5]
        dark = [gap for (_, level), gap in zip(changes, gaps, strict=False) if level < 0.5]
        return bool(lit and dark) and max(lit) * 3 <= min(dark)
