"""The journal directory on disk: the writer's lock, connections, atomic creation.

Layout of the state directory (``StateDirectory=table-controller`` in the unit)::

    journal.sqlite3        the database (WAL mode)
    journal.sqlite3-wal    SQLite's write-ahead log: part of the database, never delete it
    journal.sqlite3-shm    SQLite's WAL index (rebuilt when missing)
    journal.ack            last acknowledged seq, hash and table id (see ackmark.py)
    journal.ack.mirror     the same, a second copy: the two must agree with the database
    journal.lock           the writer's pid; it and the directory itself are flock()ed
                           by the one process that writes
    archive/               pruned events, one SQLite file per prune (optional)
    damaged/               journals moved aside by the salvage, never deleted
    salvage.pending        only while a salvage is unfinished: the next run finishes it
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from types import TracebackType

from controller.journal.errors import JournalBusy, JournalCorrupt, JournalError
from controller.journal.schema import (
    ADDED_COLUMNS,
    APPLICATION_ID,
    BUSY_TIMEOUT_SECONDS,
    CONNECTION_PRAGMAS,
    CREATION_PRAGMAS,
    DB_NAME,
    FORMAT_VERSION,
    LOCK_NAME,
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
    SCHEMA,
    install_file,
    log_genesis,
    sha256_hex,
)

SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


_LOCK_FILES: dict[int, int] = {}  # the directory's lock fd -> the lock file's fd


def acquire_lock(directory: Path) -> int:
    """Take the writer's lock; released by :func:`release_lock` or by the process dying.

    The lock is an ``flock`` on the state directory itself (a read-only descriptor of
    it), so deleting or replacing ``journal.lock`` cannot let a second writer in.
    ``journal.lock`` is locked too (what versions before this one lock, so they are kept
    out as well) and holds the writer's pid for the technician."""
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(dir_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(dir_fd)
        raise JournalBusy(_busy_message(directory)) from None
    try:
        fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
    except BaseException:
        os.close(dir_fd)
        raise
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except BlockingIOError:
        os.close(fd)
        os.close(dir_fd)
        raise JournalBusy(_busy_message(directory)) from None
    except BaseException:
        os.close(fd)
        os.close(dir_fd)
        raise
    _LOCK_FILES[dir_fd] = fd
    return dir_fd


def release_lock(fd: int) -> None:
    for held in (_LOCK_FILES.pop(fd, None), fd):
        if held is None:
            continue
        with suppress(OSError):
            fcntl.flock(held, fcntl.LOCK_UN)
        with suppress(OSError):
            os.close(held)


def writer_running(directory: Path) -> bool:
    """Whether another process holds the writer's lock on ``directory``."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return False  # no state directory (never run here) or not ours to read
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        with suppress(OSError):
            os.close(fd)  # closing releases the lock if we took it
    return False


def lock_holder(directory: Path) -> int | None:
    """The pid holding the writer's lock on ``directory`` (the kernel's ``/proc/locks``,
    or else the pid written in ``journal.lock``), or None when it cannot be told."""
    with suppress(OSError):
        st = os.stat(directory)
        wanted = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            for line in locks:
                fields = line.split()
                # "1: FLOCK ADVISORY WRITE <pid> <maj:min:inode> 0 EOF"; a waiter's
                # line has "->" in second place; pid 0: a holder in another namespace
                holder = len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted
                if holder and fields[4].isdigit() and int(fields[4]) > 0:
                    return int(fields[4])
    with suppress(OSError, ValueError):
        return int((directory / LOCK_NAME).read_text(encoding="ascii").strip())
    return None


def _busy_message(directory: Path) -> str:
    pid = lock_holder(directory)
    who = "another process"
    if pid is not None:
        who = f"process {pid}"
        with suppress(OSError):
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()
            command = raw.replace(b"\0", b" ").decode("utf-8", "replace").strip()
            if command:
                who += f" ({command[:120]})"
    return (
        f"the journal in {directory} is open for writing by {who} (the running "
        f"table-controller service?). Stop it first: systemctl stop table-controller"
    )


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode: transactions are explicit BEGIN ... COMMIT.

    A connection that fails half-way is closed here: left to the garbage collector, its
    close would checkpoint and delete the WAL at some later moment (in the middle of a
    salvage, say)."""
    conn: sqlite3.Connection | None = None
    try:
        if readonly:
            conn = sqlite3.connect(
                f"{path.absolute().as_uri()}?mode=ro",
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                timeout=BUSY_TIMEOUT_SECONDS,
            )
            return conn
        conn = sqlite3.connect(
            str(path),
            isolation_level=None,
            check_same_thread=False,
            timeout=BUSY_TIMEOUT_SECONDS,
        )
        for pragma in CONNECTION_PRAGMAS:
            conn.execute(pragma).fetchall()
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() != "wal":
            conn.close()
            raise JournalError(f"{path}: cannot switch the database to WAL mode (got {mode!r})")
        return conn
    except sqlite3.DatabaseError as error:
        if conn is not None:
            conn.close()
        raise JournalCorrupt(f"{path}: {error}") from error
    except BaseException:
        if conn is not None:
            conn.close()
        raise


