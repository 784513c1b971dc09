"""The door switch in the daemon (hardware.door): the MockFactory pin driven open and
closed under a running action clock; the clock holds while the door is open and goes
on with the time it had; each change journalled once (a door event), in the system log
and on the display; a bouncing switch journals nothing; a restart finds the door as it
is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.journal import Journal
from drivers.interfaces import Pattern
from tests.daemon_helpers import (
    journal_events,
    press,
    running,
    seat_players,
    shown,
    view,
    wait_for,
    write_config,
)
from tests.mock_clock import MockClock

PIN = 26


def door_config(directory: Path, door: str = f"door: {{pin: {PIN}, debounce_ms: 20}}") -> Path:
    config = write_config(directory, clock=60, warning=10)
    text = config.read_text()
    lights = "    pins: {1: 16, 2: 17, 3: 18, 4: 19, 5: 20, 6: 21, 7: 22, 8: 23, 9: 24}\n"
    config.write_text(text.replace(lights, lights + (f"  {door}\n" if door else "")))
    return config


def pin(daemon: Any) -> Any:
    """The door switch's gpiozero MockPin (open_level high: high is open)."""
    return daemon.devices.sim.pin_factory.pin(PIN)


def door_events(state: Path) -> list[str]:
    return [e.event["status"] for e in journal_events(state) if e.event["type"] == "door"]


def system_log(state: Path, kind: str) -> list[dict[str, Any]]:
    with Journal.open_readonly(state) as journal:
        return [e.detail for e in journal.iter_system_log() if e.kind == kind]


def test_the_door_opened_mid_hand_holds_the_clock_and_closed_it_goes_on(tmp_path: Path) -> None:
    clock = MockClock()
    config = door_config(tmp_path)
    state = tmp_path / "state"
    with running(config, clock=clock) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis"})
        press(daemon, "NEXT", "CLOCK")
        wait_for(lambda: view(daemon)["clock"] is not None, what="the clock called")
        seat = view(daemon)["clock"]["seat"]
        clock.jump(6.0)
        wait_for(lambda: shown(daemon).clock_ms == 54_000, what="54 s left on the digits")
        pin(daemon).drive_high()  # the door opens
        wait_for(lambda: view(daemon)["play_stopped"] == ["door_open"], what="play stopped")
        for _ in range(4):
            clock.jump(30.0)  # two minutes, far past the expiry
        wait_for(lambda: shown(daemon).line1 == "DOOR OPEN: CLOCK HELD", what="the display")
        held = view(daemon)["clock"]
        assert held is not None and held["seat"] == seat and not held["warning"]
        assert 50_000 <= held["remaining_ms"] <= 54_000
        assert view(daemon)["seats"][str(seat)]["status"] == "playing"
        # a knock on the open door: the switch bounces and settles open, nothing new
        for _ in range(10):
            pin(daemon).drive_low()
            pin(daemon).drive_high()
        pin(daemon).drive_low()  # closed
        wait_for(lambda: view(daemon)["play_stopped"] == [], what="play goes on")
        assert view(daemon)["clock"]["remaining_ms"] == held["remaining_ms"]
        clock.jump(5.0)
        wait_for(
            lambda: view(daemon)["clock"]["remaining_ms"] == held["remaining_ms"] - 5000,
            what="the clock counts again",
        )
    assert door_events(state) == ["open", "closed"]
    assert [(d["status"], d["seq"] is not None) for d in system_log(state, "door")] == [
        ("open", True),
        ("closed", True),
    ]
    assert [d["causes"] for d in system_log(state, "play_stopped")] == [["door_open"], []]


def test_no_hand_starts_while_the_door_is_open_and_a_bouncing_switch_journals_nothing(
    tmp_path: Path,
) -> None:
    config = door_config(tmp_path)
    with running(config) as daemon:
        sim = daemon.devices.sim  # type: ignore[union-attr]
        assert sim is not None and sim.door is not None
        seat_players(daemon, {2: "ana", 5: "luis"})
        sim.door.bounce(30, end_open=False)  # closed all along
        sim.door.open()
        wait_for(lambda: view(daemon)["play_stopped"] == ["door_open"], what="play stopped")
        lights = daemon.devices.lights  # type: ignore[union-attr]
        wait_for(
            lambda: all(lights.pattern(s) == Pattern.FAST_BLINK for s in range(1, 10)),
            what="every seat shows the fault pattern",
        )
        outcome = daemon.submit({"type": "start_hand"})
        assert not outcome.ok and outcome.error["code"] == "play_stopped"
        assert outcome.error["message"] == "PLAY STOPPED: DOOR OPEN"
        press(daemon, "NEXT")
        assert view(daemon)["hand"] == 0
        sim.door.open()  # opened twice: the switch is already open
        sim.door.close()
        wait_for(lambda: view(daemon)["play_stopped"] == [], what="play goes on")
        wait_for(lambda: lights.pattern(1) == Pattern.OFF, what="an empty seat's light off")
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["hand"] == 1, what="a hand dealt")
    assert door_events(tmp_path / "state") == ["open", "closed"]


def test_a_restart_finds_the_door_as_it_is(tmp_path: Path) -> None:
    """Stopped with the door open; started with it closed: journalled closed. Started
    with it open again (the simulated door starts closed, so opened at once): open once.
    Started on a configuration without the switch: nothing can close it, so closed."""
    config = door_config(tmp_path)
    state = tmp_path / "state"
    with running(config) as daemon:
        daemon.devices.sim.door.open()  # type: ignore[union-attr]
        wait_for(lambda: view(daemon)["play_stopped"] == ["door_open"], what="play stopped")
    with running(config) as again:
        wait_for(lambda: view(again)["play_stopped"] == [], what="found closed")
    assert door_events(state) == ["open", "closed"]
    with running(config) as third:
        third.devices.sim.door.open()  # type: ignore[union-attr]
        wait_for(lambda: view(third)["play_stopped"] == ["door_open"], what="play stopped")
    door_config(tmp_path, door="")
    with running(config) as without:
        wait_for(lambda: view(without)["play_stopped"] == [], what="closed without a switch")
    assert door_events(state) == ["open", "closed", "open", "closed"]
