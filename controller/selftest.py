"""The technician's hardware checks (``tablectl selftest``), one device at a time.

Each check drives a device through its real driver and watches what comes back:

- ``display``: the serial link shakes hands; a lamp test (every segment and pixel); a
  text on both lines and 88 on the clock digits.
- ``lights``: each seat light on alone, in seat order.
- ``puck``: the button puck placed at each seat in turn must be read at that seat,
  then lifted.
- ``door``: the controller's door opened must be read open, then closed read closed.
- ``keypad``: every key pressed in turn must be read as that key.
- ``tray``: a reading of the chip tray (value and count of each chip).

On real devices a person does what a check asks (place the puck, press a key) and
confirms what only eyes can see (a light, the display); ``--yes`` answers those
questions yes. With simulated devices the check plays the simulator itself and reads
the result off it (the pins of the lights, what the display received), so the whole
test runs unattended: that is how CI runs it.

Each check ends with one line: ``PASS``, ``FAIL`` (and why) or ``SKIP`` (the device is
not configured). The dealer display shows what the technician must do at the table.
"""

from __future__ import annotations

import queue
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Protocol

from drivers.absent import (
    AbsentDisplay,
    AbsentDoor,
    AbsentKeypad,
    AbsentLights,
    AbsentPuck,
    AbsentTray,
)
from drivers.build import Devices
from drivers.events import (
    KEYS,
    DeviceEvent,
    DeviceFault,
    DoorChanged,
    KeyPressed,
    PuckFault,
    PuckMoved,
    TrayCounts,
)
from drivers.interfaces import Pattern
from drivers.sim.pins import SimLights

CHECKS = ("display", "lights", "puck", "door", "keypad", "tray")
CONNECT_SECONDS = 5.0
SIM_SECONDS = 5.0  # a simulated device answers well within this
TEST_LINE1 = "DISPLAY TEST"
TEST_LINE2 = "0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ"
TEST_CLOCK_MS = 88_000


@dataclass(frozen=True)
class Result:
    """One device's self-test result: PASS, FAIL or SKIP, with what was seen."""

    device: str
    status: str  # PASS | FAIL | SKIP
    detail: str

    def line(self) -> str:
        return f"{self.status:<4}  {self.device:<7}  {self.detail}"