def check_format(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse files that are not (or no longer) a journal this program can read."""
    try:
        application_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    except sqlite3.DatabaseError as error:
        raise JournalCorrupt(f"{path}: {error}") from error
    if application_id != APPLICATION_ID:
        raise JournalCorrupt(
            f"{path} is not a table-controller journal (application id {application_id:#x})"
        )
    if version > FORMAT_VERSION:
        raise JournalError(
            f"{path} has journal format {version}; this program reads up to "
            f"{FORMAT_VERSION}. Install the newer table-controller that wrote it."
        )
    missing = {"meta", "configs", "events", "snapshots", "system_log", "outbox"} - tables
    if missing:
        raise JournalCorrupt(f"{path} lacks the table(s) {', '.join(sorted(missing))}")


def missing_columns(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """The columns of ``ADDED_COLUMNS`` a journal from an earlier version lacks."""
    missing = []
    for table, column, kind in ADDED_COLUMNS:  # main's tables, not legacy_views' views
        names = {row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")}
        if column not in names:
            missing.append((table, column, kind))
    return missing


def upgrade_schema(conn: sqlite3.Connection) -> bool:
    """Add the missing columns (inside the caller's transaction); the system log's chain
    then starts after the last entry already there, and the floor messages of the events
    already there, which recorded no hash of them, are not checked (as after a prune).
    True if anything was added."""
    missing = missing_columns(conn)
    for table, column, kind in missing:
        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    if ("events", "outbox_sha256") in {(table, column) for table, column, _ in missing}:
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) SELECT ?, CAST(MAX(COALESCE(("
            "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0), COALESCE(("
            "SELECT MAX(seq) FROM events), 0)) AS TEXT)",
            (META_OUTBOX_PRUNED_THROUGH, META_OUTBOX_PRUNED_THROUGH),
        )
    if any(table == "system_log" for table, _, _ in missing):
        first = conn.execute("SELECT sha256 FROM configs WHERE id = 1").fetchone()
        last = conn.execute("SELECT MAX(id) FROM system_log").fetchone()[0]
        for key, value in (
            (META_LOG_BASE_ID, str(last or 0)),
            (META_LOG_BASE_HASH, log_genesis(str(first[0] if first else "")).hex()),
        ):
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
    return bool(missing)


def legacy_views(conn: sqlite3.Connection) -> None:
    """For a reader of a journal from an earlier version: temporary views (they shadow
    the tables for unqualified names) that show the later columns as NULL."""
    for table, column, _ in missing_columns(conn):
        conn.execute(
            f"CREATE TEMP VIEW IF NOT EXISTS {table} AS "
            f"SELECT *, NULL AS {column} FROM main.{table}"
        )


def schema_statements() -> list[str]:
    return [statement.strip() for statement in SCHEMA.split(";") if statement.strip()]


def remove_leftovers(directory: Path, name: str) -> None:
    """Delete an unfinished creation (it never held an acknowledged event)."""
    for suffix in ("", *SQLITE_SIDE_FILES):
        with suppress(FileNotFoundError):
            (directory / f"{name}{suffix}").unlink()


def begin_new_database(path: Path) -> sqlite3.Connection:
    """A new database file at ``path`` with the journal's tables, in a transaction for
    the caller to fill and commit: the one way a journal file is made (a table's
    journal, a prune's archive), each built aside and then renamed into place."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        for pragma in CREATION_PRAGMAS:
            conn.execute(pragma)
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("BEGIN IMMEDIATE")
        for statement in schema_statements():
            conn.execute(statement)
    except BaseException:
        conn.close()
        raise
    return conn


def create_database(directory: Path, populate: Callable[[sqlite3.Connection], None]) -> Path:
    """Create ``journal.sqlite3`` atomically: build it aside, then rename it into place.

    A crash during creation leaves only ``journal.sqlite3.new``, removed at the next
    attempt, never a half-initialised journal that would look damaged.
    """
    return install_file(build_database(directory, populate), directory / DB_NAME)


def build_database(directory: Path, populate: Callable[[sqlite3.Connection], None]) -> Path:
    """``journal.sqlite3.new`` built and committed (an earlier unfinished one removed
    first), for the caller to rename into place."""
    temp_name = f"{DB_NAME}.new"
    temp = directory / temp_name
    remove_leftovers(directory, temp_name)
    conn = begin_new_database(temp)
    try:
        populate(conn)
        conn.execute("COMMIT")
        conn.execute("PRAGMA journal_mode = WAL").fetchall()
    finally:
        conn.close()
    return temp


class Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self._conn.execute("COMMIT")
        elif self._conn.in_transaction:
            self._conn.execute("ROLLBACK")


def create_journal(
    directory: Path, config_text: str, now: tuple[int, bool, int], *, table_id: str | None = None
) -> None:
    """A new, empty journal started with ``config_text`` (``now`` from WallClock.now()),
    belonging to the table ``table_id`` when given."""
    wall_ns, synced, _mono = now
    table_meta = [(META_TABLE_ID, table_id)] if table_id else []

    def populate(conn: sqlite3.Connection) -> None:
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                (META_FORMAT, str(FORMAT_VERSION)),
                (META_CREATED_NS, str(wall_ns)),
                (META_CHAIN_BASE_SEQ, "0"),
                (META_SNAPSHOTS_PRUNED_THROUGH, "0"),
                (META_CLEAN_SHUTDOWN, "1"),
                (META_LOG_BASE_ID, "0"),
                (META_LOG_BASE_HASH, log_genesis(sha256_hex(config_text)).hex()),
                (META_FLOOR_CLAIMS, "1"),
                *table_meta,
            ],
        )
        conn.execute(
            "INSERT INTO configs (id, sha256, text, from_seq, wall_ns, clock_synced, by) "
            "VALUES (1, ?, ?, 1, ?, ?, NULL)",
            (sha256_hex(config_text), config_text, wall_ns, int(synced)),
        )

    create_database(directory, populate)
