"""Checking a journal: the database, the hash chain, the snapshots, the tail.

Used by :meth:`Journal.verify`, by the salvage (which keeps the longest prefix that
passes the chain check) and by :func:`verify_archive`.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.journal import floorclaims
from controller.journal.ackmark import AckReading
from controller.journal.errors import (
    AckMarkLost,
    ChainBroken,
    ForeignJournal,
    JournalCorrupt,
    JournalIntegrityError,
    SnapshotMissing,
    TornTail,
)
from controller.journal.files import missing_columns
from controller.journal.records import VerifyResult
from controller.journal.schema import (
    LOG_COLUMNS,
    META_CHAIN_BASE_HASH,
    META_CHAIN_BASE_SEQ,
    META_LOG_BASE_HASH,
    META_LOG_BASE_ID,
    META_OUTBOX_PRUNED_THROUGH,
    META_SNAPSHOTS_PRUNED_THROUGH,
    META_TABLE_ID,
    RowContent,
    genesis_hash,
    log_digest,
    outbox_digest,
)

QUICK_CHECK_LINES = 5

# Text columns are read as bytes so that a flipped byte that is no longer valid UTF-8
# is reported as a broken record instead of raising inside the sqlite3 module.
_SCAN_SQL = (
    "SELECT seq, hand, config_id, CAST(event AS BLOB), accepted, "
    "CAST(refusal_code AS BLOB), CAST(refusal_message AS BLOB), CAST(by AS BLOB), "
    "wall_ns, clock_synced, mono_ns, snapshot_sha256, hash, outbox_sha256 "
    "FROM events WHERE seq > ? ORDER BY seq LIMIT ?"
)
_BATCH = 512


@dataclass(frozen=True, slots=True)
class ChainBase:
    """Where the chain starts: after ``seq`` (0 for a journal never pruned), from ``hash``."""

    seq: int
    hash: bytes


@dataclass(frozen=True, slots=True)
class ScannedRow:
    """One event row that passed the chain check, with its stored values."""

    content: RowContent
    config_id: int
    hash: bytes


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    return {str(key): str(value) for key, value in conn.execute("SELECT key, value FROM meta")}


def verified_configs(conn: sqlite3.Connection) -> tuple[dict[int, str], list[str]]:
    """``({config id: sha256}, problems)``: configuration rows whose text matches their hash."""
    good: dict[int, str] = {}
    problems: list[str] = []
    for config_id, sha, text in conn.execute(
        "SELECT id, sha256, CAST(text AS BLOB) FROM configs ORDER BY id"
    ):
        actual = hashlib.sha256(text).hexdigest() if isinstance(text, bytes) else None
        if actual is not None and actual == sha:
            good[int(config_id)] = str(sha)
        else:
            problems.append(f"configuration record {config_id} does not match its SHA-256")
    return good, problems


def chain_base(meta: dict[str, str], configs: dict[int, str]) -> ChainBase | None:
    """The chain's starting point; None when it cannot be known (first config damaged)."""
    base_seq = int(meta.get(META_CHAIN_BASE_SEQ, "0"))
    if base_seq > 0:
        return ChainBase(base_seq, bytes.fromhex(meta[META_CHAIN_BASE_HASH]))
    if 1 not in configs:
        return None
    return ChainBase(0, genesis_hash(configs[1]))


def _text(value: object, seq: int, column: str) -> str | None:
    if value is None:
        return None
    try:
        return bytes(value).decode("utf-8")  # type: ignore[call-overload]
    except (UnicodeDecodeError, TypeError) as error:
        raise ChainBroken(seq, f"stored {column} is not valid text ({error})") from None


