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
   ``journal.ack`` (renames: the evidence is kept byte for byte, for the supervisor
   or the regulator);
4. builds a new journal from what it kept, under a temporary name renamed into
   place, with the same chain (so the kept events keep their hashes) and a
   ``salvage`` system log entry saying what was moved where, where the kept events
   end, where the damaged database ended and which seq had been acknowledged;
   finally the ack mark is rewritten for the new journal.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.journal.clock import WallClock
from controller.journal.errors import JournalError
from controller.journal.files import acquire_lock, create_database, release_lock
from controller.journal.integrity import (
    ChainBase,
    ChainScanner,
    chain_base,
    read_meta,
    verify_connection,
)
from controller.journal.integrity import verified_configs as _verified_configs
from controller.journal.records import LogKind, SalvageReport
from controller.journal.schema import (
    ACK_NAME,
    DAMAGED_DIR,
    DB_NAME,
    EVENT_COLUMNS,
    META_CHAIN_BASE_HASH,
    META_CHAIN_BASE_SEQ,
    META_CLEAN_SHUTDOWN,
    META_CREATED_NS,
    META_FORMAT,
    META_SNAPSHOTS_PRUNED_THROUGH,
    AckFile,
    AckMark,
    AckMarkDamaged,
    canonical_json,
    fsync_directory,
    read_ack,
    sha256_hex,
    snapshot_digest,
)

