"""What the salvage read from a damaged journal (by SQLite or from the raw pages)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.journal.floorclaims import claims_in, legacy_rows
from controller.journal.integrity import ChainBase, LogBase
from controller.journal.schema import HASH_INDEX, META_TABLE_ID, outbox_digest


@dataclass
class Recovered:
    """What the salvage could read from a damaged journal: rows ready for the new one."""

    base: ChainBase | None = None
    configs: list[tuple[Any, ...]] = field(default_factory=list)
    events: list[tuple[Any, ...]] = field(default_factory=list)
    snapshots: list[tuple[int, str]] = field(default_factory=list)
    log: list[tuple[Any, ...]] = field(default_factory=list)
    outbox: list[tuple[Any, ...]] = field(default_factory=list)
    damaged_last_seq: int | None = None
    snapshots_pruned_through: int = 0
    outbox_pruned_through: int = 0  # floor messages of events up to here could not be kept
    log_base: LogBase | None = None  # where the kept system log's chain starts
    healthy: bool = False  # the damaged copy passed every check of verify()
    table_id: str | None = None  # the table named in the damaged database's meta
    floor_claims: bool = False  # its floor messages of no event are claimed (floorclaims)
    found_last_seq: int | None = None  # the highest seq of any event row found
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
            return bytes(self.events[-1][HASH_INDEX])
        return self.base.hash if self.base else None


def keep_matching_outbox(
    recovered: Recovered, outbox: list[tuple[Any, ...]], pruned_through: int
) -> None:
    """Floor messages of kept events that match the hash their event recorded, and
    those of no event that a kept ``floor_queued`` entry claims and that match its hash
    (or, in a journal of 0.2.x, that are recognised: ``floorclaims``); the rest are
    dropped (noted), the seqs they were queued under counted as pruned. ``outbox``:
    every row read, ``(id, seq, topic, payload, qos, retain, created_ns, sent)``."""
    claims = claims_in(recovered.log)
    by_id = {row[0]: row for row in outbox}
    lost: list[int] = []
    vouched: set[int] = set()
    for claim in claims:
        rows = [by_id[i] for i in claim.ids if i in by_id]
        if len(rows) == len(claim.ids) and _digest(rows) == claim.digest:
            vouched.update(claim.ids)
        elif claim.seq > pruned_through:
            lost.append(claim.seq)
    last = recovered.last_seq
    unvouched = [
        row for row in outbox if row[0] not in vouched and row[1] is not None and row[1] <= last
    ]
    if not recovered.floor_claims and not claims:
        recorded = {int(event[0]): _recorded(event) for event in recovered.events}
        groups = _groups(unvouched, recorded)
        meta = {META_TABLE_ID: recovered.table_id} if recovered.table_id else {}
        legacy = legacy_rows(groups, meta, recovered.log)
        vouched |= {row_id for ids in legacy.values() for row_id in ids}
    by_seq: dict[int, list[tuple[Any, ...]]] = {}
    for row in unvouched:
        if row[0] not in vouched:
            by_seq.setdefault(int(row[1]), []).append(row)
    for event in recovered.events:
        seq = int(event[0])
        if seq > pruned_through and _digest(by_seq.get(seq, [])) != _recorded(event):
            lost.append(seq)
    dropped = set(lost)
    recovered.outbox = [
        row
        for row in outbox
        if row[0] in vouched or (row[1] is not None and row[1] <= last and row[1] not in dropped)
    ]
    recovered.outbox_pruned_through = max([pruned_through, *lost])
    if lost:
        lost.sort()
        recovered.notes.append(
            f"floor messages of seq {lost[:10]}{' ...' if len(lost) > 10 else ''} could not be kept"
        )


def _digest(rows: list[tuple[Any, ...]]) -> bytes | None:
    return outbox_digest([tuple(r[2:6]) for r in rows])


def _recorded(event: tuple[Any, ...]) -> bytes | None:
    return event[13] if len(event) > 13 else None


def _groups(
    rows: list[tuple[Any, ...]], recorded: dict[int, bytes | None]
) -> list[tuple[int, list[tuple[Any, ...]], bytes | None]]:
    """``floorclaims.rows_by_seq``'s groups, from rows read by the salvage."""
    by_seq: dict[int, list[tuple[Any, ...]]] = {}
    for row in sorted(rows, key=lambda r: (r[1], r[0])):
        by_seq.setdefault(int(row[1]), []).append(row[:6])
    return [(seq, group, recorded.get(seq)) for seq, group in by_seq.items()]
