"""The daemon in-process with simulated devices: keypad bytes in, seat-light pins and
display text out, through the journal (controller.daemon.loop, service, outputs)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from controller.daemon.outputs import FAULT_LINE
from controller.journal import Journal
from tests.daemon_helpers import (
    journal_events,
    lit,
    press,
    running,
    seat_players,
    shown,
    view,
    wait_for,
    write_config,
)
from tests.mock_clock import MockClock

PLAYERS = {2: "ana", 5: "luis", 8: "marta"}


def test_keypad_keys_light_the_seat_to_act_and_write_the_display(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["phase"] == "preflop")
        # seat 8 (the button, three-handed) is first to act: its light is on, no other
        wait_for(lambda: lit(daemon, 8) == 1.0, what="seat 8 light on")
        assert all(lit(daemon, seat) == 0.0 for seat in (1, 2, 3, 4, 5, 6, 7, 9))
        wait_for(lambda: shown(daemon).line1 == "SEAT 8 TO ACT")
        assert shown(daemon).line2 == "CALL 10"
        press(daemon, "FOLD")
        wait_for(lambda: lit(daemon, 2) == 1.0, what="seat 2 light on")
        wait_for(lambda: lit(daemon, 8) == 0.0, what="seat 8 light off")
        wait_for(lambda: shown(daemon).line1 == "SEAT 2 TO ACT")
        press(daemon, "BET", "4", "0", "ENTER")
        wait_for(lambda: view(daemon)["to_act"] == 5)
        assert view(daemon)["seats"]["2"]["bet"] == 40
    events = journal_events(tmp_path / "state")
    keys = [e.event["key"] for e in events if e.event["type"] == "key"]
    assert keys == ["NEXT", "FOLD", "BET", "4", "0", "ENTER"]
    assert all(e.accepted for e in events if e.event["type"] == "key")


def test_a_refused_key_is_shown_and_journalled_and_changes_nothing(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["phase"] == "preflop")
        before = view(daemon)
        press(daemon, "BET", "1", "5", "ENTER")  # below the minimum raise to 20
        wait_for(lambda: shown(daemon).line2.startswith("NO: "), what="refusal shown")
        after = view(daemon)
        assert after["seats"] == before["seats"] and after["to_act"] == before["to_act"]
        assert lit(daemon, 8) == 1.0
    events = journal_events(tmp_path / "state")
    refused = [e for e in events if not e.accepted]
    assert refused and refused[-1].event == {"type": "key", "key": "ENTER"}
    assert refused[-1].refusal_code


def test_every_event_is_journalled_with_the_signed_in_dealer(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        press(daemon, "FUNC", "8", "4", "2", "ENTER")  # dealer 42 signs in
        wait_for(lambda: view(daemon)["keypad"]["dealer"] == "42")
        press(daemon, "NEXT", "FOLD")
        wait_for(lambda: view(daemon)["to_act"] == 2)
    events = journal_events(tmp_path / "state")
    last_keys = [e for e in events if e.event["type"] == "key"][-2:]
    assert [e.by for e in last_keys] == ["42", "42"]
    ticks = [e for e in events if e.event["type"] == "tick"]
    assert all(e.by is None for e in ticks)  # time is nobody's entry


def test_the_clock_is_journalled_only_when_it_matters(tmp_path: Path) -> None:
    """A 17-second clock with its warning at 9 s: a tick every 5 s (what a power cut may
    lose), one exactly at the warning point and one at expiry, which folds the seat; not
    one every 100 ms. The daemon's clock is a mock: time moves only when the test jumps
    it, so the 17 s take none, and the ticks are exact."""
    clock = MockClock()
    config = write_config(tmp_path, clock=17, warning=9)
    with running(config, clock=clock) as daemon:
        assert daemon.controller is not None and daemon.controller.clock is clock
        seat_players(daemon, PLAYERS)
        press(daemon, "NEXT", "CLOCK")
        wait_for(lambda: view(daemon)["clock"] is not None)
        seq_called = daemon.controller.recorder.last_seq  # type: ignore[union-attr]
        # an input while the clock runs is told the time first: none has passed
        taken = daemon.submit({"type": "sit", "seat": 2, "player": "x", "chips": 100})
        assert not taken.ok
        clock.jump(2.5)
        clock.jump(2.5)  # 5 s: the periodic tick
        wait_for(lambda: view(daemon)["clock"]["remaining_ms"] == 12_000, what="12 s left")
        clock.jump(3.0)  # 8 s: the warning point
        wait_for(lambda: view(daemon)["clock"]["warning"], what="the warning point")
        assert view(daemon)["clock"]["remaining_ms"] == 9_000
        wait_for(lambda: shown(daemon).clock_ms == 9_000, what="9 s left on the digits")
        clock.jump(5.0)  # 13 s: the periodic tick
        wait_for(lambda: view(daemon)["clock"]["remaining_ms"] == 4_000, what="4 s left")
        clock.jump(4.0)  # 17 s: expiry
        wait_for(lambda: view(daemon)["clock"] is None, what="the clock expired")
        assert view(daemon)["seats"]["8"]["status"] == "folded"
        # The state changes before the loop shows it and the lights' thread renders it.
        wait_for(lambda: lit(daemon, 8) == 0.0, what="seat 8 light off")
    events = journal_events(tmp_path / "state")
    after = [e for e in events if e.seq > seq_called]
    ticks = [e.event["ms"] for e in after if e.event["type"] == "tick"]
    assert ticks == [5000, 3000, 5000, 4000]


def test_a_running_clock_resumes_after_restart_with_no_more_time(tmp_path: Path) -> None:
    """The periodic tick (every 5 s while a clock runs) bounds what a power cut loses:
    the clock resumes with the time it had at the last journalled tick, and the time
    the table was off (a new boot: the monotonic clock starts elsewhere) is not counted."""
    clock = MockClock()
    config = write_config(tmp_path, clock=60, warning=10)
    with running(config, clock=clock) as daemon:
        seat_players(daemon, PLAYERS)
        press(daemon, "NEXT", "CLOCK")
        wait_for(lambda: view(daemon)["clock"] is not None)
        seq = daemon.controller.recorder.last_seq  # type: ignore[union-attr]
        clock.jump(5.0)
        wait_for(lambda: daemon.controller.recorder.last_seq > seq)  # type: ignore[union-attr]
        assert view(daemon)["clock"]["remaining_ms"] == 55_000
        wait_for(lambda: shown(daemon).clock_ms == 55_000, what="55 s left on the digits")
        clock.jump(2.0)  # 2 s more, then the power goes: lost, never journalled
        wait_for(lambda: shown(daemon).clock_ms == 53_000, what="53 s left on the digits")
    with running(config, clock=MockClock(start_ns=3_600 * 10**9)) as again:
        resumed = view(again)["clock"]
        assert resumed is not None and resumed["seat"] == 8
        assert resumed["remaining_ms"] == 55_000
        wait_for(lambda: shown(again).clock_ms == 55_000, what="the digits resumed at 55 s")


def test_device_faults_go_to_the_system_log_and_the_display(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        sim = daemon.devices.sim  # type: ignore[union-attr]
        keypad = daemon.devices.keypad  # type: ignore[union-attr]
        assert sim is not None and sim.keypad is not None and keypad is not None
        sim.keypad.unplug()
        # The dealer gets words that say what to do, never the driver's path or text.
        wait_for(lambda: shown(daemon).line1 == "KEYPAD LOST: CALL TECH", what="fault shown")
        # The driver reports the unplug, then the failed reopen, in other words: one
        # fault all the same.
        wait_for(lambda: "missing" in (keypad.fault or ""), what="the reopen fails")
        assert shown(daemon).line1 == "KEYPAD LOST: CALL TECH"
        assert "/" not in shown(daemon).line1 + shown(daemon).line2
        sim.keypad.replug()
        wait_for(lambda: shown(daemon).line1 != "KEYPAD LOST: CALL TECH", what="fault cleared")
    with Journal.open_readonly(tmp_path / "state") as journal:
        entries = [
            e.detail
            for e in journal.iter_system_log()
            if e.kind in ("device_fault", "device_clear")
        ]
    assert len(entries) == 2, entries
    fault, clear = entries
    assert (fault["device"], fault["code"]) == ("keypad", "keypad_lost")
    assert sim.keypad.path in fault["message"]  # the detail: the driver's words, the path
    assert clear == {"device": "keypad", "code": "keypad_lost"}


def test_device_fault_words_in_spanish(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    config.write_text(config.read_text() + "display: {language: es}\n")
    with running(config) as daemon:
        sim = daemon.devices.sim  # type: ignore[union-attr]
        assert sim is not None and sim.keypad is not None
        sim.keypad.unplug()
        wait_for(
            lambda: shown(daemon).line1 == "TECLADO PERDIDO: LLAME AL TECNICO",
            what="fault shown in Spanish",
        )
        sim.keypad.replug()


@pytest.mark.slow  # waits out the 2 s a changed file must hold still
def test_a_new_configuration_waits_for_the_hand_to_end(tmp_path: Path) -> None:
    config = write_config(tmp_path, big_blind=10)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["phase"] == "preflop")
        write_config(tmp_path, big_blind=20)
        daemon.reload()  # what SIGHUP does
        wait_for(lambda: daemon.controller.pending_config is not None)  # type: ignore[union-attr]
        assert daemon.journal is not None and len(daemon.journal.configs()) == 1
        press(daemon, "FOLD", "FOLD")  # the hand ends: seat 5 wins the blinds
        wait_for(lambda: view(daemon)["phase"] == "idle")
        wait_for(lambda: len(daemon.journal.configs()) == 2)  # type: ignore[union-attr]
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["phase"] == "preflop")
        assert view(daemon)["legal"]["call"] == 20
        # a broken file is reported and ignored
        (tmp_path / "table.yaml").write_text("table: {id: T1, seats: 99}\n")
        daemon.reload()
        press(daemon, "FOLD")
        assert len(daemon.journal.configs()) == 2
    with Journal.open_readonly(tmp_path / "state") as journal:
        assert "config_change" in [e.kind for e in journal.iter_system_log()]


def test_snapshots_are_taken_and_recovery_gives_the_same_state(tmp_path: Path) -> None:
    config = write_config(tmp_path, snapshot_every=7)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        press(daemon, "NEXT", "BET", "3", "0", "ENTER", "CHECK", "FOLD")
        wait_for(lambda: view(daemon)["phase"] == "flop")
        before = view(daemon)
    with Journal.open_readonly(tmp_path / "state") as journal:
        assert journal.latest_snapshot() is not None
    with running(config) as again:
        after = view(again)
        assert {k: v for k, v in after.items() if k != "display"} == {
            k: v for k, v in before.items() if k != "display"
        }
        wait_for(lambda: lit(again, 2) == 1.0, what="outputs re-driven after recovery")
        wait_for(lambda: shown(again).line1 == "SEAT 2 TO ACT")


def test_a_memory_fault_locks_play_until_salvage(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
    (tmp_path / "state" / "journal.sqlite3").unlink()  # the storage lost the database
    with running(config) as daemon:
        wait_for(lambda: shown(daemon).line1 == FAULT_LINE)
        assert all(
            daemon.devices.lights.pattern(s).value == "fast_blink"  # type: ignore[union-attr]
            for s in range(1, 10)
        )
        outcome = daemon.submit({"type": "sit", "seat": 1, "player": "x", "chips": 100})
        assert not outcome.ok and outcome.error["code"] == "memory_fault"  # type: ignore[index]
        assert outcome.seq is None


def test_with_a_floor_section_events_fill_the_outbox_and_play_goes_on(tmp_path: Path) -> None:
    """No broker is listening: the link is down, the table plays, and every accepted
    event's floor messages are in the outbox, written in the event's own transaction.
    The one row of no event is the state queued at start-up (seq 0: the journal was
    empty)."""
    import sqlite3

    config = write_config(tmp_path)
    config.write_text(config.read_text() + "floor: {site: lv, host: 127.0.0.1, port: 1}\n")
    with running(config) as daemon:
        assert daemon.publisher is not None
        seat_players(daemon, {2: "ana", 5: "luis"})
        assert daemon.submit({"type": "start_hand"}).ok
    with sqlite3.connect(tmp_path / "state" / "journal.sqlite3") as conn:
        topics = {row[0].rsplit("/", 1)[1] for row in conn.execute("SELECT topic FROM outbox")}
        orphans = conn.execute(
            "SELECT id, seq FROM outbox WHERE seq NOT IN (SELECT seq FROM events)"
        ).fetchall()
    assert {"events", "hands", "state"} <= topics and orphans == [(1, 0)]


@pytest.mark.slow  # watches an idle daemon for a second
def test_an_idle_daemon_sleeps(tmp_path: Path) -> None:
    """No players, no clock, no watchdog asked for ($WATCHDOG_USEC unset): the loop does
    not wake, and the serial links sleep until their keep-alive instead of polling."""
    import threading

    from drivers.serial_device import SerialDevice

    config = write_config(tmp_path)
    with running(config) as daemon:
        controller, devices = daemon.controller, daemon.devices
        assert controller is not None and devices is not None
        links = {"keypad": devices.keypad, "display": devices.display}
        assert all(isinstance(link, SerialDevice) for link in links.values())
        serial = {name: cast(SerialDevice, link) for name, link in links.items()}
        tray = cast(SerialDevice, devices.tray)
        wait_for(lambda: all(link.idle for link in serial.values()) and tray.connected)
        wait_for(lambda: devices.tray.counts is not None)  # its first reading was handled
        wait_for(lambda: daemon.inputs.empty())
        idle = threading.Event()
        idle.wait(0.2)  # the loop finishes the last reading
        loops = controller.loops
        wakeups = {name: link.counters.wakeups for name, link in serial.items()}
        idle.wait(1.0)  # one idle second, on the wall clock on purpose
        assert controller.loops == loops
        # At most a keep-alive (PING out, ACK in) in that second; polling made it 20.
        woke = {name: link.counters.wakeups - wakeups[name] for name, link in serial.items()}
        assert all(count <= 2 for count in woke.values()), woke
