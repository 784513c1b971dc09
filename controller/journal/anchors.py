"""Checking a journal against the chain heads the floor received (``hand_end.chain_head``).

The hash chain alone proves only that the journal is consistent with itself: whoever
can write the files can rewrite a past award and recompute every hash after it, the
snapshots and the ack mark with this program's own functions, and ``verify()`` passes.
What that cannot do is change a head already sent away. The daemon puts the journal's
head (``Journal.chain_head()``: both chains, the events with their snapshots and
floor messages, and the system log) in every ``hand_end`` message; the back office
keeps them; :func:`check_heads` recomputes each one from the journal as it is now. A
head that differs means the journal (or the system log) was changed after that hand,
or is another table's.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from controller.journal.integrity import ChainBase, LogBase, log_base, read_meta
from controller.journal.schema import head_token, parse_head_token


@dataclass
class HeadsReport:
    """What :func:`check_heads` found, one list per verdict (``(head, why)``)."""

    matched: int = 0
    mismatched: list[tuple[str, str]] = field(default_factory=list)
    # Heads beyond the journal's end: the floor was told of events (or system log
    # entries) this journal does not hold. Removed, or a copy older than the heads.
    missing: list[tuple[str, str]] = field(default_factory=list)
    unchecked: list[tuple[str, str]] = field(default_factory=list)
    ignored: int = 0  # lines with no chain head (other floor messages)

    @property
    def ok(self) -> bool:
        return not self.mismatched and not self.missing


def heads_from_lines(lines: Iterable[str]) -> tuple[list[tuple[str, str | None]], int]:
    """``([(head, table id or None)], ignored)`` from a file of floor messages (JSON
    lines, as the back office stored them) or of bare heads, one per line."""
    heads: list[tuple[str, str | None]] = []
    ignored = 0
    for line in lines:
        text = line.strip()
        if not text:
            continue
        topic, _, payload = text.partition(" ")
        if not text.startswith("{") and "/" in topic and payload.lstrip().startswith("{"):
            text = payload.strip()  # ``mosquitto_sub -v``: the topic, a space, the payload
        if text.startswith("{"):
            try:
                message = json.loads(text)
            except ValueError:
                ignored += 1
                continue
            head = message.get("chain_head") if isinstance(message, dict) else None
            if isinstance(head, str):
                table = message.get("table_id")
                heads.append((head, table if isinstance(table, str) else None))
            else:
                ignored += 1
        else:
            heads.append((text, None))
    return heads, ignored


def check_heads(
    conn: sqlite3.Connection,
    heads: Iterable[tuple[str, str | None]],
    chain_base: ChainBase,
    table_id: str | None,
) -> HeadsReport:
    report = HeadsReport()
    meta = read_meta(conn)
    log_start = log_base(meta)
    for head, table in heads:
        if table is not None and table_id is not None and table != table_id:
            report.mismatched.append(
                (head, f"it was sent by table {table}, this journal belongs to table {table_id}")
            )
            continue
        try:
            seq, log_id, _digest = parse_head_token(head)
        except ValueError:
            report.mismatched.append((head, "it is not a chain head"))
            continue
        beyond = _beyond_the_end(conn, seq, log_id)
        if beyond is not None:
            report.missing.append((head, beyond))
            continue
        event_hash, why = _event_hash(conn, seq, chain_base)
        log_hash, log_why = _log_hash(conn, log_id, log_start)
        if event_hash is None or log_hash is None:
            report.unchecked.append((head, why or log_why or "not in this journal"))
            continue
        if head_token(seq, event_hash, log_id, log_hash) == head.strip():
            report.matched += 1
        else:
            report.mismatched.append(
                (
                    head,
                    f"the journal's events up to seq {seq} or its "
                    f"system log up to entry {log_id} differ from "
                    f"what was sent",
                )
            )
    return report


def _beyond_the_end(conn: sqlite3.Connection, seq: int, log_id: int) -> str | None:
    """Why the journal lacks what the head was taken over, or None."""
    (last_seq,) = conn.execute("SELECT MAX(seq) FROM events").fetchone()
    (last_log,) = conn.execute("SELECT MAX(id) FROM system_log").fetchone()
    ends = f"this journal ends at seq {last_seq or 0}, system log entry {last_log or 0}"
    if seq > (last_seq or 0) or log_id > (last_log or 0):
        return (
            f"the floor was sent the head of seq {seq}, system log entry {log_id}, but "
            f"{ends}: events or entries were removed, or this copy of the journal "
            f"was taken before that hand ended (check a copy taken after it)"
        )
    return None


def _event_hash(
    conn: sqlite3.Connection, seq: int, base: ChainBase
) -> tuple[bytes | None, str | None]:
    if seq == base.seq:
        return base.hash, None
    if seq < base.seq:
        return None, f"seq {seq} was pruned (check it against the archive)"
    row = conn.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()
    if row is None:
        return None, f"seq {seq} is beyond the end of this journal (events lost?)"
    return (row[0], None) if isinstance(row[0], bytes) else (None, f"seq {seq}'s hash is damaged")


def _log_hash(
    conn: sqlite3.Connection, log_id: int, base: LogBase | None
) -> tuple[bytes | None, str | None]:
    if base is None:
        return None, "this journal has no system log chain yet"
    if log_id == base.id:
        return base.hash, None
    if log_id < base.id:
        return None, f"system log entry {log_id} was pruned"
    row = conn.execute("SELECT hash FROM system_log WHERE id = ?", (log_id,)).fetchone()
    if row is None or not isinstance(row[0], bytes):
        return None, f"system log entry {log_id} is not in this journal"
    return row[0], None
