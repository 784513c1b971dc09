"""The technician's explicit recovery after a failed integrity check.

:func:`salvage` never deletes anything, and can be killed at any instant and run again:
the run that follows carries on where it stopped and ends with the same journal. It

1. takes the writer's lock (the service must be stopped);
2. reads a private copy of the damaged files (SQLite would otherwise replay and
   checkpoint the damaged WAL in place) and keeps the longest prefix of events whose
   hash chain holds, with the configurations, the snapshots that match their
   recorded hashes, the readable system log and the outbox rows of kept events; if
   the journal is healthy, or no configuration can be found, or nothing could be kept
   while the ack mark says events were acknowledged (unless ``start_empty``), it stops
   here having changed nothing;
3. builds the new journal beside the damaged one, as ``journal.sqlite3.new``, with the
   same chain (so the kept events keep their hashes) and a ``salvage`` system log
   entry saying what was moved where, where the kept events end, where the damaged
   database ended and which seq had been acknowledged; it is committed and fsynced;
4. writes the marker ``salvage.pending`` (atomically): the new journal is complete,
   where the damaged files go, the ack mark to write, the report;
5. copies ``journal.ack`` and ``journal.ack.mirror`` and moves ``journal.sqlite3`` and
   its ``-wal``/``-shm`` files into ``damaged/YYYYmmddTHHMMSSZ/`` (renames: the evidence
   is kept byte for byte, for the supervisor or the regulator);
6. renames the new journal into place, rewrites both copies of the ack mark for it,
   and removes the marker.

A run that finds the marker resumes: the new journal in place (its ``salvage`` entry
carries the marker's id) needs only its ack mark; the new journal beside needs the
rest of the damaged files moved and the rename; a new journal gone (deleted, or
removed by a start of the service) is built again from the damaged copy. Until step 6
the old ack mark stays in place, so a start of the service in between is a fault,
never a silently shorter journal.

A journal of another table (its database, its ack mark or the configuration given
naming different tables) is refused with :class:`ForeignJournal`, nothing moved.

Events after the damage stay readable in the moved-aside copy only. The daemon then
starts normally from the rebuilt journal.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
import time
import uuid
from contextlib import suppress
from dataclasses import dataclass
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
from controller.journal.files import (
    acquire_lock,
    build_database,
    legacy_views,
    release_lock,
    remove_leftovers,
)
from controller.journal.floorclaims import claims_in
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
from controller.journal.opening import SALVAGE_MARKER as MARKER_NAME
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
    META_FLOOR_CLAIMS,
    META_FORMAT,
    META_LOG_BASE_HASH,
    META_LOG_BASE_ID,
    META_OUTBOX_PRUNED_THROUGH,
    META_SNAPSHOTS_PRUNED_THROUGH,
    META_TABLE_ID,
    canonical_json,
    fsync_directory,
    genesis_hash,
    install_file,
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
_DB_FILES = (f"{DB_NAME}-wal", f"{DB_NAME}-shm", f"{DB_NAME}-journal", DB_NAME)
NEW_NAME = f"{DB_NAME}.new"
_WORK_PREFIX = "salvage-"


def salvage(
    path_dir: str | os.PathLike[str],
    config_text: str | None = None,
    *,
    clock: WallClock | None = None,
    force: bool = False,
    table_id: str | None = None,
    before: int | None = None,
    start_empty: bool = False,
) -> SalvageReport:
    """Move the damaged journal aside and rebuild one from its longest valid prefix.

    ``config_text`` is used when a configuration record cannot be read from the damaged
    journal (or there is no database at all); ``table_id`` (the table the salvage is
    for, ``table.id`` of that configuration) is checked against the table the journal
    belongs to. ``before`` cuts the kept prefix before that seq even where the chain
    holds: the way out of a ``replay_diverged`` fault (a record the firmware now
    refuses, such as an amount over the bound that an older firmware took), whose
    message names the seq. A journal that passes every check is left alone unless
    ``force`` (or ``before``). A salvage that would keep no event while the ack mark
    says events were acknowledged refuses (nothing moved) unless ``start_empty``.
    Raises :class:`JournalBusy` if the service still holds the journal,
    :class:`ForeignJournal` if it belongs to another table, :class:`JournalError`
    (nothing moved) if there is nothing to salvage, the journal is healthy, no
    configuration can be found, or nothing could be kept. An interrupted salvage is
    finished by the next call (see the module's docstring).
    """
    directory = Path(path_dir)
    options = _Options(config_text, clock or WallClock(), force, table_id, before, start_empty)
    try:
        return _salvage(directory, options)
    except JournalError:
        raise
    except Exception as error:  # never a traceback for the technician
        converted = as_storage_fault(directory, error, "the salvage")
        if isinstance(converted, JournalError):
            raise converted from error
        raise JournalError(
            f"the salvage of {directory} failed: {type(error).__name__}: {error}. Nothing "
            f"is lost: whatever was moved is under {DAMAGED_DIR}/ and the old ack mark "
            f"stays in place until the new journal is, so the service stays locked. Run "
            f"the salvage again (it carries on where this one stopped), or report this."
        ) from error


@dataclass(frozen=True)
class _Options:
    """What the technician asked of the salvage (see :func:`salvage`)."""

    config_text: str | None
    clock: WallClock
    force: bool
    table_id: str | None
    before: int | None
    start_empty: bool


def _salvage(directory: Path, options: _Options) -> SalvageReport:
    if not directory.is_dir():
        raise JournalError(f"{directory} is not a directory")
    lock_fd = acquire_lock(directory)
    try:
        _remove_work_leftovers(directory)
        pending = _read_marker(directory)
        if pending is not None:
            return _resume(directory, pending, options)
        remove_leftovers(directory, NEW_NAME)  # an unfinished build of a salvage killed
        present = [name for name in _MOVED_FILES if (directory / name).exists()]
        if not present or present == [ACK_MIRROR_NAME] and read_acks(directory).high is None:
            raise JournalError(f"there is no journal in {directory} to salvage")
        try:
            marker = _plan(directory, directory, _new_damaged_dir(directory), options)
        except BaseException:
            # Nothing was moved; what was built would only take space (a full disk).
            if not (directory / MARKER_NAME).exists():
                remove_leftovers(directory, NEW_NAME)
                with suppress(FileNotFoundError):
                    (directory / f"{MARKER_NAME}.part").unlink()
            raise
        return _carry_out(directory, marker)
    finally:
        release_lock(lock_fd)


def _resume(directory: Path, marker: dict[str, Any], options: _Options) -> SalvageReport:
    """Finish the salvage the marker describes (see the module's docstring)."""
    token = str(marker["token"])
    new = directory / NEW_NAME
    if _is_ours(directory / DB_NAME, token) or (
        _is_ours(new, token) and _is_whole(new, int(marker["ack_seq"]))
    ):
        return _carry_out(directory, marker)
    # The new journal is gone (or was damaged since): gather the damaged files aside,
    # then build it again from them (the same bytes: the same journal comes out).
    moved_to = directory / str(marker["moved_to"])
    _move_aside(directory, moved_to)
    if not (moved_to / DB_NAME).exists() and not (moved_to / f"{DB_NAME}-wal").exists():
        raise JournalError(
            f"an interrupted salvage left {directory / MARKER_NAME}, but neither its new "
            f"journal nor the damaged journal it moved to {moved_to} can be found; "
            f"report this (the marker names what was kept)"
        )
    redo = _Options(options.config_text, options.clock, True, options.table_id,
                    marker.get("before"), options.start_empty)  # fmt: skip
    return _carry_out(directory, _plan(directory, moved_to, moved_to, redo))


def _carry_out(directory: Path, marker: dict[str, Any]) -> SalvageReport:
    """Steps 5 and 6: the damaged files aside, the new journal and its ack mark in place."""
    moved_to = directory / str(marker["moved_to"])
    installed = _is_ours(directory / DB_NAME, str(marker["token"]))
    if not installed:
        _move_aside(directory, moved_to)
        install_file(directory / NEW_NAME, directory / DB_NAME)
    mark = AckMark(int(marker["ack_seq"]), bytes.fromhex(marker["ack_hash"]), marker["owner"])
    if not installed or _head_seq(directory / DB_NAME) == mark.seq:
        # (After a start of the service that followed the rename, its own mark stands.)
        write_acks(directory, mark)
    fsync_directory(directory)
    with suppress(FileNotFoundError):
        (directory / MARKER_NAME).unlink()
    fsync_directory(directory)
    report = dict(marker["report"])
    report["moved_to"] = moved_to
    report["notes"] = tuple(report["notes"])
    return SalvageReport(**report)


def _plan(directory: Path, source: Path, moved_to: Path, options: _Options) -> dict[str, Any]:
    """Steps 2 to 4: read the damaged journal in ``source``, build the new one beside
    it and write the marker (returned)."""
    acks = read_acks(source)
    ack = acks.high
    recovered, owner = _recover(directory, source, acks, options)
    if ack is not None and ack.seq > 0 and recovered.last_seq == 0 and not options.start_empty:
        raise JournalError(_empty_refusal(directory, source, ack.seq, recovered.reason))
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
    token = uuid.uuid4().hex
    detail = {
        "moved_to": str(moved_to),
        "kept_last_seq": recovered.last_seq,
        "kept_events": kept,
        "dropped_events": dropped,
        "damaged_last_seq": recovered.damaged_last_seq,
        "acknowledged_seq": ack.seq if ack else None,
        "reason": recovered.reason,
        "notes": recovered.notes,
        "salvage_id": token,
    }
    _build(directory, recovered, options.clock, detail, owner)
    last_hash = recovered.last_hash
    if recovered.last_seq == 0 or not last_hash:
        last_hash = genesis_hash(str(recovered.configs[0][1]))
    report = {
        "kept_last_seq": recovered.last_seq,
        "damaged_last_seq": recovered.damaged_last_seq,
        "acknowledged_seq": ack.seq if ack else None,
        "reason": recovered.reason,
        "snapshots_kept": len(recovered.snapshots),
        "notes": list(recovered.notes),
        "kept_events": kept,
        "dropped_events": dropped,
    }
    marker = {
        "token": token,
        "moved_to": str(moved_to.relative_to(directory)),
        "ack_seq": recovered.last_seq,
        "ack_hash": last_hash.hex(),
        "owner": owner,
        "before": options.before,
        "report": report,
    }
    fsync_directory(directory)  # the new journal's name is durable before the marker
    _write_marker(directory, marker)
    return marker


def _recover(
    directory: Path, source: Path, acks: AckReading, options: _Options
) -> tuple[Recovered, str | None]:
    """What can be kept of the damaged journal in ``source``, and the table it is for."""
    config_text, before = options.config_text, options.before
    recovered = _read_damaged(source, directory, acks, options.table_id, before)
    if not recovered.healthy or options.force:
        carved = carve_journal(source, config_text, before)
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
    foreign = identity_problem(recovered.table_id, acks, options.table_id)
    if foreign is not None:
        raise foreign
    owner = options.table_id or recovered.table_id or acks.table_id
    if recovered.healthy and not options.force and before is None:
        raise JournalError(
            f"the journal in {directory} passes every integrity check; there is "
            f"nothing to salvage (force=True rebuilds it anyway)"
        )
    if not recovered.configs:
        if config_text is None:
            raise JournalError(
                f"no configuration could be read from the damaged journal in {source}; "
                f"run the salvage again with the table's configuration file"
            )
        wall_ns, synced, _ = options.clock.now()
        recovered.configs = [
            (1, sha256_hex(config_text), config_text, 1, wall_ns, int(synced), None)
        ]
        recovered.base = ChainBase(0, b"")
        recovered.events, recovered.snapshots, recovered.outbox = [], [], []
        recovered.notes.append("configuration taken from the file given to the salvage")
    if recovered.base is None:
        # The chain's start cannot be known: keep the newest good configuration only.
        latest = recovered.configs[-1]
        recovered.configs = [(1, *latest[1:3], 1, *latest[4:])]
        recovered.base = ChainBase(0, b"")
        recovered.events, recovered.snapshots, recovered.outbox = [], [], []
        recovered.notes.append("no event could be checked; the rebuilt journal starts empty")
    return recovered, owner


def _empty_refusal(directory: Path, source: Path, acked: int, reason: str) -> str:
    if source != directory:
        where = f"The damaged journal is in {source}."
    elif (directory / DB_NAME).exists():
        where = f"Nothing was moved: the damaged journal is still {directory / DB_NAME}."
    else:
        earlier = sorted((directory / DAMAGED_DIR).glob(f"*/{DB_NAME}"), reverse=True)
        where = f"There is no {DB_NAME} in {directory}."
        if earlier:
            aside = earlier[0].parent
            where += (
                f" The newest damaged copy is in {aside} (a salvage of an earlier version "
                f"interrupted there?): to salvage it, stop the service, move its files "
                f"back (mv {aside}/{DB_NAME}* {directory}/) and run the salvage again."
            )
    return (
        f"nothing of the journal could be kept ({reason}), but the ack mark says events "
        f"up to seq {acked} were acknowledged, so the salvage will not start this table "
        f"from an empty journal. {where} Report this to the supervisor. To start from an "
        f"empty journal all the same (those events then remain only in the damaged "
        f"copy), run the salvage again with --start-empty."
    )


def _new_damaged_dir(directory: Path) -> Path:
    """A new ``damaged/<UTC time>/`` name (made when the first file goes there)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    moved_to = directory / DAMAGED_DIR / stamp
    suffix = 1
    while moved_to.exists():
        suffix += 1
        moved_to = directory / DAMAGED_DIR / f"{stamp}-{suffix}"
    return moved_to


def _move_aside(directory: Path, moved_to: Path) -> None:
    """Copy the ack mark's files and move the damaged database's into ``moved_to``;
    run again after an interruption, it does what is left (a copy is made under a
    temporary name, so one that is there is whole; a file never overwrites another)."""
    moved_to.mkdir(parents=True, exist_ok=True)
    fsync_directory(moved_to.parent)
    fsync_directory(directory)
    for name in _COPIED_FILES:
        if (directory / name).exists() and not (moved_to / name).exists():
            part = moved_to / f"{name}.part"
            shutil.copyfile(directory / name, part)
            install_file(part, moved_to / name)
    for name in _DB_FILES:  # the database last: its side files never stay behind it
        if not (directory / name).exists():
            continue
        target, suffix = moved_to / name, 1
        while target.exists():
            suffix += 1
            target = moved_to / f"{name}.{suffix}"
        with suppress(FileNotFoundError):  # -shm, say, gone with its last connection
            os.rename(directory / name, target)
    fsync_directory(moved_to)
    fsync_directory(directory)


def _write_marker(directory: Path, marker: dict[str, Any]) -> None:
    temp = directory / f"{MARKER_NAME}.part"
    temp.write_text(json.dumps(marker, sort_keys=True), encoding="utf-8")
    install_file(temp, directory / MARKER_NAME)


def _read_marker(directory: Path) -> dict[str, Any] | None:
    try:
        text = (directory / MARKER_NAME).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        marker = json.loads(text)
        if not isinstance(marker, dict):
            raise TypeError("not an object")
        for key in ("token", "moved_to", "ack_seq", "ack_hash", "report"):
            if key not in marker:
                raise KeyError(key)
    except (ValueError, TypeError, KeyError) as error:
        raise JournalError(
            f"{directory / MARKER_NAME}, left by an interrupted salvage, cannot be read "
            f"({error}). Keep the state directory for the supervisor; then move the "
            f"marker aside (mv {directory / MARKER_NAME} {directory}/{MARKER_NAME}.bad) "
            f"and run the salvage again: it starts over from what is in place, and when "
            f"the database was already moved it names the copy under "
            f"{directory / DAMAGED_DIR}/ to move back"
        ) from None
    return marker


def _is_ours(path: Path, token: str) -> bool:
    """Whether ``path`` is the journal the salvage with this id built (its ``salvage``
    entry names the id; read without touching the file or making side files)."""
    if not path.exists():
        return False
    try:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?immutable=1", uri=True)
    except sqlite3.Error:
        return False
    try:
        row = conn.execute(
            "SELECT 1 FROM system_log WHERE kind = ? AND instr(detail, ?) > 0",
            (LogKind.SALVAGE.value, f'"salvage_id":"{token}"'),
        ).fetchone()
        return row is not None
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def _is_whole(path: Path, last_seq: int) -> bool:
    """Whether the new journal beside still passes every check and ends at ``last_seq``
    (it may have been damaged while the salvage was stopped)."""
    try:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?immutable=1", uri=True)
    except sqlite3.Error:
        return False
    try:
        result = verify_connection(conn, None)
        return result.ok and result.last_seq == last_seq
    except (sqlite3.Error, TypeError, ValueError):
        return False
    finally:
        conn.close()


def _head_seq(path: Path) -> int | None:
    try:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        row = conn.execute("SELECT MAX(seq) FROM events").fetchone()
        return int(row[0]) if row and row[0] is not None else 0
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def _remove_work_leftovers(directory: Path) -> None:
    """The private copies of a salvage that was killed (never evidence: copies)."""
    for work in directory.glob(f"{_WORK_PREFIX}*"):
        if work.is_dir() and not work.is_symlink():
            shutil.rmtree(work, ignore_errors=True)


def _read_damaged(
    directory: Path, work_dir: Path, acks: AckReading, table_id: str | None, before: int | None
) -> Recovered:
    """Read the damaged journal in ``directory`` from a private copy in ``work_dir``."""
    recovered = Recovered()
    if not (directory / DB_NAME).exists():
        recovered.reason = f"{DB_NAME} was missing"
        return recovered
    with tempfile.TemporaryDirectory(prefix=_WORK_PREFIX, dir=work_dir) as work:
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
    recovered.floor_claims = bool(meta.get(META_FLOOR_CLAIMS))
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
    recorded = _read_events(conn, recovered, base, good, before)
    _read_snapshots(conn, recovered, recorded, meta)
    try:
        _read_log(conn, meta, recovered)
    except sqlite3.DatabaseError as error:
        recovered.notes.append(f"system log unreadable: {error}")
    _read_outbox(conn, recovered, meta)


def _read_events(
    conn: sqlite3.Connection,
    recovered: Recovered,
    base: ChainBase,
    good: dict[int, str],
    before: int | None,
) -> dict[int, bytes]:
    """The events whose chain holds (up to ``before``), and why the reading stopped;
    the digest each recorded snapshot has, by seq."""
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
    return recorded


def _read_snapshots(
    conn: sqlite3.Connection, recovered: Recovered, recorded: dict[int, bytes], meta: dict[str, str]
) -> None:
    """The snapshots that match the digest their event recorded; the rest count as pruned."""
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


def _read_outbox(conn: sqlite3.Connection, recovered: Recovered, meta: dict[str, str]) -> None:
    try:
        outbox = conn.execute(
            "SELECT id, seq, topic, payload, qos, retain, created_ns, sent FROM outbox ORDER BY id"
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
        if recovered.floor_claims or claims_in(log_rows):
            meta.append((META_FLOOR_CLAIMS, "1"))  # else old rows are adopted at its start
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

    build_database(directory, populate)
