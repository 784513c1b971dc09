"""The technician's explicit recovery after a failed integrity check.

:func:`salvage` never deletes anything. It

1. takes the writer's lock (the service must be stopped);
2. reads a private copy of the damaged files (SQLite would otherwise replay and
   checkpoint the damaged WAL in place) and keeps the longest prefix of events whose
   hash chain holds, with the configurations, the snapshots that match their
   recorded hashes, the readable system log and the outbox rows of kept events; if
   the journal is healthy, or no configuration can be found, it stops here having
   changed nothing;
3. moves ``journal.sqlite3`` and its ``-wal``/``-shm`` files into
   ``damaged/YYYYmmddTHHMMSSZ/`` in the state directory, with a copy of
   ``journal.ack`` and ``journal.ack.mirror`` (renames: the evidence is kept byte
   for byte, for the supervisor or the regulator);
4. builds a new journal from what it kept, under a temporary name renamed into
   place, with the same chain (so the kept events keep their hashes) and a
   ``salvage`` system log entry saying what was moved where, where the kept events
   end, where the damaged database ended and which seq had been acknowledged;
   finally both copies of the ack mark are rewritten for the new journal.

A journal of another table (its database, its ack mark or the configuration given
naming different tables) is refused with :class:`ForeignJournal`, nothing moved.

Events after the damage stay readable in the moved-aside copy only. The daemon then
starts normally from the rebuilt journal.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from controller.journal.ackmark import (
    ACK_MIRROR_NAME,
    ACK_NAME,
    AckMark,
    AckReading,
    read_acks,
    write_acks,
)
from controller.journal.carve import carve_journal
from controller.journal.clock import WallClock
from controller.journal.errors import JournalError
from controller.journal.files import acquire_lock, create_database, legacy_views, release_lock
from controller.journal.integrity import (
    ChainBase,
    ChainScanner,
    LogBase,
    LogScanner,
    chain_base,
    identity_problem,
    log_base,
    outbox_unchecked_through,
    read_meta,
    verify_connection,
)
from controller.journal.integrity import verified_configs as _verified_configs
from controller.journal.records import LogKind, SalvageReport
from controller.journal.recovered import Recovered, keep_matching_outbox
from controller.journal.schema import (
    DAMAGED_DIR,
    DB_NAME,
    EVENT_COLUMNS,
    EVENT_VALUES,
    LOG_COLUMNS,
    META_CHAIN_BASE_HASH,
    META_CHAIN_BASE_SEQ,
    META_CLEAN_SHUTDOWN,
    META_CREATED_NS,
    META_FORMAT,
    META_LOG_BASE_HASH,
    META_LOG_BASE_ID,
    META_OUTBOX_PRUNED_THROUGH,
    META_SNAPSHOTS_PRUNED_THROUGH,
    META_TABLE_ID,
    canonical_json,
    fsync_directory,
    genesis_hash,
    log_digest,
    log_genesis,
    sha256_hex,
    snapshot_digest,
)
from controller.journal.storage import as_storage_fault

_MOVED_FILES = (
    DB_NAME,
    f"{DB_NAME}-wal",
    f"{DB_NAME}-shm",
    f"{DB_NAME}-journal",
    ACK_NAME,
    ACK_MIRROR_NAME,
)
_COPIED_FILES = (ACK_NAME, ACK_MIRROR_NAME)


def salvage(
    path_dir: str | os.PathLike[str],
    config_text: str | None = None,
    *,
    clock: WallClock | None = None,
    force: bool = False,
    table_id: str | None = None,
    before: int | None = None,
) -> SalvageReport:
    """Move the damaged journal aside and rebuild one from its longest valid prefix.

    ``config_text`` is used when a configuration record cannot be read from the damaged
    journal (or there is no database at all); ``table_id`` (the table the salvage is
    for, ``table.id`` of that configuration) is checked against the table the journal
    belongs to. ``before`` cuts the kept prefix before that seq even where the chain
    holds: the way out of a ``replay_diverged`` fault (a record the firmware now
    refuses, such as an amount over the bound that an older firmware took), whose
    message names the seq. A journal that passes every check is left alone unless
    ``force`` (or ``before``). Raises :class:`JournalBusy` if the service still holds
    the journal, :class:`ForeignJournal` if it belongs to another table,
    :class:`JournalError` (nothing moved) if there is nothing to salvage, the journal
    is healthy, or no configuration can be found.
    """
    directory = Path(path_dir)
    try:
        return _salvage(directory, config_text, clock or WallClock(), force, table_id, before)
    except JournalError:
        raise
    except Exception as error:  # never a traceback for the technician
        converted = as_storage_fault(directory, error, "the salvage")
        if isinstance(converted, JournalError):
            raise converted from error
        raise JournalError(
            f"the salvage of {directory} failed: {type(error).__name__}: {error}. Whatever "
            f"was moved is under {DAMAGED_DIR}/; the old ack mark stays in place, so the "
            f"service stays locked: run the salvage again, or report this message."
        ) from error


def _salvage(
    directory: Path,
    config_text: str | None,
    clock: WallClock,
    force: bool,
    table_id: str | None,
    before: int | None = None,
) -> SalvageReport:
    if not directory.is_dir():
        raise JournalError(f"{directory} is not a directory")
    lock_fd = acquire_lock(directory)
    try:
        present = [name for name in _MOVED_FILES if (directory / name).exists()]
        if not present or present == [ACK_MIRROR_NAME] and read_acks(directory).high is None:
            raise JournalError(f"there is no journal in {directory} to salvage")
        # Read a private copy first: nothing is moved if the salvage cannot proceed.
        acks = read_acks(directory)
        ack = acks.high
        recovered = _read_damaged(directory, acks, table_id, before)
        if not recovered.healthy or force:
            carved = carve_journal(directory, config_text, before)
            if carved.last_seq > recovered.last_seq or (
                recovered.base is None and carved.base is not None
            ):
                recovered = carved
        recovered.notes[:0] = [f"ack mark: {warning}" for warning in acks.warnings()]
        if acks.lost:
            recovered.notes.insert(
                0,
                f"the ack mark was lost ({acks.describe()}): whether "
                f"events after the kept ones had been acknowledged "
                f"cannot be told",
            )
        foreign = identity_problem(recovered.table_id, acks, table_id)
        if foreign is not None:
            raise foreign
        owner = table_id or recovered.table_id or acks.table_id
        if recovered.healthy and not force and before is None:
            raise JournalError(
                f"the journal in {directory} passes every integrity check; there is "
                f"nothing to salvage (force=True rebuilds it anyway)"
            )
        if not recovered.configs:
            if config_text is None:
                raise JournalError(
                    f"no configuration could be read from the damaged journal in {directory}; "
                    f"run the salvage again with the table's configuration file"
                )
            wall_ns, synced, _ = clock.now()
            recovered.configs = [
                (1, sha256_hex(config_text), config_text, 1, wall_ns, int(synced), None)
            ]
            recovered.base = ChainBase(0, b"")
            recovered.events, recovered.snapshots, recovered.outbox = [], [], []
            recovered.notes.append("configuration taken from the file given to the salvage")
        moved_to = _move_aside(directory, present)
        if recovered.base is None:
            # The chain's start cannot be known: keep the newest good configuration only.
            latest = recovered.configs[-1]
            recovered.configs = [(1, *latest[1:3], 1, *latest[4:])]
            recovered.base = ChainBase(0, b"")
            recovered.events, recovered.snapshots, recovered.outbox = [], [], []
            recovered.notes.append("no event could be checked; the rebuilt journal starts empty")
        if ack is not None and ack.seq > recovered.last_seq:
            recovered.notes.append(
                f"acknowledged events {recovered.last_seq + 1}..{ack.seq} are not in the "
                f"rebuilt journal"
            )
        kept = len(recovered.events)
        found_last = max(
            recovered.found_last_seq or 0, recovered.damaged_last_seq or 0, ack.seq if ack else 0
        )
        dropped = max(0, found_last - recovered.last_seq)
        detail = {
            "moved_to": str(moved_to),
            "kept_last_seq": recovered.last_seq,
            "kept_events": kept,
            "dropped_events": dropped,
            "damaged_last_seq": recovered.damaged_last_seq,
            "acknowledged_seq": ack.seq if ack else None,
            "reason": recovered.reason,
            "notes": recovered.notes,
        }
        _build(directory, recovered, clock, detail, owner)
        # The old ack mark stayed in place (a copy went aside) until now, so a crash
        # before this point leaves "database missing, events acknowledged": a fault at
        # the next start, never a silently fresh journal.
        last_hash = recovered.last_hash
        if recovered.last_seq == 0 or not last_hash:
            last_hash = genesis_hash(str(recovered.configs[0][1]))
        write_acks(directory, AckMark(recovered.last_seq, last_hash, owner))
        fsync_directory(directory)
        return SalvageReport(
            moved_to=moved_to,
            kept_last_seq=recovered.last_seq,
            damaged_last_seq=recovered.damaged_last_seq,
            acknowledged_seq=ack.seq if ack else None,
            reason=recovered.reason,
            snapshots_kept=len(recovered.snapshots),
            notes=tuple(recovered.notes),
            kept_events=kept,
            dropped_events=dropped,
        )
    finally:
        release_lock(lock_fd)


def _move_aside(directory: Path, names: list[str]) -> Path:
    """Rename the damaged files into a new ``damaged/<UTC time>/`` folder."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    moved_to = directory / DAMAGED_DIR / stamp
    suffix = 1
    while moved_to.exists():
        suffix += 1
        moved_to = directory / DAMAGED_DIR / f"{stamp}-{suffix}"
    moved_to.mkdir(parents=True)
    for name in names:
        if name in _COPIED_FILES:
            shutil.copy2(directory / name, moved_to / name)
            fd = os.open(moved_to / name, os.O_RDONLY | os.O_CLOEXEC)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        else:
            with suppress(FileNotFoundError):  # -shm, say, gone with its last connection
                os.rename(directory / name, moved_to / name)
    fsync_directory(moved_to)
    fsync_directory(moved_to.parent)
    fsync_directory(directory)
    return moved_to


