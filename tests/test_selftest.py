"""`controller.selftest`: the technician's checks, on the real-device path.

The devices run against their simulators, but the checks are not told: a stand-in
technician does what each instruction says to the simulators (places the puck, presses
the key) and answers each question from what the simulators show (a light's pin, what
the display received). So the prompts, the waits and the verdicts of a run at a real
table are what is tested. `tablectl selftest --simulated --yes` (the checks playing the
simulators themselves) is tested in test_bench_tui.py.
"""

from __future__ import annotations

import dataclasses
import io
import os
import queue
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.config import load_config
from controller.selftest import TEST_CLOCK_MS, TEST_LINE1, Console, Selftest
from drivers.build import Devices, Simulators, open_devices
from drivers.events import DeviceEvent
from tests.waiting import eventually

ROOT = Path(__file__).resolve().parent.parent


def _until(condition: Callable[[], bool], timeout: float = 2.0) -> bool:
    return eventually(condition, timeout)


class Hands:
    """A technician who does as told, to the simulators, and answers truthfully."""

    def __init__(
        self,
        sim: Simulators,
        *,
        wrong_light: int | None = None,
        swap_puck: tuple[int, int] | None = None,
        stuck_door: bool = False,
    ) -> None:
        self.sim = sim
        self.stuck_door = stuck_door
        self.wrong_light = wrong_light
        self.swap_puck = swap_puck
        self.said: list[str] = []
        self.asked: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)
        assert self.sim.puck is not None and self.sim.keypad is not None
        if found := re.fullmatch(r"puck: place the button puck at seat (\d+)", text):
            seat = int(found.group(1))
            if self.swap_puck and seat in self.swap_puck:
                seat = self.swap_puck[1 - self.swap_puck.index(seat)]
            self.sim.puck.place(seat)
        elif text == "puck: lift the button puck off the table":
            self.sim.puck.lift()
        elif found := re.fullmatch(r"door: (open|close) the controller's door", text):
            assert self.sim.door is not None
            if not self.stuck_door:
                (self.sim.door.open if found.group(1) == "open" else self.sim.door.close)()
        elif found := re.fullmatch(r"keypad: press (\w+)", text):
            self.sim.keypad.press(found.group(1))

    def confirm(self, question: str) -> bool:
        self.asked.append(question)
        lights, display = self.sim.lights, self.sim.display
        assert lights is not None and display is not None
        if found := re.fullmatch(
            r"lights: is the light at seat (\d+) on, and no other\?", question
        ):
            seat = int(found.group(1))
            seen = _until(
                lambda: all(lights.level(s) == (1.0 if s == seat else 0.0) for s in lights.seats)
            )
            return seen and seat != self.wrong_light
        if question.startswith("Did every segment"):
            return _until(lambda: bool(display.lamp_tests))
        if question.startswith("Does the display read"):
            return _until(
                lambda: (
                    display.shown.line1 == TEST_LINE1 and display.shown.clock_ms == TEST_CLOCK_MS
                )
            )
        return question == "Is that what the tray holds?"


@pytest.fixture
def table() -> Iterator[tuple[Devices, Simulators, queue.Queue[DeviceEvent]]]:
    settings = load_config(ROOT / "config" / "bench.yaml")
    assert settings.hardware is not None
    events: queue.Queue[DeviceEvent] = queue.Queue()
    devices = open_devices(settings.hardware, events, simulated=True)
    assert devices.sim is not None
    try:
        yield devices, devices.sim, events
    finally:
        devices.close()


def _as_real(devices: Devices) -> Devices:
    """The same devices, with the simulator handles hidden from the checks."""
    return dataclasses.replace(devices, sim=None)


def test_a_technician_walks_through_every_check(table: tuple) -> None:
    devices, sim, events = table
    hands = Hands(sim)
    sim.tray.set_counts({5: 20, 100: 3})
    test = Selftest(_as_real(devices), events, hands, puck_seats=tuple(range(1, 10)), timeout=5.0)
    results = {r.device: r for r in test.run()}
    assert {name: r.status for name, r in results.items()} == dict.fromkeys(
        ("display", "lights", "puck", "door", "keypad", "tray"), "PASS"
    )
    assert hands.said.index("door: open the controller's door") < hands.said.index(
        "door: close the controller's door"
    )
    assert "puck: place the button puck at seat 9" in hands.said
    assert "keypad: press FUNC" in hands.said
    assert "tray: the reader counts 20 x 5, 3 x 100 = 400" in hands.said
    assert len([q for q in hands.asked if q.startswith("lights:")]) == 9
    assert results["tray"].detail == "read 20 x 5, 3 x 100 = 400"
    assert sim.display.wait_shown(line1="SELFTEST DONE")


def test_a_door_switch_that_never_changes_fails(table: tuple) -> None:
    devices, sim, events = table
    hands = Hands(sim, stuck_door=True)
    test = Selftest(_as_real(devices), events, hands, timeout=0.5)
    (result,) = test.run(("door",))
    assert (result.status, result.detail) == (
        "FAIL",
        "door open not read: check the switch, its pin and open_level",
    )


def test_wiring_mistakes_fail_with_the_seats_named(table: tuple) -> None:
    devices, sim, events = table
    hands = Hands(sim, wrong_light=4, swap_puck=(2, 3))
    test = Selftest(_as_real(devices), events, hands, puck_seats=tuple(range(1, 10)), timeout=5.0)
    results = {r.device: r for r in test.run(("lights", "puck"))}
    assert results["lights"].status == "FAIL"
    assert "seat(s) 4: check the wiring table" in results["lights"].detail
    assert results["puck"].status == "FAIL"
    assert "puck at seat 2 read at seat 3: sensors swapped?" in results["puck"].detail


def test_a_missing_keypad_fails_and_a_disabled_one_is_skipped(table: tuple) -> None:
    devices, sim, events = table
    sim.keypad.unplug()
    out = io.StringIO()
    test = Selftest(
        _as_real(devices), events, Console(out=out, yes=True), timeout=1.0, connect_seconds=0.5
    )
    [result] = test.run(("keypad",))
    assert result.status == "FAIL" and "keypad" in result.detail
    # the unplug may reach the driver before or after the first prompt: either way the
    # keypad's verdict line says FAIL
    assert any(line.startswith("FAIL  keypad") for line in out.getvalue().splitlines())

    settings = load_config(ROOT / "config" / "bench.yaml")
    assert settings.hardware is not None
    hardware = dataclasses.replace(
        settings.hardware, keypad=dataclasses.replace(settings.hardware.keypad, enabled=False)
    )
    other: queue.Queue[DeviceEvent] = queue.Queue()
    with open_devices(hardware, other, simulated=True) as without:
        [skipped] = Selftest(without, other, Console(out=out, yes=True)).run(("keypad",))
    assert skipped.status == "SKIP"


def _is_a_pi() -> bool:
    cpuinfo = Path("/proc/cpuinfo")
    return Path("/proc/device-tree/system/linux,revision").exists() or (
        cpuinfo.exists() and "\nRevision" in cpuinfo.read_text()
    )


@pytest.mark.skipif(_is_a_pi(), reason="this machine is a Raspberry Pi: its GPIO is found")
def test_selftest_on_a_machine_without_gpio_says_so_in_one_line() -> None:
    env = {key: value for key, value in os.environ.items() if key != "GPIOZERO_PIN_FACTORY"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller",
            "selftest",
            "--config",
            str(ROOT / "config" / "table.example.yaml"),
            "--yes",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "no GPIO found" in lines[0] and "python3-lgpio" in lines[0]
    assert "--simulated" in lines[0]