class ChainScanner:
    """Walks the events in seq order from ``base``, yielding rows whose link holds.

    Stops at the first gap, unreadable row or hash mismatch and keeps it in
    ``problem``; ``last`` is then the last good (seq, hash).
    """

    def __init__(self, conn: sqlite3.Connection, base: ChainBase, configs: dict[int, str]):
        self._conn = conn
        self._configs = configs
        self.base = base
        self.last = (base.seq, base.hash)
        self.count = 0
        self.problem: JournalIntegrityError | None = None

    def rows(self) -> Iterator[ScannedRow]:
        expected = self.base.seq + 1
        previous = self.base.hash
        while True:
            try:
                batch = self._conn.execute(_SCAN_SQL, (expected - 1, _BATCH)).fetchall()
            except sqlite3.DatabaseError as error:
                self.problem = JournalCorrupt(f"reading events after seq {expected - 1}: {error}")
                return
            if not batch:
                return
            for raw in batch:
                try:
                    row = check_row(raw, expected, previous, self._configs)
                except JournalIntegrityError as problem:
                    self.problem = problem
                    return
                previous = row.hash
                self.last = (expected, previous)
                self.count += 1
                expected += 1
                yield row


def check_row(
    raw: tuple[object, ...], expected: int, previous: bytes, configs: Mapping[int, str]
) -> ScannedRow:
    """One stored event row (text columns as bytes) against the chain: raises
    :class:`ChainBroken` unless it is event ``expected`` linked to ``previous``."""
    (seq, hand, config_id, event, accepted, code, message, by, wall_ns, synced, mono_ns,
     snapshot_sha, stored_hash, *rest) = raw  # fmt: skip
    outbox_sha = rest[0] if rest else None
    if seq != expected:
        raise ChainBroken(expected, f"event {expected} is missing (next stored event is {seq})")
    if not isinstance(config_id, int) or config_id not in configs:
        raise ChainBroken(expected, f"its configuration record {config_id!r} is missing or damaged")
    if not isinstance(stored_hash, bytes):
        raise ChainBroken(expected, "its stored hash is missing or damaged")
    if snapshot_sha is not None and not isinstance(snapshot_sha, bytes):
        raise ChainBroken(expected, "its snapshot hash is damaged")
    if outbox_sha is not None and not isinstance(outbox_sha, bytes):
        raise ChainBroken(expected, "its floor messages' hash is damaged")
    event_text = _text(event, expected, "event")
    if event_text is None:
        raise ChainBroken(expected, "its event text is missing")
    content = RowContent(
        seq=expected,
        hand=hand,  # type: ignore[arg-type]
        config_sha256=configs[config_id],
        event=event_text,
        accepted=accepted,  # type: ignore[arg-type]
        refusal_code=_text(code, expected, "refusal code"),
        refusal_message=_text(message, expected, "refusal message"),
        by=_text(by, expected, "'by'"),
        wall_ns=wall_ns,  # type: ignore[arg-type]
        clock_synced=synced,  # type: ignore[arg-type]
        mono_ns=mono_ns,  # type: ignore[arg-type]
        snapshot_sha256=snapshot_sha,
        outbox_sha256=outbox_sha,
    )
    try:
        digest = content.digest(previous)
    except (TypeError, ValueError) as error:
        raise ChainBroken(expected, f"its stored values cannot be hashed ({error})") from None
    if digest != stored_hash:
        raise ChainBroken(
            expected,
            "its stored content does not match its hash (changed after it was written)",
        )
    return ScannedRow(content, config_id, stored_hash)


def quick_check(conn: sqlite3.Connection) -> tuple[str, JournalCorrupt | None]:
    try:
        lines = [
            line.strip()
            for row in conn.execute("PRAGMA quick_check")
            for line in str(row[0]).splitlines()
            if line.strip() and not line.startswith("*** in database")
        ]
    except sqlite3.DatabaseError as error:
        return str(error), JournalCorrupt(f"PRAGMA quick_check failed: {error}")
    text = "; ".join(lines[:QUICK_CHECK_LINES])
    if lines == ["ok"]:
        return text, None
    more = f" (and {len(lines) - QUICK_CHECK_LINES} more)" if len(lines) > QUICK_CHECK_LINES else ""
    return text, JournalCorrupt(f"PRAGMA quick_check reports {text}{more}")