class Technician(Protocol):
    def say(self, text: str) -> None:
        """Tell the technician something (an instruction, a result)."""

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question about what only eyes can see."""


class Console:
    """The technician at a terminal; ``yes`` answers every question yes."""

    def __init__(
        self, out: IO[str] = sys.stdout, ask: Callable[[str], str] = input, yes: bool = False
    ) -> None:
        self.out = out
        self.ask = ask
        self.yes = yes

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def confirm(self, question: str) -> bool:
        if self.yes:
            self.say(f"{question} [y/n] y (--yes)")
            return True
        while True:
            try:
                answer = self.ask(f"{question} [y/n] ").strip().lower()
            except EOFError:
                return False
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no"):
                return False


class Selftest:
    """The checks on opened ``devices``, whose events arrive on ``events``."""

    def __init__(
        self,
        devices: Devices,
        events: queue.Queue[DeviceEvent],
        technician: Technician,
        *,
        puck_seats: tuple[int, ...] = (),
        timeout: float = 60.0,
        tray_counts: dict[int, int] | None = None,
        connect_seconds: float = CONNECT_SECONDS,
    ) -> None:
        self.devices = devices
        self.events = events
        self.technician = technician
        self.puck_seats = tuple(sorted(puck_seats))  # the seats with a puck sensor
        self.sim = devices.sim
        self.timeout = SIM_SECONDS if self._all_simulated() else timeout
        self.tray_counts = dict(tray_counts or {5: 100, 25: 40})
        self.connect_seconds = connect_seconds

    def _all_simulated(self) -> bool:
        return self.sim is not None and all(
            getattr(self.sim, name) is not None or isinstance(getattr(self.devices, name), absent)
            for name, absent in (
                ("puck", AbsentPuck),
                ("door", AbsentDoor),
                ("lights", AbsentLights),
                ("keypad", AbsentKeypad),
                ("tray", AbsentTray),
                ("display", AbsentDisplay),
            )
        )

    def run(self, only: tuple[str, ...] = CHECKS) -> list[Result]:
        results = []
        for name in CHECKS:
            if name not in only:
                continue
            check: Callable[[], Result] = getattr(self, f"check_{name}")
            result = check()
            self.technician.say(result.line())
            results.append(result)
        self._show(
            "SELFTEST DONE", " ".join(f"{r.device[:4].upper()} {r.status}" for r in results)[:40]
        )
        return results

    # -- helpers -------------------------------------------------------------------------

    def _show(self, line1: str, line2: str = "") -> None:
        """Tell the technician at the table, on the dealer display (when it works)."""
        display = self.devices.display
        if not isinstance(display, AbsentDisplay) and display.connected:
            display.show_text(line1, line2)

    def _drain(self) -> None:
        while True:
            try:
                self.events.get_nowait()
            except queue.Empty:
                return

    def _next_event(self, kinds: tuple[type, ...], timeout: float) -> DeviceEvent | None:
        """The next event of one of ``kinds`` within ``timeout`` (others are dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                return None
            if isinstance(event, kinds):
                return event

    def _connected(self, name: str) -> str | None:
        """Why the serial device ``name`` is not talking, or None when it is."""
        device = getattr(self.devices, name)
        wait = getattr(device, "wait_connected", None)
        if wait is not None and wait(self.connect_seconds):
            return None
        return device.fault or f"the {name} did not answer within {self.connect_seconds:g} s"

    @staticmethod
    def _until(condition: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    # -- the checks ------------------------------------------------------------------------

    def check_display(self) -> Result:
        display = self.devices.display
        if isinstance(display, AbsentDisplay):
            return Result("display", "SKIP", "not enabled in the configuration")
        problem = self._connected("display")
        if problem is not None:
            return Result("display", "FAIL", problem)
        sim = self.sim.display if self.sim is not None else None
        display.lamp_test(2000)
        if sim is not None:
            lit = self._until(lambda: bool(sim.lamp_tests), SIM_SECONDS)
        else:
            self.technician.say("display: every segment and pixel lights for 2 seconds")
            lit = self.technician.confirm("Did every segment and pixel of the display light?")
        if not lit:
            return Result("display", "FAIL", "the lamp test was not seen")
        display.show_text(TEST_LINE1, TEST_LINE2)
        display.show_clock(TEST_CLOCK_MS)
        if sim is not None:
            shown = sim.wait_shown(
                SIM_SECONDS, line1=TEST_LINE1, line2=TEST_LINE2, clock_ms=TEST_CLOCK_MS
            )
        else:
            shown = self.technician.confirm(
                f"Does the display read {TEST_LINE1!r} over {TEST_LINE2!r}, "
                f"and the clock {TEST_CLOCK_MS // 1000}?"
            )
        display.show_clock(None)
        if not shown:
            return Result("display", "FAIL", "the test text or clock digits were not shown")
        firmware = getattr(display, "firmware", None)
        return Result(
            "display",
            "PASS",
            "lamp test, both text lines and the clock digits"
            + (f" (firmware {firmware})" if firmware else ""),
        )

    def check_lights(self) -> Result:
        lights = self.devices.lights
        seats = tuple(lights.seats)
        if not seats:
            return Result("lights", "SKIP", "no seat light pins in the configuration")
        sim = self.sim.lights if self.sim is not None else None
        wrong: list[int] = []
        for seat in seats:
            for other in seats:
                lights.show(other, Pattern.ON if other == seat else Pattern.OFF)
            self._show("SELFTEST LIGHTS", f"SEAT {seat} LIGHT ON")
            if sim is not None:
                seen = self._until(_alone(sim, seats, seat), SIM_SECONDS)
            else:
                seen = self.technician.confirm(
                    f"lights: is the light at seat {seat} on, and no other?"
                )
            if not seen:
                wrong.append(seat)
        for seat in seats:
            lights.show(seat, Pattern.OFF)
        if wrong:
            return Result(
                "lights",
                "FAIL",
                "wrong or dark at seat(s) "
                + " ".join(str(s) for s in wrong)
                + ": check the wiring table",
            )
        return Result("lights", "PASS", f"{len(seats)} seat lights, each lit alone in turn")

    def check_puck(self) -> Result:
        puck = self.devices.puck
        sim = self.sim.puck if self.sim is not None else None
        seats = self.puck_seats
        if isinstance(puck, AbsentPuck) or not seats:
            return Result("puck", "SKIP", "no puck sensor pins in the configuration")
        problems: list[str] = []
        self._drain()
        for seat in seats:
            self._show("SELFTEST PUCK", f"PLACE BUTTON ON SEAT {seat}")
            if sim is not None:
                sim.place(seat)
            else:
                self.technician.say(f"puck: place the button puck at seat {seat}")
            problem = self._puck_reads(seat)
            if problem is not None:
                problems.append(problem)
                if problem.endswith("not seen"):
                    break  # nobody at the table, or the sensors are dead: stop asking
        if not problems:
            self._show("SELFTEST PUCK", "LIFT THE BUTTON")
            if sim is not None:
                sim.lift()
            else:
                self.technician.say("puck: lift the button puck off the table")
            problem = self._puck_reads(None)
            if problem is not None:
                problems.append(problem)
        if problems:
            return Result("puck", "FAIL", "; ".join(problems))
        return Result(
            "puck", "PASS", f"{len(seats)} seat sensors, each read at its seat; lifted read"
        )

    def _puck_reads(self, seat: int | None) -> str | None:
        """None when the sensor reports the puck at ``seat`` (None: lifted)."""
        where = "lifted" if seat is None else f"at seat {seat}"
        if seat is not None and self.devices.puck.seat == seat:
            return None  # it was there already
        deadline = time.monotonic() + self.timeout
        while True:
            event = self._next_event((PuckMoved, PuckFault), max(0.0, deadline - time.monotonic()))
            if event is None:
                return f"puck {where} not seen"
            if isinstance(event, PuckMoved) and event.seat == seat:
                return None
            if isinstance(event, PuckFault):
                return f"puck {where} seen at seats {' '.join(map(str, event.seats))} at once"
            if isinstance(event, PuckMoved) and event.seat is not None:
                return f"puck {where} read at seat {event.seat}: sensors swapped?"

    def check_door(self) -> Result:
        if isinstance(self.devices.door, AbsentDoor):
            return Result("door", "SKIP", "no door switch pin in the configuration")
        sim = self.sim.door if self.sim is not None else None
        self._drain()
        for status, verb in (("open", "open"), ("closed", "close")):
            self._show("SELFTEST DOOR", f"{verb.upper()} THE DOOR")
            if sim is not None:
                (sim.open if status == "open" else sim.close)()
            else:
                self.technician.say(f"door: {verb} the controller's door")
            problem = self._door_reads(status)
            if problem is not None:
                return Result("door", "FAIL", problem)
        return Result("door", "PASS", "the door switch read open when opened, closed when closed")

    def _door_reads(self, status: str) -> str | None:
        """None when the switch reports the door ``status`` (or already did)."""
        if self.devices.door.status == status:
            return None
        deadline = time.monotonic() + self.timeout
        while True:
            event = self._next_event((DoorChanged,), max(0.0, deadline - time.monotonic()))
            if event is None:
                return f"door {status} not read: check the switch, its pin and open_level"
            if isinstance(event, DoorChanged) and event.status == status:
                return None

    def check_keypad(self) -> Result:
        keypad = self.devices.keypad
        if isinstance(keypad, AbsentKeypad):
            return Result("keypad", "SKIP", "not enabled in the configuration")
        problem = self._connected("keypad")
        if problem is not None:
            return Result("keypad", "FAIL", problem)
        sim = self.sim.keypad if self.sim is not None else None
        self._drain()
        problems: list[str] = []
        for key in KEYS:
            self._show("SELFTEST KEYPAD", f"PRESS {key}")
            if sim is not None:
                sim.press(key)
            else:
                self.technician.say(f"keypad: press {key}")
            event = self._next_event((KeyPressed, DeviceFault), self.timeout)
            if event is None:
                problems.append(f"{key} not read")
                break
            if isinstance(event, DeviceFault):
                problems.append(f"fault while waiting for {key}: {event.message}")
                break
            if isinstance(event, KeyPressed) and event.key != key:
                problems.append(f"{event.key} read for {key}")
        if problems:
            return Result("keypad", "FAIL", "; ".join(problems))
        return Result("keypad", "PASS", f"all {len(KEYS)} keys, each read as itself")

    def check_tray(self) -> Result:
        tray = self.devices.tray
        if isinstance(tray, AbsentTray):
            return Result("tray", "SKIP", "not enabled in the configuration")
        problem = self._connected("tray")
        if problem is not None:
            return Result("tray", "FAIL", problem)
        sim = self.sim.tray if self.sim is not None else None
        self._drain()
        if sim is not None:
            sim.set_counts(self.tray_counts)
        self._show("SELFTEST TRAY", "READING THE CHIP TRAY")
        tray.request_counts()
        wanted = self.tray_counts if sim is not None else None
        deadline = time.monotonic() + self.timeout
        reading: TrayCounts | None = None
        while reading is None:
            event = self._next_event((TrayCounts,), max(0.0, deadline - time.monotonic()))
            if event is None:
                return Result("tray", "FAIL", "no reading from the chip tray")
            if isinstance(event, TrayCounts) and (wanted is None or event.counts == wanted):
                reading = event
        counts = reading.counts
        total = sum(value * count for value, count in counts.items())
        described = ", ".join(f"{count} x {value}" for value, count in sorted(counts.items()))
        text = f"{described or 'empty'} = {total}"
        if sim is None:
            self.technician.say(f"tray: the reader counts {text}")
            if not self.technician.confirm("Is that what the tray holds?"):
                return Result("tray", "FAIL", f"read {text}, not what the tray holds")
        return Result("tray", "PASS", f"read {text}")


def _alone(sim: SimLights, seats: tuple[int, ...], lit: int) -> Callable[[], bool]:
    """Whether seat ``lit``'s light is on and every other one off, on the pins."""
    return lambda: all(sim.level(seat) == (1.0 if seat == lit else 0.0) for seat in seats)
