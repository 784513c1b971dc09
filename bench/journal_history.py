"""Start-up against the history kept (issue 22 item 5): prints figures; asserts nothing.

Journals of 300, 3,000 and 30,000 six-handed hands, all kept (``keep_hands: 1000000``),
are built through the durable journal (``tablectl replay --state-dir``, in memory when
the machine has /dev/shm, then copied to the disk being measured). For each:

- start to READY of ``tablectl run`` (the notify datagram, as systemd sees it): the
  first start, which checks the whole chain once and leaves the verified mark, then the
  median of the later starts, which check only what follows the mark;
- the wall time of ``tablectl state`` (median);

(the later starts and ``state`` are taken in rounds over every size, so that the
machine's load falls on each alike);
- the peak resident memory of ``tablectl journal verify`` (the whole check).

Each figure is printed with its ratio to the 300-hand journal's. Goals: READY and
``state`` at 30,000 hands within 1.5x of 300 hands; ``verify``'s peak memory within 1.2x.

    python bench/journal_history.py                       # 300, 3,000 and 30,000 hands
    python bench/journal_history.py --hands 300 3000      # shorter
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from daemon import start_daemon, stop  # noqa: E402
from rules_throughput import session_events  # noqa: E402

CONFIG = """\
table: {{id: BENCH, seats: 6}}
game: {{structure: no_limit, smallest_chip: 1, small_blind: 1, big_blind: 2}}
hardware:
  simulated: true
  pin_factory: mock
  lights: {{pins: {{1: 16, 2: 17, 3: 18, 4: 19, 5: 20, 6: 21}}}}
journal: {{state_dir: {state_dir}, keep_hands: 1000000}}
logging: {{level: WARNING}}
"""


def tablectl(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller", *args]


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def build(hands: int, work: Path, build_dir: Path) -> tuple[Path, int]:
    """A journal of ``hands`` hands in ``work``/state-N (built in ``build_dir``); (the
    configuration, the events)."""
    built = build_dir / f"state-{hands}"
    shutil.rmtree(built, ignore_errors=True)
    lines = build_dir / f"events-{hands}.jsonl"
    # drawn in a child: the measured processes are forked from this one, and a child's
    # peak memory counts what its parent held when it forked
    subprocess.run(
        [sys.executable, __file__, "--draw", str(hands), str(lines)], env=environment(), check=True
    )
    count = sum(1 for _ in lines.open())
    build_config = build_dir / f"build-{hands}.yaml"
    build_config.write_text(CONFIG.format(state_dir=built))
    subprocess.run(
        tablectl("replay", "--config", str(build_config), "--state-dir", str(built), str(lines)),
        env=environment(),
        stdout=subprocess.DEVNULL,
        check=True,
    )
    lines.unlink()
    state = work / f"state-{hands}"
    shutil.rmtree(state, ignore_errors=True)
    shutil.copytree(built, state)
    shutil.rmtree(built, ignore_errors=True)
    config = work / f"table-{hands}.yaml"
    config.write_text(CONFIG.format(state_dir=state))
    return config, count


def ready_ms(config: Path, work: Path) -> float:
    process, elapsed = start_daemon(config, work)
    stop(process)
    return elapsed


def timed(command: list[str]) -> tuple[float, int]:
    """(wall seconds, peak resident KiB) of one run of ``command``. The peak is the
    process's own VmHWM, read until it exits (a child's ru_maxrss would count what
    this process held when it forked)."""
    started = time.monotonic()
    process = subprocess.Popen(
        command, env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = 0
    status = Path(f"/proc/{process.pid}/status")
    while process.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.002)
    elapsed = time.monotonic() - started
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {process.returncode}")
    return elapsed, peak


def measure(hands: list[int], work: Path, build_dir: Path, starts: int) -> list[dict[str, float]]:
    """Every journal built first, then each figure taken in rounds over all of them, so
    that the machine's load falls on each size alike."""
    built = [(count, *build(count, work, build_dir)) for count in hands]
    rows = []
    for count, config, events in built:
        state = work / f"state-{count}"
        rows.append(
            {
                "hands": count,
                "events": events,
                "mib": sum(p.stat().st_size for p in state.iterdir() if p.is_file()) / 2**20,
                "first_ready_ms": ready_ms(config, work),  # checks the whole chain once
                "ready": [],
                "state": [],
                "verify": [],
            }
        )
    for _ in range(starts):
        for row, (count, config, _) in zip(rows, built, strict=True):
            state = work / f"state-{count}"
            row["ready"].append(ready_ms(config, work))
            row["state"].append(timed(tablectl("state", "--state-dir", str(state)))[0] * 1000)
    for _ in range(2):
        for row, (count, _, _) in zip(rows, built, strict=True):
            state = work / f"state-{count}"
            row["verify"].append(timed(tablectl("journal", "verify", "--state-dir", str(state))))
    for row in rows:
        row["ready_ms"] = statistics.median(row.pop("ready"))
        row["state_ms"] = statistics.median(row.pop("state"))
        verify = row.pop("verify")
        row["verify_s"] = min(v[0] for v in verify)
        row["verify_peak_mib"] = max(v[1] for v in verify) / 1024
    return rows


def draw(hands: int, path: Path) -> None:
    events, _ = session_events(hands, seed=hands)
    with path.open("w") as out:
        for event in events:
            out.write(json.dumps(event) + "\n")


def main() -> int:
    if sys.argv[1:2] == ["--draw"]:
        draw(int(sys.argv[2]), Path(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[300, 3_000, 30_000])
    parser.add_argument("--starts", type=int, default=5, help="later starts measured")
    parser.add_argument("--dir", type=Path, help="where the measured journals live")
    args = parser.parse_args()
    import compileall

    for package in ("controller", "drivers"):  # as installed: no compiling at each start
        compileall.compile_dir(str(ROOT / package), quiet=1)
    memory = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    with (
        tempfile.TemporaryDirectory(prefix="bench-history-", dir=args.dir) as work_name,
        tempfile.TemporaryDirectory(prefix="bench-history-build-", dir=memory) as build_name,
    ):
        work, build_dir = Path(work_name), Path(build_name)
        rows = measure(args.hands, work, build_dir, args.starts)
    base = rows[0]
    print(
        f"{'hands':>7} {'events':>8} {'MiB':>6} {'1st READY':>10} {'READY':>14} "
        f"{'state':>14} {'verify':>8} {'verify peak':>16}"
    )
    for row in rows:
        print(
            f"{row['hands']:>7,} {row['events']:>8,} {row['mib']:>6.1f} "
            f"{row['first_ready_ms']:>8.0f}ms "
            f"{row['ready_ms']:>6.0f}ms {row['ready_ms'] / base['ready_ms']:>5.2f}x "
            f"{row['state_ms']:>6.0f}ms {row['state_ms'] / base['state_ms']:>5.2f}x "
            f"{row['verify_s']:>7.1f}s "
            f"{row['verify_peak_mib']:>6.1f}MiB "
            f"{row['verify_peak_mib'] / base['verify_peak_mib']:>5.2f}x"
        )
    last = rows[-1]
    print(
        f"goals at {last['hands']:,} hands against {base['hands']:,}: READY "
        f"{last['ready_ms'] / base['ready_ms']:.2f}x (at most 1.5x), state "
        f"{last['state_ms'] / base['state_ms']:.2f}x (at most 1.5x), verify peak memory "
        f"{last['verify_peak_mib'] / base['verify_peak_mib']:.2f}x (at most 1.2x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
