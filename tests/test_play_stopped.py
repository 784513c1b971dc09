"""Play stopped by the table (controller.rules.stopped, docs/replay.md): while the keypad
or the display is lost the action clock stands still and no hand starts; when every
cause has cleared the clock goes on with the time it had. In the rules core, through
replay, and through the daemon with a simulated keypad pulled out (the bench's bug: the
clock folded a player while the keypad was lost)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.journal import Journal
from controller.replay import step
from controller.rules import Refusal, RuleSettings, Table, parse_event, state_view
from controller.rules.effects import ClockExpired, PlayStopped
from controller.rules.errors import BadEvent
from controller.rules.settings import ClockSettings
from controller.rules.state import TableState
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


def apply(table: Table, **event: Any) -> list[Any]:
    return table.apply(parse_event(event))


def on_the_clock(seconds: int = 60) -> Table:
    """Two players, a hand dealt, the clock called on the seat to act."""
    table = Table(RuleSettings(clock=ClockSettings(seconds=seconds, warning=10)))
    apply(table, type="sit", seat=1, player="ana", chips=1000)
    apply(table, type="sit", seat=5, player="luis", chips=1000)
    apply(table, type="start_hand")
    apply(table, type="call_clock")
    return table


def test_a_lost_keypad_stops_the_clock_and_it_goes_on_with_the_time_it_had() -> None:
    table = on_the_clock()
    apply(table, type="tick", ms=5000)
    out = apply(table, type="device", device="keypad", status="lost")
    assert out == [PlayStopped(("keypad_lost",))]
    before = table.state.to_dict()
    # far past the warning and the expiry: a tick passes the clock by
    assert apply(table, type="tick", ms=120_000) == []
    assert table.state.clock is not None and table.state.clock.remaining_ms == 55_000
    assert not table.state.clock.warning
    assert table.state.hand is not None and table.state.hand.to_act == 5
    after = table.state.to_dict()
    assert after.pop("elapsed_ms") == before.pop("elapsed_ms") + 120_000  # table time runs
    assert after == before
    assert apply(table, type="device", device="keypad", status="back") == [PlayStopped(())]
    apply(table, type="tick", ms=45_000)
    assert table.state.clock.remaining_ms == 10_000 and table.state.clock.warning
    out = apply(table, type="tick", ms=10_000)
    assert ClockExpired(5, "fold") in out


def test_every_cause_must_clear_before_the_clock_counts_again() -> None:
    table = on_the_clock()
    apply(table, type="device", device="display", status="lost")
    apply(table, type="device", device="keypad", status="lost")
    assert state_view(table)["play_stopped"] == ["keypad_lost", "display_lost"]
    apply(table, type="device", device="display", status="back")
    assert table.state.play_stopped == ["keypad_lost"]
    apply(table, type="tick", ms=90_000)
    assert table.state.clock is not None and table.state.clock.remaining_ms == 60_000
    apply(table, type="device", device="keypad", status="back")
    apply(table, type="tick", ms=1_000)
    assert table.state.clock.remaining_ms == 59_000


@pytest.mark.parametrize("device", ["tray", "puck", "lights"])
def test_a_lost_tray_puck_sensor_or_seat_lights_stops_nothing(device: str) -> None:
    table = on_the_clock()
    assert apply(table, type="device", device=device, status="lost") == []
    assert table.state.play_stopped == []
    out = apply(table, type="tick", ms=60_000)
    assert ClockExpired(5, "fold") in out


def test_no_hand_starts_while_play_is_stopped_by_event_or_by_key() -> None:
    table = on_the_clock()
    apply(table, type="act", seat=5, action="fold")
    assert table.state.phase == "idle"
    apply(table, type="device", device="display", status="lost")
    before = table.state.to_dict()
    with pytest.raises(Refusal, match="^play_stopped: PLAY STOPPED: DISPLAY LOST$"):
        apply(table, type="start_hand")
    with pytest.raises(Refusal, match="^play_stopped: "):
        apply(table, type="key", key="NEXT")
    table.refused(parse_event({"type": "key", "key": "NEXT"}))
    assert table.state.to_dict() == before
    assert state_view(table)["display"][0] == "PLAY STOPPED: CLOCK HELD"
    apply(table, type="device", device="display", status="back")
    apply(table, type="key", key="NEXT")
    assert table.state.phase == "preflop"


def test_the_display_says_so_in_spanish() -> None:
    from controller.rules.text import refusal_text, render
    from controller.rules.view import display_messages

    table = on_the_clock()
    apply(table, type="device", device="keypad", status="lost")
    assert [render(m, "es") for m in display_messages(table)][0] == ("JUEGO DETENIDO: RELOJ PARADO")
    apply(table, type="act", seat=5, action="fold")  # from the console: still taken
    with pytest.raises(Refusal) as refused:
        apply(table, type="start_hand")
    assert refusal_text(refused.value, "es") == "JUEGO DETENIDO: TECLADO PERDIDO"


def test_a_misdeal_a_snapshot_and_an_undo_keep_play_stopped() -> None:
    table = on_the_clock()
    apply(table, type="act", seat=5, action="call")
    apply(table, type="device", device="keypad", status="lost")
    apply(table, type="undo")
    assert table.state.play_stopped == ["keypad_lost"]
    apply(table, type="misdeal")
    assert table.state.play_stopped == ["keypad_lost"]
    again = TableState.from_dict(table.state.to_dict())
    assert again.play_stopped == ["keypad_lost"]
    old = table.state.to_dict()
    del old["play_stopped"]  # a snapshot written before the field: play goes on
    assert TableState.from_dict(old).play_stopped == []


def test_an_open_door_stops_play_and_says_so_in_english_and_spanish() -> None:
    from controller.rules.text import refusal_text, render
    from controller.rules.view import display_messages

    table = on_the_clock()
    apply(table, type="tick", ms=4000)
    assert apply(table, type="door", status="open") == [PlayStopped(("door_open",))]
    assert apply(table, type="door", status="open") == []  # opened twice: one cause
    assert apply(table, type="tick", ms=600_000) == []
    assert table.state.clock is not None and table.state.clock.remaining_ms == 56_000
    assert [render(m, "en") for m in display_messages(table)][0] == "DOOR OPEN: CLOCK HELD"
    assert [render(m, "es") for m in display_messages(table)][0] == ("PUERTA ABIERTA: RELOJ PARADO")
    # with a device lost as well, the door is still what the display names
    apply(table, type="device", device="keypad", status="lost")
    assert state_view(table)["display"][0] == "DOOR OPEN: CLOCK HELD"
    apply(table, type="device", device="keypad", status="back")
    apply(table, type="act", seat=5, action="fold")
    with pytest.raises(Refusal) as refused:
        apply(table, type="start_hand")
    assert refused.value.code == "play_stopped"
    assert refusal_text(refused.value, "en") == "PLAY STOPPED: DOOR OPEN"
    assert refusal_text(refused.value, "es") == "JUEGO DETENIDO: PUERTA ABIERTA"
    assert apply(table, type="door", status="closed") == [PlayStopped(())]
    apply(table, type="start_hand")
    assert table.state.phase == "preflop"


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"type": "door"}, "MISSING FIELD 'status'"),
        ({"type": "door", "status": "ajar"}, "MUST BE ONE OF open, closed"),
        ({"type": "device", "status": "lost"}, "MISSING FIELD 'device'"),
        ({"type": "device", "device": "toaster", "status": "lost"}, "MUST BE ONE OF keypad"),
        ({"type": "device", "device": "keypad", "status": "gone"}, "MUST BE ONE OF lost, back"),
    ],
)
def test_a_bad_device_event_says_what_is_wrong(event: dict[str, Any], message: str) -> None:
    with pytest.raises(BadEvent, match=message):
        parse_event(event)
    table = on_the_clock()
    result = step(table, event)
    assert result.refusal is not None and message in result.refusal.message


# -- the daemon: the bench's bug ----------------------------------------------------------


def test_the_clock_does_not_fold_a_player_while_the_keypad_is_lost(tmp_path: Path) -> None:
    """Bench: a hand in play, CLOCK keyed, the keypad unplugged; 54 s later the clock
    had folded seat 5 while the display said KEYPAD LOST. Now the daemon journals the
    loss and the return, the clock stands still in between (the digits too), and goes
    on with the time it had; a restart while the keypad is back finds play going on."""
    clock = MockClock()
    config = write_config(tmp_path, clock=60, warning=10)
    with running(config, clock=clock) as daemon:
        sim = daemon.devices.sim  # type: ignore[union-attr]
        assert sim is not None and sim.keypad is not None
        seat_players(daemon, {2: "ana", 5: "luis"})
        press(daemon, "NEXT", "CLOCK")
        wait_for(lambda: view(daemon)["clock"] is not None)
        seat = view(daemon)["clock"]["seat"]
        clock.jump(6.0)
        wait_for(lambda: shown(daemon).clock_ms == 54_000, what="54 s left on the digits")
        sim.keypad.unplug()
        wait_for(lambda: view(daemon)["play_stopped"] == ["keypad_lost"], what="play stopped")
        for _ in range(4):
            clock.jump(30.0)  # two minutes, far past the expiry
        wait_for(lambda: shown(daemon).line1 == "KEYPAD LOST: CALL TECH")
        assert shown(daemon).line2 == "PLAY STOPPED: CLOCK HELD"
        held = view(daemon)["clock"]
        assert held is not None and held["seat"] == seat and not held["warning"]
        assert 50_000 <= held["remaining_ms"] <= 54_000  # what it had when the cable went
        assert view(daemon)["seats"][str(seat)]["status"] == "playing"
        assert shown(daemon).clock_ms == -(-held["remaining_ms"] // 1000) * 1000
        sim.keypad.replug()
        wait_for(lambda: view(daemon)["play_stopped"] == [], what="play goes on")
        assert view(daemon)["clock"]["remaining_ms"] == held["remaining_ms"]
        clock.jump(5.0)
        wait_for(
            lambda: view(daemon)["clock"]["remaining_ms"] == held["remaining_ms"] - 5000,
            what="the clock counts again",
        )
    events = [e.event for e in journal_events(tmp_path / "state") if e.event["type"] == "device"]
    assert events == [
        {"type": "device", "device": "keypad", "status": "lost"},
        {"type": "device", "device": "keypad", "status": "back"},
    ]
    with Journal.open_readonly(tmp_path / "state") as journal:
        kinds = [e.detail for e in journal.iter_system_log() if e.kind == "play_stopped"]
    assert [k["causes"] for k in kinds] == [["keypad_lost"], []]


def test_a_restart_finds_a_keypad_that_works_again(tmp_path: Path) -> None:
    """The daemon stopped while the keypad was lost; it starts with the keypad there:
    the keypad is journalled back and play goes on."""
    clock = MockClock()
    config = write_config(tmp_path, clock=60, warning=10)
    with running(config, clock=clock) as daemon:
        sim = daemon.devices.sim  # type: ignore[union-attr]
        assert sim is not None and sim.keypad is not None
        seat_players(daemon, {2: "ana", 5: "luis"})
        press(daemon, "NEXT", "CLOCK")
        sim.keypad.unplug()
        wait_for(lambda: view(daemon)["play_stopped"] == ["keypad_lost"], what="play stopped")
    with running(config, clock=MockClock(start_ns=3_600 * 10**9)) as again:
        wait_for(lambda: view(again)["play_stopped"] == [], what="the keypad is back")
        assert view(again)["clock"]["remaining_ms"] == 60_000


def test_the_console_may_not_say_a_device_is_lost() -> None:
    """Only the daemon journals a device's loss and return: a console line saying so
    (which would stop the clock, or start it again while the keypad is out) is refused."""
    from controller.daemon.inputs import console_refusal

    refusal = console_refusal({"type": "device", "device": "keypad", "status": "back"})
    assert refusal is not None and refusal.code == "device_only"


def test_a_further_cause_is_one_line_in_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mechanism, not the list: a cause added to ``stopped.CAUSES`` (here a lost
    tray, which the house does not stop for) stops the clock with nothing else changed."""
    from controller.rules import stopped

    monkeypatch.setitem(stopped.CAUSES, ("device", "tray", "lost"), "tray_lost")
    table = on_the_clock()
    assert apply(table, type="device", device="tray", status="lost") == [
        PlayStopped(("tray_lost",))
    ]
    apply(table, type="tick", ms=90_000)
    assert table.state.clock is not None and table.state.clock.remaining_ms == 60_000
    apply(table, type="device", device="tray", status="back")
    assert table.state.play_stopped == []