class SnapshotCheck:
    """The snapshots against the hashes their events record, streamed beside the chain
    walk (both in seq order, so memory stays flat however long the journal): ``feed``
    each row the walk passes after ``after``, then ``finish``."""

    def __init__(self, conn: sqlite3.Connection, after: int, pruned_through: int) -> None:
        self._rows = conn.execute(
            "SELECT seq, CAST(state AS BLOB) FROM snapshots WHERE seq > ? ORDER BY seq", (after,)
        )
        self._pruned_through = pruned_through
        self._next: tuple[int, bytes] | None = self._read()
        self.problems: list[JournalIntegrityError] = []

    def _read(self) -> tuple[int, bytes] | None:
        row = self._rows.fetchone()
        return None if row is None else (int(row[0]), bytes(row[1] or b""))

    def feed(self, seq: int, recorded: bytes | None) -> None:
        stored = self._next if self._next is not None and self._next[0] == seq else None
        if stored is not None:
            self._next = self._read()
            if recorded is None:
                self.problems.append(
                    ChainBroken(seq, "a snapshot is stored that its event does not record")
                )
            elif hashlib.sha256(stored[1]).digest() != recorded:
                self.problems.append(
                    ChainBroken(seq, "its snapshot does not match the hash recorded with the event")
                )
        elif recorded is not None and seq > self._pruned_through:
            self.problems.append(SnapshotMissing(seq))

    def finish(self, last_seq: int) -> list[JournalIntegrityError]:
        """Snapshots beyond the last event: events were cut off the end."""
        while self._next is not None:
            seq = self._next[0]
            if seq > last_seq:
                self.problems.append(
                    TornTail(
                        last_seq,
                        seq,
                        f"a snapshot exists for seq {seq} beyond the last event {last_seq}, "
                        f"so events were cut off the end",
                    )
                )
            self._next = self._read()
        return self.problems


class OutboxCheck:
    """The floor messages of every walked event after ``through`` against the hash its
    event recorded, streamed in seq order beside the chain walk (at most 5 problems)."""

    def __init__(
        self, conn: sqlite3.Connection, through: int, vouched: set[int] | None = None
    ) -> None:
        self._through = through
        self._vouched = vouched or set()
        self._rows = conn.execute(
            "SELECT seq, topic, payload, qos, retain, id FROM outbox WHERE seq > ? "
            "ORDER BY seq, id",
            (through,),
        )
        self._next = self._rows.fetchone()
        self.problems: list[JournalIntegrityError] = []

    def feed(self, seq: int, digest: bytes | None) -> None:
        if seq <= self._through or len(self.problems) >= 5:
            return
        rows: list[tuple[str, str, int, int]] = []
        while self._next is not None and self._next[0] <= seq:
            if self._next[0] == seq and self._next[5] not in self._vouched:
                rows.append(tuple(self._next[1:5]))
            self._next = self._rows.fetchone()
        if digest is None:
            if rows:
                self.problems.append(
                    ChainBroken(seq, "floor messages are stored that its event does not record")
                )
        elif outbox_digest(rows) != digest:
            self.problems.append(
                ChainBroken(
                    seq, "its floor messages (outbox) do not match the hash recorded with the event"
                )
            )


def tail_problems(
    conn: sqlite3.Connection,
    acks: AckReading | None,
    base_seq: int,
    last_seq: int,
    *,
    check_hashes: bool = True,
) -> list[JournalIntegrityError]:
    """Is everything acknowledged still here? Each readable copy of the ack mark against
    the database; no readable copy at all is :class:`AckMarkLost`."""
    if acks is None:
        return []
    if acks.lost:
        return [AckMarkLost(acks.describe(), last_seq)]
    problems: list[JournalIntegrityError] = []
    high = acks.high
    if high is not None and high.seq > last_seq:
        problems.append(TornTail(last_seq, high.seq))
    problems.extend(log_head_problems(conn, acks, last_seq))
    if not check_hashes:
        return problems
    checked: set[int] = set()
    for mark in acks.marks:
        if mark.seq in checked or mark.seq <= base_seq or mark.seq > last_seq:
            continue
        checked.add(mark.seq)
        row = conn.execute("SELECT hash FROM events WHERE seq = ?", (mark.seq,)).fetchone()
        if row is None or row[0] != mark.hash:
            problems.append(
                ChainBroken(mark.seq, "it differs from the event acknowledged with that seq")
            )
    return problems


