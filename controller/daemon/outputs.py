"""Driving the seat lights and the displays from the state.

What to show is decided by ``controller.lights`` (pure functions of the state view);
this module only remembers what each device was last told and tells it again only
when that changes, so a busy loop does not flood the serial display or the pins.
``redrive()`` forgets it all: the next ``show`` sends everything (at start-up after
recovery, and after a device comes back).

A sticky fault (``controller.faults``) replaces everything: every seat blinks fast and
the dealer display says which fault it is and to call a technician (``MEMORY FAULT:
CALL TECHNICIAN``, ``STORAGE FAULT: ...``, ``SOFTWARE FAULT: ...``) above the fault's
short name, in the display's language (``controller.fault_words``).
A lost keypad or display stops play too: every seat shows the fault pattern until it
comes back (the display, when it is there, says which device).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller import lights as looks
from controller.fault_words import NO_JOURNAL_LOCK, lock_key
from controller.rules.text import Message, msg, render
from drivers.interfaces import ClockDisplay, Pattern, SeatLights

FAULT_LINE = render(msg(lock_key(NO_JOURNAL_LOCK)))
"""A memory fault's first line (``JournalIntegrityError.lock_line``), also shown when
there is no journal at all."""


@dataclass
class Shown:
    """What the devices were last told (None: not yet, or forgotten)."""

    patterns: dict[int, str] = field(default_factory=dict)
    text: tuple[str, str] | None = None
    clock: tuple[int | None, bool] | None = None


class Outputs:
    def __init__(
        self,
        lights: SeatLights,
        display: ClockDisplay,
        seats: int,
        language: str,
        patterns: looks.LightPatterns | None = None,
    ) -> None:
        self.patterns = patterns or looks.DEFAULT_PATTERNS
        self.lights = lights
        self.display = display
        self.seats = seats
        self.language = language
        self.shown = Shown()

    def redrive(self) -> None:
        self.shown = Shown()

    def show(
        self,
        view: Mapping[str, Any],
        *,
        countdown_ms: int | None,
        warning: bool,
        device_fault: Message | str | None = None,
        refusal: Message | str | None = None,
        expired: tuple[int, str] | None = None,
        alerts: Sequence[Message | str] = (),
        puck_seats: Collection[int] = (),
        halted: bool = False,
    ) -> None:
        """``halted``: a device fault stops play (``looks.HALTING_DEVICES``): every seat
        shows the fault pattern."""
        patterns = looks.seat_patterns(
            view, self.seats, self.patterns, fault=halted, puck_seats=puck_seats
        )
        self._lights(patterns)
        line1, line2 = looks.dealer_lines(
            view,
            language=self.language,
            fault=device_fault,
            refusal=refusal,
            expired=expired,
            alerts=alerts,
        )
        self._text(line1, line2)
        # the expired seat's zero, unless a shot clock already times the next decision
        if expired is not None and countdown_ms is None:
            self._clock(0, True)
        else:
            self._clock(countdown_ms, warning)

    def show_clock(self, countdown_ms: int | None, warning: bool) -> None:
        self._clock(countdown_ms, warning)

    def show_fault(self, line: Message | str, short: Message | str) -> None:
        """The sticky fault: every seat fast blink, which fault and the call for a
        technician (``line``), its short name (``controller.fault_words``)."""
        self._lights({seat: self.patterns.fault for seat in range(1, self.seats + 1)})
        self._text(looks.fit(self._words(line)), looks.fit(self._words(short)))
        self._clock(None, False)

    def _words(self, said: Message | str) -> str:
        return said if isinstance(said, str) else render(said, self.language)

    # -- the devices -------------------------------------------------------------------

    def _lights(self, patterns: Mapping[int, str]) -> None:
        for seat, name in patterns.items():
            if self.shown.patterns.get(seat) != name:
                self.lights.show(seat, Pattern(name))
                self.shown.patterns[seat] = name

    def _text(self, line1: str, line2: str) -> None:
        if self.shown.text != (line1, line2):
            self.display.show_text(line1, line2)
            self.shown.text = (line1, line2)

    def _clock(self, ms: int | None, warning: bool) -> None:
        # the digits show whole seconds, rounded up: 59.2 s left shows 60 until 59 s
        seconds = None if ms is None else -(-ms // 1000)
        if self.shown.clock != (seconds, warning):
            self.display.show_clock(None if seconds is None else seconds * 1000, warning)
            self.shown.clock = (seconds, warning)
