"""A power loss: `tablectl run` killed with SIGKILL in the middle of a hand and started
again records a ``power_loss`` entry (when the power went, when the table came back,
the hand in play), and recall shows it where it happened. The wall clock's changes of
sync and its steps go to the system log."""

from __future__ import annotations

import contextlib
import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.recall import as_text, recall
from controller.floor.board import Board
from controller.floor.consumer import Collector
from controller.floor.messages import power_message
from controller.floor.topics import TableTopics
from controller.journal import Journal, LogKind, WallClock
from tests.daemon_helpers import WAIT, running, seat_players, write_config
from tests.floor_schema import assert_valid
from tests.localbroker import LocalBroker
from tests.test_daemon_floor import floor_config
from tests.test_daemon_service import ROOT, SITS, Process, environment
from tests.test_floor_publisher import _first_copies, back_office

__all__ = ["back_office"]  # a pytest fixture, used by name


def _power_losses(state: Path) -> list[Any]:
    with Journal.open_readonly(state) as journal:
        return list(journal.iter_system_log(kinds=[LogKind.POWER_LOSS]))


def _run(config: Path, log: Path, events: list[dict[str, Any]], *, kill: bool) -> list[Any]:
    daemon = Process(config, log, environment(None))
    daemon.send(*events)
    daemon.wait_acks(len(events))
    daemon.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
    daemon.finish()
    return daemon.acks