def log_head_problems(
    conn: sqlite3.Connection, acks: AckReading, last_seq: int
) -> list[JournalIntegrityError]:
    """Is the system log's end still there? Each copy of the ack mark names the last
    entry committed when it was written (``ackmark``): that entry must still be in the
    log, with that hash (unless pruned: at or before the log's base)."""
    meta = read_meta(conn)
    if not meta.get(META_LOG_BASE_HASH):
        return []  # a journal from before the log's chain (not yet upgraded)
    base = meta.get(META_LOG_BASE_ID, "0")
    base_id = int(base) if base.isdigit() else 0
    problems: list[JournalIntegrityError] = []
    checked: set[int] = set()
    for mark in acks.marks:
        if mark.log_head is None or mark.log_head[0] in checked or mark.log_head[0] <= base_id:
            continue
        log_id, digest = mark.log_head
        checked.add(log_id)
        row = conn.execute("SELECT hash FROM system_log WHERE id = ?", (log_id,)).fetchone()
        if row is None:
            end = conn.execute("SELECT MAX(id) FROM system_log").fetchone()[0]
            problems.append(
                ChainBroken(
                    last_seq,
                    f"the system log ends at entry {end or 0}, but entry {log_id} was written "
                    f"(the ack mark records it): entries were removed from its end",
                )
            )
        elif row[0] != digest:
            problems.append(
                ChainBroken(
                    last_seq,
                    f"system log entry {log_id} differs from the one the ack mark records "
                    f"(the log's end was removed and written again)",
                )
            )
    return problems


def identity_problem(
    recorded: str | None, acks: AckReading | None, given: str | None
) -> ForeignJournal | None:
    """Does the journal belong to the table ``given`` (and do its files agree)?

    ``recorded`` is the table id in the database's meta, ``acks`` the ack mark's."""
    marked = acks.table_id if acks is not None else None
    if given:
        if recorded and recorded != given:
            return ForeignJournal(recorded, given, "recorded in its database")
        if marked and marked != given and recorded == given and acks is not None:
            return _foreign_ack_mark(acks, marked, given)
        if marked and marked != given:
            return ForeignJournal(
                marked,
                given,
                "named by its ack mark; the database "
                f"{'names ' + recorded if recorded else 'names none'}",
            )
    if recorded and marked and recorded != marked:
        return ForeignJournal(
            recorded,
            marked,
            "",
            message=(
                f"the database names table {recorded}, the ack mark beside it table {marked}: "
                f"one of them was copied from another table's state directory. Play stays locked "
                f"and nothing was written. Start the table (or run the salvage with --config) to "
                f"be told which is foreign; copy or move whole state directories, never single "
                f"files."
            ),
        )
    return None


def _foreign_ack_mark(acks: AckReading, marked: str, given: str) -> ForeignJournal:
    """The database is this table's, the ack mark file(s) another's (copied over)."""
    names = [
        copy.name for copy in acks.copies if copy.mark is not None and copy.mark.table_id == marked
    ]
    files = " and ".join(names)
    return ForeignJournal(
        marked,
        given,
        "",
        message=(
            f"{files} belong{'s' if len(names) == 1 else ''} to table {marked}, while the "
            f"database and the configuration name table {given}: copied from table {marked}'s "
            f"state directory. Play stays locked and nothing was written. Put table {given}'s "
            f"own {files} back. If they are lost, move {'it' if len(names) == 1 else 'them'} "
            f"out of the state directory and start again: a remaining copy of this table's "
            f"ack mark still guards the journal; with none left the start reports "
            f"ack_mark_lost, and the journal salvage (docs/journal.md, 'Recovering a failed "
            f"journal') rebuilds it."
        ),
    )


def recorded_table_id(meta: dict[str, str]) -> str | None:
    return meta.get(META_TABLE_ID) or None


def verify_connection(
    conn: sqlite3.Connection,
    acks: AckReading | None,
    *,
    table_id: str | None = None,
    verified: tuple[int, bytes] | None = None,
) -> VerifyResult:
    """Every check, collecting all problems (the most basic first). With ``verified``
    (the ack mark's verified mark: start-up, ``tablectl state``) the chain, snapshots
    and floor messages are checked only after it, once the row at the mark is found
    with the mark's hash, and ``PRAGMA quick_check`` (which reads every page) is left to
    the whole check; without it, everything. Memory stays flat either way.

    The check reads the journal as of one moment (one read transaction): the floor
    publisher's thread deletes the oldest sent messages and moves the mark the check
    passes over them by, on its own connection, at any time."""
    with _one_moment(conn):
        return _verify(conn, acks, table_id, verified)


