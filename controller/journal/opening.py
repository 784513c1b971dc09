"""Refusals at open: a missing database with acknowledged events, another table's journal."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from controller.journal.ackmark import AckReading
from controller.journal.errors import JournalCorrupt, TornTail
from controller.journal.integrity import identity_problem, read_meta, recorded_table_id
from controller.journal.records import LogKind
from controller.journal.schema import DB_NAME

SALVAGE_MARKER = "salvage.pending"  # written while a salvage is unfinished (salvage.py)


def refuse_missing_database(directory: Path, acks: AckReading) -> None:
    """No database: a fault if events were acknowledged or its WAL is still there."""
    high = acks.high
    if high is not None and high.seq > 0:
        why = f"{DB_NAME} is missing although events up to seq {high.seq} were acknowledged"
        if (directory / SALVAGE_MARKER).exists():
            why = (
                f"{DB_NAME} is missing because a salvage was interrupted after moving it "
                f"aside ({SALVAGE_MARKER} is there): run `tablectl journal salvage` again, "
                f"which finishes it and puts the salvaged journal in place"
            )
        raise TornTail(0, high.seq, why)
    if (directory / f"{DB_NAME}-wal").exists():
        raise JournalCorrupt(f"{DB_NAME} is missing but its write-ahead log {DB_NAME}-wal is there")


def refuse_foreign(
    conn: sqlite3.Connection, db_path: Path, acks: AckReading, table_id: str | None
) -> None:
    try:
        recorded = recorded_table_id(read_meta(conn))
    except sqlite3.DatabaseError as error:
        raise JournalCorrupt(f"{db_path}: {error}") from error
    foreign = identity_problem(recorded, acks, table_id)
    if foreign is not None:
        raise foreign


def last_stop(
    created: bool, marker_set: bool, acks: AckReading | None, last_seq: int
) -> tuple[str, dict[str, Any]] | None:
    """The system log entry a start writes about how the last run ended, if any."""
    if created or marker_set:
        return None
    if acks is not None and acks.clean_at(last_seq):
        # The last close found no room for its entry and marker in the database (a full
        # disk): the ack mark, rewritten in place, kept the fact.
        return LogKind.SHUTDOWN, {
            "last_seq": last_seq, "recorded_at_next_start": True,
            "why": "the orderly stop could not write to the database (storage full?)",
        }  # fmt: skip
    return LogKind.UNCLEAN_SHUTDOWN, {"last_seq": last_seq}
