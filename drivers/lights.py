"""The seat lights: one LED (or PWM LED) per seat on GPIO, through gpiozero.

One animation thread drives every light from one clock, so seats blinking at the same
rate blink together (gpiozero's own ``blink`` runs a thread per LED, and the lights
drift apart). Levels are a pure function of the pattern and the milliseconds since
the lights started (``level_at``), so tests check them at chosen instants through
``render(now)`` as well as on the running thread.

- ``on``/``off``: steady.
- ``slow_blink``/``fast_blink``: on for the first half of each period, off for the
  second (periods from the settings).
- ``pulse``: brightness follows (1 - cos)/2 over ``pulse_ms``, in 25 steps a second;
  a plain LED cannot fade, so it shows ``wink`` instead: a short flash (the first
  eighth of each ``pulse_ms``), then dark. Every pattern thus looks different on a
  plain on/off LED: steady on, off, half on at the slow or the fast rhythm, or a wink.
- Lamp test: each seat alone, in seat order, for ``lamp_test_ms``; then the patterns
  come back (``show`` during the test takes effect after it).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

from gpiozero import LED, PWMLED

from .closing import Closing
from .errors import GpioUnavailable
from .interfaces import Pattern
from .settings import LightsSettings

PULSE_FRAME_MS = 40  # 25 frames a second
PULSE_STEPS = 50  # brightness resolution of the pulse
WINK_PARTS = 8  # a wink is lit for this fraction (1/8) of each pulse period


def effective_pattern(pattern: Pattern, *, pwm: bool) -> Pattern:
    """What a light can show of ``pattern``: pulse needs PWM, a plain LED winks."""
    if pattern is Pattern.PULSE and not pwm:
        return Pattern.WINK
    return pattern


def wink_ms(settings: LightsSettings) -> int:
    """How long a wink is lit in each pulse period."""
    return max(settings.pulse_ms // WINK_PARTS, 1)


def _blink_period(pattern: Pattern, settings: LightsSettings) -> int:
    return settings.slow_blink_ms if pattern is Pattern.SLOW_BLINK else settings.fast_blink_ms


def level_at(pattern: Pattern, ms: int, settings: LightsSettings) -> float:
    """Brightness (0..1) of ``pattern`` at ``ms`` since the lights started; the caller
    has applied ``effective_pattern``."""
    if pattern is Pattern.OFF:
        return 0.0
    if pattern is Pattern.ON:
        return 1.0
    if pattern is Pattern.PULSE:
        frame = ms - ms % PULSE_FRAME_MS
        phase = (frame % settings.pulse_ms) / settings.pulse_ms
        return round((1 - math.cos(2 * math.pi * phase)) / 2 * PULSE_STEPS) / PULSE_STEPS
    if pattern is Pattern.WINK:
        return 1.0 if ms % settings.pulse_ms < wink_ms(settings) else 0.0
    period = _blink_period(pattern, settings)
    return 1.0 if ms % period < period // 2 else 0.0


def next_change_ms(pattern: Pattern, ms: int, settings: LightsSettings) -> int | None:
    """The first instant after ``ms`` at which ``pattern`` may change level."""
    if pattern in (Pattern.OFF, Pattern.ON):
        return None
    if pattern is Pattern.PULSE:
        step = PULSE_FRAME_MS
    elif pattern is Pattern.WINK:
        period, lit = settings.pulse_ms, wink_ms(settings)
        within = ms % period
        return ms - within + (lit if within < lit else period)
    else:
        period = _blink_period(pattern, settings)
        half = period // 2
        within = ms % period
        return ms - within + (half if within < half else period)
    return (ms // step + 1) * step


class GpioSeatLights(Closing):
    """The seat lights; ``show`` and ``lamp_test`` return at once."""

    def __init__(
        self,
        settings: LightsSettings,
        *,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
        animate: bool = True,
    ) -> None:
        self._settings = settings
        self._clock = clock
        self._pwm = settings.pwm
        self._leds: dict[int, Any] = {}
        device_class = PWMLED if settings.pwm else LED
        try:
            for seat, pin in sorted(settings.pins.items()):
                self._leds[seat] = device_class(
                    pin, active_high=settings.active_high, pin_factory=pin_factory
                )
        except Exception as error:
            self._close_leds()
            raise GpioUnavailable(f"seat light pins cannot be used: {error}") from error
        self._patterns: dict[int, Pattern] = dict.fromkeys(self._leds, Pattern.OFF)
        self._written: dict[int, float] = dict.fromkeys(self._leds, 0.0)
        self._epoch = clock()
        self._lamp_index = 0
        self._lamp_since: float | None = None
        self._lamp_done: threading.Event | None = None
        self._cond = threading.Condition()
        self._dirty = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if animate:
            self._thread = threading.Thread(target=self._run, name="seat-lights", daemon=True)
            self._thread.start()

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(self._leds)

    @property
    def pwm(self) -> bool:
        return self._pwm

    def show(self, seat: int, pattern: Pattern | str) -> None:
        """Set ``seat``'s pattern. A seat without a light is ignored."""
        pattern = Pattern(pattern)
        if seat not in self._leds:
            return
        with self._cond:
            self._patterns[seat] = pattern
            self._dirty = True
            self._cond.notify()

    def pattern(self, seat: int) -> Pattern:
        return self._patterns.get(seat, Pattern.OFF)

    def lamp_test(self) -> threading.Event:
        """Start the lamp test (restarting one in progress)."""
        done = threading.Event()
        with self._cond:
            if self._lamp_done is not None:
                self._lamp_done.set()
            self._lamp_index = 0
            self._lamp_since = None
            self._lamp_done = done
            self._dirty = True
            self._cond.notify()
        return done

    def render(self, now: float) -> float | None:
        """Set every light to its level at ``now``; return when the next change is due.
        The animation thread calls this; without it (``animate=False``) tests do."""
        finished: threading.Event | None = None
        lamp_seat: int | None = None
        lamp_due = 0.0
        step = self._settings.lamp_test_ms / 1000
        with self._cond:
            patterns = dict(self._patterns)
            if self._lamp_done is not None:
                # Each seat stays lit a full step even when this thread runs late.
                if self._lamp_since is None:
                    self._lamp_since = now
                elif now >= self._lamp_since + step:  # the same sum as the due time
                    self._lamp_index += 1
                    self._lamp_since = now
                if self._lamp_index < len(self._leds):
                    lamp_seat = list(self._leds)[self._lamp_index]
                    lamp_due = self._lamp_since + step
                else:
                    finished, self._lamp_done = self._lamp_done, None
        if lamp_seat is not None:
            for seat in self._leds:
                self._write(seat, 1.0 if seat == lamp_seat else 0.0)
            return lamp_due
        ms = int((now - self._epoch) * 1000 + 1e-6)  # a wake a hair early counts as on time
        due: int | None = None
        for seat, pattern in patterns.items():
            effective = effective_pattern(pattern, pwm=self._pwm)
            self._write(seat, level_at(effective, ms, self._settings))
            change = next_change_ms(effective, ms, self._settings)
            if change is not None and (due is None or change < due):
                due = change
        if finished is not None:
            finished.set()
        return None if due is None else self._epoch + due / 1000

    def _write(self, seat: int, level: float) -> None:
        if self._written[seat] == level:
            return
        self._written[seat] = level
        led = self._leds[seat]
        if self._pwm:
            led.value = level
        elif level:
            led.on()
        else:
            led.off()

    def _run(self) -> None:
        while not self._stop.is_set():
            due = self.render(self._clock())
            with self._cond:
                if not self._dirty and not self._stop.is_set():
                    self._cond.wait(None if due is None else max(0.0, due - self._clock()))
                self._dirty = False

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(5.0)
        self._close_leds()

    def _close_leds(self) -> None:
        for led in self._leds.values():
            led.close()