@contextmanager
def _one_moment(conn: sqlite3.Connection) -> Iterator[None]:
    """Every read inside as of the first one (a caller's transaction is kept as is)."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        with suppress(sqlite3.Error):  # a read transaction: nothing to keep
            conn.execute("ROLLBACK")


def _verify(
    conn: sqlite3.Connection,
    acks: AckReading | None,
    table_id: str | None,
    verified: tuple[int, bytes] | None,
) -> VerifyResult:
    problems: list[JournalIntegrityError] = []
    warnings: list[str] = acks.warnings() if acks is not None else []
    quick = "skipped (checked after the verified mark)"
    if verified is None:
        quick, corrupt = quick_check(conn)
        if corrupt is not None:
            problems.append(corrupt)
    try:
        meta = read_meta(conn)
        configs, config_problems = verified_configs(conn)
    except sqlite3.DatabaseError as error:
        problems.append(JournalCorrupt(f"reading meta and configurations: {error}"))
        return VerifyResult(
            last_seq=0, checked_from_seq=1, events_checked=0, quick_check=quick,
            problems=tuple(problems), warnings=tuple(warnings),
        )  # fmt: skip
    foreign = identity_problem(recorded_table_id(meta), acks, table_id)
    if foreign is not None:
        problems.append(foreign)
    base = chain_base(meta, configs)
    if base is None:
        problems.append(ChainBroken(1, "the first configuration record is damaged"))
        return VerifyResult(
            last_seq=0, checked_from_seq=1, events_checked=0, quick_check=quick,
            problems=tuple(sorted(problems, key=_severity)), warnings=tuple(warnings),
        )  # fmt: skip
    start = _walk_from(conn, base, verified, problems)
    floor = FloorCheck(conn, meta, base.seq, problems, start.seq)
    scanner, last_seq = _walk(conn, meta, start, configs, config_problems, problems, floor.vouched)
    try:
        problems.extend(
            tail_problems(conn, acks, base.seq, last_seq, check_hashes=scanner.problem is None)
        )
        if start.seq > base.seq:
            problems.extend(_recovery_snapshot(conn, base.seq, start.seq))
        problems.extend(floor.problems())
    except sqlite3.DatabaseError as error:
        problems.append(JournalCorrupt(f"reading the tail and the system log: {error}"))
    problems.sort(key=_severity)
    return VerifyResult(
        last_seq=last_seq,
        checked_from_seq=start.seq + 1,
        events_checked=scanner.count,
        quick_check=quick,
        problems=tuple(problems),
        warnings=tuple(warnings),
        verified=scanner.last if not problems else None,
    )


def _walk_from(
    conn: sqlite3.Connection,
    base: ChainBase,
    verified: tuple[int, bytes] | None,
    problems: list[JournalIntegrityError],
) -> ChainBase:
    """Where the walk starts: after the verified mark when its row still has its hash,
    else (no mark, a mark before the prune checkpoint, a mark that no longer matches:
    reported) from the chain's base."""
    if verified is None or verified[0] <= base.seq:
        return base
    seq, digest = verified
    row = conn.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()
    if row is None:
        problems.append(ChainBroken(seq, "it was checked before (verified mark) and is missing"))
        return base
    if row[0] != digest:
        problems.append(
            ChainBroken(seq, "it differs from the event checked before at that seq (verified mark)")
        )
        return base
    return ChainBase(seq, digest)


