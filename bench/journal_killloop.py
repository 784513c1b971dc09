"""Power-cut test for the journal: SIGKILL an appending process at random moments.

A child process opens the journal, continues the event stream where the journal
ends (as the daemon does after a restart) and prints each seq once ``append`` has
returned. The parent kills it with SIGKILL after a random delay (sometimes during
start-up, mostly while events stream in), then reopens the journal and checks:

* no fault at open, ``verify()`` passes (database, chain, snapshots, tail);
* every seq the child printed is in the journal, holding exactly the event the
  stream has at that position (so nothing was lost, nothing recorded twice);
* each event's snapshot and outbox rows are all there or the event is not
  (nothing half-written).

SIGKILL leaves the page cache intact, so this exercises the process-crash half of
a power cut (any instant, including mid-transaction); the storage half rests on
SQLite's WAL with synchronous=FULL, which fsyncs before a commit returns.

    python bench/journal_killloop.py            # 1,000 kills
    python bench/journal_killloop.py --kills 50 --prune-every 150

``tests/test_journal_powercut.py`` runs :func:`kill_loop` with 50 kills.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.journal import Journal  # noqa: E402

CONFIG = "table: {id: KILL, seats: 9}\n"
SNAPSHOT_EVERY = 7
REFUSE_EVERY = 5
EVENTS_PER_HAND = 12


def expected_event(seq: int) -> dict[str, Any]:
    """The stream: position ``seq`` always holds this event."""
    if seq % EVENTS_PER_HAND == 1:
        return {"type": "start_hand", "n": seq}
    return {"type": "act", "seat": seq % 9 + 1, "action": "call", "n": seq}


def expected_snapshot(seq: int) -> str | None:
    return json.dumps({"after": seq, "pad": "x" * 200}) if seq % SNAPSHOT_EVERY == 0 else None


def expected_outbox(seq: int) -> list[tuple[str, str]]:
    return [("table/KILL/event", json.dumps({"seq": seq})), ("table/KILL/state", f"s{seq}")]


def child(directory: Path, prune_every: int) -> int:
    journal = Journal.open(directory, CONFIG)
    if journal.fault is not None:
        print(f"FAULT {journal.fault.code}: {journal.fault.message}", flush=True)
        return 3
    seq = journal.last_seq
    print(f"start {seq}", flush=True)
    while True:
        seq += 1
        refused = seq % REFUSE_EVERY == 0
        got = journal.append(
            expected_event(seq),
            accepted=not refused,
            by="dealer-1",
            result={"ok": False, "error": {"code": "x", "message": "NO"}} if refused else None,
            hand=(seq - 1) // EVENTS_PER_HAND,
            snapshot=expected_snapshot(seq),
            outbox=expected_outbox(seq),
        )
        if got != seq:
            print(f"SEQ {got} != {seq}", flush=True)
            return 4
        print(seq, flush=True)
        if prune_every and seq % prune_every == 0:
            journal.prune(keep_hands=10, archive=seq % (2 * prune_every) == 0)


@dataclass
class KillLoopReport:
    kills: int
    acknowledged: int  # appends acknowledged across all runs
    last_seq: int
    killed_while_streaming: int  # kills after at least one acknowledged append in that run
    seconds: float


class KillLoopFailure(AssertionError):
    pass


def _check(directory: Path, acknowledged: list[int], checked_through: int, full: bool) -> int:
    """Reopen and check; returns the last seq."""
    with Journal.open(directory, CONFIG) as journal:
        if journal.fault is not None:
            raise KillLoopFailure(f"fault at open: {journal.fault.message}")
        if full:
            result = journal.verify()
            if not result.ok:
                raise KillLoopFailure(f"verify failed: {result.summary()}")
        last_seq = journal.last_seq
        if acknowledged and max(acknowledged) > last_seq:
            raise KillLoopFailure(
                f"acknowledged seq {max(acknowledged)} lost: journal ends at {last_seq}"
            )
        base = journal.chain_base_value.seq
        start = max(checked_through, base)
        conn = sqlite3.connect(directory / "journal.sqlite3")
        try:
            snapshots = dict(
                conn.execute("SELECT seq, state FROM snapshots WHERE seq > ?", (start,))
            )
            row = conn.execute(
                "SELECT value FROM meta WHERE key = 'snapshots_pruned_through'"
            ).fetchone()
            pruned_through = int(row[0]) if row else 0
            outbox: dict[int, list[tuple[str, str]]] = {}
            for seq, topic, payload in conn.execute(
                "SELECT seq, topic, payload FROM outbox WHERE seq > ? ORDER BY id", (start,)
            ):
                outbox.setdefault(seq, []).append((topic, payload))
        finally:
            conn.close()
        seen = start
        for record in journal.iter_events(after_seq=start):
            if record.seq != seen + 1:
                raise KillLoopFailure(f"gap before seq {record.seq}")
            seen = record.seq
            if record.event != expected_event(record.seq):
                raise KillLoopFailure(f"seq {record.seq} holds {record.event}")
            if record.accepted == (record.seq % REFUSE_EVERY == 0):
                raise KillLoopFailure(f"seq {record.seq} has the wrong accepted flag")
            want = expected_snapshot(record.seq) if record.seq > pruned_through else None
            if snapshots.get(record.seq) != want:
                raise KillLoopFailure(f"seq {record.seq}: snapshot half-written")
            if outbox.get(record.seq) != expected_outbox(record.seq):
                raise KillLoopFailure(f"seq {record.seq}: outbox half-written")
        if seen != last_seq:
            raise KillLoopFailure(f"events end at {seen}, last_seq says {last_seq}")
        return last_seq


def kill_loop(
    directory: Path,
    *,
    kills: int,
    rng: random.Random,
    max_delay: float = 0.12,
    prune_every: int = 0,
    full_verify_every: int = 1,
    progress: bool = False,
) -> KillLoopReport:
    started = time.monotonic()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(directory)]
    if prune_every:
        command += ["--prune-every", str(prune_every)]
    total_acknowledged = 0
    streaming = 0
    checked_through = 0
    last_seq = 0
    for kill in range(1, kills + 1):
        process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
        assert process.stdout is not None
        if rng.random() < 0.2:
            time.sleep(rng.uniform(0, 0.08))  # may land in start-up (open, power-up log)
        else:
            first = process.stdout.readline()
            if not first.startswith("start"):
                process.kill()
                process.wait()
                raise KillLoopFailure(f"child did not start: {first!r}")
            time.sleep(rng.uniform(0, max_delay))
        os.kill(process.pid, signal.SIGKILL)
        output = process.stdout.read()
        process.wait()
        lines = output.split()
        if any(line.startswith(("FAULT", "SEQ")) for line in output.splitlines()):
            raise KillLoopFailure(f"child reported: {output.strip()}")
        acknowledged = [int(word) for word in lines if word.isdigit()]
        total_acknowledged += len(acknowledged)
        streaming += bool(acknowledged)
        full = kill % full_verify_every == 0 or kill == kills
        last_seq = _check(directory, acknowledged, checked_through, full)
        checked_through = last_seq
        if progress and kill % 50 == 0:
            print(f"{kill} kills, last seq {last_seq}", file=sys.stderr, flush=True)
    return KillLoopReport(
        kills=kills,
        acknowledged=total_acknowledged,
        last_seq=last_seq,
        killed_while_streaming=streaming,
        seconds=time.monotonic() - started,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--prune-every", type=int, default=0, help="child prunes every N events")
    parser.add_argument("--dir", type=Path, default=None, help="state directory (default: temp)")
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        return child(args.child, args.prune_every)
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    with tempfile.TemporaryDirectory(prefix="killloop-") as temp:
        directory = args.dir or Path(temp) / "state"
        report = kill_loop(
            directory,
            kills=args.kills,
            rng=random.Random(seed),
            prune_every=args.prune_every,
            full_verify_every=25,
            progress=True,
        )
    print(
        f"seed {seed}: {report.kills} kills ({report.killed_while_streaming} while streaming), "
        f"{report.acknowledged} acknowledged appends, last seq {report.last_seq}, "
        f"{report.seconds:.1f} s: nothing lost, nothing twice, nothing half-written"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
