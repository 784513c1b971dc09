"""What the salvage read from a damaged journal (by SQLite or from the raw pages)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.journal.integrity import ChainBase, LogBase
from controller.journal.schema import HASH_INDEX, outbox_digest


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
    """Floor messages of kept events that match the hash their event recorded; those of
    events whose messages do not are dropped and counted as pruned (noted)."""
    by_seq: dict[int, list[tuple[Any, ...]]] = {}
    for row in outbox:
        if row[1] is not None:
            by_seq.setdefault(int(row[1]), []).append(row)
    lost: list[int] = []
    for event in recovered.events:
        seq, digest = int(event[0]), event[13] if len(event) > 13 else None
        rows = by_seq.get(seq, [])
        if seq > pruned_through and outbox_digest([tuple(r[2:6]) for r in rows]) != digest:
            lost.append(seq)
    dropped = set(lost)
    recovered.outbox = [row for row in outbox if row[1] is None or int(row[1]) not in dropped]
    recovered.outbox_pruned_through = max([pruned_through, *lost])
    if lost:
        recovered.notes.append(
            f"floor messages of seq {lost[:10]}{' ...' if len(lost) > 10 else ''} could not be kept"
        )
