"""The journal's file format: tables, canonical encodings, the hash chain, the ack mark.

Everything that decides the bytes on disk lives here, so the writer, the verifier
and the salvage read and write the same thing.

Hash chain: ``hash[seq] = SHA-256(hash[seq - 1] || canonical_row(seq))``, where the
canonical row is a compact JSON array of every stored field of the event row, the
SHA-256 of the configuration in force and the SHA-256 of the snapshot stored with it
(if any). The chain starts from ``SHA-256(GENESIS_PREFIX || first config's SHA-256)``
or, after pruning, from the checkpoint hash kept in ``meta``.

The ack mark (the acknowledged high-water mark, in two files) is in ``ackmark.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT_VERSION = 1
APPLICATION_ID = 0x54434A31  # "TCJ1": lets `file`/sqlite tools tell what the file is
DB_NAME = "journal.sqlite3"
LOCK_NAME = "journal.lock"
ARCHIVE_DIR = "archive"
DAMAGED_DIR = "damaged"
GENESIS_PREFIX = b"table-controller journal v1\x00"
DIGEST_SIZE = 32
RECALL_HANDS = 10  # recall shows the last 10 hands, the one in progress included

# Pragmas set on every read-write connection. WAL + synchronous=FULL: a commit
# returns only after the WAL has been fsynced, so an acknowledged event survives a
# power cut; WAL lets the floor-link publisher read the outbox on its own connection.
# The page cache is held to 256 KiB (SQLite's default is 2 MiB per connection): the
# journal is written at its end and read back rarely, the kernel caches the file
# anyway, and a cache that fills over the day reads as memory growth on a small board
# (bench/daemon.py's soak: 0.69 MB over 18,000 hands with the default, 0.29 MB with this).
CACHE_PRAGMA = "PRAGMA cache_size = -256"
CONNECTION_PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA foreign_keys = OFF",
    CACHE_PRAGMA,
)
BUSY_TIMEOUT_SECONDS = 5.0

# Set before the first table exists (auto_vacuum cannot change afterwards): freed
# pages after pruning go back to the filesystem with `PRAGMA incremental_vacuum`.
CREATION_PRAGMAS = (
    "PRAGMA auto_vacuum = INCREMENTAL",
    f"PRAGMA application_id = {APPLICATION_ID}",
    f"PRAGMA user_version = {FORMAT_VERSION}",
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS configs (
    id INTEGER PRIMARY KEY,
    sha256 TEXT NOT NULL,
    text TEXT NOT NULL,
    from_seq INTEGER NOT NULL,
    wall_ns INTEGER NOT NULL,
    clock_synced INTEGER NOT NULL,
    by TEXT
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    hand INTEGER,
    config_id INTEGER NOT NULL,
    event TEXT NOT NULL,
    accepted INTEGER NOT NULL,
    refusal_code TEXT,
    refusal_message TEXT,
    by TEXT,
    wall_ns INTEGER NOT NULL,
    clock_synced INTEGER NOT NULL,
    mono_ns INTEGER NOT NULL,
    snapshot_sha256 BLOB,
    hash BLOB NOT NULL,
    outbox_sha256 BLOB
);
CREATE TABLE IF NOT EXISTS snapshots (
    seq INTEGER PRIMARY KEY,
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS system_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    wall_ns INTEGER NOT NULL,
    clock_synced INTEGER NOT NULL,
    mono_ns INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    hash BLOB
);
CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER, topic TEXT NOT NULL, payload TEXT NOT NULL, qos INTEGER NOT NULL DEFAULT 1, retain INTEGER NOT NULL DEFAULT 0, created_ns INTEGER NOT NULL, sent INTEGER NOT NULL DEFAULT 0);
"""

# meta keys
META_FORMAT = "format_version"
META_CREATED_NS = "created_wall_ns"
META_CHAIN_BASE_SEQ = "chain_base_seq"
META_CHAIN_BASE_HASH = "chain_base_hash"
META_SNAPSHOTS_PRUNED_THROUGH = "snapshots_pruned_through"
META_CLEAN_SHUTDOWN = "clean_shutdown"
META_LAST_BOOT_ID = "last_boot_id"
META_TABLE_ID = "table_id"  # the table this journal belongs to (ForeignJournal)
META_OUTBOX_PRUNED_THROUGH = "outbox_pruned_through"  # floor messages not checked up to
META_FLOOR_CLAIMS = "floor_claims"  # floor messages of no event are claimed (floorclaims.py)
META_LOG_BASE_ID = "log_base_id"  # the system log's chain starts after this entry ...
META_LOG_BASE_HASH = "log_base_hash"  # ... from this hash (pruning, or an upgraded journal)