def _walk(
    conn: sqlite3.Connection,
    meta: dict[str, str],
    start: ChainBase,
    configs: dict[int, str],
    config_problems: list[str],
    problems: list[JournalIntegrityError],
    vouched: set[int],
) -> tuple[ChainScanner, int]:
    """The chain walked from ``start``, its snapshots and floor messages checked beside
    it as it goes (``vouched``: rows of no event, checked by ``FloorCheck``); (the
    walk, the last stored seq)."""
    scanner = ChainScanner(conn, start, configs)
    snapshots = SnapshotCheck(conn, start.seq, int(meta.get(META_SNAPSHOTS_PRUNED_THROUGH, "0")))
    outbox = OutboxCheck(conn, max(start.seq, outbox_unchecked_through(conn, meta)), vouched)
    for row in scanner.rows():
        snapshots.feed(row.content.seq, row.content.snapshot_sha256)
        outbox.feed(row.content.seq, row.content.outbox_sha256)
    if scanner.problem is not None:
        if isinstance(scanner.problem, ChainBroken) and config_problems:
            scanner.problem = ChainBroken(
                scanner.problem.seq, f"{scanner.problem.reason}; {'; '.join(config_problems)}"
            )
        problems.append(scanner.problem)
    try:
        stored_last = conn.execute("SELECT MAX(seq) FROM events").fetchone()[0]
    except sqlite3.DatabaseError as error:
        problems.append(JournalCorrupt(f"reading the last event: {error}"))
        stored_last = None
    last_seq = int(stored_last) if stored_last is not None else start.seq
    try:
        problems.extend(snapshots.finish(last_seq))
    except sqlite3.DatabaseError as error:
        problems.append(JournalCorrupt(f"reading snapshots: {error}"))
    problems.extend(outbox.problems)
    return scanner, last_seq


def _recovery_snapshot(
    conn: sqlite3.Connection, base_seq: int, walked_from: int
) -> list[JournalIntegrityError]:
    """The newest snapshot, which recovery starts from, against the hash its event
    recorded, when it lies before the walk (at or before the verified mark) and after
    the prune checkpoint (whose event is gone, as in a whole check)."""
    row = conn.execute(
        "SELECT s.seq, CAST(s.state AS BLOB), e.snapshot_sha256 FROM snapshots s "
        "LEFT JOIN events e ON e.seq = s.seq ORDER BY s.seq DESC LIMIT 1"
    ).fetchone()
    if row is None or not base_seq < int(row[0]) <= walked_from:
        return []
    seq, state, recorded = int(row[0]), bytes(row[1] or b""), row[2]
    if recorded is None or hashlib.sha256(state).digest() != recorded:
        return [ChainBroken(seq, "its snapshot does not match the hash recorded with the event")]
    return []


def outbox_unchecked_through(conn: sqlite3.Connection, meta: Mapping[str, str]) -> int:
    """The last seq whose floor messages recorded no hash: pruned ones, and every event
    of a journal from the first release (all of it before a writer upgrades it, which
    then records its last seq here)."""
    through = meta.get(META_OUTBOX_PRUNED_THROUGH, "0") or "0"
    pruned = int(through) if through.isdigit() else 0
    if ("events", "outbox_sha256", "BLOB") not in missing_columns(conn):
        return pruned
    last = conn.execute("SELECT MAX(seq) FROM main.events").fetchone()[0]
    return max(pruned, int(last or 0))


@dataclass(frozen=True, slots=True)
class LogBase:
    """Where the system log's chain starts: after entry ``id``, from ``hash``."""

    id: int
    hash: bytes


def log_base(meta: dict[str, str]) -> LogBase | None:
    """None for a journal from before the log's chain (not yet upgraded by a writer)."""
    base_hash = meta.get(META_LOG_BASE_HASH)
    if not base_hash:
        return None
    try:
        return LogBase(int(meta.get(META_LOG_BASE_ID, "0")), bytes.fromhex(base_hash))
    except ValueError:
        return LogBase(0, b"")  # a damaged meta row: the walk reports the first entry


class LogScanner:
    """Walks the system log after its base, yielding entries whose link holds; stops at
    the first one that does not (``problem``); ``last`` is the last good (id, hash)."""

    def __init__(self, conn: sqlite3.Connection, base: LogBase) -> None:
        self._conn = conn
        self.base = base
        self.last = (base.id, base.hash)
        self.problem: JournalIntegrityError | None = None

    def rows(self) -> Iterator[tuple[Any, ...]]:
        previous = self.base.hash
        for row in self._conn.execute(
            "SELECT id, kind, detail, wall_ns, clock_synced, mono_ns, last_seq, hash "
            "FROM system_log WHERE id > ? ORDER BY id",
            (self.base.id,),
        ):
            *values, stored = row
            if not isinstance(stored, bytes) or log_digest(previous, tuple(values)) != stored:
                self.problem = ChainBroken(
                    int(values[6]) if isinstance(values[6], int) else 0,
                    f"system log entry {values[0]} was changed, removed or inserted after it "
                    f"was written",
                )
                return
            previous = stored
            self.last = (int(values[0]), stored)
            yield tuple(row)


