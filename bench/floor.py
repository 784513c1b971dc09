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
2. the floor board (`tablectl floor board`) during the live phase, open in headless
   Chromium (Debian's chromium and chromedriver, through Selenium): its end-to-end
   delay, from the event at a table (the message's `ts`) to the change on the page (a
   MutationObserver on each card's `data-seq`, on the same machine's clock), p50/p99/
   max. Skipped, saying so, without chromium.
3. drain after an outage: the rows a table journals in `--outage-minutes` at the
   live pace, already in its outbox, then the link comes back: the drain rate of one
   table alone, then of every other table at once (a floor-wide outage, and the most
   this machine carries: publishers, broker and consumer on the same CPUs).

    python bench/floor.py [--tables 40] [--events-per-second 1.0] [--outage-minutes 10]
                          [--no-board]

The publishers share one Python process (and its GIL) here, so the latency figures
are pessimistic; run on the target board and broker for figures that matter.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.floor import outbox  # noqa: E402
from controller.floor.board_server import BoardServer  # noqa: E402
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

    def __init__(self, table_id: str, seed: int) -> None:
        self.topics = TableTopics("casino", "bench", table_id)
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


class BoardPage:
    """The floor board of the bench site, open in headless Chromium; records when each
    card shows each journal seq."""

    def __init__(self, broker: LocalBroker) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.server = BoardServer(
            host=broker.host,
            port=broker.port,
            topic_filter=subscription("casino", "bench"),
            site="bench",
            http_port=0,
        )
        self.server.start()
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
        self.driver = webdriver.Chrome(
            service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
            options=options,
        )
        self.driver.get(self.server.url)
        self.driver.execute_script(OBSERVE)

    def changes(self) -> list[tuple[str, int, int]]:
        return [tuple(c) for c in self.driver.execute_script("return window.__changes;")]

    def close(self) -> None:
        self.driver.quit()
        self.server.stop()


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


def phase_figures(name: str, floor: Floor, work: Callable[[], int]) -> dict[str, Any]:
    """Run `work` (it returns the rows it journaled or drained, all acknowledged by the
    broker when it returns) and measure it."""
    floor.reset()
    start = time.monotonic()
    rows = work()
    elapsed = time.monotonic() - start
    assert floor.wait_delivered(rows, 60.0), f"{name}: the consumer is missing messages"
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=40)
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
    no_board = "--no-board given" if args.no_board else board_available()
    board_delays: list[float] = []

    with tempfile.TemporaryDirectory(prefix="floor-bench-") as scratch:
        work = Path(scratch)
        broker = LocalBroker(work / "broker")
        broker.start()
        floor = Floor()
        consumer = Subscriber(broker.host, broker.port, subscription("casino"), floor)
        consumer.start()
        settings = FloorSettings(
            site="bench", host=broker.host, port=broker.port, outbox_max_messages=1_000_000
        )
        tables = [
            (SimulatedTable(f"T{n:02d}", n), work / f"T{n:02d}.sqlite3")
            for n in range(1, args.tables + 1)
        ]
        for _, db in tables:
            outbox.connect(db).close()
        results = []
        try:
            page = BoardPage(broker) if no_board is None else None
            made: dict[tuple[str, int], int] = {}
            with publishers(settings, tables) as running:
                assert all(p.wait_for(lambda s: s.link == "up", 30) for p in running)

                def live() -> int:
                    rows = play(tables, running, args.live_seconds, args.events_per_second, made)
                    wait_all_drained(running)
                    return rows

                results.append(phase_figures("live", floor, live))
            if page is not None:
                time.sleep(1.0)  # the last changes reach the page
                shown: dict[tuple[str, int], int] = {}
                for table_id, seq, at_ms in page.changes():
                    shown.setdefault((table_id, seq), at_ms)
                page.close()
                board_delays = [shown[key] - made[key] / 1e6 for key in made if key in shown]
                if len(board_delays) < len(made):
                    print(
                        f"  (the page showed {len(board_delays)} of {len(made)} states: a "
                        f"state replaced before the page drew it is not counted)"
                    )

            # The link is down (publishers stopped) while every table plays on.
            outage_events = int(args.events_per_second * args.outage_minutes * 60)
            backlog = [journal(db, table, outage_events) for table, db in tables]

            def drain(some: list[tuple[SimulatedTable, Path]], rows: int) -> Callable[[], int]:
                def run() -> int:
                    with publishers(settings, some) as running:
                        wait_all_drained(running)
                    return rows

                return run

            results.append(phase_figures("drain one table", floor, drain(tables[:1], backlog[0])))
            results.append(
                phase_figures("drain the others", floor, drain(tables[1:], sum(backlog[1:])))
            )
        finally:
            consumer.stop()
            broker.kill()

    print(
        f"floor link: {args.tables} tables, one Mosquitto on 127.0.0.1, one consumer; "
        f"live pace {args.events_per_second:g} events/s per table"
    )
    for r in results:
        rate = r["rows"] / r["seconds"] if r["seconds"] else 0.0
        line = (
            f"  {r['phase']:<17} {r['rows']:>7} messages in {r['seconds']:6.2f} s: "
            f"broker rate {rate:7,.0f} msg/s in (PUBACKed) and out (delivered)"
        )
        if r["phase"] == "live" and r["latency_ms"]:
            p50, p99, worst = r["latency_ms"]
            line += f"; end-to-end latency ms p50 {p50} p99 {p99} max {worst}"
        print(line)
    if board_delays:
        print(
            f"  floor board (headless Chromium): end-to-end delay, event at a table -> "
            f"change on the page, {len(board_delays)} changes over {args.tables} tables: "
            f"ms p50 {percentile(board_delays, 0.5):.0f} "
            f"p99 {percentile(board_delays, 0.99):.0f} max {max(board_delays):.0f}"
        )
    else:
        print(f"  floor board: not measured: {no_board}")
    print(
        f"  a {args.outage_minutes:g}-minute outage at the live pace: "
        f"{statistics.mean(backlog):.0f} rows per table; one table drains it in "
        f"{results[1]['seconds']:.2f} s, the other {args.tables - 1} together in "
        f"{results[2]['seconds']:.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
