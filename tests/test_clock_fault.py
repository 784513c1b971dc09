"""Issue 30 item 6: a wall clock past what a record can hold (year 2262 and later) is a
clock fault, never a traceback: the daemon used to stop at start on ``OverflowError``
(SQLite's integers end at 2**63 ns, 2262-04-11)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller import clock_guard
from controller.clock_guard import WALL_NS_MAX, WALL_NS_MIN
from controller.floor import outbox
from controller.floor.clock import Stamp
from controller.floor.messages import OutboxMessage
from controller.journal import Journal, LogKind, WallClock
from tests.cli import ROOT, tablectl
from tests.daemon_helpers import running, seat_players, write_config
from tests.system_tools import needs

YEAR_2300 = 10_413_792_000 * 10**9  # 2300-01-01T00:00:00Z in ns, past 2**63


class SettableClock:
    """The board's wall clock, set by the test (as `date -s` or a bad RTC would)."""

    def __init__(self, wall_ns: int) -> None:
        self.wall_ns = wall_ns

    def __call__(self) -> int:
        return self.wall_ns


def test_the_daemon_starts_and_plays_with_a_clock_in_the_year_2300(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    board_clock = SettableClock(YEAR_2300)
    with running(config, wall_clock=WallClock(lambda: True, time_ns=board_clock)) as daemon:
        assert daemon.controller is not None and daemon.controller.recorder is not None
        assert daemon.controller.recorder.fault is None  # play goes on
        seat_players(daemon, {2: "ana", 5: "luis"})
        board_clock.wall_ns = time.time_ns()  # the technician sets the clock right
        seat_players(daemon, {7: "marta"})
    with Journal.open_readonly(tmp_path / "state") as journal:
        events = [e for e in journal.iter_events() if e.event["type"] == "sit"]
        faults = list(journal.iter_system_log(kinds=[LogKind.CLOCK_FAULT]))
        steps = list(journal.iter_system_log(kinds=[LogKind.CLOCK_STEP]))
        assert journal.verify(log=False).ok
    assert [(e.wall_ns, e.clock_synced) for e in events[:2]] == [(WALL_NS_MAX, False)] * 2
    assert events[2].clock_synced and events[2].wall_ns < WALL_NS_MAX
    assert len(faults) == 1  # once, when it went out of range
    assert faults[0].detail["reading_ns"] == str(YEAR_2300)
    assert faults[0].detail["stored_ns"] == WALL_NS_MAX
    assert (
        faults[0]
        .detail["message"]
        .startswith(
            "the board's wall clock reads about year 2300, beyond what a record can hold: "
            "times are recorded as 2262-04-11 and marked unsynchronised"
        )
    )
    assert steps and steps[-1].detail["step_ns"] < 0  # set back: a step like any other
    shown = tablectl("journal", "log", "--state-dir", str(tmp_path / "state"))
    assert shown.returncode == 0 and "Traceback" not in shown.stderr
    assert "clock_fault" in shown.stdout and "2262-04-11" in shown.stdout


@pytest.mark.parametrize(
    ("reading", "stored"), [(2**64, WALL_NS_MAX), (-(2**64), WALL_NS_MIN), (10**18, 10**18)]
)
def test_floor_stamps_and_outbox_rows_hold_any_reading_of_the_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reading: int, stored: int
) -> None:
    """Floor messages queued with no event (a device fault, the start-up state) take the
    system's wall clock: bounded the same way."""
    monkeypatch.setattr(clock_guard, "_system_time_ns", lambda: reading)
    conn = sqlite3.connect(tmp_path / "outbox.sqlite3", isolation_level=None)
    conn.executescript(outbox.SCHEMA)
    outbox.enqueue(conn, [OutboxMessage("casino/t/T1/status", "{}", 1, False)], seq=None)
    assert conn.execute("SELECT created_ns FROM outbox").fetchone() == (stored,)
    conn.close()
    assert Stamp(stored, False).iso[:4] in ("2262", "1677", "2001")


def test_past_what_cpython_holds_the_clock_is_read_from_the_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CPython's own time.time_ns() raises OverflowError past 2262: the reading then
    comes from clock_gettime (here the real clock, read that way)."""

    def overflowing() -> int:
        raise OverflowError("timestamp too large to convert to C _PyTime_t")

    before = time.monotonic_ns(), clock_guard._system_time_ns()
    monkeypatch.setattr(clock_guard, "_system_time_ns", overflowing)
    monkeypatch.setattr(clock_guard, "_system_time", overflowing)
    read = clock_guard.raw_wall_ns()
    elapsed = time.monotonic_ns() - before[0]
    assert before[1] <= read <= before[1] + elapsed + 10**9
    assert time.time_ns() == read or abs(time.time_ns() - read) < 10**9  # guarded
    assert abs(time.time() - read / 1e9) < 1


@pytest.mark.slow
@needs("faketime", "running the daemon with its system clock in 2300")
def test_the_daemon_process_with_the_system_clock_in_2300(tmp_path: Path) -> None:
    """The real process, its system clock set to 2300 by libfaketime: it used to stop
    at start with OverflowError (in logging's import, then in the journal)."""
    libraries = sorted(Path("/usr/lib").glob("*/faketime/libfaketime.so.1"))
    assert libraries, "the faketime package installs libfaketime.so.1 beside its command"
    faketime = libraries[0]
    config = write_config(tmp_path)
    # the monotonic clock counts from boot, whatever the wall clock says
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LD_PRELOAD": str(faketime),
           "FAKETIME": "@2300-01-01 00:00:00", "FAKETIME_DONT_FAKE_MONOTONIC": "1"}  # fmt: skip
    env.pop("NOTIFY_SOCKET", None)
    daemon = subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--config", str(config),
         "--stdin-events"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env, cwd=ROOT,
    )  # fmt: skip
    assert daemon.stdin is not None and daemon.stdout is not None
    for seat in (2, 5):
        daemon.stdin.write(json.dumps({"type": "sit", "seat": seat, "player": f"p{seat}",
                                       "chips": 1000}) + "\n")  # fmt: skip
    daemon.stdin.flush()
    lines = [daemon.stdout.readline() for _ in range(2)]
    assert all(lines), daemon.communicate(timeout=60)[1]  # it died: its stderr says why
    answers = [json.loads(line) for line in lines]
    daemon.send_signal(signal.SIGTERM)
    _, err = daemon.communicate(timeout=60)
    assert daemon.returncode == 0 and "Traceback" not in err, err
    assert [answer["ok"] for answer in answers] == [True, True]
    assert "clock fault: the board's wall clock reads about year 2300" in err
    shown = subprocess.run(
        [sys.executable, "-m", "controller", "journal", "log", "--state-dir",
         str(tmp_path / "state"), "--kind", "clock_fault"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    assert "clock_fault" in shown.stdout and "about year 2300" in shown.stdout
