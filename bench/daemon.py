"""Daemon benchmark (issue 5): prints figures against their targets; asserts nothing.

With simulated devices (config/bench.yaml's hardware, every device simulated):

1. resident memory of ``tablectl run`` against a bare Python process importing the same
   libraries (target: at most 1.5 x);
2. CPU used over idle seconds (target: under 0.5 % of one core; no busy polling);
3. milliseconds from process start to READY (the notify datagram, as systemd sees it);
4. recovery time after 1,000 hands: open + integrity check + fold, and the whole
   start-up to READY (target: under 1 s);
5. journal bytes per hand (target: under 4 KB);
6. keypad frame to seat-light change latency, p50/p99, including the durable commit(s),
   as a multiple of one bare SQLite commit (WAL, synchronous=FULL) measured in the same
   run on the same filesystem (target: p99 under 10 x);
7. a soak of simulated hands with random device faults: resident memory growth after
   warm-up (target: under 1 MB).

    python bench/daemon.py                                    # the full run
    python bench/daemon.py --idle-seconds 10 --hands 5000     # shorter

``--dir`` puts the journals on the storage to measure (default: a temporary folder on
the disk); the soak journal goes to /dev/shm when it exists (memory is measured there,
not the disk), unless ``--soak-on-disk``.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import random
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.config import load_config  # noqa: E402
from controller.daemon.loop import Notifier  # noqa: E402
from controller.daemon.process import setup_logging  # noqa: E402
from controller.daemon.recovery import RulesBook, fold  # noqa: E402
from controller.daemon.service import Daemon  # noqa: E402
from controller.journal import Journal  # noqa: E402
from controller.rules import state_view  # noqa: E402
from drivers.interfaces import Pattern  # noqa: E402

CONFIG = """\
table: {{id: BENCH, seats: 9}}
game: {{structure: no_limit, smallest_chip: 5, small_blind: 5, big_blind: 10}}
clock: {{seconds: 60, warning: 10}}
hardware:
  simulated: true
  pin_factory: mock
  puck: {{pins: {{1: 4, 2: 5, 3: 6, 4: 7, 5: 8, 6: 9, 7: 10, 8: 11, 9: 12}}}}
  lights: {{pins: {{1: 16, 2: 17, 3: 18, 4: 19, 5: 20, 6: 21, 7: 22, 8: 23, 9: 24}}}}
