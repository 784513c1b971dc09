"""A casino's day at speed: the table as a casino runs it, every feature on at once,
restarted and cut off, with the promises checked after every restart.

    python bench/casino_day.py --seed 7                 # one day
    python bench/casino_day.py --seed 7 --days 30       # a month
    python bench/casino_day.py --seed 7 --no-floor      # without the floor link

The pieces, each the real one:

* the table: the real daemon (``tablectl run``'s ``Daemon``: loop, journal, recovery,
  floor publisher, drivers) on simulated devices, in its own process
  (``bench/casino_table.py``), its time on a clock this bench moves: a day of table
  time passes in minutes;
* a real Mosquitto set up as ``config/mosquitto.example.conf`` says (persistence, no
  queue limit, the client id taken from the user name, user names and passwords,
  ``config/mosquitto-acl.example`` as the ACL: the table is its user ``T7``); plain TCP
  on 127.0.0.1, as the example's password listener without its TLS files;
* the floor system: a persistent consumer (user ``floor-system``) recording every
  message, and the floor board (``tablectl floor board``, user ``floor-watch``) as its
  own process.

The day is a list of steps drawn from the seed (``plan``): hands keyed on the keypad by
the bench's demo dealer, dealers pushed every 30 minutes, a shift change (close and
open, two supervisors) every 8 hours, players sitting, buying in, leaving and changing
seats, tips, transfers, undo and void, the clock called and running out, the door,
devices pulled out and plugged back (keypad, display, tray, the puck lifted or seen at
two seats), SIGHUP with changed stakes, rake or ante, the broker stopped and started, clean
restarts, and kill -9 power cuts at random moments (during a hand, a tip, a shift
change, a device fault, a reload). After every stop and at the end (``Casino.check``):

* no MEMORY FAULT at the next start, and ``tablectl journal verify`` passes;
* chips conserved: stacks and pots, rake, jackpot, time fees, tips and cash-outs add up
  to the buy-ins;
* every shift's meters (``tablectl meters``) equal a ledger this bench keeps itself
  from the journal's events and their effects (``Ledger``: its own accounting, by the
  rules of docs/operations: a close starts the next shift, a hand's fees go to the
  dealer who dealt it), never through ``controller/rules/meters.py``;
* the floor consumer has every message the table marked sent, each once (duplicates
  dropped by ``msg_seq``), in order, none missing; at the end, all of them;
* the board's card (``/table/T7.json``) shows the seats, stacks, hand, dealer and
  alarms that the table's state shows;
* ``tablectl recall`` lists each of the last hands' events under the hand where it
  happened, in journal order.

A failing run prints the seed, the step that broke and the check, then shrinks the
step list (delta debugging: the shortest list found that still fails the same check)
and prints it. ``--steps FILE`` runs a list of steps saved so (one a line), for a
replay. Exit status: 0 when every check held, 1 when one broke (any difference in the
meters stops the run).

``tests/test_casino_day.py`` runs a short day.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.daemon.recovery import RulesBook, fold_records, start_table  # noqa: E402
from controller.floor.consumer import Deduplicator, FloorMessage, Subscriber  # noqa: E402
from controller.journal import Journal  # noqa: E402
from controller.rules import effects as fx  # noqa: E402
from controller.rules import ops  # noqa: E402
from controller.rules.ops import KEPT_SHIFTS  # noqa: E402
from controller.rules.view import state_view  # noqa: E402
from tests.localbroker import LocalBroker, free_port  # noqa: E402

TABLE = "T7"
SITE = "east"
DEALERS = ("204", "311", "425")
SUPERVISOR, WITNESS = ("1042", "2468"), ("2077", "1357")
HAND_MINUTES = 4.5  # table time a hand takes, with the shuffle: 320 hands a day
PUSH_MINUTES = 30
SHIFT_HOURS = 8
WAIT = 30.0
SHM = Path("/dev/shm")  # --tmpfs: a kill -9 leaves what the process wrote, as on disk
POLL = 0.02  # how often a check looks again at what it waits for (the consumer, the card)
QUIET = 1.0  # s with no new event: a table just started has journalled its devices' first readings
METERS = ("hands", "rake", "jackpot", "time_fees", "tips", "buy_ins", "cash_outs")
DEALER_METERS = ("hands", "rake", "jackpot", "tips")
STAKES = ((5, 10), (10, 20), (5, 10), (25, 50))
RAKES = ((5, 10), (10, 20), (5, 5))
#: game.ante and game.ante_form a reload may change to (issue 33: antes run in the day)
ANTES = ((0, "each"), (5, "each"), (10, "big_blind"), (5, "big_blind"), (50, "big_blind"))

CONFIG = """\
table: {{id: {table}, seats: 9}}
game: {{structure: no_limit, smallest_chip: 5, small_blind: {sb}, big_blind: {bb},
        button: dead, first_button: last_seat, ante: {ante}, ante_form: {ante_form}}}
clock: {{seconds: 60, warning: 10, on_expiry: fold}}
fees: {{mode: rake, rake_percent: {rake_percent}, rake_cap: {rake_cap}}}
dealer: {{push_minutes: {push}}}
supervisor: {{pin_file: {pins}}}
hardware:
  simulated: true
  pin_factory: mock
  puck: {{pins: {{1: 4, 2: 5, 3: 6, 4: 7, 5: 8, 6: 9, 7: 10, 8: 11, 9: 12}}}}
  lights: {{pins: {{1: 16, 2: 17, 3: 18, 4: 19, 5: 20, 6: 21, 7: 22, 8: 23, 9: 24}}}}
  door: {{pin: 25}}
journal: {{state_dir: {state}, snapshot_every: 200}}
tray: {{float: {{5: 400, 25: 200, 100: 100}}}}
logging: {{level: INFO}}
{floor}"""

FLOOR = """\
floor:
  site: {site}
  host: 127.0.0.1
  port: {port}
  username: {user}
  password_file: {password_file}
"""


# -- the day's steps -------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One thing that happens at the table; ``n`` seeds its own choices, so a step does
    the same in a shrunk list as in the whole day."""

    kind: str
    n: int
    what: str = ""  # the device, the moment of a power cut

    def __str__(self) -> str:
        return f"{self.kind}:{self.n}" + (f":{self.what}" if self.what else "")

    @classmethod
    def parse(cls, text: str) -> Step:
        kind, n, *what = text.strip().split(":")
        return cls(kind, int(n), what[0] if what else "")