EVENT_COLUMNS = (
    "seq, hand, config_id, event, accepted, refusal_code, refusal_message, by, "
    "wall_ns, clock_synced, mono_ns, snapshot_sha256, hash, outbox_sha256"
)
EVENT_VALUES = "(" + ",".join("?" * 14) + ")"
HASH_INDEX = 12  # of a row read with EVENT_COLUMNS
LOG_COLUMNS = "id, kind, detail, wall_ns, clock_synced, mono_ns, last_seq, hash"
LOG_GENESIS_PREFIX = b"table-controller system log v1\x00"
HEAD_PREFIX = b"table-controller head v1\x00"

# Columns added after the first release: (table, column, type). A journal that lacks
# them is upgraded by the writer at open; readers see them as NULL (``legacy_views``).
ADDED_COLUMNS = (("events", "outbox_sha256", "BLOB"), ("system_log", "hash", "BLOB"))


def canonical_json(value: Any) -> str:
    """The one JSON encoding used for stored events and hashed content."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def genesis_hash(first_config_sha256: str) -> bytes:
    return hashlib.sha256(GENESIS_PREFIX + first_config_sha256.encode("ascii")).digest()


@dataclass(frozen=True, slots=True)
class RowContent:
    """The hashed fields of one event row, exactly as stored."""

    seq: int
    hand: int | None
    config_sha256: str
    event: str
    accepted: int
    refusal_code: str | None
    refusal_message: str | None
    by: str | None
    wall_ns: int
    clock_synced: int
    mono_ns: int
    snapshot_sha256: bytes | None
    outbox_sha256: bytes | None = None  # the floor messages written with it (if any)

    def digest(self, previous: bytes) -> bytes:
        fields: list[Any] = [
            self.seq,
            self.hand,
            self.config_sha256,
            self.event,
            self.accepted,
            self.refusal_code,
            self.refusal_message,
            self.by,
            self.wall_ns,
            self.clock_synced,
            self.mono_ns,
            self.snapshot_sha256.hex() if self.snapshot_sha256 is not None else None,
        ]
        if self.outbox_sha256 is not None:  # rows written before it existed hash as before
            fields.append(self.outbox_sha256.hex())
        content = json.dumps(fields, separators=(",", ":"))
        return hashlib.sha256(previous + content.encode("utf-8")).digest()


def snapshot_digest(state: str) -> bytes:
    return hashlib.sha256(state.encode("utf-8")).digest()


def outbox_digest(rows: list[tuple[str, str, int, int]]) -> bytes | None:
    """The SHA-256 of an event's floor messages ``(topic, payload, qos, retain)`` in the
    order written; None without any (so such an event hashes as before)."""
    if not rows:
        return None
    content = json.dumps([list(row) for row in rows], separators=(",", ":"))
    return hashlib.sha256(content.encode("utf-8")).digest()


def log_genesis(first_config_sha256: str) -> bytes:
    return hashlib.sha256(LOG_GENESIS_PREFIX + first_config_sha256.encode("ascii")).digest()


def log_digest(previous: bytes, row: tuple[Any, ...]) -> bytes:
    """The system log's chain: ``row`` is ``(id, kind, detail, wall_ns, clock_synced,
    mono_ns, last_seq)`` as stored."""
    content = json.dumps(list(row), separators=(",", ":"))
    return hashlib.sha256(previous + content.encode("utf-8")).digest()


def head_token(seq: int, event_hash: bytes, log_id: int, log_hash: bytes) -> str:
    """What the floor is sent with every hand (``chain_head``): ``v1:SEQ:LOGID:HEX``,
    HEX being SHA-256 over both chains' heads, so one string anchors the events (with
    their snapshots and floor messages) and the system log up to that moment."""
    digest = hashlib.sha256(HEAD_PREFIX + event_hash + log_hash).hexdigest()
    return f"v1:{seq}:{log_id}:{digest}"


def parse_head_token(token: str) -> tuple[int, int, str]:
    """``(seq, log id, hex)``; ValueError for anything else."""
    version, seq, log_id, digest = token.strip().split(":")
    if version != "v1" or len(digest) != 64:
        raise ValueError(f"not a chain head: {token!r}")
    int(digest, 16)
    return int(seq), int(log_id), digest


def refusal_from_result(result: Mapping[str, Any] | None) -> tuple[str | None, str | None]:
    """``(code, message)`` from a replay-style result or a bare error mapping."""
    if not result:
        return None, None
    error = result.get("error", result)
    if not isinstance(error, Mapping):
        raise ValueError(f"result error must be a mapping, got {type(error).__name__}")
    code = error.get("code")
    message = error.get("message")
    return (None if code is None else str(code)), (None if message is None else str(message))


def fsync_directory(path: Path) -> None:
    """Make a created, renamed or removed directory entry durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def install_file(temp: Path, final: Path) -> Path:
    """Make a finished temporary file durable, move it into place, and make the move
    durable: ``final`` is either the old file or the whole new one after a power cut."""
    fd = os.open(temp, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, final)
    fsync_directory(final.parent)
    return final
