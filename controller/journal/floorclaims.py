"""Floor messages that belong to no event, and how the journal vouches for them.

An event's floor messages are covered by the hash its event row records. Messages the
daemon queues between events (the state re-published at start-up, a device fault
raised or cleared, the power loss) belong to no event: each batch is written in one
transaction with a ``floor_queued`` system log entry that **claims** it: the outbox
rows' ids, the seq they were queued under and the SHA-256 of their
``[topic, payload, qos, retain]`` (as an event's). The system log's chain covers the
entry, so a claimed row changed or removed breaks the claim, and a row added under an
event that no claim names breaks that event's check, as before.

Journals written by 0.2.0 and 0.2.1 queued such messages under the last event's seq
with nothing covering them. Such a journal (no ``floor_claims`` in its meta, no claim in
its log) has its old rows **recognised**, only in the shapes that code wrote: after an
event's own rows (the prefix that matches its hash), on this table's ``state`` topic
(retained, kind ``state``) or ``faults`` topic (kind ``fault`` or ``power``), its ``seq``
the row's seq, and no more of each kind than the system log records occasions for
(a start, a power loss, two per device fault or clear). Its first start by this version
**adopts** them: one claim per seq (``"about": "adopted"``), and ``floor_claims`` set, after
which nothing is recognised any more.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.journal.errors import ChainBroken, JournalIntegrityError
from controller.journal.records import LogKind
from controller.journal.schema import META_FLOOR_CLAIMS, META_TABLE_ID, outbox_digest

CLAIM_KEY = "outbox"
MAX_PROBLEMS = 5
# what 0.2.x queued outside events: payload kind -> (topic leaf, retained)
_LEGACY_SHAPES = {"state": ("state", 1), "fault": ("faults", 0), "power": ("faults", 0)}
_OCCASIONS = {
    LogKind.POWER_UP.value: ("state", 1),
    LogKind.POWER_LOSS.value: ("power", 1),
    LogKind.DEVICE_FAULT.value: ("fault", 2),  # another fault of the device: clear + raise
    LogKind.DEVICE_CLEAR.value: ("fault", 1),
}

Row = tuple[str, str, int, int]


@dataclass(frozen=True, slots=True)
class Claim:
    """A ``floor_queued`` entry: outbox rows ``ids`` queued under ``seq``."""

    log_id: int
    seq: int
    ids: tuple[int, ...]
    digest: bytes | None


def claim_detail(seq: int, ids: Sequence[int], rows: list[Row]) -> dict[str, Any]:
    """The ``outbox`` part of a ``floor_queued`` entry's detail."""
    digest = outbox_digest(rows)
    return {"seq": seq, "ids": list(ids), "sha256": digest.hex() if digest else None}


def claim_of(entry: Sequence[Any]) -> Claim | None:
    """The claim a system log row (``LOG_COLUMNS`` order) makes, None for another kind.
    A claim that cannot be read claims nothing (its rows then show as unrecorded)."""
    if entry[1] != LogKind.FLOOR_QUEUED.value:
        return None
    try:
        part = json.loads(entry[2])[CLAIM_KEY]
        ids = tuple(int(i) for i in part["ids"])
        digest = bytes.fromhex(part["sha256"]) if part["sha256"] else None
        return Claim(int(entry[0]), int(part["seq"]), ids, digest)
    except (TypeError, ValueError, KeyError):
        return None


def claims_in(entries: Iterable[Sequence[Any]]) -> list[Claim]:
    return [claim for claim in map(claim_of, entries) if claim is not None]


def claimed_ids(claims: Iterable[Claim]) -> set[int]:
    return {row_id for claim in claims for row_id in claim.ids}