DEVICES = ("keypad", "display", "tray", "puck", "puck2", "lights")
MOMENTS = ("hand", "tip", "shift", "fault", "reload", "idle")
CHOICES = {"reseat": DEVICES, "kill": MOMENTS}  # what a step of the kind is about
# each day, besides its hands, pushes and shift changes: kind -> how many
EXTRAS = {
    "kill": 22,
    "reseat": 64,  # 10 or 11 of them the seat lights, which the daemon cannot see go: 53+ seen
    "tip": 40,
    "sit": 10,
    "leave": 8,
    "move": 6,
    "buy": 10,
    "transfer": 5,
    "undo": 6,
    "void": 5,
    "clock": 10,
    "door": 6,
    "reload": 6,
    "broker": 4,
    "restart": 6,
}


def plan(seed: int, days: int = 1, hands_per_day: int = 0) -> list[Step]:
    """The day's steps: hands at ``HAND_MINUTES`` each, a push every ``PUSH_MINUTES``, a
    shift change every ``SHIFT_HOURS``, and the ``EXTRAS`` spread at random between
    hands."""
    rng = random.Random(seed)
    per_day = hands_per_day or round(24 * 60 / HAND_MINUTES)
    scale = per_day / round(24 * 60 / HAND_MINUTES)
    counter = iter(range(10**9))
    steps: list[Step] = [Step("shift", next(counter)), Step("push", next(counter))]
    for day in range(days):
        between: list[list[Step]] = [[] for _ in range(per_day)]
        for kind, count in EXTRAS.items():
            choices = CHOICES.get(kind, ("",))
            for what in dealt(rng, choices, max(1, round(count * scale))):
                between[rng.randrange(per_day)].append(Step(kind, next(counter), what))
        for index in range(per_day):
            minute = (day * per_day + index) * HAND_MINUTES
            if crossed(minute, PUSH_MINUTES):
                steps.append(Step("push", next(counter)))
            if crossed(minute, SHIFT_HOURS * 60):
                steps.append(Step("shift", next(counter)))
            steps.extend(between[index])
            steps.append(Step("hand", next(counter)))
    steps.append(Step("shift", next(counter)))  # the last day's last shift closes too
    return steps


