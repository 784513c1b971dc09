"""Floor link benchmark: simulated tables, one local Mosquitto, one floor consumer.

Prints figures; asserts nothing. Every table has its own outbox database and its own
`Publisher` (a thread here, a board of its own on the floor), fed with the messages
`messages_for` builds from a simulated 9-seat no-limit game; one consumer subscribes
to every table, as the floor system would.

1. live: every table journals events at a busy table's pace (keypad keys included);
   end-to-end latency (messages built and committed to the outbox -> the consumer has
   them) p50/p99/max, and the broker's message rate: messages PUBACKed to the tables
   and delivered to the consumer per second. (Mosquitto 2.0's `$SYS` PUBLISH counter
   leaves retained messages out, and half of these are retained: counted here at
   both ends instead.)
2. the floor board (`tablectl floor board`, its own process) during the live phase,
   open in headless Chromium (Debian's chromium and chromedriver, through Selenium):
   its end-to-end delay, from the event at a table (the message's `ts`) to the change
   on the page (a MutationObserver on each card's `data-seq`, on the same machine's
   clock), p50/p99/max; the board process's CPU (share of one core over the live
   phase) and memory (RSS with no table, then with every table: per table). The page
   delay is skipped, saying so, without chromium.
3. drain after an outage: the rows a table journals in `--outage-minutes` at the
   live pace, already in its outbox, then the link comes back: the drain rate of one
   table alone, then of every other table at once (a floor-wide outage, and the most
   this machine carries: publishers, broker and consumer on the same CPUs).

Each count in `--tables` is one round of all three, in the same run, so that the
figures at 40 and 200 tables are comparable on a noisy machine; the last line gives
the ratios (the goal: the board's p99 at 200 tables within 2x of 40, its memory per
table flat).

    python bench/floor.py [--tables 40,200] [--tables-per-process 50]
                          [--events-per-second 1.0] [--live-seconds 20]
                          [--outage-minutes 10] [--no-board]

The tables' publishers run in processes of at most `--tables-per-process` tables each
(a publisher holds a few descriptors, and paho-mqtt's select() cannot watch one above
1023: one process stops at about 168 tables). Publishers, broker, consumer, board and
browser share this machine's CPUs, so the figures are pessimistic; run on the target
boards and broker for figures that matter.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.floor import outbox  # noqa: E402
from controller.floor.consumer import FloorMessage, Subscriber  # noqa: E402
from controller.floor.messages import OutboxMessage, messages_for  # noqa: E402
from controller.floor.publisher import Publisher  # noqa: E402
from controller.floor.settings import FloorSettings  # noqa: E402
from controller.floor.topics import TableTopics, subscription  # noqa: E402
from tests.localbroker import LocalBroker  # noqa: E402

SEATS = 9
ACTIONS_PER_HAND = 13  # with start_hand and award: 15 events, as bench/journal.py


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class SimulatedTable:
    """A 9-seat no-limit game as the floor sees it: hands of start, actions, award,
    with states shaped like docs/replay.md's (every seat, pots, legal, clock, display)."""

    def __init__(self, table_id: str, seed: int, site: str = "bench") -> None:
        self.topics = TableTopics("casino", site, table_id)
        self.random = random.Random(seed)
        self.seq = 0
        self.actions_left = 0
        seats = {
            str(s): {
                "player": f"player{s}",
                "stack": 2000,
                "bet": 0,
                "status": "playing",
                "missed": [],
            }
            for s in range(1, SEATS + 1)
        }
        self.state: dict[str, Any] = {
            "hand": 0,
            "phase": "idle",
            "button": None,
            "small_blind": None,
            "big_blind": None,
            "to_act": None,
            "legal": None,
            "pot_total": 0,
            "pots": [],
            "seats": seats,
            "fees": {"rake": 0, "jackpot": 0},
            "showdown_order": None,
            "clock": None,
            "display": ["READY"],
        }

    def step(self) -> list[OutboxMessage]:
        before = self.state
        after = {**before, "seats": {k: dict(v) for k, v in before["seats"].items()}}
        seats = after["seats"]
        if before["phase"] == "idle":
            event: dict[str, Any] = {"type": "start_hand"}
            button = (before["button"] or 0) % SEATS + 1
            small, big = button % SEATS + 1, (button + 1) % SEATS + 1
            for seat in seats.values():
                seat["status"] = "playing"
            seats[str(small)].update(stack=seats[str(small)]["stack"] - 5, bet=5)
            seats[str(big)].update(stack=seats[str(big)]["stack"] - 10, bet=10)
            after.update(
                hand=before["hand"] + 1,
                phase="preflop",
                button=button,
                small_blind=small,
                big_blind=big,
                to_act=big % SEATS + 1,
                pot_total=15,
                display=[f"SEAT {big % SEATS + 1} TO ACT", "CALL 10"],
            )
            self.actions_left = ACTIONS_PER_HAND
        elif self.actions_left > 0:
            seat_number = before["to_act"]
            seat = seats[str(seat_number)]
            action = self.random.choice(["fold", "call", "call", "raise"])
            event = {"type": "act", "seat": seat_number, "action": action}
            if action == "fold":
                seat["status"] = "folded"
            else:
                amount = 10 if action == "call" else 40
                seat.update(stack=seat["stack"] - amount, bet=seat["bet"] + amount)
                after["pot_total"] = before["pot_total"] + amount
            after["to_act"] = seat_number % SEATS + 1
            after["legal"] = {"check": False, "call": 10, "min_raise_to": 40, "max_raise_to": 2000}
            after["pots"] = [{"amount": after["pot_total"], "eligible": list(range(1, 10))}]
            after["display"] = [f"SEAT {after['to_act']} TO ACT", "CALL 10"]
            self.actions_left -= 1
        else:
            event = {"type": "award", "ranking": [[before["button"]]]}
            winner = seats[str(before["button"])]
            winner["stack"] += before["pot_total"]
            for seat in seats.values():
                seat.update(bet=0, status="playing")
            after.update(
                phase="idle", to_act=None, legal=None, pot_total=0, pots=[], display=["READY"]
            )
        self.seq += 1
        self.state = after
        return messages_for(
            {"seq": self.seq, "event": event}, {"ok": True}, before, after, topics=self.topics
        )


