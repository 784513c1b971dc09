"""A power loss found at start-up, recorded as a ``power_loss`` system log entry.

The journal itself says when the last run ended without closing (``unclean_shutdown``,
written when it opens: the clean flag of the ack mark and the meta marker were not set;
``controller.journal.opening``). What it cannot say is what the table was doing then:
that needs the recovered state. So once recovery has folded the journal, the daemon
records one ``power_loss`` entry with:

- ``last_record``: the last record the stopped run journalled (an event, or a system
  log entry written after the last event), with its wall time and whether the wall
  clock was synchronised then: the power went off after that instant;
- ``restart``: this start's ``power_up`` entry, its wall time and sync flag;
- ``hand``: the hand in play when the power went (null between hands), and
  ``phase`` (``idle`` between hands; null when recovery failed, so nothing is known);
- ``last_seq``: the journal's last event when the power went;
- ``interrupted_starts`` (only when there were any): starts after that power loss that
  died before recording it (killed while recovering); the power went before the first
  of them, so ``last_record`` is the one before it, never an interrupted start's.

Times are kept as recorded (``wall_ns`` and ``clock_synced``); ``WallStamp`` presents
them, marked ``unsynced`` when they were (docs/journal.md, "Time").
"""

from __future__ import annotations

from typing import Any

from controller.daemon.timekeeping import WallStamp
from controller.journal import Journal, LogKind, SystemLogRecord

POWER_LOSS = LogKind.POWER_LOSS


def _stamp(wall_ns: int, synced: bool) -> dict[str, Any]:
    return {"wall_ns": wall_ns, "clock_synced": synced, "wall": WallStamp(wall_ns, synced).text()}


def power_loss(journal: Journal, hand: int | None, phase: str | None) -> dict[str, Any] | None:
    """The ``power_loss`` entry's detail for this start, or None when the last run
    stopped cleanly (or this start is the journal's first). ``hand``: the hand the
    recovered state has in play (None between hands or when unknown)."""
    entries = list(journal.iter_system_log())
    starts = [i for i, e in enumerate(entries) if e.kind == LogKind.POWER_UP]
    if not starts:
        return None
    this = starts[-1]
    if not any(e.kind == LogKind.UNCLEAN_SHUTDOWN for e in entries[this:]):
        return None
    if any(e.kind == POWER_LOSS for e in entries[this:]):
        return None  # recorded already (a second call in the same start)
    restart = entries[this]
    cut = _first_unrecorded_start(entries, starts)
    last = _last_record(journal, entries[:cut], entries[cut].last_seq)
    detail = {
        "last_record": last,
        "restart": _stamp(restart.wall_ns, restart.clock_synced),
        "last_seq": entries[cut].last_seq,
        "hand": hand,
        "phase": phase,
    }
    if cut != this:
        detail["interrupted_starts"] = sum(1 for start in starts if cut <= start < this)
    return detail


def _first_unrecorded_start(entries: list[SystemLogRecord], starts: list[int]) -> int:
    """The start whose power loss this one reports: this one, or an earlier start that
    found an unclean stop and died before recording it (killed while recovering), with
    the starts between it and this one like it: the power went before the first."""
    first = starts[-1]
    for before in reversed(starts[:-1]):
        between = entries[before:first]
        if not any(e.kind == LogKind.UNCLEAN_SHUTDOWN for e in between) or any(
            e.kind == POWER_LOSS for e in between
        ):
            break
        first = before
    return first


def _last_record(
    journal: Journal, before: list[SystemLogRecord], last_seq: int
) -> dict[str, Any] | None:
    """The stopped run's last record: the last system log entry before this start when
    it was written after the last event (its ``last_seq`` is that event's), else the
    last event."""
    entry = before[-1] if before else None
    if entry is not None and entry.last_seq >= last_seq:
        return {"record": "system_log", "id": entry.id, "kind": entry.kind} | _stamp(
            entry.wall_ns, entry.clock_synced
        )
    event = journal.event(last_seq) if last_seq else None
    if event is None:
        return None
    return {"record": "event", "seq": event.seq} | _stamp(event.wall_ns, event.clock_synced)


def describe(detail: dict[str, Any]) -> str:
    """One line for the service log and recall."""
    last = detail.get("last_record")
    since = f"after {last['wall']}" if isinstance(last, dict) else "at an unknown time"
    restart = detail.get("restart") or {}
    hand = detail.get("hand")
    phase = detail.get("phase")
    if hand is not None:
        play = f"hand {hand} in play ({phase})"
    else:
        play = "between hands" if phase is not None else "the hand in play is not known"
    return (
        f"power lost {since} (last seq {detail.get('last_seq')}), "
        f"restarted {restart.get('wall', '?')}; {play}"
    )