def _read_damaged(
    directory: Path, acks: AckReading, table_id: str | None, before: int | None
) -> Recovered:
    recovered = Recovered()
    if not (directory / DB_NAME).exists():
        recovered.reason = f"{DB_NAME} was missing"
        return recovered
    with tempfile.TemporaryDirectory(prefix="salvage-", dir=directory) as work:
        for name in (DB_NAME, f"{DB_NAME}-wal"):
            if (directory / name).exists():
                shutil.copyfile(directory / name, Path(work) / name)
        try:
            conn = sqlite3.connect(str(Path(work) / DB_NAME), isolation_level=None)
        except sqlite3.DatabaseError as error:
            recovered.reason = f"the database could not be opened: {error}"
            return recovered
        try:
            with suppress(sqlite3.DatabaseError):
                legacy_views(conn)
            try:
                recovered.healthy = verify_connection(conn, acks, table_id=table_id).ok
            except (sqlite3.DatabaseError, TypeError, ValueError):
                recovered.healthy = False
            try:
                _read_into(conn, recovered, before)
            except (sqlite3.DatabaseError, TypeError, ValueError) as error:
                # SQLite read rows it cannot vouch for; the raw pages are read next.
                recovered.base = None
                recovered.events = []
                recovered.reason = f"SQLite could not read the journal: {error}"
        finally:
            conn.close()
    return recovered


