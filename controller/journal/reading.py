"""The journal's read side: what a reader asks of :class:`Journal` (a mixin of it).

Each method takes the journal's lock and reads through ``queries``; nothing here
writes. The internals at the end (the chain base, the current configuration, the
head of the chain) are also what the writer and the retention and salvage modules use.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import suppress

from controller.journal import queries
from controller.journal.clock import WallClock
from controller.journal.errors import JournalCorrupt
from controller.journal.host import JournalHost
from controller.journal.integrity import ChainBase, chain_base
from controller.journal.records import ConfigRecord, EventRecord, SystemLogRecord
from controller.journal.schema import DB_NAME, RECALL_HANDS, head_token, sha256_hex


class JournalReader(JournalHost):
    """The read-only queries of :class:`~controller.journal.store.Journal`."""

    # ------------------------------------------------------------------ reading

    @property
    def last_seq(self) -> int:
        """The seq of the last recorded event (0 when none was recorded)."""
        with self._mutex:
            return self._last_seq()

    def head(self) -> tuple[int, str]:
        """``(last_seq, chain hash as hex)``: publish it to the floor as an outside anchor."""
        with self._mutex:
            seq, digest = self._head()
        return seq, digest.hex()

    @property
    def config_text(self) -> str:
        """The configuration in force (the latest recorded)."""
        return self._config.text

    @property
    def config_sha256(self) -> str:
        return self._config.sha256

    @property
    def config_id(self) -> int:
        return self._config.id

    def config_matches(self, config_text: str) -> bool:
        return sha256_hex(config_text) == self._config.sha256

    def configs(self) -> list[ConfigRecord]:
        with self._mutex:
            return queries.configs(self._conn)

    def config_for_seq(self, seq: int) -> ConfigRecord:
        """The configuration an event was (or the next event will be) recorded under."""
        with self._mutex:
            return queries.config_for_seq(self._conn, seq)

    def iter_events(self, after_seq: int = 0) -> Iterator[EventRecord]:
        """Events with seq > ``after_seq`` in order, read in batches (appends may interleave)."""
        last = after_seq
        while True:
            with self._mutex:
                batch = queries.events_after(self._conn, last)
            if not batch:
                return
            yield from batch
            last = batch[-1].seq

    def event(self, seq: int) -> EventRecord | None:
        with self._mutex:
            return queries.event_at(self._conn, seq)

    def first_seq_of_last_hands(self, count: int) -> int | None:
        """The first seq of the last ``count`` distinct hands (walking back from the end)."""
        with self._mutex:
            return queries.first_seq_of_last_hands(self._conn, count)

    def events_for_last_hands(self, count: int = RECALL_HANDS) -> list[EventRecord]:
        """Every event of the last ``count`` hands, the one in progress included."""
        start = self.first_seq_of_last_hands(count)
        return [] if start is None else list(self.iter_events(after_seq=start - 1))

    def latest_snapshot(self) -> tuple[int, str] | None:
        """``(seq, state text)`` of the newest snapshot, or None."""
        with self._mutex:
            return queries.latest_snapshot(self._conn)

    def iter_system_log(
        self, after_id: int = 0, kinds: Iterable[str] | None = None
    ) -> Iterator[SystemLogRecord]:
        with self._mutex:
            records = queries.system_log(self._conn, after_id, kinds)
        yield from records

    def size_bytes(self) -> int:
        """Bytes the journal occupies on disk (database + WAL)."""
        total = 0
        for suffix in ("", "-wal"):
            with suppress(FileNotFoundError):
                total += (self.directory / f"{DB_NAME}{suffix}").stat().st_size
        return total

    def _log_head(self, before: int | None = None) -> tuple[int, bytes]:
        return queries.log_head(self._conn, before)

    def chain_head(self) -> str:
        """The token published to the floor with every hand (``hand_end.chain_head``):
        both chains' heads, the events' and the system log's (see ``head_token``)."""
        with self._mutex:
            seq, event_hash = self._head()
            log_id, log_hash = self._log_head()
        return head_token(seq, event_hash, log_id, log_hash)

    # ------------------------------------------------------------------ internals

    @property
    def connection(self) -> sqlite3.Connection:
        """The underlying connection, for the retention and salvage modules."""
        return self._conn

    @property
    def mutex(self) -> threading.RLock:
        return self._mutex

    @property
    def chain_base_value(self) -> ChainBase:
        return self._chain_base

    @property
    def clock(self) -> WallClock:
        """The wall clock the journal stamps its records with."""
        return self._clock

    def _read_chain_base(self) -> ChainBase:
        meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        first = self._conn.execute("SELECT sha256 FROM configs WHERE id = 1").fetchone()
        base = chain_base(meta, {1: first[0]} if first else {})
        if base is None:
            raise JournalCorrupt("the first configuration record is missing")
        return base

    def _current_config(self) -> ConfigRecord:
        return queries.current_config(self._conn)

    def _head(self) -> tuple[int, bytes]:
        row = self._conn.execute(
            "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return self._chain_base.seq, self._chain_base.hash
        if not isinstance(row[1], bytes):
            raise JournalCorrupt(f"the hash of the last event (seq {row[0]}) is unreadable")
        return int(row[0]), row[1]

    def _last_seq(self) -> int:
        return self._head()[0]