def dealt(rng: random.Random, choices: tuple[str, ...], count: int) -> list[str]:
    """``count`` of ``choices`` dealt evenly (each one as often as the next, give or
    take one), in a random order: a day reseats every device and cuts the power at
    every moment, and no seed reseats the unseen lights so often that fewer than 50
    reseats are seen."""
    deck = [*choices] * (count // len(choices)) + rng.sample(choices, count % len(choices))
    rng.shuffle(deck)
    return deck


def crossed(minute: float, every: float) -> bool:
    """The hand starting at ``minute`` (of table time since the run began) is the first
    after a multiple of ``every`` minutes."""
    return minute > 0 and int(minute // every) != int((minute - HAND_MINUTES) // every)


class DayFailed(Exception):
    """A promise broke: which check, after which step, and what was seen."""

    def __init__(self, check: str, message: str, step: int | None = None) -> None:
        super().__init__(f"{check}: {message}")
        self.check = check
        self.message = message
        self.step = step


# -- the table's process -----------------------------------------------------------------


class TableProcess:
    """``bench/casino_table.py`` in its own process: commands in, answers out."""

    def __init__(self, config: Path, log: IO[str], env: dict[str, str]) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "casino_table.py"), "--config", str(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=env,
            cwd=ROOT,
        )
        self.answers: list[dict[str, Any]] = []
        self.arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.sent = 1  # answers awaited: the first is the one it gives when ready
        self.first = self._wait(1)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.arrived:
                self.answers.append(json.loads(line))
                self.arrived.notify_all()
        with self.arrived:
            self.arrived.notify_all()

    def _wait(self, count: int) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT
        with self.arrived:
            while len(self.answers) < count:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None and len(self.answers) < count:
                    raise DayFailed(
                        "table answers", f"no answer within {WAIT:g} s (exit {self.proc.poll()})"
                    )
                self.arrived.wait(min(left, 0.2))
            return self.answers[count - 1]

    def send(self, **command: Any) -> int:
        """Send without waiting; the number of the answer to wait for."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        self.sent += 1
        return self.sent

    def ask(self, **command: Any) -> dict[str, Any]:
        return self._wait(self.send(**command))

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(WAIT)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.log.write(threads_of(self.proc.pid))
            self.log.flush()
            raise DayFailed(
                "clean stop",
                f"the table's process did not exit within {WAIT:g} s of SIGTERM "
                "(its threads, as the kernel and py-spy see them, are at the end of "
                "daemon.log)",
            ) from None


def threads_of(pid: int) -> str:
    """What a process that will not exit is doing: each thread's name, state and kernel
    wait channel, and its Python and native stacks when ``py-spy`` is at hand."""
    lines = [f"-- process {pid} did not exit: its threads"]
    for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            name = (task / "comm").read_text().strip()
            wchan = (task / "wchan").read_text().strip()
        except OSError:
            continue
        lines.append(f"{task.name} {name}: state {fields[0]}, waiting in {wchan or '-'}")
    spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if spy is not None:
        dump = subprocess.run(
            [spy, "dump", "--native", "--pid", str(pid)],
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )
        lines.append(dump.stdout + dump.stderr)
    return "\n".join(lines) + "\n"


# -- the ledger ---------------------------------------------------------------------------


@dataclass
class Ledger:
    """The shifts' meters as this bench counts them from the journal's events and their
    effects, by docs/operations' rules, with nothing of ``controller/rules/meters.py``:
    a ``close`` ends shift N and starts N+1 (what happens before N+1's open is N+1's); a
    hand's rake and jackpot drop go to the dealer who dealt it, a tip to the dealer
    signed in when it was given."""

    shifts: dict[int, Counter[str]] = field(default_factory=dict)
    dealers: dict[int, dict[str, Counter[str]]] = field(default_factory=dict)
    closed: list[int] = field(default_factory=list)
    shift: int = 1
    signed_in: str | None = None
    hand_dealer: str | None = None
    tips_in_events: int = 0
    acted: set[int] = field(default_factory=set)  # seqs whose effects hold an action
    tipped: set[int] = field(default_factory=set)
    last: tuple[int, ...] = (0, 0, 0, 0, 0, 0, 0)

    def add(self, meter: str, amount: int, dealer: str | None = None) -> None:
        if not amount:
            return
        self.shifts.setdefault(self.shift, Counter())[meter] += amount
        if dealer is not None and meter in DEALER_METERS:
            parts = self.dealers.setdefault(self.shift, {})
            parts.setdefault(dealer, Counter())[meter] += amount

    def record(self, record: Any, table: Any, effects: list[Any]) -> None:
        state = table.state
        # the rules' running totals read here, not through meters.ledger: the ledger
        # shares nothing with the module it checks
        totals = (
            state.hand_number,
            state.rake_total,
            state.jackpot_total,
            state.time_fees_total,
            state.tips_total,
            state.bought_in,
            state.cashed_out,
        )
        moved = dict(
            zip(METERS, (a - b for a, b in zip(totals, self.last, strict=True)), strict=True)
        )
        self.last = totals
        for effect in effects:
            if isinstance(effect, ops.DealerChanged):
                self.signed_in = effect.dealer
            elif isinstance(effect, fx.HandStarted):
                self.hand_dealer = self.signed_in
        rake = sum(e.rake for e in effects if isinstance(e, fx.FeesTaken))
        jackpot = sum(e.jackpot for e in effects if isinstance(e, fx.FeesTaken))
        tips = [e for e in effects if isinstance(e, ops.Tipped)]
        if rake != moved["rake"] or jackpot != moved["jackpot"]:
            raise DayFailed(
                "ledger", f"seq {record.seq}: fees {rake}/{jackpot}, totals moved {moved}"
            )
        if sum(t.amount for t in tips) != moved["tips"]:
            raise DayFailed("ledger", f"seq {record.seq}: tips {tips}, totals moved {moved}")
        self.tips_in_events += sum(t.amount for t in tips)
        if tips:
            self.tipped.add(record.seq)
        if any(isinstance(e, fx.Acted) for e in effects):
            self.acted.add(record.seq)
        hands = sum(1 for e in effects if isinstance(e, fx.HandStarted))
        self.add("hands", hands, self.hand_dealer)
        for meter in ("rake", "jackpot", "time_fees"):
            self.add(meter, moved[meter], self.hand_dealer)
        for tip in tips:
            self.add("tips", tip.amount, self.signed_in)
        self.add("buy_ins", moved["buy_ins"])
        self.add("cash_outs", moved["cash_outs"])
        for effect in effects:
            if isinstance(effect, ops.ShiftClosed):
                self.closed.append(self.shift)
                self.shift += 1


@dataclass
class Folded:
    """The journal folded as far as it has been read, the ledger with it: each check
    folds only the events recorded since the last (the journal prunes old hands)."""

    ledger: Ledger = field(default_factory=Ledger)
    table: Any = None
    config_id: int = 0
    after: int = 0

    def read(self, state_dir: Path) -> tuple[Ledger, dict[str, Any], Any]:
        with Journal.open_readonly(state_dir) as journal:
            book = RulesBook(journal)
            if self.table is None:
                self.table, self.after, self.config_id = start_table(journal, book, None)
            records = journal.iter_events(after_seq=self.after)
            for record, effects in fold_records(self.table, records, book, self.config_id):
                self.ledger.record(record, self.table, effects)
                self.after, self.config_id = record.seq, record.config_id
        return self.ledger, state_view(self.table), self.table.state


# -- the world ---------------------------------------------------------------------------


def tablectl_all(*commands: list[str]) -> list[subprocess.CompletedProcess[str]]:
    """``tablectl`` commands run at once (each reads the journal on its own)."""
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        return list(pool.map(lambda args: tablectl(*args), commands))


def tablectl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )


def broker_options(work: Path, users: dict[str, str]) -> str:
    """The example configuration's options (config/mosquitto.example.conf) for a
    password listener: its persistence and queue settings, the client id taken from the
    user name, the example ACL; the password file made for ``users``."""
    example = (ROOT / "config" / "mosquitto.example.conf").read_text().splitlines()
    kept = {"autosave_on_changes", "autosave_interval", "max_inflight_messages"}
    lines = [line for line in example if line.split(" ")[0] in kept]
    password_file = work / "floor.passwd"
    for index, (user, password) in enumerate(users.items()):
        subprocess.run(
            [
                "mosquitto_passwd",
                *(["-c"] if index == 0 else []),
                "-b",
                str(password_file),
                user,
                password,
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
    acl = work / "floor.acl"
    acl.write_text((ROOT / "config" / "mosquitto-acl.example").read_text())
    return "\n".join(
        [
            *lines,
            "allow_anonymous false",
            f"password_file {password_file}",
            f"acl_file {acl}",
            "use_username_as_clientid true",
        ]
    )


def secret(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    return path


@dataclass
class Figures:
    steps: int = 0
    events: int = 0
    hands: int = 0
    kills: int = 0
    restarts: int = 0
    reseats: int = 0
    shifts_closed: int = 0
    pushes: int = 0
    tips: int = 0
    reloads: int = 0
    broker_outages: int = 0
    checks: int = 0
    messages: int = 0
    duplicates: int = 0
    seconds: float = 0.0
    kinds: Counter[str] = field(default_factory=Counter)
    spent: Counter[str] = field(default_factory=Counter)  # milliseconds by step kind


class Casino:
    """The broker, the floor consumer, the board and the table, and the checks."""

    def __init__(self, work: Path, seed: int, *, floor: bool = True) -> None:
        self.work = work
        self.seed = seed
        self.floor = floor
        self.state = work / "state"
        self.config = work / "table.yaml"
        self.log = (work / "daemon.log").open("a")
        self.figures = Figures()
        self.folded = Folded()
        self.table: TableProcess | None = None
        self.broker: LocalBroker | None = None
        self.board: subprocess.Popen[bytes] | None = None
        self.subscriber: Subscriber | None = None
        # each message's msg_seq only: a month of messages, kept whole, fills gigabytes
        self.received = array("q")
        self.dedup = Deduplicator()
        self.lock = threading.Lock()
        self.stakes = STAKES[0]
        self.rake = RAKES[0]
        self.ante = ANTES[0]
        self.dealer = 0
        self.step_index: int | None = None
        pins = work / "pins"
        from controller import supervisor_pins

        supervisor_pins.save_pins(
            pins,
            {user: supervisor_pins.hash_pin(pin, n=2**4) for user, pin in (SUPERVISOR, WITNESS)},
        )
        self.pins = pins
        self.env = {**os.environ, "PYTHONPATH": str(ROOT)}

    # -- start and stop ------------------------------------------------------------------

    def open(self) -> None:
        floor = ""
        if self.floor:
            users = {"T7": "t7-pw", "floor-system": "fs-pw", "floor-watch": "fw-pw"}
            self.broker = LocalBroker(
                self.work / "broker", listener_options=broker_options(self.work, users)
            )
            self.broker.start()
            self.board_port = free_port()
            floor = FLOOR.format(
                site=SITE,
                port=self.broker.port,
                user="T7",
                password_file=secret(self.work / "t7.password", "t7-pw"),
            )
            self._subscribe(users["floor-system"])
            self._start_board(users["floor-watch"])
        self.floor_section = floor
        self.write_config()
        self.start_table()

    def _subscribe(self, password: str) -> None:
        def heard(message: FloorMessage) -> None:
            payload = message.payload
            if payload is None or not isinstance(payload.get("msg_seq"), int):
                return
            with self.lock:
                if self.dedup.first_time(payload, message.raw):
                    self.received.append(payload["msg_seq"])
                else:
                    self.figures.duplicates += 1

        self.subscriber = Subscriber(
            "127.0.0.1",
            self.broker.port if self.broker else 0,
            f"casino/{SITE}/table/{TABLE}/#",
            heard,
            client_id="floor-system",
            persistent=True,
            username="floor-system",
            password_file=secret(self.work / "fs.password", password),
        )
        self.subscriber.start()

    def _start_board(self, password: str) -> None:
        assert self.broker is not None
        board = self.work / "board.yaml"
        board.write_text(
            FLOOR.format(
                site=SITE,
                port=self.broker.port,
                user="floor-watch",
                password_file=secret(self.work / "fw.password", password),
            )
            + f"board: {{listen: 127.0.0.1, port: {self.board_port}}}\n"
        )
        self.board = subprocess.Popen(
            [sys.executable, "-m", "controller", "floor", "board", "--config", str(board)],
            stdout=subprocess.DEVNULL,
            stderr=(self.work / "board.log").open("a"),
            cwd=ROOT,
            env=self.env,
        )

    def write_config(self) -> None:
        temp = self.config.with_suffix(".new")
        temp.write_text(
            CONFIG.format(
                table=TABLE,
                sb=self.stakes[0],
                bb=self.stakes[1],
                ante=self.ante[0],
                ante_form=self.ante[1],
                rake_percent=self.rake[0],
                rake_cap=self.rake[1],
                push=PUSH_MINUTES,
                pins=self.pins,
                state=self.state,
                floor=self.floor_section,
            )
        )
        os.replace(temp, self.config)

    def start_table(self) -> None:
        self.table = TableProcess(self.config, self.log, self.env)
        self.figures.restarts += 1
        first = self.table.first
        if first.get("fault"):
            raise DayFailed("start", f"the table started locked: {first['fault']}")

    def close(self) -> None:
        if self.table is not None and self.table.proc.poll() is None:
            with contextlib.suppress(Exception):
                self.table.stop()
        if self.board is not None:
            self.board.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.board.wait(10)
        if self.subscriber is not None:
            self.subscriber.stop()
        if self.broker is not None:
            self.broker.stop()
        self.log.close()

    # -- what happens at the table ------------------------------------------------------

    @property
    def t(self) -> TableProcess:
        assert self.table is not None
        return self.table

    def view(self) -> dict[str, Any]:
        answer = self.t.ask(op="view")
        return self.viewed(answer)

    def viewed(self, answer: dict[str, Any]) -> dict[str, Any]:
        if answer.get("fault"):
            raise DayFailed("locked", f"play is locked: {answer['fault']}")
        view = answer.get("view")
        if not isinstance(view, dict):
            raise DayFailed("locked", "no state shown")
        return view

    def keys(self, *keys: str) -> dict[str, Any]:
        answer = self.t.ask(op="keys", keys=list(keys))
        if not answer["ok"]:
            raise DayFailed("keypad", f"{' '.join(keys)}: {answer['error']}")
        return self.viewed(answer)

    def supervisor(self, *then: str) -> dict[str, Any]:
        user, pin = SUPERVISOR
        return self.keys("FUNC", "0", *user, "ENTER", *pin, "ENTER", *then)

    def count_keys(self, view: dict[str, Any]) -> list[str]:
        """The float count keyed at a shift's open or close: what the tray holds, then
        the witness."""
        counts = (view.get("tray") or {}).get("counts") or {}
        keys: list[str] = []
        for value, count in sorted(counts.items(), key=lambda item: int(item[0])):
            if int(count):
                keys += [*str(value), "ENTER", *str(count), "ENTER"]
        if not keys:  # no reading (the tray's cable out at the start): the float
            keys = ["5", "ENTER", "4", "0", "0", "ENTER"]
        user, pin = WITNESS
        return [*keys, "ENTER", *user, "ENTER", *pin, "ENTER"]

    def clear(self, view: dict[str, Any]) -> dict[str, Any]:
        """Leave the keypad with no entry open (a refused step leaves one)."""
        if (view.get("keypad") or {}).get("entry") is not None:
            return self.keys("CLEAR", "CLEAR", "CLEAR")
        return view


def next_open(shift: dict[str, Any]) -> int:
    """The shift a shift change leaves open, from the state's ``shift`` before it: an
    open shift N is closed, which starts N+1, and N+1 opened; a shift N started by a
    close and not yet opened (a power cut between the close and the open) is opened
    as N; before the first open (0), the open makes the time so far shift 1."""
    number = int(shift.get("number", 0))
    return number + 1 if shift.get("open") or number == 0 else number


def seated(view: dict[str, Any]) -> list[int]:
    return sorted(int(seat) for seat in view["seats"])


@dataclass
class Runner:
    """Runs steps on a ``Casino`` and checks the promises."""

    casino: Casino
    reported: set[int] = field(default_factory=set)  # closed shifts whose report was checked

    # the step kinds -----------------------------------------------------------------------

    def run(self, step: Step) -> None:
        c = self.casino
        rng = random.Random(f"{c.seed}:{step.n}")
        c.figures.kinds[step.kind] += 1
        began = time.monotonic()
        getattr(self, f"do_{step.kind}")(rng, step)
        c.figures.spent[step.kind] += round((time.monotonic() - began) * 1000)

    def idle(self) -> dict[str, Any]:
        """Between hands: a hand left in progress is played out first."""
        c = self.casino
        view = c.clear(c.view())
        if view["phase"] != "idle":
            self.play(0)
            view = c.view()
        return view

    def play(self, seed: int) -> None:
        c = self.casino
        c.clear(c.view())  # an entry a power cut left open (a shift's count) is dropped
        answer = c.t.ask(op="hand", seed=seed)
        view = c.viewed(answer)
        if not answer["ok"]:
            raise DayFailed(
                "hand",
                f"{answer['error']} (display {answer['display']}, view phase {view['phase']})",
            )

    def do_hand(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        c.t.ask(op="jump", seconds=rng.uniform(0.6, 1.4) * HAND_MINUTES * 60 / 2)
        self.play(rng.randrange(10**6))
        c.t.ask(op="jump", seconds=rng.uniform(0.6, 1.4) * HAND_MINUTES * 60 / 2)
        c.figures.hands += 1

    def do_push(self, rng: random.Random, step: Step) -> None:
        """The next dealer signs in: mostly between hands, sometimes while the last
        dealer's hand is still being played (it stays that dealer's hand)."""
        c = self.casino
        if rng.random() < 0.25:
            self.start_hand()
        else:
            self.idle()
        c.dealer = (c.dealer + 1) % len(DEALERS)
        c.keys("FUNC", "8", *DEALERS[c.dealer], "ENTER")
        c.figures.pushes += 1

    def shift_keys(self, view: dict[str, Any]) -> list[list[str]]:
        """The supervisor's keys: close the shift when one is open, then open the next."""
        user, pin = SUPERVISOR
        head = ["FUNC", "0", *user, "ENTER", *pin, "ENTER"]
        count = self.casino.count_keys(view)
        sequences = []
        if (view.get("shift") or {}).get("open"):
            sequences.append([*head, "9", *count])
        sequences.append([*head, "8", *count])
        return sequences

    def do_shift(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        view = self.idle()
        sequences = self.shift_keys(view)  # a close and an open, or an open alone
        before = view.get("shift") or {}
        expected = next_open(before)
        for keys in sequences:
            view = c.keys(*keys)
        shift = view.get("shift") or {}
        if not shift.get("open") or shift.get("number") != expected:
            raise DayFailed(
                "shift",
                f"shift {before} not followed by an open {expected}: {shift}, display {view.get('display')}",
            )

    def tip_keys(self, view: dict[str, Any], rng: random.Random) -> list[str] | None:
        rich = [s for s in seated(view) if view["seats"][str(s)]["stack"] >= 50]
        if not rich:
            return None
        seat = rng.choice(rich)
        return ["FUNC", "7", *str(seat), "ENTER", *str(5 * rng.randint(1, 5)), "ENTER"]

    def do_tip(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        view = self.idle()
        keys = self.tip_keys(view, rng)
        if keys is not None:
            c.clear(c.keys(*keys))
            c.figures.tips += 1

    def do_sit(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        view = self.idle()
        free = [s for s in range(1, 10) if str(s) not in view["seats"]]
        if len(view["seats"]) >= 7 or not free:
            return
        seat = rng.choice(free)
        chips = str(rng.choice((500, 1000, 2000)))
        c.clear(
            c.keys("FUNC", "1", *str(seat), "ENTER", *chips, "ENTER", "ENTER", rng.choice("12"))
        )

    def do_leave(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        view = self.idle()
        if len(view["seats"]) <= 3:
            return
        seat = rng.choice(seated(view))
        c.clear(c.keys("FUNC", "4", *str(seat), "ENTER", "ENTER"))

    def do_move(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        view = self.idle()
        free = [s for s in range(1, 10) if str(s) not in view["seats"]]
        if not free or not view["seats"]:
            return
        seat, to = rng.choice(seated(view)), rng.choice(free)
        c.clear(c.keys("FUNC", "6", *str(seat), "ENTER", *str(to), "ENTER", rng.choice("12")))

    def do_buy(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        view = self.idle()
        if not view["seats"]:
            return
        seat = rng.choice(seated(view))
        c.clear(
            c.keys(
                "FUNC", "5", *str(seat), "ENTER", *str(rng.choice((100, 300, 500))), "ENTER", "1"
            )
        )

    def do_transfer(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        view = self.idle()
        rich = [s for s in seated(view) if view["seats"][str(s)]["stack"] >= 100]
        if not rich or len(view["seats"]) < 2:
            return
        giver = rng.choice(rich)
        taker = rng.choice([s for s in seated(view) if s != giver])
        amount = str(5 * rng.randint(1, 10))
        c.clear(
            c.supervisor(
                "7", *str(giver), "ENTER", *str(taker), "ENTER", *amount, "ENTER", "1", "ENTER"
            )
        )

    def start_hand(self) -> dict[str, Any] | None:
        """A hand dealt, and its first action keyed: None when no hand could start."""
        c = self.casino
        view = self.idle()
        if len(view["seats"]) < 2:
            return None
        answer = c.t.ask(op="deal")
        view = c.viewed(answer)
        if view["phase"] in ("idle", "showdown") or view.get("to_act") is None:
            return None
        return view

    def do_undo(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        view = self.start_hand()
        if view is None:
            return
        c.keys("CHECK")
        c.clear(c.supervisor("2", "ENTER"))

    def do_void(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        if self.start_hand() is None:
            return
        if rng.random() < 0.5:
            c.keys("CHECK")
        c.clear(c.supervisor("1", "ENTER"))

    def do_clock(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        if self.start_hand() is None:
            return
        c.keys("CLOCK")
        c.t.ask(op="jump", seconds=rng.choice((30, 55, 61, 75)))  # runs out past 60

    def do_door(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        if rng.random() < 0.5:
            self.start_hand()
        c.t.ask(op="door", open=True)
        c.t.ask(op="jump", seconds=rng.uniform(5, 90))
        c.t.ask(op="door", open=False)

    def do_reseat(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        if rng.random() < 0.4:
            self.start_hand()
        self.unplug(step.what, rng)
        c.t.ask(op="jump", seconds=rng.uniform(2, 60))
        self.replug(step.what)
        c.figures.reseats += step.what != "lights"  # counted: the ones the daemon sees

    def unplug(self, device: str, rng: random.Random) -> dict[str, Any]:
        c = self.casino
        if device == "puck":
            return c.t.ask(op="puck", seat=0)
        if device == "puck2":
            return c.t.ask(op="puck", seats=rng.sample(range(1, 10), 2))
        if device == "lights":
            return c.t.ask(op="view")  # output pins: nothing the daemon can see go
        return c.t.ask(op="unplug", device=device)

    def replug(self, device: str) -> dict[str, Any]:
        c = self.casino
        if device in ("puck", "puck2"):
            view = c.view()
            return c.t.ask(op="puck", seat=view.get("button") or 1)
        if device == "lights":
            return c.t.ask(op="view")
        return c.t.ask(op="replug", device=device)

    def do_reload(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        if rng.random() < 0.5:
            self.start_hand()
        self.reconfigure(rng)
        c.t.ask(op="view")
        c.figures.reloads += 1

    def reconfigure(self, rng: random.Random) -> None:
        c = self.casino
        c.stakes = rng.choice(STAKES)
        c.rake = rng.choice(RAKES)
        c.ante = rng.choice(ANTES)
        c.write_config()
        c.t.proc.send_signal(signal.SIGHUP)

    def do_broker(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        if c.broker is None:
            return
        c.broker.stop()
        for _ in range(rng.randint(0, 2)):
            self.play(rng.randrange(10**6))
            c.figures.hands += 1
        c.broker.start()
        c.figures.broker_outages += 1

    def do_restart(self, rng: random.Random, step: Step) -> None:
        c = self.casino
        status = c.t.stop()
        if status != 0:
            raise DayFailed("clean stop", f"tablectl run exited {status} on SIGTERM")
        self.after_stop()

    def do_kill(self, rng: random.Random, step: Step) -> None:
        """A power cut in the middle of something: its commands sent, the process killed
        a random moment later, whatever it was doing."""
        c = self.casino
        moment = step.what or "idle"
        view = self.idle() if moment in ("tip", "shift") else c.view()
        if moment == "hand":
            c.t.send(op="hand", seed=rng.randrange(10**6))
        elif moment == "tip":
            keys = self.tip_keys(view, rng)
            if keys:
                c.t.send(op="keys", keys=keys)
        elif moment == "shift":
            for keys in self.shift_keys(view):
                c.t.send(op="keys", keys=keys)
        elif moment == "fault":
            c.t.send(op="unplug", device=rng.choice(("keypad", "display", "tray")))
        elif moment == "reload":
            self.reconfigure(rng)
        time.sleep(rng.uniform(0, 0.3))
        c.t.kill()
        c.figures.kills += 1
        self.after_stop()

    def after_stop(self) -> None:
        self.check("after the stop")
        self.casino.start_table()
        self.casino.view()  # no MEMORY FAULT
        self.check_board()

    # the promises -------------------------------------------------------------------------------

    def check(self, where: str, final: bool = False) -> None:
        c = self.casino
        c.figures.checks += 1
        ledger, view, state = c.folded.read(c.state)
        # a closed shift's report never changes: checked once, and the kept ones at the end
        shifts = [n for n in ledger.closed if final or n not in self.reported][-KEPT_SHIFTS:]
        state_dir = str(c.state)
        verify, shown, recall, *reports = tablectl_all(
            ["journal", "verify", "--state-dir", state_dir, "--json"],
            ["state", "--state-dir", state_dir, "--json", "--no-verify"],
            ["recall", "--state-dir", state_dir, "--json", "4"],
            *(["meters", "--state-dir", state_dir, "--shift", str(n), "--json"] for n in shifts),
        )
        if verify.returncode != 0:
            raise DayFailed(
                "journal verify", f"{where}: {verify.stdout.strip()} {verify.stderr.strip()}"
            )
        if shown.returncode != 0:
            raise DayFailed("tablectl state", f"{where}: {shown.stdout} {shown.stderr}")
        said = json.loads(shown.stdout)
        said = said.get("state", said)
        if said.get("seats") != view["seats"] or said.get("hand") != view["hand"]:
            raise DayFailed("tablectl state", f"{where}: the state differs from the journal's fold")
        self.check_chips(where, view, state, ledger)
        self.check_meters(where, ledger, said, dict(zip(shifts, reports, strict=True)))
        self.reported.update(shifts)
        self.check_recall(where, ledger, recall)
        if c.floor:
            self.check_floor(where, final)

    def check_chips(self, where: str, view: dict[str, Any], state: Any, ledger: Ledger) -> None:
        on_table = sum(s["stack"] for s in view["seats"].values()) + int(view["pot_total"])
        out = (
            state.rake_total
            + state.jackpot_total
            + state.time_fees_total
            + ledger.tips_in_events
            + state.cashed_out
        )
        if on_table + out != state.bought_in:
            raise DayFailed(
                "chips conserved",
                f"{where}: stacks and pots {on_table} + fees, tips and cash-outs {out} != "
                f"buy-ins {state.bought_in}",
            )

    def check_meters(
        self,
        where: str,
        ledger: Ledger,
        state: dict[str, Any],
        reports: dict[int, subprocess.CompletedProcess[str]],
    ) -> None:
        """Each closed shift's report and the shift in progress against the ledger: any
        difference stops the run."""
        problems: list[str] = []
        for number, report in reports.items():
            if report.returncode != 0:
                problems.append(f"shift {number}: {report.stdout} {report.stderr}")
                continue
            problems += compare(number, json.loads(report.stdout), ledger)
        current = state.get("meters") or {}
        mine = ledger.shifts.get(ledger.shift, Counter())
        wrong = {m: (current.get(m), mine[m]) for m in METERS if current.get(m) != mine[m]}
        if wrong:
            problems.append(f"the shift now ({ledger.shift}): state meters, ledger {wrong}")
        if problems:
            raise DayFailed("meters", f"{where}: {'; '.join(problems)}")

    def check_recall(
        self, where: str, ledger: Ledger, recall: subprocess.CompletedProcess[str]
    ) -> None:
        """Each of the last hands lists its events in journal order, each under the hand
        where it happened (between the hand's first event and the next hand's), and
        every action and tip the journal's effects show is listed."""
        if recall.returncode != 0:
            raise DayFailed("recall", f"{where}: {recall.stdout} {recall.stderr}")
        hands = sorted(json.loads(recall.stdout)["hands"], key=lambda h: int(h["hand"]))
        for index, hand in enumerate(hands):
            low = int(hand["first_seq"])
            high = int(hands[index + 1]["first_seq"]) - 1 if index + 1 < len(hands) else 1 << 62
            listed: dict[str, list[int]] = {}
            for name, items in hand.items():
                if isinstance(items, list) and items and isinstance(items[0], dict):
                    key = "last_seq" if name == "power_losses" else "seq"
                    listed[name] = [int(i[key]) for i in items if isinstance(i.get(key), int)]
            for name, seqs in listed.items():
                if seqs != sorted(seqs) or any(not low <= s <= high for s in seqs):
                    raise DayFailed(
                        "recall",
                        f"{where}: hand {hand['hand']} ({low}-{high}) lists {name} at {seqs}",
                    )
            for name, wanted in (("actions", ledger.acted), ("tips", ledger.tipped)):
                upto = int(hand["last_seq"]) if name == "actions" else high
                missing = sorted(
                    s for s in wanted if low <= s <= upto and s not in listed.get(name, [])
                )
                if missing:
                    raise DayFailed(
                        "recall",
                        f"{where}: hand {hand['hand']} does not list the {name} at seq {missing}",
                    )

    def check_floor(self, where: str, final: bool) -> None:
        """The consumer has had, each once and in order from ``msg_seq`` 1, every message
        the table marked sent (the broker acknowledged it), and at the end every message
        of the outbox; one on its way from the broker is waited for (30 s at most)."""
        c = self.casino
        with Journal.open_readonly(c.state) as journal, journal.mutex:
            rows = journal.connection.execute(
                "SELECT id, sent, seq, topic FROM outbox ORDER BY id"
            ).fetchall()
        must = {row[0] for row in rows if row[1] or final}
        deadline = time.monotonic() + WAIT
        while True:
            with c.lock:
                got = list(c.received)
            lost = sorted(must - set(got))
            if not lost or time.monotonic() > deadline:
                break
            time.sleep(POLL)
        if got != sorted(got):
            raise DayFailed("floor order", f"{where}: messages out of order: {first_disorder(got)}")
        if got != list(range(1, len(got) + 1)):
            missing = sorted(set(range(1, max(got) + 1)) - set(got))
            raise DayFailed("floor complete", f"{where}: msg_seq {missing[:10]} never came")
        if lost:
            raise DayFailed(
                "floor complete",
                f"{where}: {len(lost)} message(s) the consumer never had (id, sent, seq, "
                f"topic): {[row for row in rows if row[0] in lost][:10]}",
            )
        c.figures.messages = len(got)

    def check_board(self) -> None:
        """The board's card comes to show the table's state: the link up, and the same
        hand, seats, stacks, dealer and alarms (both read again until they agree: the
        table may journal a device's reading meanwhile; a reading that changes none of
        these, the tray's, sends no state, so the card's seq may stay below the table's)."""
        c = self.casino
        if not c.floor:
            return
        address = f"http://127.0.0.1:{c.board_port}/table/{TABLE}.json"
        deadline = time.monotonic() + WAIT
        seen = "the card never answered"
        while time.monotonic() < deadline:
            answer = c.t.ask(op="view")
            view = c.viewed(answer)
            with contextlib.suppress(OSError, ValueError):
                with urllib.request.urlopen(address, timeout=5) as reply:
                    card = json.load(reply)
                card = card.get("card", card)
                if card.get("link") != "up" or not 0 <= int(card.get("seq") or 0) <= answer["seq"]:
                    seen = f"the card shows {short(card)}, the table seq {answer['seq']}"
                else:
                    problems = board_differences(card, view)
                    if not problems:
                        return
                    seen = "; ".join(problems)
            time.sleep(POLL)
        raise DayFailed("board", seen)


def board_differences(card: dict[str, Any], view: dict[str, Any]) -> list[str]:
    problems = []
    for key, mine in (("hand", view["hand"]), ("phase", view["phase"]), ("pot", view["pot_total"])):
        if card.get(key) != mine:
            problems.append(f"{key} {card.get(key)!r} on the card, {mine!r} at the table")
    rows = [(r["seat"], r["player"], r["stack"]) for r in card.get("seat_rows", [])]
    seats = [
        (int(s), v["player"], v["stack"])
        for s, v in sorted(view["seats"].items(), key=lambda i: int(i[0]))
    ]
    if rows != seats:
        problems.append(f"seats {rows} on the card, {seats} at the table")
    if card.get("dealer") != view.get("dealer"):
        problems.append(
            f"dealer {card.get('dealer')!r} on the card, {view.get('dealer')!r} at the table"
        )
    codes = {a["code"] for a in card.get("alarms", []) if a.get("level") == "alarm"}
    stopped = bool(view.get("play_stopped"))
    if stopped != bool(codes & {"door_open", "play_stopped"}):
        problems.append(
            f"alarms {sorted(codes)} on the card, play stopped {view.get('play_stopped')}"
        )
    return problems


def compare(number: int, report: dict[str, Any], ledger: Ledger) -> list[str]:
    """A closed shift's report against the ledger: what differs."""
    mine = ledger.shifts.get(number, Counter())
    table = report.get("table") or {}
    problems: list[str] = []
    wrong = {m: (table.get(m), mine[m]) for m in METERS if table.get(m, 0) != mine[m]}
    if wrong:
        problems.append(f"shift {number} (meters, ledger): {wrong}")
    dealers = report.get("dealers") or {}
    for dealer, part in ledger.dealers.get(number, {}).items():
        theirs = dealers.get(dealer) or {}
        off = {m: (theirs.get(m, 0), part[m]) for m in DEALER_METERS if theirs.get(m, 0) != part[m]}
        if off:
            problems.append(f"shift {number} dealer {dealer} (meters, ledger): {off}")
    return problems


def first_disorder(seqs: list[int]) -> str:
    for index in range(1, len(seqs)):
        if seqs[index] < seqs[index - 1]:
            return f"{seqs[index - 1]} then {seqs[index]}"
    return "?"


def short(card: dict[str, Any]) -> str:
    return json.dumps({k: card.get(k) for k in ("seq", "link", "hand", "phase", "alarms")})


# -- a day ---------------------------------------------------------------------------------


def run_day(
    steps: list[Step],
    work: Path,
    seed: int,
    *,
    floor: bool = True,
    progress: Callable[[str], None] | None = None,
) -> Figures:
    """Run ``steps``; DayFailed (with ``step`` set) when a promise broke."""
    started = time.monotonic()
    casino = Casino(work, seed, floor=floor)
    runner = Runner(casino)
    try:
        casino.open()
        runner.check_board()
        for index, step in enumerate(steps):
            casino.step_index = index
            try:
                runner.run(step)
            except DayFailed as failed:
                failed.step = index
                raise
            if progress is not None and index % 100 == 0:
                progress(
                    f"step {index}/{len(steps)}: {casino.figures.hands} hands, {casino.figures.kills} power cuts, {time.monotonic() - started:.0f} s"
                )
        casino.step_index = len(steps)
        runner.idle()
        time.sleep(1.0 if floor else 0)
        status = casino.t.stop()
        if status != 0:
            raise DayFailed("clean stop", f"exit {status}", len(steps))
        if floor:
            drain(casino)
        runner.check("at the end", final=True)
    except DayFailed as failed:
        if failed.step is None:
            failed.step = casino.step_index
        raise
    finally:
        casino.close()
    figures = casino.figures
    figures.steps = len(steps)
    figures.shifts_closed = len(casino.folded.ledger.closed)  # a power cut's among them
    with Journal.open_readonly(casino.state) as journal:
        figures.events = journal.last_seq
    figures.seconds = time.monotonic() - started
    return figures


def drain(casino: Casino) -> None:
    """The table's last messages reach the consumer: it starts once more and stops once
    it has journalled what a start brings (its devices' first readings, the tray's and
    the puck's: nothing new for ``QUIET`` s) and sent its whole outbox. A reading
    journalled while it stops leaves its messages unsent, for the next start (the
    publisher's stop): then it starts again, three times at most."""
    for _ in range(3):
        casino.start_table()
        casino.figures.restarts -= 1  # not one of the day's
        wait_sent(casino)
        casino.t.stop()
        if not outbox_left(casino.state)[0]:
            return


def outbox_left(state: Path) -> tuple[int, int, int]:
    """The outbox's unsent messages, its last message's id, and the journal's last seq."""
    with Journal.open_readonly(state) as journal, journal.mutex:
        (unsent,) = journal.connection.execute(
            "SELECT COUNT(*) FROM outbox WHERE sent = 0"
        ).fetchone()
        (top,) = journal.connection.execute("SELECT MAX(id) FROM outbox").fetchone()
        return int(unsent), int(top or 0), journal.last_seq


def wait_sent(casino: Casino) -> None:
    """Until the table has been quiet for ``QUIET`` s with its whole outbox sent and
    heard by the consumer (``WAIT`` s at most: the final check then names what is
    missing)."""
    deadline = time.monotonic() + WAIT
    seen, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        unsent, top, last = outbox_left(casino.state)
        if last != seen:
            seen, since = last, time.monotonic()
        with casino.lock:
            heard = casino.received[-1] if casino.received else 0
        if not unsent and heard >= top and time.monotonic() - since >= QUIET:
            return
        time.sleep(POLL)


@contextlib.contextmanager
def workdir(keep: Path | None, under: Path | None = None) -> Iterator[Path]:
    """``keep``, or a temporary folder (in ``under``: ``--tmpfs``)."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    with tempfile.TemporaryDirectory(prefix="casino-day-", dir=under) as temp:
        yield Path(temp)


def fails_the_same(
    seed: int, floor: bool, check: str, under: Path | None = None
) -> Callable[[list[Step]], bool]:
    def trial(steps: list[Step]) -> bool:
        with workdir(None, under) as work:
            try:
                run_day(steps, work, seed, floor=floor)
            except DayFailed as failed:
                return failed.check == check
        return False

    return trial


def shrink(steps: list[Step], fails: Callable[[list[Step]], bool], budget: float) -> list[Step]:
    """Delta debugging (ddmin): drop chunks of the list while it still fails, halving
    the chunks, until no single step can go or the time budget is spent. The list ends
    with the step that broke; most breaks need only the few steps before it (a power
    cut, then the step it disturbed), so the last 2, 4, 8 ... steps are tried first:
    short runs, where a trial of half a day would spend the budget at once."""
    deadline = time.monotonic() + budget
    for keep in (2**n for n in range(1, 64)):
        if keep >= len(steps) or time.monotonic() >= deadline:
            break
        if fails(steps[-keep:]):
            steps = steps[-keep:]
            break
    chunks = 2
    while len(steps) > 1 and time.monotonic() < deadline:
        size = max(1, len(steps) // chunks)
        for start in range(0, len(steps), size):
            trial = steps[:start] + steps[start + size :]
            if trial and time.monotonic() < deadline and fails(trial):
                steps = trial
                chunks = max(chunks - 1, 2)
                break
        else:
            if size == 1:
                break
            chunks = min(len(steps), chunks * 2)
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--hands-per-day", type=int, default=0, help="default: a day's worth (320)")
    parser.add_argument(
        "--no-floor", action="store_true", help="no floor: section (no broker, board)"
    )
    parser.add_argument("--steps", type=Path, help="run these steps (one a line) instead of a plan")
    parser.add_argument("--shrink-seconds", type=float, default=600.0)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument(
        "--tmpfs",
        action="store_true",
        help=f"work in {SHM} (memory): the journal's writes cost no disk flush",
    )
    args = parser.parse_args(argv)
    if args.tmpfs and args.keep is not None:
        parser.error(f"--tmpfs works in a temporary folder: give --keep a folder in {SHM} instead")
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    if args.steps is not None:
        steps = [Step.parse(line) for line in args.steps.read_text().splitlines() if line.strip()]
    else:
        steps = plan(seed, args.days, args.hands_per_day)
    floor = not args.no_floor

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    try:
        with workdir(args.keep, SHM if args.tmpfs else None) as work:
            figures = run_day(steps, work, seed, floor=floor, progress=say)
    except DayFailed as failed:
        step = (
            steps[failed.step]
            if failed.step is not None and failed.step < len(steps)
            else "the end"
            if failed.step is not None
            else "the start"
        )
        print(f"FAILED seed {seed}, step {failed.step} ({step}): {failed}")
        cut = steps[: (failed.step or 0) + 1]
        trial = fails_the_same(seed, floor, failed.check, SHM if args.tmpfs else None)
        small = shrink(cut, trial, args.shrink_seconds)
        print(f"seed {seed}: {len(small)} step(s) still fail the {failed.check} check:")
        print(" ".join(str(s) for s in small))
        return 1
    print(report(seed, args.days, floor, figures))
    return 0


def report(seed: int, days: int, floor: bool, f: Figures) -> str:
    lines = [
        f"seed {seed}: {days} day(s){'' if floor else ' without the floor link'} in {f.seconds:.0f} s: "
        f"{f.steps} steps, {f.events} events, {f.hands} hands, {f.restarts - 1} restarts "
        f"({f.kills} power cuts), {f.reseats} device reseats, {f.shifts_closed} shift changes, "
        f"{f.pushes} pushes, {f.tips} tips, {f.reloads} reloads, {f.broker_outages} broker outages; "
        f"{f.checks} checks held"
        + (f"; {f.messages} floor messages, {f.duplicates} duplicates dropped" if floor else "")
    ]
    lines.append(
        "seconds by step: "
        + ", ".join(
            f"{kind} {f.kinds[kind]}x {f.spent[kind] / 1000:.1f}"
            for kind, _ in f.spent.most_common()
        )
    )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