def _read_into(conn: sqlite3.Connection, recovered: Recovered, before: int | None) -> None:
    try:
        meta = read_meta(conn)
    except sqlite3.DatabaseError as error:
        meta = {}
        recovered.notes.append(f"meta unreadable ({error}); assuming a journal never pruned")
    recovered.table_id = meta.get(META_TABLE_ID) or None
    try:
        good, problems = _verified_configs(conn)
        recovered.notes.extend(problems)
        recovered.configs = [
            row
            for row in conn.execute("SELECT * FROM configs ORDER BY id").fetchall()
            if row[0] in good
        ]
    except sqlite3.DatabaseError as error:
        recovered.reason = f"the configuration records are unreadable: {error}"
        return
    with suppress(sqlite3.DatabaseError):
        row = conn.execute("SELECT MAX(seq) FROM events").fetchone()
        recovered.damaged_last_seq = None if row is None or row[0] is None else int(row[0])
    base = chain_base(meta, good)
    if base is None:
        recovered.reason = "the first configuration record is damaged, so no event can be checked"
        return
    recovered.base = base
    scanner = ChainScanner(conn, base, good)
    recorded: dict[int, bytes] = {}
    cut = False
    for scanned in scanner.rows():
        content = scanned.content
        if before is not None and content.seq >= before:
            cut = True
            break
        recovered.events.append(
            (content.seq, content.hand, scanned.config_id, content.event, content.accepted,
             content.refusal_code, content.refusal_message, content.by, content.wall_ns,
             content.clock_synced, content.mono_ns, content.snapshot_sha256, scanned.hash,
             content.outbox_sha256)
        )  # fmt: skip
        if content.snapshot_sha256 is not None:
            recorded[content.seq] = content.snapshot_sha256
    if cut:
        recovered.reason = f"cut before seq {before}, as the salvage was asked to"
    elif scanner.problem is not None:
        recovered.reason = scanner.problem.message
    else:
        recovered.reason = "the hash chain held to the last stored event"
    last = recovered.last_seq
    try:
        for seq, state in conn.execute(
            "SELECT seq, CAST(state AS BLOB) FROM snapshots WHERE seq <= ? ORDER BY seq", (last,)
        ):
            try:
                text = bytes(state).decode("utf-8")
            except (UnicodeDecodeError, TypeError):  # not text, or NULL in a damaged page
                continue
            if recorded.get(seq) == snapshot_digest(text):
                recovered.snapshots.append((int(seq), text))
    except sqlite3.DatabaseError as error:
        recovered.notes.append(f"snapshots partly unreadable: {error}")
    kept_snapshots = {seq for seq, _ in recovered.snapshots}
    lost = sorted(set(recorded) - kept_snapshots)
    if lost:
        recovered.notes.append(f"snapshots for seq {lost} could not be kept")
    # Snapshots that could not be kept count as pruned, so the rebuilt journal verifies.
    pruned_through = int(meta.get(META_SNAPSHOTS_PRUNED_THROUGH, "0"))
    recovered.snapshots_pruned_through = max([pruned_through, *lost])
    try:
        _read_log(conn, meta, recovered)
    except sqlite3.DatabaseError as error:
        recovered.notes.append(f"system log unreadable: {error}")
    try:
        outbox = conn.execute(
            "SELECT id, seq, topic, payload, qos, retain, created_ns, sent FROM outbox "
            "WHERE seq IS NULL OR seq <= ? ORDER BY id",
            (last,),
        ).fetchall()
    except sqlite3.DatabaseError as error:
        outbox = []
        recovered.notes.append(f"outbox unreadable: {error}")
    try:
        unchecked = outbox_unchecked_through(conn, meta)
    except sqlite3.DatabaseError:
        unchecked = int(meta.get(META_OUTBOX_PRUNED_THROUGH, "0") or 0)
    keep_matching_outbox(recovered, outbox, unchecked)