_MOVED_FILES = (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", f"{DB_NAME}-journal", ACK_NAME)


@dataclass
class _Recovered:
    """What could be read from the damaged copy."""

    base: ChainBase | None = None
    configs: list[tuple[Any, ...]] = field(default_factory=list)
    events: list[tuple[Any, ...]] = field(default_factory=list)
    snapshots: list[tuple[int, str]] = field(default_factory=list)
    log: list[tuple[Any, ...]] = field(default_factory=list)
    outbox: list[tuple[Any, ...]] = field(default_factory=list)
    damaged_last_seq: int | None = None
    snapshots_pruned_through: int = 0
    healthy: bool = False  # the damaged copy passed every check of verify()
    reason: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def last_seq(self) -> int:
        if self.events:
            return int(self.events[-1][0])
        return self.base.seq if self.base else 0

    @property
    def last_hash(self) -> bytes | None:
        if self.events:
            return bytes(self.events[-1][-1])
        return self.base.hash if self.base else None


def salvage(
    path_dir: str | os.PathLike[str],
    config_text: str | None = None,
    *,
    clock: WallClock | None = None,
    force: bool = False,
    before: int | None = None,
) -> SalvageReport:
    """Move the damaged journal aside and rebuild one from its longest valid prefix.

    ``before`` cuts the kept prefix before that seq even where the chain holds: the way
    out of a ``replay_diverged`` fault (a record the firmware now refuses, such as an
    amount over the bound that an older firmware took), whose message names the seq.

    ``config_text`` is used only when no configuration record can be read from the
    damaged journal (or there is no database at all). A journal that passes every
    check is left alone unless ``force``. Raises :class:`JournalBusy` if the service
    still holds the journal, :class:`JournalError` (nothing moved) if there is
    nothing to salvage, the journal is healthy, or no configuration can be found.
    """
    directory = Path(path_dir)
    clock = clock or WallClock()
    if not directory.is_dir():
        raise JournalError(f"{directory} is not a directory")
    lock_fd = acquire_lock(directory)
    try:
        present = [name for name in _MOVED_FILES if (directory / name).exists()]
        if not present:
            raise JournalError(f"there is no journal in {directory} to salvage")
        # Read a private copy first: nothing is moved if the salvage cannot proceed.
        ack: AckMark | None = None
        notes: list[str] = []
        try:
            ack = read_ack(directory / ACK_NAME)
        except AckMarkDamaged as error:
            notes.append(f"ack mark unreadable: {error}")
        recovered = _read_damaged(directory, ack, before)
        recovered.notes[:0] = notes
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
        detail = {
            "moved_to": str(moved_to),
            "kept_last_seq": recovered.last_seq,
            "damaged_last_seq": recovered.damaged_last_seq,
            "acknowledged_seq": ack.seq if ack else None,
            "reason": recovered.reason,
            "notes": recovered.notes,
        }
        _build(directory, recovered, clock, detail)
        # The old ack mark stayed in place (a copy went aside) until now, so a crash
        # before this point leaves "database missing, events acknowledged": a fault at
        # the next start, never a silently fresh journal.
        last_hash = recovered.last_hash
        if recovered.last_seq > 0 and last_hash:
            ack_file = AckFile(directory / ACK_NAME)
            try:
                ack_file.write(AckMark(recovered.last_seq, last_hash))
                ack_file.sync()
            finally:
                ack_file.close()
        else:
            with suppress(FileNotFoundError):
                (directory / ACK_NAME).unlink()
        fsync_directory(directory)
        return SalvageReport(
            moved_to=moved_to,
            kept_last_seq=recovered.last_seq,
            damaged_last_seq=recovered.damaged_last_seq,
            acknowledged_seq=ack.seq if ack else None,
            reason=recovered.reason,
            snapshots_kept=len(recovered.snapshots),
            notes=tuple(recovered.notes),
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
        if name == ACK_NAME:
            shutil.copy2(directory / name, moved_to / name)
            fd = os.open(moved_to / name, os.O_RDONLY | os.O_CLOEXEC)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        else:
            os.rename(directory / name, moved_to / name)
    fsync_directory(moved_to)
    fsync_directory(moved_to.parent)
    fsync_directory(directory)
    return moved_to


def _read_damaged(directory: Path, ack: AckMark | None, before: int | None) -> _Recovered:
    recovered = _Recovered()
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
            try:
                recovered.healthy = verify_connection(conn, ack).ok
            except sqlite3.DatabaseError:
                recovered.healthy = False
            _read_into(conn, recovered, before)
        finally:
            conn.close()
    return recovered


def _read_into(conn: sqlite3.Connection, recovered: _Recovered, before: int | None) -> None:
    try:
        meta = read_meta(conn)
    except sqlite3.DatabaseError as error:
        meta = {}
        recovered.notes.append(f"meta unreadable ({error}); assuming a journal never pruned")
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
             content.clock_synced, content.mono_ns, content.snapshot_sha256, scanned.hash)
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
            except UnicodeDecodeError:
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
        recovered.log = conn.execute(
            "SELECT id, kind, detail, wall_ns, clock_synced, mono_ns, last_seq FROM system_log "
            "ORDER BY id"
        ).fetchall()
    except sqlite3.DatabaseError as error:
        recovered.notes.append(f"system log unreadable: {error}")
    try:
        recovered.outbox = conn.execute(
            "SELECT id, seq, topic, payload, qos, retain, created_ns, sent FROM outbox "
            "WHERE seq IS NULL OR seq <= ? ORDER BY id",
            (last,),
        ).fetchall()
    except sqlite3.DatabaseError as error:
        recovered.notes.append(f"outbox unreadable: {error}")


def _build(
    directory: Path, recovered: _Recovered, clock: WallClock, detail: dict[str, Any]
) -> None:
    base = recovered.base or ChainBase(0, b"")
    pruned_through = recovered.snapshots_pruned_through
    wall_ns, synced, mono_ns = clock.now()

    def populate(conn: sqlite3.Connection) -> None:
        meta = [
            (META_FORMAT, "1"),
            (META_CREATED_NS, str(wall_ns)),
            (META_CHAIN_BASE_SEQ, str(base.seq)),
            (META_SNAPSHOTS_PRUNED_THROUGH, str(pruned_through)),
            (META_CLEAN_SHUTDOWN, "1"),
        ]
        if base.seq > 0:
            meta.append((META_CHAIN_BASE_HASH, base.hash.hex()))
        conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta)
        conn.executemany("INSERT INTO configs VALUES (?, ?, ?, ?, ?, ?, ?)", recovered.configs)
        conn.executemany(
            f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            recovered.events,
        )
        conn.executemany("INSERT INTO snapshots (seq, state) VALUES (?, ?)", recovered.snapshots)
        conn.executemany(
            "INSERT INTO system_log (id, kind, detail, wall_ns, clock_synced, mono_ns, last_seq) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            recovered.log,
        )
        conn.executemany(
            "INSERT INTO outbox (id, seq, topic, payload, qos, retain, created_ns, sent) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            recovered.outbox,
        )
        conn.execute(
            "INSERT INTO system_log (kind, detail, wall_ns, clock_synced, mono_ns, last_seq) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (LogKind.SALVAGE.value, canonical_json(detail), wall_ns, int(synced), mono_ns,
             recovered.last_seq),
        )  # fmt: skip

    create_database(directory, populate)