journal: {{state_dir: {state_dir}, snapshot_every: 100, keep_hands: 200}}
logging: {{level: WARNING}}
"""
SAME_LIBRARIES = (
    "import controller.cli as c, controller.daemon.process, controller.daemon.service, "
    "controller.daemon.loop, controller.daemon.recall, drivers.build, gpiozero, serial, "
    "yaml, sqlite3, paho.mqtt.client; c.build_parser()"
)


def rss_kb(pid: int | str = "self") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def write_config(directory: Path, state_dir: Path) -> Path:
    path = directory / "bench.yaml"
    path.write_text(CONFIG.format(state_dir=state_dir))
    return path


class Listener:
    def __init__(self, directory: Path) -> None:
        self.path = str(directory / f"n{time.monotonic_ns()}.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)

    def wait(self, wanted: str, timeout: float = 60) -> float:
        self.sock.settimeout(timeout)
        while True:
            if wanted in self.sock.recv(4096).decode():
                return time.monotonic()


def start_daemon(config: Path, directory: Path) -> tuple[subprocess.Popen[bytes], float]:
    """``tablectl run`` as systemd starts it; returns the process and ms to READY."""
    listener = Listener(directory)
    env = {**os.environ, "NOTIFY_SOCKET": listener.path, "PYTHONPATH": str(ROOT)}
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--config", str(config)],
        env=env,
        stderr=subprocess.DEVNULL,
    )
    ready = listener.wait("READY=1")
    listener.sock.close()
    return process, (ready - started) * 1000


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()


# -- 1, 2, 3 ------------------------------------------------------------------------------


def memory_cpu_ready(work: Path, idle_seconds: float) -> dict[str, float]:
    config = write_config(work, work / "idle-state")
    process, ready_ms = start_daemon(config, work)
    time.sleep(2)  # let the devices settle (handshakes, first readings)
    daemon_rss = rss_kb(process.pid)
    cpu_before = cpu_seconds(process.pid)
    time.sleep(idle_seconds)
    cpu = cpu_seconds(process.pid) - cpu_before
    daemon_rss = max(daemon_rss, rss_kb(process.pid))
    stop(process)
    bare = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SAME_LIBRARIES + "; import sys, time; print('ok', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert bare.stdout is not None
    bare.stdout.readline()
    bare_rss = rss_kb(bare.pid)
    bare.kill()
    bare.wait()
    return {
        "daemon_rss_kb": daemon_rss,
        "bare_rss_kb": bare_rss,
        "ready_ms": ready_ms,
        "idle_cpu_percent": 100 * cpu / idle_seconds,
    }


def drop_caches() -> bool:
    """Empty the kernel's page cache (root only), so the next start reads Python, the
    libraries and the program from storage, as after a power-up."""
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        return False
    return True


def start_to_ready(work: Path, runs: int, cold: bool) -> dict[str, float]:
    """Median ms from process start to READY (empty journal), warm and, when the
    machine allows it, with cold caches."""
    config = write_config(work, work / "ready-state")
    found: dict[str, float] = {}
    for kind in ("warm", "cold") if cold else ("warm",):
        times = []
        for _ in range(runs):
            if kind == "cold" and not drop_caches():
                return found
            process, ready_ms = start_daemon(config, work)
            stop(process)
            times.append(ready_ms)
        found[f"{kind}_ms"] = statistics.median(times)
        found[f"{kind}_max_ms"] = max(times)
    return found


# -- hands through the daemon in-process ------------------------------------------------------


class QuietNotifier(Notifier):
    def __init__(self) -> None:
        super().__init__()
        self.ready = lambda status=None: True
        self.status = lambda text: True
        self.watchdog = lambda: True
        self.stopping = lambda status=None: True
        self.interval = lambda: None


def in_process(config: Path) -> Daemon:
    daemon = Daemon(
        load_config(config), config_path=str(config), simulated=True, notifier=QuietNotifier()
    )
    daemon.start()
    daemon.run_in_thread()
    return daemon


def play_hands(
    daemon: Daemon, hands: int, rng: random.Random, *, faults: bool = False, on_hand: Any = None
) -> None:
    """Whole hands submitted as rules events (the keypad's own path is measured in 6)."""
    controller = daemon.controller
    assert controller is not None and controller.recorder is not None
    sim = daemon.devices.sim if daemon.devices is not None else None
    for seat in range(1, 10):
        if str(seat) not in state_view(controller.recorder.table)["seats"]:
            daemon.submit({"type": "sit", "seat": seat, "player": f"p{seat}", "chips": 2000})
    for number in range(hands):
        view = state_view(controller.recorder.table)
        for seat, info in view["seats"].items():
            if info["stack"] < 100:
                daemon.submit({"type": "chips", "seat": int(seat), "amount": 2000})
        daemon.submit({"type": "start_hand", "by": "d7"})
        while True:
            view = state_view(controller.recorder.table)
            if view["phase"] == "idle":
                break
            if view["phase"] == "showdown":
                live = [
                    int(s) for s, v in view["seats"].items() if v["status"] in ("playing", "all_in")
                ]
                rng.shuffle(live)
                daemon.submit({"type": "award", "ranking": [[s] for s in live]})
                continue
            seat, legal = view["to_act"], view["legal"]
            roll = rng.random()
            if roll < 0.45:
                event = {"type": "act", "seat": seat, "action": "fold"}
            elif roll < 0.9 or legal["min_raise_to"] is None:
                event = {"type": "act", "seat": seat, "action": "call"}
            else:
                event = {
                    "type": "act",
                    "seat": seat,
                    "action": "raise",
                    "to": legal["min_raise_to"],
                }
            daemon.submit(event)
        if faults and sim is not None and rng.random() < 0.05:
            device = rng.choice([d for d in (sim.tray, sim.display) if d is not None])
            device.unplug()
            device.replug()
        if sim is not None:
            # the simulators remember everything they were told (mock pin states, display
            # messages): that is test equipment, not the daemon, so it is not measured
            if sim.lights is not None:
                sim.lights.clear_history()
            if sim.display is not None:
                sim.display.history.clear()
        if on_hand is not None:
            on_hand(number)


def close(daemon: Daemon) -> None:
    daemon.stop()
    if daemon.thread is not None:
        daemon.thread.join(30)
    daemon.close()


# -- 4, 5 -------------------------------------------------------------------------------


def recovery_after_hands(work: Path, build_dir: Path, hands: int) -> dict[str, float]:
    state = build_dir / "hands-state"
    config = write_config(work, state)
    daemon = in_process(config)
    journal = daemon.journal
    assert journal is not None
    events_before = journal.last_seq
    play_hands(daemon, hands, random.Random(5))
    events = journal.last_seq - events_before
    journal.checkpoint()
    size = journal.size_bytes()
    with journal.mutex:
        rows = journal.connection.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    close(daemon)
    disk_state = work / "recovery-state"
    shutil.copytree(state, disk_state)
    shutil.rmtree(state, ignore_errors=True)
    started = time.monotonic()
    with Journal.open(
        disk_state,
        config.read_text().replace(str(state), str(disk_state)),
        allow_config_change=True,
    ) as opened:
        verdict = opened.verify()
        folded = fold(opened, RulesBook(opened))
    recovery_s = time.monotonic() - started
    assert verdict.ok and folded.table.state.hand_number >= hands
    disk_config = write_config(work, disk_state)
    process, ready_ms = start_daemon(disk_config, work)
    stop(process)
    return {
        "hands": hands,
        "events": events,
        "rows_kept": rows,
        "bytes": size,
        "bytes_per_hand": size / max(1.0, rows / (events / hands)),
        "recovery_s": recovery_s,
        "ready_after_hands_ms": ready_ms,
        "replayed": folded.replayed,
        "events_per_hand": events / hands,
    }


# -- 6 ----------------------------------------------------------------------------------


def bare_commits(directory: Path, count: int) -> list[float]:
    conn = sqlite3.connect(directory / f"bare-{time.monotonic_ns()}.sqlite3", isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT NOT NULL)")
    samples = []
    for n in range(count):
        started = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (x) VALUES (?)", (f"event {n}",))
        conn.execute("COMMIT")
        samples.append(time.perf_counter() - started)
    conn.close()
    return samples


def key_latency(work: Path, presses: int, pause: float = 0.4) -> dict[str, float]:
    """FOLD presses: from the keypad frame to the folding seat's light leaving "on".

    The folding seat usually turns off. When a fold ends the hand and that seat is where
    the button goes next, the puck check makes it blink fast instead (the puck sensor
    has not seen the puck moved yet). A blink keeps the shared blink clock, so that
    seats blinking together stay in step: from steady on, its first visible change is
    the next "off" edge of that clock, up to half a blink period away whatever the
    firmware does. Those samples are reported on their own, not as latency.

    Play goes on until at least one prune of the journal (every 25 hands) has run, and
    the presses around each prune are reported apart (p99 and max).
    """
    config = write_config(work, work / "latency-state")
    daemon = in_process(config)
    controller = daemon.controller
    assert controller is not None and controller.recorder is not None
    assert daemon.devices is not None and daemon.devices.sim is not None
    keypad, lights = daemon.devices.sim.keypad, daemon.devices.sim.lights
    assert keypad is not None and lights is not None
    for seat in range(1, 10):
        daemon.submit({"type": "sit", "seat": seat, "player": f"p{seat}", "chips": 100_000})
    bare_before = bare_commits(work, max(100, presses // 2))
    told: dict[int, tuple[float, str]] = {}
    real_show = daemon.devices.lights.show

    def show(seat: int, pattern: Any) -> None:  # when the loop tells the lights
        told[seat] = (time.perf_counter(), str(getattr(pattern, "value", pattern)))
        real_show(seat, pattern)

    daemon.devices.lights.show = show  # type: ignore[method-assign]
    assert daemon.journal is not None
    prunes: list[tuple[float, float]] = []  # (start, end), perf_counter
    real_prune = daemon.journal.prune

    def prune(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return real_prune(*args, **kwargs)
        finally:
            prunes.append((began, time.perf_counter()))

    daemon.journal.prune = prune  # type: ignore[method-assign]
    to_call: list[float] = []
    samples: list[float] = []
    sample_times: list[tuple[float, float]] = []  # (pressed, light changed) of each sample
    blink_waits: list[float] = []
    delivered = keypad.delivered
    while len(samples) + len(blink_waits) < presses or not prunes:
        view = state_view(controller.recorder.table)
        if view["phase"] == "idle":
            key, watch = "NEXT", None
        else:
            key, watch = "FOLD", view["to_act"]
        if watch is None:
            # Between hands a dealer pushes the pot and shuffles: a pause (shortened
            # here), in which the daemon prunes the journal every 25 hands.
            time.sleep(pause)
            keypad.press(key)
            keypad.wait_delivered(delivered + 1)
            delivered += 1
            deadline = time.monotonic() + 10
            while (
                state_view(controller.recorder.table)["phase"] == "idle"
                and time.monotonic() < deadline
            ):
                time.sleep(0.0005)
            continue
        told.pop(watch, None)
        started = time.perf_counter()
        keypad.press(key)
        while lights.level(watch) == 1.0:
            time.sleep(0.0002)
        changed = time.perf_counter()
        called, pattern = told.get(watch, (changed, "off"))
        if pattern in (Pattern.ON, Pattern.OFF):
            samples.append(changed - started)
            sample_times.append((started, changed))
            to_call.append(called - started)
        else:
            blink_waits.append(changed - started)
        keypad.wait_delivered(delivered + 1)
        delivered += 1
    close(daemon)
    bare = bare_before + bare_commits(work, max(100, presses // 2))
    bare_p50 = statistics.median(bare)
    # Presses within a second of a prune (before or after it): the moments the prune
    # could have delayed.
    near = [
        end - begin
        for begin, end in sample_times
        if any(p0 - 1.0 <= begin <= p1 + 1.0 for p0, p1 in prunes)
    ]
    return {
        "prunes": len(prunes),
        "prune_max_ms": max((p1 - p0 for p0, p1 in prunes), default=0.0) * 1000,
        "max_ms": max(samples) * 1000,
        "near_prune": len(near),
        "near_prune_max_ms": max(near, default=0.0) * 1000,
        "near_prune_p99_ms": percentile(near, 0.99) * 1000 if near else 0.0,
        "call_p50_ms": statistics.median(to_call) * 1000,
        "call_p99_ms": percentile(to_call, 0.99) * 1000,
        "call_p99_x": percentile(to_call, 0.99) / bare_p50,
        "p50_ms": statistics.median(samples) * 1000,
        "p99_ms": percentile(samples, 0.99) * 1000,
        "bare_p50_ms": bare_p50 * 1000,
        "bare_p99_ms": percentile(bare, 0.99) * 1000,
        "p50_x": statistics.median(samples) / bare_p50,
        "p99_x": percentile(samples, 0.99) / bare_p50,
        "presses": len(samples),
        "blinks": len(blink_waits),
        "blink_max_ms": max(blink_waits, default=0.0) * 1000,
    }


# -- 7 ----------------------------------------------------------------------------------


def soak(work: Path, soak_dir: Path, hands: int) -> dict[str, float]:
    state = soak_dir / "soak-state"
    config = write_config(work, state)
    daemon = in_process(config)
    warm = max(50, hands // 10)
    marks: dict[str, float] = {}
    started = time.monotonic()

    def note(number: int) -> None:
        if number + 1 == warm:
            marks["warm_kb"] = rss_kb()
        marks["max_kb"] = max(marks.get("max_kb", 0), rss_kb() if number % 100 == 0 else 0)

    play_hands(daemon, hands, random.Random(11), faults=True, on_hand=note)
    marks["end_kb"] = rss_kb()
    marks["seconds"] = time.monotonic() - started
    assert daemon.journal is not None
    marks["journal_bytes"] = daemon.journal.size_bytes()
    close(daemon)
    shutil.rmtree(state, ignore_errors=True)
    marks["hands"] = hands
    marks["growth_kb"] = marks["end_kb"] - marks.get("warm_kb", marks["end_kb"])
    return marks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle-seconds", type=float, default=60.0)
    parser.add_argument("--recovery-hands", type=int, default=1000)
    parser.add_argument("--presses", type=int, default=300)
    parser.add_argument("--hands", type=int, default=100_000, help="soak length")
    parser.add_argument("--dir", type=Path, default=None, help="where to put the journals")
    parser.add_argument("--soak-on-disk", action="store_true")
    parser.add_argument("--ready-runs", type=int, default=5, help="starts for figure 3")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="also start with the page cache dropped (root; slows the whole machine for a moment)",
    )
    parser.add_argument(
        "--only", default="1234567", help="the figures to measure, e.g. 36 (default all)"
    )
    args = parser.parse_args()
    setup_logging("ERROR")
    logging.basicConfig(level=logging.ERROR)
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-daemon-") as temp:
        work = Path(temp)
        fast = Path(tempfile.mkdtemp(dir=shm if shm.is_dir() else work, prefix="bench-"))
        try:
            if "1" in args.only or "2" in args.only:
                m = memory_cpu_ready(work, args.idle_seconds)
                ratio = m["daemon_rss_kb"] / m["bare_rss_kb"]
                print(
                    f"1. resident memory: daemon {m['daemon_rss_kb'] / 1024:.1f} MB, bare Python "
                    f"with the same libraries {m['bare_rss_kb'] / 1024:.1f} MB: {ratio:.2f} x "
                    f"(target <= 1.5 x)",
                    flush=True,
                )
                print(
                    f"2. idle CPU over {args.idle_seconds:.0f} s: {m['idle_cpu_percent']:.3f} % of "
                    f"a core (target < 0.5 %)",
                    flush=True,
                )
            if "3" in args.only:
                ready = start_to_ready(work, args.ready_runs, args.cold)
                cold = (
                    f"; cold caches (page cache dropped before each) median "
                    f"{ready['cold_ms']:.0f} ms, max {ready['cold_max_ms']:.0f} ms"
                    if "cold_ms" in ready
                    else "; cold caches: not measured (--cold, as root)"
                    if not args.cold
                    else "; cold caches: cannot drop the page cache here (root needed)"
                )
                print(
                    f"3. start to READY (empty journal, {args.ready_runs} starts): warm median "
                    f"{ready['warm_ms']:.0f} ms, max {ready['warm_max_ms']:.0f} ms{cold}",
                    flush=True,
                )
            if "4" in args.only or "5" in args.only:
                r = recovery_after_hands(work, fast, args.recovery_hands)
                print(
                    f"4. recovery after {r['hands']} hands ({r['events']} events, "
                    f"{r['events_per_hand']:.1f} per hand incl. ticks): open + integrity check + "
                    f"fold {r['recovery_s'] * 1000:.0f} ms (snapshot + {r['replayed']} events); "
                    f"start to READY {r['ready_after_hands_ms']:.0f} ms (target < 1 s)",
                    flush=True,
                )
                print(
                    f"5. journal bytes per hand: {r['bytes_per_hand']:.0f} B "
                    f"({r['bytes'] / 1e6:.2f} MB holding {r['rows_kept']} event rows, the hands "
                    f"retention keeps; target < 4 KB)",
                    flush=True,
                )
            if "6" in args.only:
                lat = key_latency(work, args.presses)
                print(
                    f"6. keypad frame -> seat light: p50 {lat['p50_ms']:.2f} ms, p99 "
                    f"{lat['p99_ms']:.2f} ms; bare SQLite commit p50 {lat['bare_p50_ms']:.2f} ms "
                    f"(p99 {lat['bare_p99_ms']:.2f}): p50 {lat['p50_x']:.1f} x, p99 "
                    f"{lat['p99_x']:.1f} x (target p99 < 10 x; {lat['presses']} presses)",
                    flush=True,
                )
                print(
                    f"   of which keypad frame -> the loop's lights.show() call (journal commit "
                    f"included): p50 {lat['call_p50_ms']:.2f} ms, p99 {lat['call_p99_ms']:.2f} ms "
                    f"= {lat['call_p99_x']:.1f} x; the rest is the lights driver's animation "
                    f"thread picking it up",
                    flush=True,
                )
                print(
                    f"   max {lat['max_ms']:.2f} ms; {lat['prunes']} journal prune(s) "
                    f"(longest {lat['prune_max_ms']:.1f} ms) during play: the "
                    f"{lat['near_prune']} presses within 1 s of one: p99 "
                    f"{lat['near_prune_p99_ms']:.2f} ms, max {lat['near_prune_max_ms']:.2f} ms "
                    f"(the prune runs in the pause between hands, off the key's path)",
                    flush=True,
                )
                print(
                    f"   not counted: {lat['blinks']} fold(s) that ended a hand on the seat where "
                    f"the button goes next turned it to the puck alert's fast blink, whose first "
                    f"visible edge follows the shared blink clock (longest wait "
                    f"{lat['blink_max_ms']:.0f} ms)",
                    flush=True,
                )
            if "7" in args.only:
                soak_dir = work if args.soak_on_disk else fast
                s = soak(work, soak_dir, args.hands)
                print(
                    f"7. soak: {s['hands']:.0f} hands with random device faults in "
                    f"{s['seconds']:.0f} s; resident memory after warm-up "
                    f"{s.get('warm_kb', 0) / 1024:.1f} MB, at the end {s['end_kb'] / 1024:.1f} MB:"
                    f" growth {s['growth_kb']:.0f} KB (target < 1024 KB); journal "
                    f"{s['journal_bytes'] / 1e6:.2f} MB",
                    flush=True,
                )
        finally:
            with contextlib.suppress(OSError):
                shutil.rmtree(fast)
    return 0


if __name__ == "__main__":
    sys.exit(main())
