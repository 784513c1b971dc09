"""The board and `floor watch` remember a bounded number of tables: a broker carrying
ever new table ids (a misconfigured ACL, a hostile publisher) cannot grow their memory
without end; the table silent the longest is forgotten first."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from controller.floor.board_server import load_board_config
from controller.floor.consumer import Deduplicator
from tests.daemon_helpers import WAIT
from tests.floor_board_helpers import floor_watch_command, lv_board
from tests.localbroker import LocalBroker
from tests.test_floor_board_hostile import cards, publish, state


def test_the_deduplicator_forgets_the_table_silent_the_longest() -> None:
    dedupe = Deduplicator(max_tables=3)
    for table in ("T1", "T2", "T3"):
        assert dedupe.first_time({"table_id": table, "msg_seq": 1})
    assert not dedupe.first_time({"table_id": "T1", "msg_seq": 1})  # T1 heard again
    assert dedupe.first_time({"table_id": "T4", "msg_seq": 1})
    assert dedupe.forgotten == ["T2"] and dedupe.tables() == 3
    # the ones remembered still drop their duplicates; the forgotten one is new again
    assert not dedupe.first_time({"table_id": "T1", "msg_seq": 1})
    assert not dedupe.first_time({"table_id": "T3", "msg_seq": 1})
    assert dedupe.first_time({"table_id": "T2", "msg_seq": 1})
    # ever new ids: the memory stays bounded
    for n in range(10_000):
        dedupe.first_time({"table_id": f"X{n}", "msg_seq": 1, "kind": "state"})
        dedupe.first_time({"table_id": f"X{n}", "kind": "status"}, b"{}")
    assert dedupe.tables() == 3 and len(dedupe._seen) == 3 and len(dedupe._last_plain) <= 3
    assert len(dedupe._highest) == 3 and len(dedupe.forgotten) <= 3
    with pytest.raises(ValueError, match="max_tables"):
        Deduplicator(max_tables=0)


def test_the_board_keeps_at_most_max_tables_cards(broker: LocalBroker) -> None:
    board = lv_board(broker, max_tables=3)
    board.start()
    try:
        assert board.wait_broker(WAIT)
        publish(
            broker,
            [
                state("T1", 1),
                state("T2", 1),
                state("T3", 1),
                state("T1", 2, hand=2),
                state("T4", 1),
            ],
        )
        deadline = time.monotonic() + WAIT
        while set(cards(board)) != {"T1", "T3", "T4"}:
            assert time.monotonic() < deadline, sorted(cards(board))
            time.sleep(0.05)
        assert cards(board)["T1"]["hand"] == 2 and board.board.dropped == 1
        publish(broker, [state(f"X{n}", 1) for n in range(50)])
        while set(cards(board)) != {"X47", "X48", "X49"}:
            assert time.monotonic() < deadline, sorted(cards(board))
            time.sleep(0.05)
    finally:
        board.stop()


def test_board_max_tables_in_the_board_file(tmp_path: Path) -> None:
    path = tmp_path / "board.yaml"
    path.write_text("floor:\n  site: lv\n  host: 127.0.0.1\nboard:\n  max_tables: 200\n")
    assert load_board_config(path)[1].max_tables == 200
    path.write_text("floor:\n  site: lv\n  host: 127.0.0.1\n")
    assert load_board_config(path)[1].max_tables == Deduplicator.MAX_TABLES


@pytest.mark.slow  # two watches and three tables on a broker (1 s)
def test_floor_watch_takes_max_tables(broker: LocalBroker) -> None:
    """`--max-tables N` bounds the watch's memory (a bad N is a usage error); a
    watch remembering 2 tables still prints every message of 3 tables once."""
    watch = subprocess.run(
        floor_watch_command(broker, "--site", "lv", "--all", "--max-tables", "0"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert watch.returncode == 2 and "--max-tables: expected at least 1" in watch.stderr
    watch_proc = subprocess.Popen(
        floor_watch_command(
            broker, "--site", "lv", "--all", "--max-tables", "2", "--count", "4", "--timeout", "30"
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert watch_proc.stderr is not None
        assert "watching" in watch_proc.stderr.readline()
        publish(broker, [state("T1", 1), state("T2", 1), state("T3", 1), state("T1", 2)])
        out, err = watch_proc.communicate(timeout=60)
    finally:
        if watch_proc.poll() is None:
            watch_proc.kill()
    seen = [
        (m["table_id"], m["msg_seq"])
        for m in (json.loads(line)["message"] for line in out.splitlines())
    ]
    assert seen == [("T1", 1), ("T2", 1), ("T3", 1), ("T1", 2)], (out, err)
