"""The journal: every input event, durable before it is applied.

Theory of operation
-------------------
One SQLite database per state directory, in WAL mode with ``synchronous=FULL``.
:meth:`Journal.append` is one transaction holding the event row, its hash-chain
value, an optional snapshot of the folded state and the outbound messages for the
floor link; it returns only after SQLite has fsynced the commit, so whatever the
caller does next (apply the event, light a LED, print a replay line) happens after
the event is safe from a power cut. Afterwards the ack mark (``journal.ack``) is
rewritten with the seq and hash just acknowledged, in two files that must agree
with the database, which is how a tail lost by the storage is told apart from a
transaction SQLite rolled back because it never finished (see ``ackmark.py``). A
journal belongs to one table: its id is kept in ``meta`` and in the ack mark, and a
journal of another table is refused (:class:`ForeignJournal`).

The journal knows nothing of poker: events are JSON objects, snapshots opaque text.
Recovery is the caller's fold: :meth:`latest_snapshot`, then :meth:`iter_events`
after it, each under the configuration :meth:`config_for_seq` names.

Faults are sticky: a torn tail found at open, or any problem found by
:meth:`verify`, is kept in :attr:`fault`, and :meth:`append` refuses to add events
after it until a technician runs the salvage (:func:`controller.journal.salvage`).
The system log (:meth:`log_system`) still works, so faults and device events are
recorded while play is locked.

One process writes (``journal.lock`` is flocked); readers (``tablectl state``,
recall, the MQTT publisher) use their own connections. Methods may be called from
several threads of the writing process; a lock serialises them. The read-only
queries are in ``reading.py`` and the recording methods in ``writing.py``
(:class:`Journal` extends their ``JournalReader`` and ``JournalWriter``); this
module opens, starts, closes and checks the journal.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Collection
from contextlib import suppress
from pathlib import Path
from types import TracebackType

from controller.faults import Fault
from controller.journal import queries
from controller.journal.ackmark import AckMark, AckReading, AckWriter, read_acks, write_acks
from controller.journal.clock import WallClock, boot_id
from controller.journal.errors import (
    ConfigMismatch,
    JournalCorrupt,
    JournalIntegrityError,
    JournalNotFound,
)
from controller.journal.files import (
    acquire_lock,
    check_format,
    connect,
    create_journal,
    legacy_views,
    release_lock,
    remove_leftovers,
    upgrade_schema,
)
from controller.journal.floorclaims import adopt_legacy_rows
from controller.journal.integrity import (
    outbox_unchecked_through,
    read_meta,
    recorded_table_id,
    tail_problems,
    verify_connection,
)
from controller.journal.opening import last_stop, refuse_foreign, refuse_missing_database
from controller.journal.place import Place
from controller.journal.reading import JournalReader
from controller.journal.records import LogKind, PruneReport, SalvageReport, VerifyResult
from controller.journal.schema import (
    DB_NAME,
    META_CLEAN_SHUTDOWN,
    META_LAST_BOOT_ID,
    META_TABLE_ID,
    genesis_hash,
    sha256_hex,
)
from controller.journal.storage import storage_faults
from controller.journal.writing import JournalWriter


class Journal(JournalWriter, JournalReader):
    """A state directory's journal. Create with :meth:`open` or :meth:`open_readonly`."""

    def __init__(
        self,
        *,
        directory: Path,
        conn: sqlite3.Connection,
        clock: WallClock,
        lock_fd: int | None,
        ack_writer: AckWriter | None,
        acks_at_open: AckReading | None,
        table_id: str | None = None,
    ) -> None:
        self.directory = directory
        self.path = directory / DB_NAME
        self._conn = conn
        self._clock = clock
        self._lock_fd = lock_fd
        self._ack_writer = ack_writer
        self._acks_at_open = acks_at_open
        # The verified mark: up to where the chain last passed a check (``verify``).
        self._verified = acks_at_open.verified if acks_at_open is not None else None
        self.table_id = table_id
        self._mutex = threading.RLock()
        self._closed = False
        self.fault: Fault | None = None  # sticky: a memory fault, or a failed write's
        self._chain_base = self._read_chain_base()
        self._config = self._current_config()
        self._clock_synced_seen = clock.synced()

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        path_dir: str | os.PathLike[str],
        config_text: str,
        *,
        allow_config_change: bool = False,
        clock: WallClock | None = None,
        table_id: str | None = None,
    ) -> Journal:
        """Open (or create) the journal in ``path_dir`` for writing.

        A new journal records ``config_text`` as its configuration, and ``table_id``
        (the configuration's ``table.id``) as the table it belongs to. An existing one
        must have been started with the same text (its current configuration, after
        any :meth:`record_config`), else :class:`ConfigMismatch` names the difference.
        With ``allow_config_change`` (the daemon) the journal opens under its recorded
        configuration and the caller records the new one between hands.

        Raises :class:`JournalBusy` if another process writes it, :class:`JournalCorrupt`
        if SQLite cannot read it, :class:`TornTail` if the database is gone but
        events were acknowledged, :class:`ForeignJournal` (nothing written) if it
        belongs to another table. A torn tail or a lost ack mark found in an existing
        database does not raise: it becomes :attr:`fault` (sticky) and is logged.
        """
        directory = Path(path_dir)
        with storage_faults(directory, "opening the journal"):
            return cls._open(
                directory,
                config_text,
                allow_config_change=allow_config_change,
                clock=clock or WallClock(),
                table_id=table_id,
            )

    @classmethod
    def _open(
        cls,
        directory: Path,
        config_text: str,
        *,
        allow_config_change: bool,
        clock: WallClock,
        table_id: str | None,
    ) -> Journal:
        directory.mkdir(parents=True, exist_ok=True)
        lock_fd = acquire_lock(directory)
        conn: sqlite3.Connection | None = None
        ack_writer: AckWriter | None = None
        try:
            db_path = directory / DB_NAME
            acks = read_acks(directory)
            created = False
            if not db_path.exists():
                refuse_missing_database(directory, acks)
                # The ack mark exists (seq 0) before the database does, so a database
                # without one is never a fresh journal.
                write_acks(directory, AckMark(0, genesis_hash(sha256_hex(config_text)), table_id))
                create_journal(directory, config_text, clock.now(), table_id=table_id)
                acks = read_acks(directory)
                created = True
            remove_leftovers(directory, f"{DB_NAME}.new")
            conn = connect(db_path)
            check_format(conn, db_path)
            refuse_foreign(conn, db_path, acks, table_id)
            try:
                journal = cls(
                    directory=directory,
                    conn=conn,
                    clock=clock,
                    lock_fd=lock_fd,
                    ack_writer=None,
                    acks_at_open=acks,
                    table_id=table_id,
                )
            except sqlite3.DatabaseError as error:
                raise JournalCorrupt(f"{db_path}: {error}") from error
            journal._place = Place.of(directory, lock_fd)
            recorded = journal._config
            given_sha = sha256_hex(config_text)
            if recorded.sha256 != given_sha and not allow_config_change:
                raise ConfigMismatch(
                    recorded.sha256, given_sha, queries.config_diff(recorded.text, config_text)
                )
            try:
                journal._start(created=created, given_sha=given_sha)
            except sqlite3.DatabaseError as error:
                raise JournalCorrupt(f"{db_path}: recording the start failed: {error}") from error
            if journal.fault is None:  # a faulty journal records nothing: files stay as found
                ack_writer = AckWriter(directory, journal.table_id, journal._verified)
                journal._ack_writer = ack_writer
            return journal
        except BaseException:
            if ack_writer is not None:
                ack_writer.close()
            if conn is not None:
                conn.close()
            release_lock(lock_fd)
            raise

    @classmethod
    def open_readonly(cls, path_dir: str | os.PathLike[str]) -> Journal:
        """Open for reading only (``tablectl state``, recall): no lock, nothing written.

        Raises :class:`JournalNotFound` for a directory that never held a journal, and
        :class:`TornTail` when the database is gone but events were acknowledged."""
        directory = Path(path_dir)
        with storage_faults(directory, "reading the journal"):
            return cls._open_readonly(directory)

    @classmethod
    def _open_readonly(cls, directory: Path) -> Journal:
        db_path = directory / DB_NAME
        acks = read_acks(directory)
        if not db_path.exists():
            refuse_missing_database(directory, acks)
            raise JournalNotFound(f"no journal in {directory} ({DB_NAME} does not exist)")
        conn = connect(db_path, readonly=True)
        try:
            check_format(conn, db_path)
            legacy_views(conn)
            meta = read_meta(conn)
            return cls(
                directory=directory,
                conn=conn,
                clock=WallClock(),
                lock_fd=None,
                ack_writer=None,
                acks_at_open=acks,
                table_id=recorded_table_id(meta),
            )
        except sqlite3.DatabaseError as error:
            conn.close()
            raise JournalCorrupt(f"{db_path}: {error}") from error
        except BaseException:
            conn.close()
            raise

    @staticmethod
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
        """The technician's recovery: see :func:`controller.journal.salvage.salvage`."""
        from controller.journal.salvage import salvage

        return salvage(
            path_dir,
            config_text,
            clock=clock,
            force=force,
            table_id=table_id,
            before=before,
            start_empty=start_empty,
        )

    def _start(self, *, created: bool, given_sha: str) -> None:
        """Record the start: power-up, unclean shutdown, configuration, tail check."""
        this_boot = boot_id()
        tail_problem = self._check_tail()
        with self._mutex, self._transaction():
            upgrade_schema(self._conn)
            meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
            last_boot = meta.get(META_LAST_BOOT_ID)
            self._insert_log(
                LogKind.POWER_UP,
                {"boot_id": this_boot, "new_boot": last_boot != this_boot, "pid": os.getpid()},
            )
            previous_stop = last_stop(
                created, meta.get(META_CLEAN_SHUTDOWN) == "1", self._acks_at_open, self._last_seq()
            )
            if previous_stop is not None:
                self._insert_log(*previous_stop)
            self._insert_log(
                LogKind.CONFIG_LOADED,
                {
                    "sha256": self._config.sha256,
                    "config_id": self._config.id,
                    "given_sha256": given_sha,
                    "matches": given_sha == self._config.sha256,
                },
            )
            if tail_problem is not None:
                self._insert_log(
                    LogKind.INTEGRITY,
                    {"ok": False, "problems": [{"code": tail_problem.code,
                                                "message": tail_problem.message}]},
                )  # fmt: skip
            if tail_problem is None:  # rows 0.2.x queued outside events (floorclaims)
                adopt_legacy_rows(
                    self._conn,
                    self._insert_log,
                    max(self._chain_base.seq, outbox_unchecked_through(self._conn, meta)),
                )
            if self.table_id and not meta.get(META_TABLE_ID) and tail_problem is None:
                # A journal made before the id is adopted once its tail has checked out
                # (a foreign one fails that check against this table's ack mark).
                self._set_meta(META_TABLE_ID, self.table_id)
            self.table_id = self.table_id or meta.get(META_TABLE_ID) or None
            self._set_meta(META_CLEAN_SHUTDOWN, "0")
            self._set_meta(META_LAST_BOOT_ID, this_boot)
        if tail_problem is not None:
            self.fault = tail_problem
            return
        # The tail holds: both copies of the mark are made whole again (a copy that was
        # missing or unreadable, or a mark written before the mirror and the table id).
        seq, digest = self._head()
        write_acks(
            self.directory,
            AckMark(seq, digest, self.table_id, verified=self._verified, log_head=self._log_head()),
        )

    def _check_tail(self) -> JournalIntegrityError | None:
        """The cheap part of verify(): is everything acknowledged still here?"""
        try:
            problems = tail_problems(
                self._conn, self._acks_at_open, self._chain_base.seq, self._last_seq()
            )
        except JournalCorrupt as problem:
            return problem
        except sqlite3.DatabaseError as error:
            return JournalCorrupt(f"reading the end of the journal: {error}")
        return problems[0] if problems else None

    # ------------------------------------------------------------------ closing

    def close(self) -> None:
        """Orderly shutdown: log it, set the clean-shutdown marker, checkpoint, release."""
        if self._closed:
            return
        with self._mutex:
            try:
                if self._lock_fd is not None:
                    with suppress(sqlite3.Error):
                        with self._transaction():
                            self._insert_log(LogKind.SHUTDOWN, {"last_seq": self._last_seq()})
                            self._set_meta(META_CLEAN_SHUTDOWN, "1")
                        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                    if self._ack_writer is not None:
                        with suppress(OSError, sqlite3.Error):
                            self._write_ack(clean=True)
                            self._ack_writer.sync()
                        self._ack_writer.close()
            finally:
                self._conn.close()
                if self._lock_fd is not None:
                    release_lock(self._lock_fd)
                    self._lock_fd = None
                self._closed = True

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ checking

    def verify(self, *, log: bool = True, whole: bool = True) -> VerifyResult:
        """Check the database, the hash chain, the snapshots and the tail.

        Every problem is collected (most basic first). A failure sets the sticky
        :attr:`fault`; the result is logged (kind ``integrity``) unless ``log`` is
        False or the journal is read-only. With ``whole`` False (start-up, ``tablectl
        state``) only what follows the verified mark is checked (``integrity``); a
        passed check moves the mark of a writable journal to where it reached.
        """
        with self._mutex:
            try:
                given = self.table_id if self._lock_fd is not None else None
                result = verify_connection(
                    self._conn,
                    self._acks_at_open,
                    table_id=given,
                    verified=None if whole else self._verified,
                )
            except (sqlite3.DatabaseError, TypeError, ValueError) as error:
                # A damaged page can hold NULLs or wrong types where the schema says
                # otherwise: damage, never a traceback.
                result = VerifyResult(
                    last_seq=0,
                    checked_from_seq=1,
                    events_checked=0,
                    quick_check=str(error),
                    problems=(JournalCorrupt(f"{type(error).__name__}: {error}"),),
                )
            if not result.ok:
                self.fault = result.problems[0]
            elif result.verified is not None:
                self._mark_verified(result.verified)
            if log and self._lock_fd is not None:
                with suppress(sqlite3.Error), self._transaction():
                    self._insert_log(LogKind.INTEGRITY, result.summary())
        return result

    def _mark_verified(self, verified: tuple[int, bytes]) -> None:
        """Keep the verified mark, and write it with the ack mark (a writable journal)."""
        if self._verified is not None and verified[0] < self._verified[0]:
            return  # a check that reached less (read while the daemon wrote) moves nothing
        self._verified = verified
        if self._ack_writer is not None and self.fault is None:
            self._ack_writer.verified = verified
            with suppress(OSError, sqlite3.Error):
                self._write_ack()

    # ------------------------------------------------------------------ retention

    def prune(
        self,
        keep_hands: int,
        *,
        archive: bool = False,
        keep_log_entries: int = 10_000,
        keep_snapshots: Collection[int] = (),
    ) -> PruneReport:
        """Delete what neither recovery nor recall needs; see ``retention.py``
        (``keep_snapshots``: snapshots kept with their events, however old)."""
        from controller.journal.retention import prune

        self._writable()
        if self.fault is not None:
            raise self.fault  # never thin out a damaged journal: it is evidence
        with self._mutex:
            report = prune(
                self,
                keep_hands=keep_hands,
                archive=archive,
                keep_log_entries=keep_log_entries,
                keep_snapshots=keep_snapshots,
            )
            self._chain_base = self._read_chain_base()
        return report
