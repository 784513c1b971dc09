"""Journal benchmark: append latency against a bare SQLite commit, and bytes per event.

Prints figures; asserts nothing. The reference is one bare SQLite commit measured
in the same run, on the same filesystem, with the same settings (WAL,
synchronous=FULL): a one-row INSERT in its own transaction. The journal's append
adds the hash chain, the canonical JSON, the outbox rows, the occasional snapshot
and the ack mark to that.

    python bench/journal.py [--events 3000] [--dir /var/lib/table-controller/bench]

Run it on the target board's storage (``--dir``) for meaningful latencies.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.journal import Journal  # noqa: E402

CONFIG = "table: {id: BENCH, seats: 9}\ngame: {structure: no_limit, big_blind: 10}\n"
EVENTS_PER_HAND = 15  # a typical no-limit hand: start, ~12 actions, award, ticks
SNAPSHOT_EVERY = 50


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class BareDatabase:
    """One bare SQLite commit: a one-row INSERT in its own transaction, same settings."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = FULL")
        self.conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT NOT NULL)")

    def commit(self, n: int) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute("INSERT INTO t (x) VALUES (?)", (f"event {n}",))
        self.conn.execute("COMMIT")


def typical_event(n: int) -> dict[str, object]:
    step = n % EVENTS_PER_HAND
    if step == 0:
        return {"type": "start_hand", "by": "dealer-07"}
    if step == EVENTS_PER_HAND - 1:
        return {"type": "award", "ranking": [[4], [7, 2]], "by": "dealer-07"}
    if step % 4 == 3:
        return {"type": "tick", "ms": 1000}
    return {
        "type": "act",
        "seat": n % 9 + 1,
        "action": "raise",
        "to": 40 + n % 7 * 20,
        "by": "dealer-07",
    }


SNAPSHOT = json.dumps(
    {
        "hand": 1,
        "phase": "flop",
        "seats": {
            str(s): {"player": f"p{s}", "stack": 1000, "bet": 0, "status": "playing", "missed": []}
            for s in range(1, 10)
        },
        "pots": [{"amount": 300, "eligible": [1, 2, 3, 4]}],
    },
    sort_keys=True,
    separators=(",", ":"),
)


def lean_append(journal: Journal, n: int) -> None:
    journal.append(typical_event(n), accepted=True, by="dealer-07", hand=n // EVENTS_PER_HAND + 1)


def full_append(journal: Journal, n: int) -> None:
    journal.append(
        typical_event(n),
        accepted=True,
        by="dealer-07",
        hand=n // EVENTS_PER_HAND + 1,
        snapshot=SNAPSHOT if n % SNAPSHOT_EVERY == SNAPSHOT_EVERY - 1 else None,
        outbox=[("table/BENCH/state", '{"hand":1,"to_act":4}')],
    )


def interleaved(count: int, operations: list[Callable[[int], object]]) -> list[list[float]]:
    """Time each operation once per round, round after round, so drift hits all alike."""
    samples: list[list[float]] = [[] for _ in operations]
    for n in range(count):
        for operation, bucket in zip(operations, samples, strict=True):
            start = time.perf_counter_ns()
            operation(n)
            bucket.append((time.perf_counter_ns() - start) / 1e6)
    return samples


def empty_size(directory: Path) -> int:
    with Journal.open(directory, CONFIG) as journal:
        journal.checkpoint()
        return journal.size_bytes()


def verify_time(directory: Path) -> tuple[float, int]:
    with Journal.open(directory, CONFIG) as journal:
        start = time.perf_counter()
        result = journal.verify(log=False)
        return time.perf_counter() - start, result.events_checked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="journal-bench-", dir=args.dir) as temp:
        base = Path(temp)
        baseline_size = empty_size(base / "empty")
        bare = BareDatabase(base / "bare.sqlite3")
        lean = Journal.open(base / "lean", CONFIG)
        full = Journal.open(base / "full", CONFIG)
        try:
            bare_ms, lean_ms, full_ms = interleaved(
                args.events,
                [bare.commit, lambda n: lean_append(lean, n), lambda n: full_append(full, n)],
            )
            sizes = {}
            for name, journal in (("event only", lean), ("with outbox + snapshots", full)):
                journal.checkpoint()
                sizes[name] = journal.size_bytes()
        finally:
            bare.conn.close()
            lean.close()
            full.close()
        seconds, checked = verify_time(base / "full")
        bare_p50, bare_p99 = statistics.median(bare_ms), percentile(bare_ms, 0.99)
        print(f"{args.events} rounds, interleaved; filesystem of {base}")
        print(
            f"bare SQLite commit (WAL, synchronous=FULL): p50 {bare_p50:.3f} ms, p99 {bare_p99:.3f} ms"
        )
        for name, samples in (
            ("append, event only", lean_ms),
            ("append + outbox + snapshot/50", full_ms),
        ):
            p50, p99 = statistics.median(samples), percentile(samples, 0.99)
            print(
                f"{name}: p50 {p50:.3f} ms = {p50 / bare_p50:.2f}x bare p50; "
                f"p99 {p99:.3f} ms = {p99 / bare_p50:.2f}x bare p50, {p99 / bare_p99:.2f}x bare p99"
            )
        for name, size in sizes.items():
            per_event = (size - baseline_size) / args.events
            print(
                f"bytes per event, {name}: {per_event:.0f} "
                f"({per_event * EVENTS_PER_HAND:.0f} per {EVENTS_PER_HAND}-event hand)"
            )
        print(
            f"verify: {checked} events in {seconds * 1000:.0f} ms ({seconds / max(checked, 1) * 1e6:.1f} us/event)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