@pytest.mark.slow
def test_a_power_cut_mid_hand_is_recorded_with_both_times_and_the_hand(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    log = tmp_path / "daemon.log"
    state = tmp_path / "state"
    bets = [{"type": "act", "seat": 8, "action": "call"}]  # first to act: 8 (button)
    acks = _run(config, log, [*SITS, {"type": "start_hand"}, *bets], kill=True)
    last_seq = max(ack["seq"] for ack in acks)
    assert _power_losses(state) == []  # nothing is said before the table is back
    _run(config, log, [{"type": "act", "seat": 2, "action": "call"}], kill=False)
    (entry,) = _power_losses(state)
    detail = entry.detail
    assert detail["hand"] == 1 and detail["phase"] == "preflop"
    assert detail["last_seq"] == last_seq
    last, restart = detail["last_record"], detail["restart"]
    with Journal.open_readonly(state) as journal:
        event = journal.event(last_seq)
        power_ups = list(journal.iter_system_log(kinds=[LogKind.POWER_UP]))
    assert event is not None
    # the last record: the called action's event, or an entry the run logged after it
    assert last["wall_ns"] >= event.wall_ns and last["wall_ns"] < restart["wall_ns"]
    assert restart["wall_ns"] == power_ups[-1].wall_ns
    for stamp in (last, restart):
        assert isinstance(stamp["clock_synced"], bool)
        assert stamp["wall"].endswith("Z" if stamp["clock_synced"] else "unsynced")
    assert "power lost after" in log.read_text() and "hand 1 in play" in log.read_text()
    # a clean stop and start after it says nothing more
    _run(config, log, [{"type": "state"}], kill=False)
    assert len(_power_losses(state)) == 1
    # recall shows it in hand 1, where it happened
    with Journal.open_readonly(state) as journal:
        hands = recall(journal)
    (hand,) = [h for h in hands if h.hand == 1]
    assert [p["last_seq"] for p in hand.power_losses] == [last_seq]
    text = as_text(hands)
    said = f"POWER LOST during the hand (preflop) after {last['wall']}, last seq {last_seq}"
    assert said in text and f"back {restart['wall']}" in text
    lines = text.splitlines()
    before, power, after = (
        next(i for i, line in enumerate(lines) if words in line)
        for words in ("seat 8 call", "POWER LOST", "seat 2 call")
    )
    assert before < power < after, text  # among the actions, where it happened
    result = subprocess.run(
        [sys.executable, "-m", "controller", "recall", "--state-dir", str(state), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=WAIT,
        check=True,
    )
    (shown,) = [h for h in json.loads(result.stdout)["hands"] if h["hand"] == 1]
    assert shown["power_losses"][0]["hand"] == 1


@pytest.mark.slow
def test_a_power_cut_between_hands_says_no_hand_was_in_play(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    log = tmp_path / "daemon.log"
    _run(config, log, list(SITS), kill=True)
    _run(config, log, [{"type": "state"}], kill=False)
    (entry,) = _power_losses(tmp_path / "state")
    assert entry.detail["hand"] is None and entry.detail["phase"] == "idle"
    assert "between hands" in log.read_text()


class SteppedWall:
    """The wall clock as a board sees it: the system's, moved by ``offset_ns`` (a step),
    synchronised or not as ``synced`` says. The journal's ``WallClock`` reads it as it
    reads the real one; nothing of the code under test is replaced."""

    def __init__(self) -> None:
        self.offset_ns = 0
        self.synced = False

    def time_ns(self) -> int:
        return time.time_ns() + self.offset_ns

    def probe(self) -> bool:
        return self.synced


def test_sync_changes_and_steps_of_the_wall_clock_go_to_the_system_log(tmp_path: Path) -> None:
    board = SteppedWall()
    wall = WallClock(board.probe, time_ns=board.time_ns, recheck_seconds=0)
    config = write_config(tmp_path)
    with running(config, wall_clock=wall) as daemon:
        seat_players(daemon, {2: "ana"})
        board.offset_ns = 90 * 10**9  # NTP sets the clock 90 s forward at once
        board.synced = True
        seat_players(daemon, {5: "luis"})
        board.offset_ns += 10**9  # a second more: slewed, no step
        seat_players(daemon, {6: "rosa"})
        board.synced = False
        board.offset_ns -= 30 * 10**9  # set back 30 s by hand, sync lost
        seat_players(daemon, {8: "marta"})
    with Journal.open_readonly(tmp_path / "state") as journal:
        entries = [
            e
            for e in journal.iter_system_log()
            if e.kind in (LogKind.CLOCK_SYNC, LogKind.CLOCK_UNSYNC, LogKind.CLOCK_STEP)
        ]
    kinds = [(e.kind, round(e.detail.get("step_s", 0))) for e in entries]
    assert kinds == [
        (LogKind.CLOCK_SYNC, 0),
        (LogKind.CLOCK_STEP, 90),
        (LogKind.CLOCK_UNSYNC, 0),
        (LogKind.CLOCK_STEP, -30),
    ], kinds
    forward, back = (e for e in entries if e.kind == LogKind.CLOCK_STEP)
    assert forward.detail["synced"] is True and back.detail["synced"] is False
    assert abs(forward.detail["step_ns"] - 90 * 10**9) < 10**9


@pytest.mark.slow
def test_the_floor_gets_the_power_loss_and_the_board_shows_it(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    """Killed mid-hand with the floor link up, started again: one `power` message (on
    `faults`, before the state the table resumes with) with both times and the hand,
    valid against the schema (the back office fixture checks every message); the floor
    board's card shows it until the next hand starts."""
    config = floor_config(tmp_path, broker)
    log = tmp_path / "daemon.log"
    _run(config, log, [*SITS, {"type": "start_hand"}], kill=True)
    _run(config, log, [{"type": "state"}], kill=False)
    assert back_office.wait_for(
        lambda ms: any(p.get("kind") == "power" for p in _first_copies(ms)), WAIT
    ), "no power message"
    payloads = _first_copies(back_office.messages)
    (power,) = [p for p in payloads if p["kind"] == "power"]
    (entry,) = _power_losses(tmp_path / "state")
    assert power["hand"] == 1 and power["phase"] == "preflop" and power["power"] == "restored"
    assert power["ts_ns"] == entry.detail["restart"]["wall_ns"]
    assert power["last_record"]["ts_ns"] == entry.detail["last_record"]["wall_ns"]
    assert power["clock_synced"] == entry.detail["restart"]["clock_synced"]
    (message,) = [m for m in back_office.messages if (m.payload or {}).get("kind") == "power"]
    assert message.topic == "casino/lv/table/T1/faults"
    later = [p for p in payloads if p["msg_seq"] > power["msg_seq"]]
    assert later and later[0]["kind"] == "state"  # the state it resumes with, after it
    board = Board("lv")
    for payload in payloads:
        board.apply(payload, time.time_ns())
    shown = board.card("T1", time.time_ns())
    assert shown is not None
    (alarm,) = [a for a in shown["alarms"] if a["code"] == "power_loss"]
    assert alarm["level"] == "warn" and alarm["text"].startswith("POWER LOST IN HAND 1, BACK ")
    board.apply({**payloads[-1], "kind": "hand_start", "msg_seq": 10**6, "hand": 2}, 0)
    shown = board.card("T1", time.time_ns())
    assert shown is not None and not [a for a in shown["alarms"] if a["code"] == "power_loss"]


def test_the_power_message_validates_with_unsynced_and_unknown_times() -> None:
    topics = TableTopics("casino", "lv", "T1")
    unsynced = {
        "last_record": {"wall_ns": 5 * 10**9, "clock_synced": False, "wall": "x"},
        "restart": {"wall_ns": 9 * 10**9, "clock_synced": False, "wall": "y"},
        "last_seq": 7,
        "hand": None,
        "phase": "idle",
    }
    unknown = {"last_record": None, "restart": None, "last_seq": 0, "hand": None, "phase": None}
    rows = [power_message(topics, detail, seq=7) for detail in (unsynced, unknown)]
    payloads = [{**json.loads(row.payload), "msg_seq": n} for n, row in enumerate(rows, 1)]
    assert_valid(payloads)
    first = payloads[0]
    assert (first["ts"], first["clock_synced"]) == ("1970-01-01T00:00:09.000Z", False)
    assert first["last_record"] == {
        "ts": "1970-01-01T00:00:05.000Z",
        "ts_ns": 5 * 10**9,
        "clock_synced": False,
    }
    assert rows[0].topic == topics.faults and payloads[1]["last_record"] is None
    card = Board("lv")
    card.apply(first, 0)
    shown = card.card("T1", 0)
    assert shown is not None
    assert [a["text"] for a in shown["alarms"]] == ["POWER LOST, BACK 00:00:09 UNSYNCED"]


@pytest.mark.slow
def test_a_power_cut_into_a_damaged_journal_says_the_hand_is_not_known(tmp_path: Path) -> None:
    """The journal fails its check after the cut: the power loss is still recorded
    (with its times), the hand in play is not known (recovery did not run), and the
    table stays locked."""
    config = write_config(tmp_path)
    log = tmp_path / "daemon.log"
    _run(config, log, [*SITS, {"type": "start_hand"}], kill=True)
    with contextlib.closing(sqlite3.connect(tmp_path / "state" / "journal.sqlite3")) as conn:
        conn.execute("UPDATE events SET event = replace(event, 'p5', 'px')")
        conn.commit()
    daemon = Process(config, log, environment(None))
    daemon.send({"type": "state"})
    daemon.wait_acks(1)
    daemon.proc.send_signal(signal.SIGTERM)
    daemon.finish()
    assert "MEMORY FAULT chain_broken" in log.read_text()  # locked
    (entry,) = _power_losses(tmp_path / "state")
    assert entry.detail["hand"] is None and entry.detail["phase"] is None
    assert entry.detail["last_record"]["wall_ns"] < entry.detail["restart"]["wall_ns"]
    assert "the hand in play is not known" in log.read_text()


@pytest.mark.slow
def test_the_dealer_display_says_the_power_was_lost_until_the_next_hand(tmp_path: Path) -> None:
    """Issue 31 item 13: the floor and recall said so; the dealer, who has to check the
    hand the table resumed, was told nothing."""
    from tests.daemon_helpers import shown, view, wait_for

    config = write_config(tmp_path)
    log = tmp_path / "daemon.log"
    _run(config, log, [*SITS, {"type": "start_hand"}], kill=True)
    with running(config) as daemon:

        def screen() -> tuple[str, str]:
            return shown(daemon).line1, shown(daemon).line2

        wait_for(
            lambda: screen() == ("SEAT 8 TO ACT: CALL 10", "POWER LOST IN HAND 1"),
            what="the power loss under the hand resumed",
        )
        for seat in (8, 2):  # the hand resumed goes on: the dealer is told all along
            assert daemon.submit({"type": "act", "seat": seat, "action": "fold"}).ok
        wait_for(
            lambda: screen() == ("POWER LOST IN HAND 1", "PAY SEAT 5: 10"),
            what="over the payout",
        )
        assert daemon.submit({"type": "start_hand"}).ok
        wait_for(lambda: view(daemon)["hand"] == 2, what="hand 2")
        wait_for(lambda: screen() == ("SEAT 2 TO ACT", "CALL 10"), what="gone at the next hand")
    # a power loss between hands: said so, until the next hand
    folds = [{"type": "act", "seat": seat, "action": "fold"} for seat in (2, 5)]
    _run(config, log, folds, kill=True)
    with running(config) as daemon:
        wait_for(lambda: shown(daemon).line1 == "POWER LOST AFTER HAND 2", what="between hands")
