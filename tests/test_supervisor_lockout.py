"""Supervisor PINs (issue 32, item 9). Lock-outs escalate (issue 32, item 9): each lock-out since the last
right PIN lasts twice the one before (5 minutes, 10, 20, ... a day at most), the count
is kept by the journal across a restart (replayed, and in a snapshot), and from the
second lock-out in a row the floor is told (a ``pin_lockout`` fault message, cleared by
the next right PIN). A PIN may be longer by configuration (``supervisor.pin_digits``),
and the keypad takes it. Real SQLite journals, the real recorder and rules core, a real
Mosquitto for the floor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller import supervisor_pins
from controller.daemon.recorder import Recorder
from controller.daemon.recovery import fold
from controller.floor.consumer import Collector
from controller.journal import Journal
from controller.rules import Table
from controller.rules.keypad import locked_ms
from tests.daemon_helpers import press, running, shown, view, wait_for, write_config
from tests.keypad_tables import keys, settings
from tests.localbroker import LocalBroker
from tests.mock_clock import MockClock
from tests.test_at_the_table import PIN, SUPERVISOR, pin_file
from tests.test_daemon_floor import delivered, floor_config
from tests.test_floor_publisher import back_office

__all__ = ["back_office"]  # a pytest fixture, used by name

WRONG = keys("FUNC 0 1 0 4 2 ENTER 1 1 1 1 ENTER")
MINUTE_MS = 60_000


def recorder(state_dir: Path) -> Recorder:
    """A recorder on the journal in ``state_dir``, resumed from it like the daemon
    (a snapshot after every event)."""
    journal = Journal.open(state_dir, settings().config_text)
    table = fold(journal).table if journal.last_seq else Table(settings().rules)
    table.pin_verifier = lambda supervisor, pin: (supervisor, pin) == (SUPERVISOR, PIN)
    return Recorder(journal, table, snapshot_every=1)


def lock_out(rec: Recorder) -> int:
    """Three wrong PINs: the lock-out's minutes; then it is waited out."""
    for event in WRONG * 3:
        assert rec.record(event).ok
    minutes = locked_ms(rec.table.state) // MINUTE_MS
    assert rec.record({"type": "tick", "ms": locked_ms(rec.table.state)}).ok
    return minutes


def test_the_lock_outs_escalate_across_a_restart(tmp_path: Path) -> None:
    rec = recorder(tmp_path)
    assert [lock_out(rec), lock_out(rec)] == [5, 10]
    rec.journal.close()
    rec = recorder(tmp_path)  # restarted: the snapshot and the journal keep the count
    assert rec.table.state.keypad["lockouts"] == 2
    assert lock_out(rec) == 20
    for event in keys("FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER CLEAR"):  # the right PIN
        assert rec.record(event).ok
    assert lock_out(rec) == 5
    rec.journal.close()


def wrong_pins(daemon: Any, count: int) -> None:
    for _ in range(count):
        press(daemon, "FUNC", "0", *SUPERVISOR, "ENTER", "1", "1", "1", "1", "ENTER")


def test_the_floor_is_told_from_the_second_lock_out_until_a_right_pin(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    pins = pin_file(tmp_path)
    config = floor_config(tmp_path, broker, f"supervisor: {{pin_file: {pins}}}\n")
    clock = MockClock()
    with running(config, clock=clock) as daemon:
        wrong_pins(daemon, 3)
        wait_for(lambda: view(daemon)["keypad"]["supervisor_locked_ms"] == 5 * MINUTE_MS)
        clock.jump(5 * 60)
        press(daemon, "CLEAR")  # the time is told before the next key (it matters)
        wait_for(lambda: view(daemon)["keypad"]["supervisor_locked_ms"] == 0)
        wrong_pins(daemon, 3)
        wait_for(lambda: view(daemon)["keypad"]["supervisor_locked_ms"] == 10 * MINUTE_MS)
        # the first fault message is the second lock-out's: the first told no one
        alarm = delivered(
            back_office, lambda p: p["kind"] == "fault" and p["active"], "the lock-out alarm"
        )
        assert (alarm["fault"], alarm["device"], alarm["detail"]) == (
            "pin_lockout",
            "keypad",
            f"supervisor {SUPERVISOR}: lock-out 2 in a row after 3 wrong PINs each, 10 minutes",
        )
        clock.jump(10 * 60)
        press(daemon, "CLEAR")
        wait_for(lambda: view(daemon)["keypad"]["supervisor_locked_ms"] == 0)
        press(daemon, "FUNC", "0", *SUPERVISOR, "ENTER", *PIN, "ENTER", "CLEAR")
        clear = delivered(
            back_office, lambda p: p["kind"] == "fault" and not p["active"], "its clear"
        )
        assert (clear["fault"], clear["device"], clear["detail"]) == ("pin_lockout", "keypad", None)


def test_the_keypad_takes_a_pin_of_the_configured_length(tmp_path: Path) -> None:
    """``supervisor.pin_digits: 8``: an 8-digit PIN opens the menu; a 4-digit PIN the
    file still holds (set before the rule) is a wrong PIN."""
    pins = tmp_path / "pins"
    supervisor_pins.save_pins(
        pins,
        {"1042": supervisor_pins.hash_pin("24681357"), "7": supervisor_pins.hash_pin("2468")},
    )
    config = write_config(tmp_path)
    config.write_text(config.read_text() + f"supervisor: {{pin_file: {pins}, pin_digits: 8}}\n")
    with running(config) as daemon:
        press(daemon, "FUNC", "0", "7", "ENTER", *"2468", "ENTER")
        wait_for(lambda: shown(daemon).line1 == "WRONG PIN: 2 TRIES LEFT")
        press(daemon, "FUNC", "0", *SUPERVISOR, "ENTER", *"24681357")
        wait_for(lambda: shown(daemon).line2 == "********_")
        press(daemon, "ENTER")
        wait_for(lambda: shown(daemon).line1 == "1 VOID HAND  2 UNDO LAST ACTION")
