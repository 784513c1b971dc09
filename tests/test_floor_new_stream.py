"""A table whose journal is replaced (new storage after a failure, a technician's
salvage) numbers its floor messages from 1 again (docs/floor.md, "De-duplication and
order"). The reference consumers (`tablectl floor watch`, the floor board) take the new
stream instead of dropping it as duplicates of the old one: a real Mosquitto, real
publishers on two journals one after the other."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from controller.floor import outbox
from controller.floor.board_server import BoardServer
from controller.floor.consumer import Deduplicator
from controller.floor.messages import messages_for
from controller.floor.publisher import Publisher
from controller.floor.settings import FloorSettings
from controller.floor.topics import TableTopics
from tests.daemon_helpers import WAIT
from tests.floor_board_helpers import floor_watch_command, lv_board
from tests.localbroker import LocalBroker

ROOT = Path(__file__).resolve().parents[1]


def hands(db: Path, first_hand: int, count: int) -> None:
    """One event per hand into the journal's outbox (its event and state messages)."""
    topics = TableTopics("casino", "lv", "T1")
    with contextlib.closing(outbox.connect(db)) as conn:
        for hand in range(first_hand, first_hand + count):
            before = {"hand": hand - 1, "phase": "idle", "seats": {}}
            after = {"hand": hand, "phase": "idle", "seats": {}}
            messages = messages_for(
                {"seq": hand, "event": {"type": "state"}},
                {"ok": True},
                before,
                after,
                topics=topics,
            )
            conn.execute("BEGIN IMMEDIATE")
            outbox.enqueue(conn, messages, seq=hand)
            conn.execute("COMMIT")


def publish(broker: LocalBroker, db: Path, first_hand: int, count: int) -> None:
    db.parent.mkdir()
    publisher = Publisher(
        FloorSettings(site="lv", host=broker.host, port=broker.port), table_id="T1", db_path=db
    )
    publisher.start()
    try:
        hands(db, first_hand, count)
        publisher.notify()
        assert publisher.wait_drained(WAIT)
    finally:
        publisher.stop()


def board_hand(board: BoardServer) -> Any:
    with urllib.request.urlopen(board.url + "cards.json", timeout=WAIT) as answer:
        cards = json.loads(answer.read())["cards"]
    return cards[0]["hand"] if cards else None


@pytest.mark.slow  # 15.5 s of the edit loop at 0.3.0 (measured with --durations)
def test_a_replaced_journal_is_a_new_stream_for_the_watch_and_the_board(
    broker: LocalBroker, tmp_path: Path
) -> None:
    watch = subprocess.Popen(
        floor_watch_command(broker, "--table", "T1", "--timeout", "30"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    board = lv_board(broker)
    board.start()
    try:
        assert watch.stderr is not None and watch.stderr.readline().startswith("watching")
        assert board.wait_broker(WAIT)
        publish(broker, tmp_path / "old" / "journal.sqlite3", 1, 40)  # msg_seq 1-40
        publish(broker, tmp_path / "new" / "journal.sqlite3", 101, 3)  # msg_seq 1-3 again
        deadline = time.monotonic() + WAIT
        while board_hand(board) != 103:
            assert time.monotonic() < deadline, f"the board shows hand {board_hand(board)}"
            time.sleep(0.05)
    finally:
        board.stop()
        watch.terminate()
        out, _ = watch.communicate(timeout=WAIT)
    told = [
        (m["message"]["seq"], m["message"]["msg_seq"])
        for m in map(json.loads, out.splitlines())
        if m["message"]["kind"] == "state"
    ]
    assert told[-3:] == [(101, 1), (102, 2), (103, 3)], told[-5:]


def test_resent_messages_are_not_a_new_stream() -> None:
    """After a reconnect, a table sends again what the broker never acknowledged (at
    most its window below what a consumer saw): still duplicates."""
    dedupe = Deduplicator()
    status = {"table_id": "T1", "kind": "status", "link": "up"}
    for n in range(1, 201):
        assert dedupe.first_time({"table_id": "T1", "kind": "event", "msg_seq": n})
    assert dedupe.first_time(status)
    assert not any(
        dedupe.first_time({"table_id": "T1", "kind": "event", "msg_seq": n})
        for n in range(185, 201)
    )
    assert dedupe.stream("T1") == 0
    # a message far below with no status in between: a stray copy, not a new stream
    assert not dedupe.first_time({"table_id": "T1", "kind": "event", "msg_seq": 3})
    assert dedupe.first_time(status)
    assert dedupe.first_time({"table_id": "T1", "kind": "state", "msg_seq": 3})
    assert dedupe.stream("T1") == 1
    assert not dedupe.first_time({"table_id": "T1", "kind": "state", "msg_seq": 3})


@pytest.mark.slow  # a backlog sent across the link at its pace (1.3 s)
def test_a_full_outbox_reaches_the_board_until_the_backlog_is_sent(
    broker: LocalBroker, tmp_path: Path
) -> None:
    """The table's outbox filled while its broker was away: when the link returns the
    floor board shows `FLOOR OUTBOX FULL` (red) while the backlog drains, and the alarm
    clears by itself once the whole backlog has been sent (nothing was lost; the
    table's journal system log records when it was full and when it cleared)."""
    from tests.floor_schema import assert_valid

    board = lv_board(broker)
    board.start()
    assert board.wait_broker(WAIT)
    broker.stop()
    db = tmp_path / "journal.sqlite3"
    publisher = Publisher(
        FloorSettings(site="lv", host=broker.host, port=broker.port, outbox_max_messages=100),
        table_id="T1",
        db_path=db,
    )
    publisher.start()
    try:
        hands(db, 1, 110)
        publisher.notify()
        assert publisher.wait_for(lambda s: s.overflowed, WAIT)

        def alarms() -> list[str]:
            card = board.board.card("T1", time.monotonic_ns())
            return [a["text"] for a in card["alarms"] if a["level"] == "alarm"] if card else []

        broker.start()
        assert publisher.wait_drained(WAIT)
        assert publisher.wait_for(lambda s: not s.overflowed and s.unsent == 0, WAIT)
        deadline = time.monotonic() + WAIT
        while board_hand(board) != 110 or alarms():
            assert time.monotonic() < deadline, alarms()
            time.sleep(0.05)
    finally:
        publisher.stop()
        board.stop()
    statuses = [
        json.loads(publisher._status_now("up", None)),
        json.loads(publisher._status_now("down", "stopped")),
    ]
    assert assert_valid(statuses) == 2