def claim_problems(
    conn: sqlite3.Connection, claims: Iterable[Claim], unchecked_through: int
) -> list[JournalIntegrityError]:
    """Each claim against the rows it names (those queued at or before
    ``unchecked_through``, when events were pruned, may have gone with them)."""
    problems: list[JournalIntegrityError] = []
    for claim in claims:
        pruned = unchecked_through > 0 and claim.seq <= unchecked_through
        if pruned or len(problems) >= MAX_PROBLEMS:
            continue
        marks = ",".join("?" * len(claim.ids))
        found = conn.execute(
            f"SELECT id, seq, topic, payload, qos, retain FROM outbox WHERE id IN ({marks}) "
            "ORDER BY id",
            claim.ids,
        ).fetchall()
        if (
            [row[0] for row in found] != sorted(claim.ids)
            or any(row[1] != claim.seq for row in found)
            or outbox_digest([tuple(row[2:]) for row in found]) != claim.digest
        ):
            problems.append(
                ChainBroken(
                    claim.seq,
                    f"the floor messages queued with system log entry {claim.log_id} (outbox "
                    f"rows {list(claim.ids)}) were changed or removed after they were written",
                )
            )
    return problems


def orphan_problems(
    conn: sqlite3.Connection, vouched: set[int], unchecked_through: int
) -> list[JournalIntegrityError]:
    """Outbox rows no event and no claim can own: queued under no seq, under a seq that
    has no event, or under seq 0 of a journal never pruned."""
    problems: list[JournalIntegrityError] = []
    for row_id, seq in conn.execute(
        "SELECT o.id, o.seq FROM outbox o WHERE o.seq IS NULL OR (o.seq = 0 AND ? = 0) OR "
        "(o.seq > ? AND NOT EXISTS (SELECT 1 FROM events e WHERE e.seq = o.seq)) ORDER BY o.id",
        (unchecked_through, unchecked_through),
    ):
        if row_id in vouched:
            continue
        problems.append(
            ChainBroken(
                int(seq or 0),
                f"floor message {row_id} is stored under "
                f"{'no seq' if seq is None else f'seq {seq}'}, which no event or system log "
                f"entry records",
            )
        )
        if len(problems) >= MAX_PROBLEMS:
            break
    return problems


def checked_rows_problems(
    conn: sqlite3.Connection, vouched: set[int], unchecked_through: int, mark: int
) -> list[JournalIntegrityError]:
    """The floor messages stored under events up to ``mark`` (the verified mark, which
    the start-up walk starts after) against the hash their event recorded: a row added
    or changed there since is caught at start too. Bounded by the outbox, not by the
    history kept."""
    problems: list[JournalIntegrityError] = []
    for seq, rows, recorded in rows_by_seq(conn, vouched, unchecked_through):
        if seq > mark or len(problems) >= MAX_PROBLEMS:
            break
        if seq > 0 and outbox_digest([tuple(row[2:6]) for row in rows]) != recorded:
            problems.append(
                ChainBroken(
                    seq, "its floor messages (outbox) do not match the hash recorded with the event"
                )
            )
    return problems


def recognising(meta: Mapping[str, str], claims: Sequence[Claim]) -> bool:
    """Is this a journal of 0.2.0/0.2.1 whose old rows are still to be recognised?"""
    return not meta.get(META_FLOOR_CLAIMS) and not claims


def legacy_rows(
    groups: Iterable[tuple[int, list[tuple[Any, ...]], bytes | None]],
    meta: Mapping[str, str],
    log_entries: Iterable[Sequence[Any]],
) -> dict[int, list[int]]:
    """The rows 0.2.x queued outside events, recognised by shape (module docstring),
    among ``groups`` (``rows_by_seq``): ``{seq: [ids]}``."""
    budget: Counter[str] = Counter()
    for entry in log_entries:
        occasion = _OCCASIONS.get(str(entry[1]))
        if occasion is not None:
            budget[occasion[0]] += occasion[1]
    if not budget:
        return {}
    found: dict[int, list[int]] = {}
    for seq, rows, recorded in groups:
        own = _own_prefix(rows, recorded)
        for row in rows[own:]:
            kind = _legacy_kind(row, seq, meta.get(META_TABLE_ID))
            if kind is not None and budget[kind] > 0:
                budget[kind] -= 1
                found.setdefault(seq, []).append(int(row[0]))
    return found


