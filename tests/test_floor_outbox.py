"""The outbox table: order, sent marks, and a bound that never deletes unsent rows."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.floor import outbox
from controller.floor.messages import OutboxMessage


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    with contextlib.closing(outbox.connect(tmp_path / "journal.sqlite3")) as connection:
        yield connection


def _fill(conn: sqlite3.Connection, count: int) -> list[int]:
    conn.execute("BEGIN")
    ids = outbox.enqueue(
        conn,
        [OutboxMessage(f"t/{i}", f'{{"n":{i}}}', 1, i % 2 == 0) for i in range(count)],
        seq=1,
        created_ns=123,
    )
    conn.execute("COMMIT")
    return ids


def test_the_schema_is_the_journals_and_the_database_is_in_wal_mode(
    conn: sqlite3.Connection,
) -> None:
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    columns = [row[1] for row in conn.execute("PRAGMA table_info(outbox)")]
    assert columns == ["id", "seq", "topic", "payload", "qos", "retain", "created_ns", "sent"]


def test_rows_come_back_in_id_order_until_marked_sent(conn: sqlite3.Connection) -> None:
    ids = _fill(conn, 5)
    assert ids == [1, 2, 3, 4, 5]
    rows = outbox.unsent_after(conn, 0, 3)
    assert [(r.id, r.topic, r.retain, r.created_ns) for r in rows] == [
        (1, "t/0", True, 123),
        (2, "t/1", False, 123),
        (3, "t/2", True, 123),
    ]
    assert outbox.mark_sent(conn, 0, 3) == 3
    assert outbox.sent_through(conn) == 3
    assert outbox.count_unsent(conn) == 2
    assert [r.id for r in outbox.unsent_after(conn, 0, 10)] == [4, 5]


def test_sent_through_is_the_row_before_the_first_unsent_one(conn: sqlite3.Connection) -> None:
    assert outbox.sent_through(conn) == 0  # an empty outbox
    _fill(conn, 4)
    assert outbox.sent_through(conn) == 0
    outbox.mark_sent(conn, 0, 4)
    assert outbox.sent_through(conn) == 4  # all sent: the last row
    _fill(conn, 2)
    conn.execute("UPDATE outbox SET sent = -1 WHERE id = 5")  # unsendable: never sent
    assert outbox.sent_through(conn) == 5
    outbox.prune_sent(conn, 0)
    assert outbox.sent_through(conn) == 5  # the unsent row 6 is next, whatever went


def test_ids_are_never_reused_after_sent_rows_are_deleted(conn: sqlite3.Connection) -> None:
    _fill(conn, 3)
    outbox.mark_sent(conn, 0, 3)
    assert outbox.prune_sent(conn, 0) == 3
    assert _fill(conn, 1) == [4]


def test_prune_keeps_the_newest_sent_rows_and_every_unsent_one(
    conn: sqlite3.Connection,
) -> None:
    _fill(conn, 10)
    outbox.mark_sent(conn, 0, 7)
    assert outbox.prune_sent(conn, 3) == 4
    remaining = [r[0] for r in conn.execute("SELECT id FROM outbox ORDER BY id")]
    assert remaining == [5, 6, 7, 8, 9, 10]
    assert outbox.prune_sent(conn, 10) == 0


def test_the_bound_deletes_the_oldest_sent_rows_only(conn: sqlite3.Connection) -> None:
    _fill(conn, 10)
    outbox.mark_sent(conn, 0, 4)
    assert outbox.enforce_bound(conn, 8) == 2
    assert [r[0] for r in conn.execute("SELECT id FROM outbox")] == list(range(3, 11))
    assert outbox.enforce_bound(conn, 3) == 2  # only sent rows go: 6 unsent stay
    assert outbox.count_rows(conn) == 6
    assert outbox.count_unsent(conn) == 6