class Floor:
    """The consumer: latency of every table message, counted per phase."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies_ms: list[float] = []
        self.received = 0

    def __call__(self, message: FloorMessage) -> None:
        payload = message.payload
        if payload is None or "msg_seq" not in payload:
            return
        with self.lock:
            self.received += 1
            self.latencies_ms.append((message.received_ns - payload["ts_ns"]) / 1e6)

    def reset(self) -> None:
        with self.lock:
            self.latencies_ms, self.received = [], 0

    def wait_delivered(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if self.received >= count:
                    return True
            time.sleep(0.01)
        return False


def journal(db: Path, table: SimulatedTable, events: int) -> int:
    """Append `events` events' rows as the journal would, one transaction each."""
    rows = 0
    with contextlib.closing(outbox.connect(db)) as conn:
        for _ in range(events):
            messages = table.step()
            conn.execute("BEGIN IMMEDIATE")
            outbox.enqueue(conn, messages, seq=table.seq)
            conn.execute("COMMIT")
            rows += len(messages)
    return rows


@contextlib.contextmanager
def publishers(
    settings: FloorSettings, tables: list[tuple[SimulatedTable, Path]]
) -> Iterator[list[Publisher]]:
    started = []
    try:
        for table, db in tables:
            publisher = Publisher(settings, table_id=table.topics.table_id, db_path=db)
            publisher.start()
            started.append(publisher)
        yield started
    finally:
        for publisher in started:
            publisher.stop()


def state_times(messages: list[OutboxMessage], into: dict[tuple[str, int], int]) -> None:
    """Remember when each state message was made (the event's time at the table)."""
    for message in messages:
        if message.topic.endswith("/state"):
            payload = json.loads(message.payload)
            into[(payload["table_id"], payload["seq"])] = payload["ts_ns"]


def play(
    tables: list[tuple[SimulatedTable, Path]],
    running: list[Publisher],
    seconds: float,
    events_per_second: float,
    made: dict[tuple[str, int], int] | None = None,
) -> int:
    """Every table journals events at `events_per_second` for `seconds`."""
    conns = [outbox.connect(db) for _, db in tables]
    rows = 0
    start = time.monotonic()
    interval = 1.0 / events_per_second
    # Tables start out of step, as on a floor.
    due = [start + random.uniform(0, interval) for _ in tables]
    try:
        while time.monotonic() - start < seconds:
            now = time.monotonic()
            for index, ((table, _), conn, publisher) in enumerate(
                zip(tables, conns, running, strict=True)
            ):
                if now < due[index]:
                    continue
                messages = table.step()
                if made is not None:
                    state_times(messages, made)
                conn.execute("BEGIN IMMEDIATE")
                outbox.enqueue(conn, messages, seq=table.seq)
                conn.execute("COMMIT")
                publisher.notify()
                rows += len(messages)
                due[index] = now + interval
            time.sleep(max(0.0, min(due) - time.monotonic()))
    finally:
        for conn in conns:
            conn.close()
    return rows