def _read_log(conn: sqlite3.Connection, meta: dict[str, str], recovered: Recovered) -> None:
    """The system log entries whose chain holds (all of them for a journal from before
    the log's chain); what follows a break stays in the damaged copy only."""
    base = log_base(meta)
    rows = conn.execute(f"SELECT {LOG_COLUMNS} FROM system_log ORDER BY id").fetchall()
    if base is None:
        first = recovered.configs[0][1] if recovered.configs else ""
        recovered.log = rows
        recovered.log_base = LogBase(
            max((row[0] for row in rows), default=0), log_genesis(str(first))
        )
        return
    scanner = LogScanner(conn, base)
    kept = list(scanner.rows())
    recovered.log = [row for row in rows if row[0] <= base.id] + kept
    recovered.log_base = base
    if scanner.problem is not None:
        later = sum(1 for row in rows if row[0] > scanner.last[0])
        recovered.notes.append(
            f"system log: {scanner.problem.message}; {later} entr(ies) from "
            f"there on are kept only in the damaged copy"
        )


_INT = (int,)
_LOG_TYPES = (_INT, (str,), (str,), _INT, _INT, _INT, _INT, (bytes, type(None)))
_OUTBOX_TYPES = (_INT, (int, type(None)), (str,), (str,), _INT, _INT, _INT, _INT)


