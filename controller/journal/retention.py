"""Keeping the journal's size bounded.

What must stay: everything recovery needs (the latest snapshot and every event after
it) and everything recall needs: every event of the last ``keep_hands`` hands (at
least :data:`RECALL_HANDS`), and a state to fold them from. Recall rebuilds the last
:data:`RECALL_HANDS` hands (posts, pots, awards) by folding from the newest snapshot
taken before the first of them (``controller.daemon.recall``), so that snapshot stays
too, with every snapshot after it; a journal with no snapshot before its recall
window, and nothing pruned yet, keeps every event (recall folds from the first).

The first kept seq is the smallest of those starts. A kept snapshot keeps its own
event, so :meth:`Journal.verify` still checks it against the hash that event
recorded. Every event before the first kept seq goes, with the snapshots older than
the one recall needs, the sent outbox messages of removed events and the oldest
system log entries beyond ``keep_log_entries``, but never a system log entry younger
than :data:`KEEP_LOG_DAYS` days (what regulators ask to keep: the system and
software-change logs, whatever ``keep_hands`` says; with the clock not synchronised
none goes). Unsent outbox messages are never removed here: the floor link may still
deliver them.

The hash chain survives: the hash of the last removed event is stored in ``meta`` as
the chain's checkpoint, and :meth:`Journal.verify` checks from there. With
``archive=True`` the removed events (and every configuration record) are first
written to ``archive/journal-FIRST-LAST.sqlite3``, a self-contained file whose own
chain can be checked with :func:`controller.journal.verify_archive`. The archive is
built under a temporary name and renamed into place once complete, so a crash
leaves either no archive or a complete one, and a repeated prune finds it done.

A prune with no snapshot yet removes no events (recovery would need them all).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from controller.journal.files import begin_new_database
from controller.journal.floorclaims import claims_in
from controller.journal.queries import set_meta
from controller.journal.records import LogKind, PruneReport
from controller.journal.schema import (
    ARCHIVE_DIR,
    EVENT_COLUMNS,
    EVENT_VALUES,
    HASH_INDEX,
    LOG_COLUMNS,
    META_CHAIN_BASE_HASH,
    META_CHAIN_BASE_SEQ,
    META_LOG_BASE_HASH,
    META_LOG_BASE_ID,
    META_SNAPSHOTS_PRUNED_THROUGH,
    RECALL_HANDS,
    install_file,
)

if TYPE_CHECKING:
    from controller.journal.store import Journal

KEEP_LOG_DAYS = 90
"""System log entries younger than this are kept, however many there are."""
DAY_NS = 86_400 * 10**9


def prune(
    journal: Journal,
    *,
    keep_hands: int,
    archive: bool,
    keep_log_entries: int,
    keep_snapshots: Collection[int] = (),
) -> PruneReport:
    if keep_hands < RECALL_HANDS:
        raise ValueError(
            f"keep_hands must be at least {RECALL_HANDS}: recall shows the last {RECALL_HANDS} hands"
        )
    if keep_log_entries < 100:
        raise ValueError("keep_log_entries must be at least 100")
    conn = journal.connection
    bytes_before = journal.size_bytes()
    base = journal.chain_base_value
    last_seq = journal.last_seq
    cutoff, oldest_snapshot_kept = _cutoff(journal, keep_hands)
    archive_path: Path | None = None
    if cutoff > base.seq + 1 and archive:
        archive_path = _write_archive(journal, base.seq, base.hash, cutoff - 1)
    kept = [seq for seq in keep_snapshots if seq >= cutoff]  # with their events
    removed = _delete(journal, cutoff, (oldest_snapshot_kept, kept), keep_log_entries)
    journal.log_system(
        LogKind.PRUNE,
        {
            "kept_from_seq": cutoff,
            "last_seq": last_seq,
            "removed_events": removed["events"],
            "removed_snapshots": removed["snapshots"],
            "archive": str(archive_path) if archive_path else None,
        },
    )
    # Give the freed pages back and leave an empty WAL (checkpoint, vacuum, checkpoint).
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    conn.execute("PRAGMA incremental_vacuum").fetchall()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    return PruneReport(
        removed_events=removed["events"],
        removed_snapshots=removed["snapshots"],
        removed_outbox=removed["outbox"],
        removed_log_entries=removed["log"],
        kept_from_seq=cutoff,
        archive=archive_path,
        bytes_before=bytes_before,
        bytes_after=journal.size_bytes(),
    )


def _cutoff(journal: Journal, keep_hands: int) -> tuple[int, int | None]:
    """The first event kept, and the oldest snapshot kept (None: keep them all)."""
    conn = journal.connection
    base = journal.chain_base_value
    snapshot = journal.latest_snapshot()
    recall_start = journal.first_seq_of_last_hands(keep_hands)
    # The snapshot recall folds from: the newest one before its window's first event.
    window_start = journal.first_seq_of_last_hands(RECALL_HANDS)
    recall_base = None if window_start is None else _snapshot_seq_before(conn, window_start)
    if snapshot is None:
        cutoff = base.seq + 1
    else:
        cutoff = snapshot[0] if recall_start is None else min(snapshot[0], recall_start)
        if recall_base is not None:
            cutoff = min(cutoff, recall_base)
        elif window_start is not None and base.seq == 0:
            cutoff = 1  # recall folds from the very first event until a snapshot precedes it
    cutoff = max(cutoff, base.seq + 1)
    oldest_snapshot_kept = (
        recall_base if recall_base is not None else (None if snapshot is None else snapshot[0])
    )
    return cutoff, oldest_snapshot_kept


def _delete(
    journal: Journal,
    cutoff: int,
    snapshots_kept: tuple[int | None, list[int]],
    keep_log_entries: int,
) -> dict[str, int]:
    """Remove, in one transaction, the events before ``cutoff`` (the chain's base moves
    to the last one removed), the snapshots before the oldest kept (but those named
    with it) and the system log entries that go; how many of each went."""
    oldest_snapshot_kept, named = snapshots_kept
    conn = journal.connection
    base = journal.chain_base_value
    removed = {"events": 0, "snapshots": 0, "outbox": 0, "log": 0}
    conn.execute("BEGIN IMMEDIATE")
    try:
        if cutoff > base.seq + 1:
            new_base_hash = conn.execute(
                "SELECT hash FROM events WHERE seq = ?", (cutoff - 1,)
            ).fetchone()[0]
            removed["events"] = conn.execute("DELETE FROM events WHERE seq < ?", (cutoff,)).rowcount
            removed["outbox"] = conn.execute(
                "DELETE FROM outbox WHERE seq < ? AND sent != 0", (cutoff,)
            ).rowcount
            set_meta(conn, META_CHAIN_BASE_SEQ, str(cutoff - 1))
            set_meta(conn, META_CHAIN_BASE_HASH, bytes(new_base_hash).hex())
        if oldest_snapshot_kept is not None:
            removed["snapshots"] = conn.execute(
                f"DELETE FROM snapshots WHERE seq < ? AND seq NOT IN ({','.join('?' * len(named))})",
                (oldest_snapshot_kept, *named),
            ).rowcount
            set_meta(conn, META_SNAPSHOTS_PRUNED_THROUGH, str(oldest_snapshot_kept - 1))
        last_removed = _last_log_entry_to_remove(journal, keep_log_entries)
        if last_removed is not None:
            removed["log"] = conn.execute(
                "DELETE FROM system_log WHERE id <= ?", (last_removed[0],)
            ).rowcount
            if isinstance(last_removed[1], bytes):  # the log's chain goes on from there
                set_meta(conn, META_LOG_BASE_ID, str(last_removed[0]))
                set_meta(conn, META_LOG_BASE_HASH, last_removed[1].hex())
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return removed


def _last_log_entry_to_remove(journal: Journal, keep_log_entries: int) -> tuple[int, object] | None:
    """The newest system log entry that goes, with its hash: beyond the last
    ``keep_log_entries`` and before the first entry younger than ``KEEP_LOG_DAYS``
    days (an entry with a clock gone wrong keeps what follows it); None when none goes,
    as when the clock is not synchronised."""
    wall_ns, synced, _ = journal.clock.now()
    if not synced:
        return None
    row = journal.connection.execute(
        "SELECT id, hash FROM system_log WHERE id <= (SELECT MAX(id) FROM system_log) - ? "
        "AND id < COALESCE((SELECT MIN(id) FROM system_log WHERE wall_ns >= ?), "
        "(SELECT MAX(id) FROM system_log) + 1) ORDER BY id DESC LIMIT 1",
        (keep_log_entries, wall_ns - KEEP_LOG_DAYS * DAY_NS),
    ).fetchone()
    if row is None:
        return None
    held = _first_claim_still_holding(journal.connection, int(row[0]))
    if held is not None:  # the log goes up to the entry before it, no further
        row = journal.connection.execute(
            "SELECT id, hash FROM system_log WHERE id < ? ORDER BY id DESC LIMIT 1", (held,)
        ).fetchone()
    return None if row is None else (int(row[0]), row[1])


def _first_claim_still_holding(conn: sqlite3.Connection, through: int) -> int | None:
    """The first ``floor_queued`` entry up to ``through`` whose floor messages are still
    in the outbox (unsent, or queued under an event kept): it stays, with the log after
    it, or they would be messages no record covers (``floorclaims``)."""
    entries = conn.execute(
        f"SELECT {LOG_COLUMNS} FROM system_log WHERE id <= ? AND kind = ? ORDER BY id",
        (through, LogKind.FLOOR_QUEUED.value),
    )
    for claim in claims_in(entries):
        marks = ",".join("?" * len(claim.ids))
        if conn.execute(
            f"SELECT 1 FROM outbox WHERE id IN ({marks}) LIMIT 1", claim.ids
        ).fetchone():
            return claim.log_id
    return None


def _snapshot_seq_before(conn: sqlite3.Connection, seq: int) -> int | None:
    """The seq of the newest snapshot taken before event ``seq`` (its state is the one
    that event was applied to), or None."""
    row = conn.execute("SELECT MAX(seq) FROM snapshots WHERE seq < ?", (seq,)).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def _write_archive(journal: Journal, base_seq: int, base_hash: bytes, last: int) -> Path:
    directory = journal.directory / ARCHIVE_DIR
    directory.mkdir(exist_ok=True)
    for unfinished in directory.glob("*.tmp*"):  # a prune killed while archiving
        with suppress(FileNotFoundError):
            unfinished.unlink()
    final = directory / f"journal-{base_seq + 1:010d}-{last:010d}.sqlite3"
    if final.exists():  # a previous prune wrote it and crashed before deleting
        return final
    temp = final.with_suffix(".tmp")
    source = journal.connection
    target = begin_new_database(temp)
    try:
        target.executemany(
            "INSERT INTO configs VALUES (?, ?, ?, ?, ?, ?, ?)",
            source.execute("SELECT * FROM configs ORDER BY id").fetchall(),
        )
        meta = {
            META_CHAIN_BASE_SEQ: str(base_seq),
            "chain_end_seq": str(last),
        }
        if base_seq > 0:
            meta[META_CHAIN_BASE_HASH] = base_hash.hex()
        cursor = source.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE seq > ? AND seq <= ? ORDER BY seq",
            (base_seq, last),
        )
        end_hash = b""
        while rows := cursor.fetchmany(1024):
            target.executemany(f"INSERT INTO events ({EVENT_COLUMNS}) VALUES {EVENT_VALUES}", rows)
            end_hash = bytes(rows[-1][HASH_INDEX])
        meta["chain_end_hash"] = end_hash.hex()
        target.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
        target.execute("COMMIT")
    finally:
        target.close()
    return install_file(temp, final)
