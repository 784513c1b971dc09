"""Reading the journal's tables into records, and small row helpers shared by the writer.

Functions here take a connection and hold no state; :class:`Journal` wraps them with
its lock. They are also what a tool reading a copied journal would use.
"""

from __future__ import annotations

import difflib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from controller.journal.errors import JournalCorrupt
from controller.journal.records import ConfigRecord, EventRecord, SystemLogRecord
from controller.journal.schema import (
    EVENT_COLUMNS,
    META_LOG_BASE_HASH,
    META_LOG_BASE_ID,
    log_genesis,
)

DIFF_LINES = 20
EVENT_SELECT = f"SELECT {EVENT_COLUMNS} FROM events"
CONFIG_SELECT = "SELECT id, sha256, text, from_seq, wall_ns, clock_synced, by FROM configs"
EVENT_BATCH = 256


def config_diff(recorded: str, given: str, limit: int = DIFF_LINES) -> str:
    """A short unified diff, recorded → given, for a technician."""
    lines = list(
        difflib.unified_diff(
            recorded.splitlines(),
            given.splitlines(),
            "recorded configuration",
            "given configuration",
            lineterm="",
            n=1,
        )
    )
    if not lines:
        return "(the texts differ only in line endings or a final newline)"
    if len(lines) > limit:
        lines = [*lines[:limit], f"... ({len(lines) - limit} more diff lines)"]
    return "\n".join(lines)


def outbox_row(item: Sequence[Any]) -> tuple[str, str, int, int]:
    """``(topic, payload)`` or ``(topic, payload, qos, retain)``, checked."""
    if len(item) == 2:
        topic, payload = item
        qos, retain = 1, 0
    elif len(item) == 4:
        topic, payload, qos, retain = item
    else:
        raise ValueError(f"outbox item must be (topic, payload[, qos, retain]), got {item!r}")
    if not isinstance(topic, str) or not topic:
        raise ValueError(f"outbox topic must be a non-empty string, got {topic!r}")
    if not isinstance(payload, str):
        raise ValueError(f"outbox payload must be a string, got {type(payload).__name__}")
    if qos not in (0, 1, 2):
        raise ValueError(f"outbox qos must be 0, 1 or 2, got {qos!r}")
    return topic, payload, int(qos), int(bool(retain))


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def event_record(row: Sequence[Any]) -> EventRecord:
    (seq, hand, config_id, event, accepted, code, message, by, wall_ns, synced, mono_ns,
     snapshot_sha, _hash, _outbox_sha) = row  # fmt: skip
    return EventRecord(
        seq=seq,
        hand=hand,
        event=json.loads(event),
        accepted=bool(accepted),
        by=by,
        refusal_code=code,
        refusal_message=message,
        wall_ns=wall_ns,
        clock_synced=bool(synced),
        mono_ns=mono_ns,
        config_id=config_id,
        has_snapshot=snapshot_sha is not None,
    )


def config_record(row: Sequence[Any]) -> ConfigRecord:
    config_id, sha, text, from_seq, wall_ns, synced, by = row
    return ConfigRecord(
        id=config_id,
        sha256=sha,
        text=text,
        from_seq=from_seq,
        wall_ns=wall_ns,
        clock_synced=bool(synced),
        by=by,
    )


def events_after(
    conn: sqlite3.Connection, after_seq: int, limit: int = EVENT_BATCH
) -> list[EventRecord]:
    rows = conn.execute(
        f"{EVENT_SELECT} WHERE seq > ? ORDER BY seq LIMIT ?", (after_seq, limit)
    ).fetchall()
    return [event_record(row) for row in rows]


def event_at(conn: sqlite3.Connection, seq: int) -> EventRecord | None:
    row = conn.execute(f"{EVENT_SELECT} WHERE seq = ?", (seq,)).fetchone()
    return None if row is None else event_record(row)


def first_seq_of_last_hands(conn: sqlite3.Connection, count: int) -> int | None:
    """The first seq of the last ``count`` distinct hand numbers, walking back from the end.

    Events without a hand number inside that range count with it.
    """
    if count < 1:
        raise ValueError("count must be at least 1")
    seen: set[int] = set()
    start: int | None = None
    cursor = conn.execute("SELECT seq, hand FROM events ORDER BY seq DESC")
    try:
        for seq, hand in cursor:
            if hand is not None and hand not in seen:
                if len(seen) == count:
                    break
                seen.add(hand)
            start = seq
    finally:
        cursor.close()
    return start


def latest_snapshot(conn: sqlite3.Connection) -> tuple[int, str] | None:
    row = conn.execute("SELECT seq, state FROM snapshots ORDER BY seq DESC LIMIT 1").fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def configs(conn: sqlite3.Connection) -> list[ConfigRecord]:
    return [config_record(row) for row in conn.execute(f"{CONFIG_SELECT} ORDER BY id")]


def current_config(conn: sqlite3.Connection) -> ConfigRecord:
    row = conn.execute(f"{CONFIG_SELECT} ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        raise JournalCorrupt("the journal holds no configuration record")
    return config_record(row)


def config_for_seq(conn: sqlite3.Connection, seq: int) -> ConfigRecord:
    row = conn.execute(
        f"{CONFIG_SELECT} WHERE from_seq <= ? ORDER BY id DESC LIMIT 1", (seq,)
    ).fetchone()
    if row is None:
        row = conn.execute(f"{CONFIG_SELECT} ORDER BY id LIMIT 1").fetchone()
    return config_record(row)


def system_log(
    conn: sqlite3.Connection, after_id: int, kinds: Iterable[str] | None
) -> list[SystemLogRecord]:
    wanted = None if kinds is None else set(kinds)
    rows = conn.execute(
        "SELECT id, kind, detail, wall_ns, clock_synced, mono_ns, last_seq "
        "FROM system_log WHERE id > ? ORDER BY id",
        (after_id,),
    ).fetchall()
    return [
        SystemLogRecord(
            id=row_id,
            kind=kind,
            detail=json.loads(detail),
            wall_ns=wall_ns,
            clock_synced=bool(synced),
            mono_ns=mono_ns,
            last_seq=last_seq,
        )
        for row_id, kind, detail, wall_ns, synced, mono_ns, last_seq in rows
        if wanted is None or kind in wanted
    ]


def log_head(conn: sqlite3.Connection, before: int | None = None) -> tuple[int, bytes]:
    """``(id, hash)`` of the last chained system log entry (before ``before``), or the
    log chain's base (``meta``; the genesis for a journal without one)."""
    query = "SELECT id, hash FROM system_log"
    args: tuple[int, ...] = ()
    if before is not None:
        query += " WHERE id < ?"
        args = (before,)
    row = conn.execute(query + " ORDER BY id DESC LIMIT 1", args).fetchone()
    if row is not None and isinstance(row[1], bytes):
        return int(row[0]), row[1]
    meta = dict(
        conn.execute(
            "SELECT key, value FROM meta WHERE key IN (?, ?)",
            (META_LOG_BASE_ID, META_LOG_BASE_HASH),
        ).fetchall()
    )
    base_hash = meta.get(META_LOG_BASE_HASH)
    if base_hash:
        return int(meta.get(META_LOG_BASE_ID, "0")), bytes.fromhex(base_hash)
    first = conn.execute("SELECT sha256 FROM configs WHERE id = 1").fetchone()
    return 0, log_genesis(str(first[0]) if first else "")