def wait_all_drained(running: list[Publisher], timeout: float = 300.0) -> bool:
    deadline = time.monotonic() + timeout
    return all(p.wait_drained(max(0.0, deadline - time.monotonic())) for p in running)


# -- the tables' processes ------------------------------------------------------------


@dataclass(frozen=True)
class Group:
    """The tables one process publishes, as a board each (`worker`)."""

    site: str
    first: int  # table numbers first..last
    last: int
    work: Path
    broker_port: int
    events_per_second: float
    live_seconds: float
    outage_events: int

    def tables(self) -> list[tuple[SimulatedTable, Path]]:
        return [
            (SimulatedTable(f"T{n:03d}", n, self.site), self.work / f"T{n:03d}.sqlite3")
            for n in range(self.first, self.last + 1)
        ]


def worker(group: Group, commands: Any, results: Any) -> None:
    """One process of tables: its publishers (each with its MQTT socket, wake-up pair and
    database: a few descriptors a table, so one process cannot carry 200 tables with
    paho-mqtt's select()), driven by the bench's commands, one at a time:
    `live` (play, then every row acknowledged), `outage` (the link down while the
    tables journal), `drain-first` (the first table's publisher alone), `drain-rest`
    (the others together), `stop`."""
    settings = FloorSettings(
        site=group.site, host="127.0.0.1", port=group.broker_port, outbox_max_messages=1_000_000
    )
    tables = group.tables()
    for _, db in tables:
        outbox.connect(db).close()
    stack = contextlib.ExitStack()
    running = stack.enter_context(publishers(settings, tables))
    linked = all(p.wait_for(lambda s: s.link == "up", 60) for p in running)
    results.put(("ready", group.first, linked))
    with stack:
        while (command := commands.get()) != "stop":
            if command == "live":
                made: dict[tuple[str, int], int] = {}
                rows = play(tables, running, group.live_seconds, group.events_per_second, made)
                wait_all_drained(running)
                results.put(("live", group.first, rows, list(made.items())))
            elif command == "outage":
                stack.close()  # every publisher stopped: the link is down
                backlog = [journal(db, table, group.outage_events) for table, db in tables]
                results.put(("outage", group.first, backlog))
            else:
                some = tables[:1] if command == "drain-first" else tables[1:]
                if command == "drain-rest" and group.first != 1:
                    some = tables  # only the very first table drained alone
                with publishers(settings, some) as draining:
                    wait_all_drained(draining)
                results.put((command, group.first, None))


class Tables:
    """The simulated tables of one round, in processes of at most `per_process` each."""

    def __init__(self, groups: list[Group]) -> None:
        context = multiprocessing.get_context("spawn")
        self.results = context.Queue()
        self.commands = []
        self.processes = []
        for group in groups:
            commands = context.Queue()
            process = context.Process(target=worker, args=(group, commands, self.results))
            process.start()
            self.commands.append(commands)
            self.processes.append(process)
        ready = self.gather("ready")
        assert all(r[2] for r in ready), "a table's link did not come up"

    def gather(self, kind: str) -> list[tuple[Any, ...]]:
        answers = [self.results.get(timeout=600) for _ in self.processes]
        assert all(a[0] == kind for a in answers), answers
        return sorted(answers, key=lambda a: a[1])

    def command(self, command: str, only_first: bool = False) -> list[tuple[Any, ...]]:
        targets = self.commands[:1] if only_first else self.commands
        for commands in targets:
            commands.put(command)
        answers = [self.results.get(timeout=600) for _ in targets]
        assert all(a[0] == command for a in answers), answers
        return answers

    def stop(self) -> None:
        for commands in self.commands:
            commands.put("stop")
        for process in self.processes:
            process.join(60)
            if process.is_alive():
                process.kill()


# -- the floor board, as its own process ------------------------------------------------

