"""A chip tray flooding readings while the dealer presses keys: how many tray rows the
journal gets and how long a key waits (issue 13, item 14).

The daemon runs in-process with simulated devices and a real journal on disk. A thread
puts ``--rate`` tray readings per second (counts changing, as while chips settle) into
the loop's input queue for ``--seconds``; another presses a key every 0.25 s and
records when it was put. A key's wait is the time from its put to the wall time the
journal recorded for it. Printed: readings put, tray rows journalled (and their ratio),
readings merged, key waits (p50, max) and the bare commit time of the disk, so the
waits read as a multiple of one fsync, not as absolute numbers.

    python bench/tray_flood.py                 # 1,000 readings/s for 10 s
    python bench/tray_flood.py --rate 5000 --seconds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.config import load_config  # noqa: E402
from controller.daemon.service import Daemon  # noqa: E402
from controller.journal import Journal  # noqa: E402
from drivers.events import KeyPressed, TrayCounts  # noqa: E402
from tests.daemon_helpers import RecordingNotifier, wait_for, write_config  # noqa: E402


def bare_commit_ms(directory: Path, rounds: int = 50) -> float:
    import sqlite3

    conn = sqlite3.connect(directory / "bare.sqlite3", isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE t (x)")
    times = []
    for n in range(rounds):
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t VALUES (?)", (n,))
        conn.execute("COMMIT")
        times.append(time.perf_counter() - start)
    conn.close()
    return statistics.median(times) * 1000


def run(rate: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory(prefix="tray-flood-") as work:
        base = Path(work)
        bare = bare_commit_ms(base)
        daemon = Daemon(
            load_config(write_config(base)), simulated=True, notifier=RecordingNotifier()
        )
        daemon.start()
        daemon.run_in_thread()
        keys: list[int] = []
        stop = threading.Event()
        put = 0

        def flood() -> None:
            nonlocal put
            interval = 1.0 / rate
            next_at = time.perf_counter()
            while not stop.is_set():
                daemon.inputs.put(TrayCounts(counts={5: 100 + put % 11, 25: 40}))
                put += 1
                next_at += interval
                delay = next_at - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)

        flooder = threading.Thread(target=flood, daemon=True)
        flooder.start()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            keys.append(time.time_ns())
            daemon.inputs.put(KeyPressed(key="NEXT"))
            time.sleep(0.25)
        stop.set()
        flooder.join()
        wait_for(lambda: daemon.inputs.empty(), what="the queue drained")
        merged = getattr(daemon.inputs, "merged", 0)
        daemon.stop()
        if daemon.thread is not None:
            daemon.thread.join(15)
        daemon.close()
        with Journal.open_readonly(base / "state") as journal:
            records = list(journal.iter_events())
        tray_rows = sum(1 for r in records if r.event.get("type") == "tray")
        key_walls = [r.wall_ns for r in records if r.event.get("type") == "key"]
        waits = [(wall - sent) / 1e6 for sent, wall in zip(keys, key_walls, strict=False)]
        print(f"tray readings put:        {put:,} ({rate:,}/s for {seconds:g} s)")
        print(
            f"tray rows journalled:     {tray_rows:,} ({tray_rows / max(put, 1):.3f} per reading)"
        )
        print(f"readings merged in queue: {merged:,}")
        print(f"keys pressed/journalled:  {len(keys)}/{len(key_walls)}")
        if waits:
            print(
                f"key wait p50 / max:       {statistics.median(waits):.2f} / {max(waits):.2f} ms"
                f" = {statistics.median(waits) / bare:.1f} / {max(waits) / bare:.1f} x one bare "
                f"commit ({bare:.2f} ms)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    run(args.rate, args.seconds)


if __name__ == "__main__":
    main()
