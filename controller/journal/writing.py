"""The journal's write side: what the daemon records through :class:`Journal` (a mixin of it).

Every method here that records something is one SQLite transaction (``_transaction``)
taken under the journal's lock: an event with its snapshot and outbound messages
(:meth:`append`), a configuration change (:meth:`record_config`), a system log entry
(:meth:`log_system`). The ack mark is rewritten only after the commit. The internals
at the end (the writable check, the transaction, meta and system log rows) are also
what opening, closing and verifying in ``store.py`` record through.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from controller.journal import queries
from controller.journal.clock import boot_id
from controller.journal.errors import JournalError
from controller.journal.files import Transaction
from controller.journal.floorclaims import CLAIM_KEY, claim_detail
from controller.journal.host import JournalHost
from controller.journal.records import ConfigRecord, LogKind
from controller.journal.schema import (
    EVENT_COLUMNS,
    EVENT_VALUES,
    RowContent,
    canonical_json,
    log_digest,
    outbox_digest,
    refusal_from_result,
    sha256_hex,
    snapshot_digest,
)

OutboxItem = tuple[str, str] | tuple[str, str, int, bool | int]


class JournalWriter(JournalHost):
    """The recording methods of :class:`~controller.journal.store.Journal`."""

    # ------------------------------------------------------------------ writing

    def append(
        self,
        event: Mapping[str, Any],
        *,
        accepted: bool,
        by: str | None,
        result: Mapping[str, Any] | None = None,
        snapshot: str | None = None,
        outbox: Iterable[OutboxItem] = (),
        hand: int | None = None,
    ) -> int:
        """Record one input event durably and return its seq.

        ``result`` carries a refusal (``{"ok": false, "error": {"code", "message"}}``
        or just ``{"code", "message"}``); ``snapshot`` is the folded state after this
        event as opaque JSON text; ``outbox`` rows are ``(topic, payload)`` or
        ``(topic, payload, qos, retain)``; ``hand`` is the hand the event belongs to
        (the hand in progress, or between hands the last one; 0 before the first).
        When this returns, the event survives a power cut.
        """
        self._writable()
        if self.fault is not None:
            raise self.fault
        if not isinstance(event, Mapping):
            raise TypeError(f"event must be a mapping, got {type(event).__name__}")
        event_json = canonical_json(dict(event))
        code, message = refusal_from_result(result)
        if accepted and (code is not None or message is not None):
            raise ValueError("an accepted event cannot carry a refusal")
        if hand is not None and (not isinstance(hand, int) or isinstance(hand, bool)):
            raise TypeError(f"hand must be an int or None, got {hand!r}")
        if by is not None and not isinstance(by, str):
            raise TypeError(f"by must be a string or None, got {by!r}")
        snapshot_sha = snapshot_digest(snapshot) if snapshot is not None else None
        outbox_rows = [queries.outbox_row(item) for item in outbox]
        outbox_sha = outbox_digest(outbox_rows)
        with self._mutex:
            wall_ns, synced, mono_ns = self._clock.now()
            with self._transaction():
                seq, previous = self._head()
                seq += 1
                content = RowContent(
                    seq=seq,
                    hand=hand,
                    config_sha256=self._config.sha256,
                    event=event_json,
                    accepted=int(accepted),
                    refusal_code=code,
                    refusal_message=message,
                    by=by,
                    wall_ns=wall_ns,
                    clock_synced=int(synced),
                    mono_ns=mono_ns,
                    snapshot_sha256=snapshot_sha,
                    outbox_sha256=outbox_sha,
                )
                digest = content.digest(previous)
                self._conn.execute(
                    f"INSERT INTO events ({EVENT_COLUMNS}) VALUES {EVENT_VALUES}",
                    (seq, hand, self._config.id, event_json, int(accepted), code, message, by,
                     wall_ns, int(synced), mono_ns, snapshot_sha, digest, outbox_sha),
                )  # fmt: skip
                if snapshot is not None:
                    self._conn.execute(
                        "INSERT INTO snapshots (seq, state) VALUES (?, ?)", (seq, snapshot)
                    )
                if outbox_rows:
                    self._conn.executemany(
                        "INSERT INTO outbox (seq, topic, payload, qos, retain, created_ns) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        [(seq, *row, wall_ns) for row in outbox_rows],
                    )
                self._note_clock_sync(synced, wall_ns, mono_ns)
            assert self._ack_writer is not None
            self._ack_writer.write(seq, digest, log_head=self._log_head())
        return seq

    def record_config(
        self, config_text: str, *, by: str | None = None, changed: str | None = None
    ) -> ConfigRecord:
        """Record an accepted configuration change; later events are recorded under it.
        ``changed``: what it changes, in one line (``config.settings_changes``).

        For the daemon, between hands. Replay's durable mode refuses a different
        configuration instead (``open`` raises :class:`ConfigMismatch`).
        """
        self._writable()
        if self.fault is not None:
            raise self.fault
        sha = sha256_hex(config_text)
        if sha == self._config.sha256:
            return self._config
        with self._mutex:
            wall_ns, synced, mono_ns = self._clock.now()
            with self._transaction():
                from_seq = self._head()[0] + 1
                cursor = self._conn.execute(
                    "INSERT INTO configs (sha256, text, from_seq, wall_ns, clock_synced, by) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (sha, config_text, from_seq, wall_ns, int(synced), by),
                )
                self._insert_log(
                    LogKind.CONFIG_CHANGE,
                    {
                        "sha256": sha,
                        "config_id": cursor.lastrowid,
                        "previous_sha256": self._config.sha256,
                        "from_seq": from_seq,
                        "by": by,
                        "changed": changed,
                        "diff": queries.config_diff(self._config.text, config_text),
                    },
                )
            self._config = self._current_config()
            self._write_ack()
        return self._config

    def log_system(self, kind: str, detail: Mapping[str, Any] | None = None) -> int:
        """Add a durable system log entry (see :class:`LogKind`); returns its id.

        Works while :attr:`fault` is set, so faults and device events are recorded
        while play is locked.
        """
        self._writable()
        if not isinstance(kind, str) or not kind:
            raise ValueError("a system log entry needs a kind")
        with self._mutex:
            with self._transaction():
                row_id = self._insert_log(kind, dict(detail or {}))
            self._write_ack()
            return row_id

    def queue_floor(
        self,
        outbox: Iterable[OutboxItem],
        *,
        about: str,
        entry: tuple[str, Mapping[str, Any]] | None = None,
    ) -> list[int]:
        """Queue floor messages that belong to no event (the state at start-up, a device
        fault, the power loss), claimed by a ``floor_queued`` system log entry written in
        the same transaction (``floorclaims.py``); ``about`` says what they are, ``entry``
        is another system log entry ``(kind, detail)`` to commit with them (the power
        loss they report). Queued under the last seq; their outbox ids. Works while
        :attr:`fault` is set, like :meth:`log_system`."""
        self._writable()
        rows = [queries.outbox_row(item) for item in outbox]
        if not rows:
            return []
        with self._mutex:
            wall_ns = self._clock.now()[0]
            with self._transaction():
                if entry is not None:
                    self._insert_log(entry[0], dict(entry[1]))
                seq = self._last_seq()
                ids = [
                    int(
                        self._conn.execute(
                            "INSERT INTO outbox (seq, topic, payload, qos, retain, created_ns) "
                            "VALUES (?, ?, ?, ?, ?, ?)",
                            (seq, *row, wall_ns),
                        ).lastrowid
                        or 0
                    )
                    for row in rows
                ]
                self._insert_log(
                    LogKind.FLOOR_QUEUED,
                    {"about": about, CLAIM_KEY: claim_detail(seq, ids, rows)},
                )
            self._write_ack()
        return ids

    def checkpoint(self) -> None:
        """Fold the WAL into the database and truncate it; for idle moments (between hands).

        SQLite also checkpoints by itself every 1000 WAL pages, so this is not needed
        for correctness; it keeps the WAL (and the next recovery) small.
        """
        self._writable()
        with self._mutex:
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            if self._ack_writer is not None:
                self._ack_writer.sync()

    # ------------------------------------------------------------------ internals

    def _write_ack(self, *, clean: bool = False) -> None:
        """The ack mark rewritten after a commit with no event (a system log entry):
        the last event as before, the log's new head (``ackmark``). Not while a fault
        holds the files as found."""
        if self._ack_writer is None or self.fault is not None:
            return
        seq, digest = self._head()
        self._ack_writer.write(seq, digest, clean=clean, log_head=self._log_head())

    def _writable(self) -> None:
        if self._closed:
            raise JournalError("the journal is closed")
        if self._lock_fd is None:
            raise JournalError("the journal was opened read-only")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One transaction; a clock-sync entry written in it counts as written only once
        it commits (a rolled-back one is written again with the next record)."""
        try:
            with Transaction(self._conn):
                yield
        except BaseException:
            self._clock_sync_pending = self._clock_unsync_pending = False
            self._steps_pending = self._steps_logged
            raise
        if self._clock_sync_pending:
            self._clock_sync_pending = False
            self._clock_synced_seen = True
        if self._clock_unsync_pending:
            self._clock_unsync_pending = False
            self._clock_synced_seen = False
        self._steps_logged = self._steps_pending

    def _set_meta(self, key: str, value: str) -> None:
        queries.set_meta(self._conn, key, value)

    def _insert_log(self, kind: str, detail: Mapping[str, Any]) -> int:
        """One system log entry, chained to the one before (``log_digest``)."""
        wall_ns, synced, mono_ns = self._clock.now()
        values = (
            str(kind),
            canonical_json(dict(detail)),
            wall_ns,
            int(synced),
            mono_ns,
            self._last_seq(),
        )
        cursor = self._conn.execute(
            "INSERT INTO system_log (kind, detail, wall_ns, clock_synced, mono_ns, last_seq) "
            "VALUES (?, ?, ?, ?, ?, ?)", values,
        )  # fmt: skip
        row_id = int(cursor.lastrowid or 0)
        _, previous = self._log_head(before=row_id)
        self._conn.execute(
            "UPDATE system_log SET hash = ? WHERE id = ?",
            (log_digest(previous, (row_id, *values)), row_id),
        )
        self._note_clock_sync(synced, wall_ns, mono_ns)
        return row_id

    def _note_clock_sync(self, synced: bool, wall_ns: int, mono_ns: int) -> None:
        """Log every change of the wall clock's sync inside the current transaction (the
        moment it became trustworthy, the moment it stopped being so) and every step
        it made (``WallClock.steps``); :meth:`_transaction` counts them written when
        that transaction commits, so a rolled-back one is written with the next."""
        if synced and not self._clock_synced_seen and not self._clock_sync_pending:
            self._clock_sync_pending = True
            self._insert_log(
                LogKind.CLOCK_SYNC, {"wall_ns": wall_ns, "mono_ns": mono_ns, "boot_id": boot_id()}
            )
        elif not synced and self._clock_synced_seen and not self._clock_unsync_pending:
            self._clock_unsync_pending = True
            self._insert_log(LogKind.CLOCK_UNSYNC, {"wall_ns": wall_ns, "mono_ns": mono_ns})
        steps = self._clock.steps
        while self._steps_pending < len(steps):
            step = steps[self._steps_pending]
            self._steps_pending += 1
            self._insert_log(
                LogKind.CLOCK_STEP,
                {
                    "step_ns": step.step_ns,
                    "step_s": round(step.step_ns / 1e9, 3),
                    "wall_ns": step.wall_ns,
                    "mono_ns": step.mono_ns,
                    "synced": step.synced,
                },
            )