def well_formed(
    rows: list[tuple[Any, ...]], types: tuple[tuple[type, ...], ...]
) -> list[tuple[Any, ...]]:
    padded = [(*row, None)[: len(types)] if len(row) < len(types) else row for row in rows]
    return [
        row
        for row in padded
        if all(isinstance(value, kinds) for value, kinds in zip(row, types, strict=True))
    ]


def _build(
    directory: Path,
    recovered: Recovered,
    clock: WallClock,
    detail: dict[str, Any],
    table_id: str | None,
) -> None:
    base = recovered.base or ChainBase(0, b"")
    pruned_through = recovered.snapshots_pruned_through
    wall_ns, synced, mono_ns = clock.now()
    first_sha = str(recovered.configs[0][1]) if recovered.configs else ""
    log_start = recovered.log_base or LogBase(
        max((r[0] for r in recovered.log), default=0), log_genesis(first_sha)
    )
    # Rows read from damaged pages may hold NULLs or wrong types: only well-formed ones
    # go into the new journal (the rest stay in the damaged copy, counted in a note).
    log_rows = well_formed(recovered.log, _LOG_TYPES)
    outbox_rows = well_formed(recovered.outbox, _OUTBOX_TYPES)
    skipped = len(recovered.log) - len(log_rows) + len(recovered.outbox) - len(outbox_rows)
    if skipped:
        detail["notes"] = [
            *detail.get("notes", []),
            f"{skipped} malformed system log or outbox row(s) left behind",
        ]
    last_log = log_start.hash
    for row in log_rows:
        if row[0] > log_start.id and isinstance(row[7], bytes):
            last_log = row[7]
    salvage_id = max([log_start.id, *(r[0] for r in log_rows)]) + 1
    salvage_row = (
        salvage_id,
        LogKind.SALVAGE.value,
        canonical_json(detail),
        wall_ns,
        int(synced),
        mono_ns,
        recovered.last_seq,
    )

    def populate(conn: sqlite3.Connection) -> None:
        meta = [
            (META_FORMAT, "1"),
            (META_CREATED_NS, str(wall_ns)),
            (META_CHAIN_BASE_SEQ, str(base.seq)),
            (META_SNAPSHOTS_PRUNED_THROUGH, str(pruned_through)),
            (META_OUTBOX_PRUNED_THROUGH, str(recovered.outbox_pruned_through)),
            (META_CLEAN_SHUTDOWN, "1"),
            (META_LOG_BASE_ID, str(log_start.id)),
            (META_LOG_BASE_HASH, log_start.hash.hex()),
        ]
        if base.seq > 0:
            meta.append((META_CHAIN_BASE_HASH, base.hash.hex()))
        if table_id:
            meta.append((META_TABLE_ID, table_id))
        conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta)
        conn.executemany("INSERT INTO configs VALUES (?, ?, ?, ?, ?, ?, ?)", recovered.configs)
        conn.executemany(
            f"INSERT INTO events ({EVENT_COLUMNS}) VALUES {EVENT_VALUES}",
            [(*event, None)[:14] for event in recovered.events],
        )
        conn.executemany("INSERT INTO snapshots (seq, state) VALUES (?, ?)", recovered.snapshots)
        conn.executemany(
            f"INSERT INTO system_log ({LOG_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(*row, None)[:8] for row in log_rows],
        )
        conn.executemany(
            "INSERT INTO outbox (id, seq, topic, payload, qos, retain, created_ns, sent) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            outbox_rows,
        )
        conn.execute(
            f"INSERT INTO system_log ({LOG_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (*salvage_row, log_digest(last_log, salvage_row)),
        )

    create_database(directory, populate)