OBSERVE = """
window.__changes = [];
new MutationObserver((records) => {
  const now = Date.now();
  for (const r of records) {
    window.__changes.push([r.target.dataset.table, Number(r.target.dataset.seq), now]);
  }
}).observe(document.getElementById("cards"),
           {attributes: true, subtree: true, attributeFilter: ["data-seq"]});
"""


def board_available() -> str | None:
    """Why the board's delay cannot be measured here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if not (shutil.which("chromium") or Path("/usr/bin/chromium").exists()):
        return "chromium is not installed (apt-get install chromium chromium-driver)"
    if not (shutil.which("chromedriver") or Path("/usr/bin/chromedriver").exists()):
        return "chromedriver is not installed (apt-get install chromium-driver)"
    return None


class BoardProcess:
    """`tablectl floor board` for one site, as a back office runs it (its own process,
    whose CPU time and memory are read from /proc), open in headless Chromium when
    `browser`; records when each card shows each journal seq."""

    def __init__(self, broker_port: int, site: str, browser: bool) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller", "floor", "board", "--host", "127.0.0.1"]
            + ["--port", str(broker_port), "--site", site, "--http-port", "0"],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr is not None
        line = self.process.stderr.readline()
        assert line.startswith("floor board on "), line
        self.url = line.split()[3]
        self.driver = self._open(self.url) if browser else None

    @staticmethod
    def _open(url: str) -> Any:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--window-size=1920,1080",
        ):
            options.add_argument(argument)
        driver = webdriver.Chrome(
            service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
            options=options,
        )
        driver.get(url)
        driver.execute_script(OBSERVE)
        return driver

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def changes(self) -> list[tuple[str, int, int]]:
        if self.driver is None:
            return []
        return [tuple(c) for c in self.driver.execute_script("return window.__changes;")]

    def close(self) -> None:
        if self.driver is not None:
            self.driver.quit()
        self.process.terminate()
        self.process.wait(30)


# -- one round: N tables --------------------------------------------------------------


def phase_figures(name: str, floor: Floor, work: Callable[[], int]) -> dict[str, Any]:
    """Run `work` (it returns the rows it journaled or drained, all acknowledged by the
    broker when it returns) and measure it."""
    floor.reset()
    start = time.monotonic()
    rows = work()
    elapsed = time.monotonic() - start
    assert floor.wait_delivered(rows, 120.0), f"{name}: the consumer is missing messages"
    with floor.lock:
        latencies = list(floor.latencies_ms)
    return {
        "phase": name,
        "rows": rows,
        "seconds": elapsed,
        "delivered": len(latencies),
        "latency_ms": [round(percentile(latencies, q), 1) for q in (0.5, 0.99, 1.0)]
        if latencies
        else None,
    }


def groups_of(args: argparse.Namespace, count: int, work: Path, port: int) -> list[Group]:
    per = max(1, args.tables_per_process)
    return [
        Group(
            site=f"bench{count}",
            first=first,
            last=min(count, first + per - 1),
            work=work,
            broker_port=port,
            events_per_second=args.events_per_second,
            live_seconds=args.live_seconds,
            outage_events=int(args.events_per_second * args.outage_minutes * 60),
        )
        for first in range(1, count + 1, per)
    ]


def one_round(
    args: argparse.Namespace, count: int, broker: LocalBroker, floor: Floor, work: Path
) -> dict[str, Any]:
    """`count` tables live, the board watching them, then an outage and its drain."""
    board = BoardProcess(broker.port, f"bench{count}", browser=args.no_board_reason is None)
    figures: dict[str, Any] = {"tables": count}
    tables = None
    try:
        board_rss_before = board.rss_mib()
        (work / str(count)).mkdir()
        tables = Tables(groups_of(args, count, work / str(count), broker.port))
        made: dict[tuple[str, int], int] = {}

        def live() -> int:
            answers = tables.command("live")
            for answer in answers:
                made.update((tuple(key), ns) for key, ns in answer[3])
            return sum(a[2] for a in answers)

        cpu_before = board.cpu_seconds()
        figures["live"] = phase_figures("live", floor, live)
        time.sleep(1.0)  # the last changes reach the page
        figures["board_cpu_percent"] = (
            100 * (board.cpu_seconds() - cpu_before) / figures["live"]["seconds"]
        )
        figures["board_rss_mib"] = (board_rss_before, board.rss_mib())
        shown: dict[tuple[str, int], int] = {}
        for table_id, seq, at_ms in board.changes():
            shown.setdefault((table_id, seq), at_ms)
        figures["board_delays"] = [shown[k] - made[k] / 1e6 for k in made if k in shown]
        figures["states"] = len(made)
        if args.outage_minutes > 0:
            backlog = [rows for a in tables.command("outage") for rows in a[2]]
            figures["backlog"] = backlog
            figures["drain_first"] = phase_figures(
                "drain one table",
                floor,
                lambda: tables.command("drain-first", only_first=True) and backlog[0],
            )
            figures["drain_rest"] = phase_figures(
                "drain the others",
                floor,
                lambda: tables.command("drain-rest") and sum(backlog[1:]),
            )
    finally:
        if tables is not None:
            tables.stop()
        board.close()
    return figures


def report(args: argparse.Namespace, rounds: list[dict[str, Any]]) -> None:
    print(
        f"floor link: one Mosquitto on 127.0.0.1, one consumer, the floor board as its own "
        f"process; live pace {args.events_per_second:g} events/s per table for "
        f"{args.live_seconds:g} s; at most {args.tables_per_process} tables per process"
    )
    for r in rounds:
        live = r["live"]
        rate = live["rows"] / live["seconds"] if live["seconds"] else 0.0
        print(f"  {r['tables']} tables:")
        line = f"    live: {live['rows']} messages, broker rate {rate:,.0f} msg/s"
        if live["latency_ms"]:
            p50, p99, worst = live["latency_ms"]
            line += f"; end-to-end latency ms p50 {p50} p99 {p99} max {worst}"
        print(line)
        delays = r["board_delays"]
        if delays:
            print(
                f"    floor board (headless Chromium): event at a table -> change on the "
                f"page, {len(delays)} of {r['states']} states shown: ms p50 "
                f"{percentile(delays, 0.5):.0f} p99 {percentile(delays, 0.99):.0f} "
                f"max {max(delays):.0f}"
            )
        else:
            print(f"    floor board: page delay not measured: {args.no_board_reason}")
        before, after = r["board_rss_mib"]
        print(
            f"    floor board process: CPU {r['board_cpu_percent']:.1f}% of one core; "
            f"RSS {before:.1f} MiB with no table, {after:.1f} MiB with {r['tables']} "
            f"({1024 * (after - before) / r['tables']:.0f} KiB per table)"
        )
        if "backlog" in r:
            print(
                f"    a {args.outage_minutes:g}-minute outage at the live pace: "
                f"{statistics.mean(r['backlog']):.0f} rows per table; one table drains it "
                f"in {r['drain_first']['seconds']:.2f} s, the other {r['tables'] - 1} "
                f"together in {r['drain_rest']['seconds']:.2f} s"
            )
    if len(rounds) >= 2 and all(r["board_delays"] for r in rounds):
        small, large = rounds[0], rounds[-1]
        ratio = percentile(large["board_delays"], 0.99) / max(
            1.0, percentile(small["board_delays"], 0.99)
        )
        per_table = [
            (r["board_rss_mib"][1] - r["board_rss_mib"][0]) / r["tables"] for r in (small, large)
        ]
        print(
            f"  {large['tables']} tables against {small['tables']}: board p99 x{ratio:.2f} "
            f"(goal at most 2); board memory per table x"
            f"{per_table[1] / max(per_table[0], 1e-9):.2f} (goal flat)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tables",
        default="40,200",
        help="comma-separated table counts, one round each, in one run (default 40,200)",
    )
    parser.add_argument("--tables-per-process", type=int, default=50)
    parser.add_argument(
        "--events-per-second",
        type=float,
        default=1.0,
        help="a busy table's pace, keypad keys included (default 1.0)",
    )
    parser.add_argument("--live-seconds", type=float, default=20.0)
    parser.add_argument("--outage-minutes", type=float, default=10.0)
    parser.add_argument(
        "--no-board", action="store_true", help="do not measure the floor board in a browser"
    )
    args = parser.parse_args()
    args.no_board_reason = "--no-board given" if args.no_board else board_available()
    counts = [int(n) for n in args.tables.split(",")]
    with tempfile.TemporaryDirectory(prefix="floor-bench-") as scratch:
        work = Path(scratch)
        broker = LocalBroker(work / "broker")
        broker.start()
        floor = Floor()
        consumer = Subscriber(broker.host, broker.port, subscription("casino"), floor)
        consumer.start()
        try:
            rounds = [one_round(args, count, broker, floor, work) for count in counts]
        finally:
            consumer.stop()
            broker.kill()
    report(args, rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
