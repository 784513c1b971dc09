"""The outbox: floor messages stored with their event, waiting for the broker's PUBACK.

The journal inserts rows in the same transaction as the event they describe
(`Journal.append(..., outbox=rows)`; `enqueue` is the same insert for tests, benchmarks
and tools that fill an outbox without a journal); the publisher reads unsent rows in id
order and marks them sent once the broker has acknowledged them. Ids come from
AUTOINCREMENT: never reused, even after sent rows are deleted, so an id names one
message for the table's lifetime and doubles as the message's `msg_seq`.

Unsent rows are never deleted here. The bound (`outbox_max_messages`) is kept by
deleting the oldest *sent* rows; what happens when unsent rows alone pass it is the
publisher's alarm (publisher.py, docs/floor.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from controller.floor.messages import OutboxMessage
from controller.journal.clock import wall_ns_now
from controller.journal.schema import CACHE_PRAGMA, META_OUTBOX_PRUNED_THROUGH

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS outbox ("
    "id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER, topic TEXT NOT NULL, "
    "payload TEXT NOT NULL, qos INTEGER NOT NULL DEFAULT 1, "
    "retain INTEGER NOT NULL DEFAULT 0, created_ns INTEGER NOT NULL, "
    "sent INTEGER NOT NULL DEFAULT 0)"
)
BUSY_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class OutboxRow:
    """A floor message waiting in the journal's outbox to be published."""

    id: int
    topic: str
    payload: str
    qos: int
    retain: bool
    created_ns: int


def connect(db_path: Path) -> sqlite3.Connection:
    """A connection for the publisher (or a tool): WAL, autocommit, schema ensured.

    `synchronous=NORMAL` is for this connection's own writes only, the "sent" marks:
    after a power cut a mark may be lost and its row sent again, which consumers drop
    as a duplicate; nothing is ever lost that way. The journal keeps `FULL` for events.
    """
    conn = sqlite3.connect(db_path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(CACHE_PRAGMA)  # the journal's bound on SQLite's page cache
    ensure_schema(conn)
    return conn


def ensure_schema(conn: sqlite3.Connection) -> None:
    conn.execute(SCHEMA)


def enqueue(
    conn: sqlite3.Connection,
    messages: Iterable[OutboxMessage],
    *,
    seq: int | None,
    created_ns: int | None = None,
) -> list[int]:
    """Insert rows inside the caller's open transaction (no commit); their ids."""
    created = wall_ns_now() if created_ns is None else created_ns
    ids = []
    for topic, payload, qos, retain in messages:
        cursor = conn.execute(
            "INSERT INTO outbox (seq, topic, payload, qos, retain, created_ns) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (seq, topic, payload, qos, int(retain), created),
        )
        ids.append(int(cursor.lastrowid or 0))
    return ids


def sent_through(conn: sqlite3.Connection) -> int:
    """The highest id up to which every row is sent: the one before the first unsent
    row, else the last row (0 in an empty outbox). One statement, so one moment of the
    outbox: a row committed between two reads (the first unsent one, then the last)
    would count as sent and never go."""
    row = conn.execute(
        "SELECT (SELECT MIN(id) FROM outbox WHERE sent = 0), (SELECT MAX(id) FROM outbox)"
    ).fetchone()
    first_unsent, last = row
    if first_unsent is not None:
        return int(first_unsent) - 1
    return 0 if last is None else int(last)


def unsent_after(conn: sqlite3.Connection, after_id: int, limit: int) -> list[OutboxRow]:
    rows = conn.execute(
        "SELECT id, topic, payload, qos, retain, created_ns FROM outbox "
        "WHERE id > ? AND sent = 0 ORDER BY id LIMIT ?",
        (after_id, limit),
    ).fetchall()
    return [OutboxRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows]


def mark_sent(conn: sqlite3.Connection, after_id: int, through_id: int) -> int:
    """Mark the rows with after_id < id <= through_id sent; how many were unsent."""
    cursor = conn.execute(
        "UPDATE outbox SET sent = 1 WHERE id > ? AND id <= ? AND sent = 0",
        (after_id, through_id),
    )
    return cursor.rowcount


def count_unsent(conn: sqlite3.Connection, after_id: int = 0) -> int:
    """Unsent rows; `after_id` (all rows up to it known sent) keeps the scan short."""
    row = conn.execute(
        "SELECT COUNT(*) FROM outbox WHERE id > ? AND sent = 0", (after_id,)
    ).fetchone()
    return int(row[0])


def count_rows(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])


def delete_oldest_sent(conn: sqlite3.Connection, how_many: int) -> int:
    if how_many <= 0:
        return 0
    cursor = conn.execute(
        "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE sent = 1 ORDER BY id LIMIT ?)",
        (how_many,),
    )
    return cursor.rowcount


def prune_sent(conn: sqlite3.Connection, keep: int) -> int:
    """Delete sent rows but the newest `keep` (kept for recall); how many went."""
    if keep < 0:
        raise ValueError(f"keep must be 0 or more (got {keep})")
    if keep == 0:
        return conn.execute("DELETE FROM outbox WHERE sent = 1").rowcount
    cursor = conn.execute(
        "DELETE FROM outbox WHERE sent = 1 AND id < "
        "(SELECT id FROM outbox WHERE sent = 1 ORDER BY id DESC LIMIT 1 OFFSET ?)",
        (keep - 1,),
    )
    return cursor.rowcount


def enforce_bound(conn: sqlite3.Connection, max_rows: int) -> int:
    """Delete the oldest sent rows until at most `max_rows` rows remain (unsent rows
    are never deleted, so the table may stay above the bound); how many went.

    In a journal's outbox the sent rows go by whole seqs, and the journal's meta says
    up to which seq its floor messages were pruned (`outbox_pruned_through`, as its
    retention does): the check never reads an event whose messages the bound took as
    tampered with (docs/journal.md, *The hash chain*)."""
    excess = count_rows(conn) - max_rows
    if excess <= 0:
        return 0
    if not _in_a_journal(conn):
        return delete_oldest_sent(conn, excess)
    row = conn.execute(
        "SELECT seq FROM (SELECT seq FROM outbox WHERE sent = 1 ORDER BY id LIMIT ?) "
        "ORDER BY seq DESC LIMIT 1",
        (excess,),
    ).fetchone()
    if row is None or row[0] is None:
        return 0
    through = int(row[0])
    conn.execute("BEGIN IMMEDIATE")
    try:
        deleted = conn.execute(
            "DELETE FROM outbox WHERE sent = 1 AND seq <= ?", (through,)
        ).rowcount
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) SELECT ?, CAST(MAX(?, COALESCE(("
            "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0)) AS TEXT)",
            (META_OUTBOX_PRUNED_THROUGH, through, META_OUTBOX_PRUNED_THROUGH),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return int(deleted)


def _in_a_journal(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
        ).fetchone()
        is not None
    )