def rows_by_seq(
    conn: sqlite3.Connection, claimed: set[int], unchecked_through: int
) -> Iterable[tuple[int, list[tuple[Any, ...]], bytes | None]]:
    """``(seq, its unclaimed rows in id order, the hash its event recorded)``, rows as
    ``(id, seq, topic, payload, qos, retain)``."""
    cursor = conn.execute(
        "SELECT o.id, o.seq, o.topic, o.payload, o.qos, o.retain, e.outbox_sha256 "
        "FROM outbox o LEFT JOIN events e ON e.seq = o.seq "
        "WHERE o.seq > ? OR (o.seq = 0 AND ? = 0) ORDER BY o.seq, o.id",
        (unchecked_through, unchecked_through),
    )
    current: int | None = None
    rows: list[tuple[Any, ...]] = []
    recorded: bytes | None = None
    for row in cursor:
        if row[0] in claimed:
            continue
        if row[1] != current:
            if current is not None:
                yield current, rows, recorded
            current, rows, recorded = int(row[1]), [], row[6]
        rows.append(row[:6])
    if current is not None:
        yield current, rows, recorded


def _own_prefix(rows: list[tuple[Any, ...]], recorded: bytes | None) -> int:
    """How many of the first rows are the event's own (their hash is the recorded one);
    all of them when none matches (nothing after them is recognised then)."""
    if recorded is None:
        return 0
    for count in range(1, len(rows) + 1):
        if outbox_digest([tuple(row[2:6]) for row in rows[:count]]) == recorded:
            return count
    return len(rows)


def _legacy_kind(row: tuple[Any, ...], seq: int, table_id: str | None) -> str | None:
    """The payload kind when the row has a shape 0.2.x queued outside events."""
    _, _, topic, payload, _qos, retain = row
    try:
        document = json.loads(payload)
    except (TypeError, ValueError):
        return None
    if not isinstance(document, dict):
        return None
    kind = document.get("kind")
    shape = _LEGACY_SHAPES.get(kind) if isinstance(kind, str) else None
    if shape is None or not isinstance(topic, str) or not topic.endswith("/" + shape[0]):
        return None
    if retain != shape[1] or document.get("seq") != seq or isinstance(document.get("seq"), bool):
        return None
    if table_id and document.get("table_id") != table_id:
        return None
    return str(kind)


def adopt_legacy_rows(conn: sqlite3.Connection, log_entry: Any, unchecked_through: int) -> int:
    """At the first start by this version, inside its transaction: a claim for each seq
    of recognised old rows (``log_entry(kind, detail)`` writes one), and ``floor_claims``
    set. How many rows were adopted."""
    meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
    if meta.get(META_FLOOR_CLAIMS):
        return 0
    entries = conn.execute(
        "SELECT id, kind, detail, wall_ns, clock_synced, mono_ns, last_seq FROM system_log "
        "ORDER BY id"
    ).fetchall()
    claims = claims_in(entries)
    adopted = 0
    if not claims:
        found = legacy_rows(rows_by_seq(conn, set(), unchecked_through), meta, entries)
        for seq, ids in sorted(found.items()):
            marks = ",".join("?" * len(ids))
            rows = conn.execute(
                f"SELECT topic, payload, qos, retain FROM outbox WHERE id IN ({marks}) ORDER BY id",
                ids,
            ).fetchall()
            log_entry(
                LogKind.FLOOR_QUEUED,
                {
                    "about": "adopted",
                    "adopted": True,
                    CLAIM_KEY: claim_detail(seq, sorted(ids), [tuple(r) for r in rows]),
                },
            )
            adopted += len(ids)
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (META_FLOOR_CLAIMS,))
    return adopted