class FloorCheck:
    """The system log's chain walked (from its base), and with it the floor messages
    of no event (``floorclaims``): ``vouched`` are the outbox rows a claim (or, in a
    journal of 0.2.x not yet started by this version, recognition) accounts for, which
    the event walk leaves out; ``problems()`` after the walk, with the rows of events
    before ``walked_from`` (the verified mark) checked too."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        meta: dict[str, str],
        base_seq: int,
        problems: list[JournalIntegrityError],
        walked_from: int,
    ) -> None:
        self._conn = conn
        self._walked_from = walked_from
        self._log_problem: JournalIntegrityError | None = None
        self.unchecked = max(base_seq, outbox_unchecked_through(conn, meta))
        base_of_log = log_base(meta)
        entries: list[tuple[Any, ...]] = []
        try:
            if base_of_log is not None:
                log_scan = LogScanner(conn, base_of_log)
                entries = list(log_scan.rows())
                self._log_problem = log_scan.problem
            self.claims = floorclaims.claims_in(entries)
            self.vouched = floorclaims.claimed_ids(self.claims)
            if floorclaims.recognising(meta, self.claims):
                every = conn.execute(f"SELECT {LOG_COLUMNS} FROM system_log").fetchall()
                groups = floorclaims.rows_by_seq(conn, self.vouched, self.unchecked)
                legacy = floorclaims.legacy_rows(groups, meta, every)
                self.vouched |= {row_id for ids in legacy.values() for row_id in ids}
        except sqlite3.DatabaseError as error:
            problems.append(JournalCorrupt(f"reading the system log: {error}"))
            self.claims, self.vouched = [], set()

    def problems(self) -> list[JournalIntegrityError]:
        found: list[JournalIntegrityError] = []
        if self._log_problem is not None:
            found.append(self._log_problem)
        found.extend(floorclaims.claim_problems(self._conn, self.claims, self.unchecked))
        found.extend(floorclaims.orphan_problems(self._conn, self.vouched, self.unchecked))
        if self._walked_from > self.unchecked:  # rows under events the walk left out
            found.extend(
                floorclaims.checked_rows_problems(
                    self._conn, self.vouched, self.unchecked, self._walked_from
                )
            )
        return found


_ORDER = (ForeignJournal, JournalCorrupt, AckMarkLost, TornTail, ChainBroken, SnapshotMissing)


def _severity(problem: JournalIntegrityError) -> int:
    for index, kind in enumerate(_ORDER):
        if isinstance(problem, kind):
            return index
    return len(_ORDER)


def verify_archive(path: Path) -> VerifyResult:
    """Check an archive written by ``Journal.prune(archive=True)`` on its own."""
    from controller.journal.files import connect

    conn = connect(path, readonly=True)
    try:
        problems: list[JournalIntegrityError] = []
        quick, corrupt = quick_check(conn)
        if corrupt is not None:
            problems.append(corrupt)
        meta = read_meta(conn)
        configs, _ = verified_configs(conn)
        base = chain_base(meta, configs)
        if base is None:
            problems.append(ChainBroken(1, "the archive's first configuration record is damaged"))
            return VerifyResult(last_seq=0, checked_from_seq=1, events_checked=0,
                                quick_check=quick, problems=tuple(problems))  # fmt: skip
        scanner = ChainScanner(conn, base, configs)
        for _ in scanner.rows():
            pass
        if scanner.problem is not None:
            problems.append(scanner.problem)
        end_seq = int(meta.get("chain_end_seq", "0"))
        end_hash = bytes.fromhex(meta.get("chain_end_hash", ""))
        if scanner.problem is None and scanner.last != (end_seq, end_hash):
            problems.append(
                TornTail(scanner.last[0], end_seq, "the archive does not end where it says")
            )
        return VerifyResult(
            last_seq=scanner.last[0],
            checked_from_seq=base.seq + 1,
            events_checked=scanner.count,
            quick_check=quick,
            problems=tuple(problems),
        )
    finally:
        conn.close()
