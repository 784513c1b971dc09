"""A single-table tournament played on the bench, end to end: the real daemon on
simulated devices (``bench/casino_table.py``, as the casino day runs it: the keypad's
bytes through the real serial driver, the display's through the real display driver,
the journal on SQLite, the floor link to a real Mosquitto), its time on a mock clock.

Four players (rules T1-T8): the level clock started behind the supervisor's PIN; a
player away folded at the deal and blinded off until he goes out (T3, T4); a bust-out
with its place (T4); a rebuy in the rebuy levels and the add-on at the break that ends
them (T6); the levels going up, the break counting down, a colour-up (T1, T7); a power
cut mid-hand in level 3, after which the level clock resumes with the time of its last
journalled tick; played down to one player. The state, the dealer display and the
floor's ``level`` and ``elimination`` messages are checked exactly at each step, and
``tablectl meters`` at the end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller import supervisor_pins
from controller.floor.consumer import FloorMessage, Subscriber
from tests.bench_harness import load_bench
from tests.localbroker import LocalBroker

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
WAIT = 15.0
SUPERVISOR = ["FUNC", "0", "1", "0", "4", "2", "ENTER", "2", "4", "6", "8", "ENTER"]

CONFIG = """\
table: {{id: T7, seats: 9}}
game: {{structure: no_limit, smallest_chip: 5, big_blind: 10, button: dead,
        first_button: last_seat}}
clock: {{seconds: 60, warning: 10, on_expiry: fold}}
fees: {{mode: none}}
supervisor: {{pin_file: {pins}}}
hardware:
  simulated: true
  pin_factory: mock
  lights: {{pins: {{1: 16, 2: 17, 3: 18, 4: 19, 5: 20, 6: 21, 7: 22, 8: 23, 9: 24}}}}
journal: {{state_dir: {state}}}
logging: {{level: INFO}}
floor: {{site: east, host: 127.0.0.1, port: {port}}}
tournament:
  id: BENCH-1
  starting_stack: 1000
  single_table: true
  levels:
    - {{minutes: 2, small_blind: 5, big_blind: 10, smallest_chip: 5}}
    - {{minutes: 2, small_blind: 10, big_blind: 20, ante: 5, smallest_chip: 5}}
    - {{minutes: 2, small_blind: 25, big_blind: 50, ante: 25, smallest_chip: 25}}
  breaks: {{2: 1}}
  rebuy_levels: 2
  rebuy_chips: 1000
  add_on_chips: 1000
"""


class Session:
    """The table's process, the floor's messages, and the steps of the session."""

    def __init__(self, work: Path, broker: LocalBroker) -> None:
        self.work = work
        self.day = load_bench("casino_day")
        pins = work / "pins"
        supervisor_pins.save_pins(pins, {"1042": supervisor_pins.hash_pin("2468", n=2**4)})
        self.config = work / "t.yaml"
        self.config.write_text(CONFIG.format(pins=pins, state=work / "state", port=broker.port))
        self.log = (work / "daemon.log").open("a")
        self.env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.heard: list[dict[str, Any]] = []
        self.heard_before_cut = 0  # how many messages the floor had when the power went
        self.lock = threading.Lock()
        self.subscriber = Subscriber(
            "127.0.0.1",
            broker.port,
            "casino/east/table/T7/#",
            self._hear,
            client_id="floor-system",
            persistent=True,
        )
        self.subscriber.start()
        self.table = self.day.TableProcess(self.config, self.log, self.env)

    def _hear(self, message: FloorMessage) -> None:
        if message.payload is not None:
            with self.lock:
                self.heard.append(dict(message.payload))

    def close(self) -> None:
        if self.table.proc.poll() is None:
            self.table.stop()
        self.subscriber.stop()
        self.log.close()

    def power_cut(self) -> None:
        """SIGKILL, then the table started again on the same journal, at a new clock."""
        with self.lock:
            self.heard_before_cut = len(self.heard)
        self.table.kill()
        self.table = self.day.TableProcess(self.config, self.log, self.env)

    def ask(self, **command: Any) -> dict[str, Any]:
        answer = self.table.ask(**command)
        assert answer["ok"], f"{command}: {answer['error']}"
        return answer

    def keys(self, *keys: str) -> None:
        self.ask(op="keys", keys=list(keys))

    def until(self, what: str, condition: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first answer to ``view`` for which ``condition`` holds (the loop and the
        display's driver catch up with a jump of the clock in their own time)."""
        deadline = time.monotonic() + WAIT
        while True:
            answer = self.ask(op="view")
            if answer["view"] is not None and condition(answer):
                return answer
            assert time.monotonic() < deadline, f"not within {WAIT} s: {what}: {answer}"
            time.sleep(0.05)

    def shows(self, line1: str, line2: str) -> dict[str, Any]:
        """Wait until the dealer display shows exactly these two lines; the view then."""
        answer = self.until(
            f"the display {line1!r} {line2!r}", lambda a: a["display"] == [line1, line2]
        )
        return dict(answer["view"])

    def floor(self, kinds: tuple[str, ...] = ("level", "elimination")) -> list[dict[str, Any]]:
        """The floor's messages of ``kinds`` so far, without their envelope."""
        envelope = ("v", "ts", "ts_ns", "clock_synced", "site", "table_id", "seq", "msg_seq")
        with self.lock:
            heard = [dict(p) for p in self.heard if p.get("kind") in kinds]
        return [{k: v for k, v in p.items() if k not in envelope} for p in heard]


def seats(view: dict[str, Any]) -> dict[str, tuple[int, str]]:
    return {seat: (s["stack"], s["status"]) for seat, s in view["seats"].items()}


def level(n: int, sb: int, bb: int, ante: int, why: str, ms: int, **more: Any) -> dict[str, Any]:
    return {
        "kind": "level",
        "level": n,
        "small_blind": sb,
        "big_blind": bb,
        "ante": ante,
        "break": False,
        "paused": False,
        "why": why,
        "level_ms_left": ms,
        "by": None,
        "tournament_id": "BENCH-1",
        **more,
    }


def out(hand: int, seat: int, player: str, stack: int, place: int, left: int) -> dict[str, Any]:
    return {
        "kind": "elimination",
        "hand": hand,
        "seat": seat,
        "player": player,
        "stack_at_start": stack,
        "place": place,
        "players_left": left,
        "tournament_id": "BENCH-1",
    }


FLOOR_LEVEL_1 = [level(1, 5, 10, 0, "start", 120_000, hand=0, by="1042")]
FLOOR_CY_OUT = [*FLOOR_LEVEL_1, out(1, 5, "cy", 1000, 4, 3)]
FLOOR_LEVEL_2 = [*FLOOR_CY_OUT, level(2, 10, 20, 5, "clock", 120_000, hand=1)]
FLOOR_DEE_OUT = [*FLOOR_LEVEL_2, out(5, 7, "dee", 15, 3, 2)]
FLOOR_LEVEL_3 = [
    *FLOOR_DEE_OUT,
    level(3, 25, 50, 25, "break", 60_000, hand=5, **{"break": True}),
    level(3, 25, 50, 25, "clock", 120_000, hand=5),
]
FLOOR_BOB_OUT = [*FLOOR_LEVEL_3, out(6, 3, "bob", 2025, 2, 1)]


def level_1(s: Session) -> None:
    """Four players, dee away; the clock started; hand 1: dee, on the button, owes
    nothing and is folded at the deal (T3); cy goes out, 4th (T4); bob rebuys (T6)."""
    for seat, player, chips in (
        (1, "ana", 1000),
        (3, "bob", 1000),
        (5, "cy", 1000),
        (7, "dee", 60),
    ):
        s.ask(op="sit", seat=seat, player=player, chips=chips)
    s.keys("FUNC", "2", "7", "ENTER")
    s.keys(*SUPERVISOR, "0", "1")
    s.shows("START THE LEVEL CLOCK?", "ENTER=YES CLEAR=NO")
    s.keys("ENTER")
    s.shows("READY", "LEVEL 1 5/10 2:00")
    s.ask(op="jump", seconds=20)
    view = s.shows("READY", "LEVEL 1 5/10 1:40")  # counting down between the ticks
    assert view["tournament"]["level_ms_left"] == 120_000  # no tick yet: the rules' time
    s.keys("NEXT")
    view = s.shows("SEAT 5 TO ACT", "CALL 10")
    assert (view["hand"], view["button"], view["small_blind"], view["big_blind"]) == (1, 7, 1, 3)
    assert seats(view) == {
        "1": (995, "playing"),
        "3": (990, "playing"),
        "5": (1000, "playing"),
        "7": (60, "folded"),
    }
    s.keys("ALLIN")
    s.keys("CHECK")
    s.keys("FOLD")
    s.shows("SHOWDOWN: WINNING SEAT, ENTER", "SHOW: 5 1")
    s.keys("1", "ENTER", "ENTER")
    view = s.shows("PAY SEAT 1: 2010", "SEAT 5 OUT: 4TH  NEXT: DEAL")
    assert seats(view) == {"1": (2010, "playing"), "3": (990, "playing"), "7": (60, "sitting_out")}
    assert view["tournament"]["eliminated"] == [
        {"player": "cy", "hand": 1, "stack_at_start": 1000, "place": 4}
    ]
    s.keys("FUNC", "5", "3", "ENTER", "1", "0", "0", "0", "ENTER")  # at most 1000: a rebuy
    view = s.until("bob's rebuy", lambda a: a["view"]["seats"]["3"]["stack"] == 1990)
    assert view["view"]["meters"]["rebuys"] == 1
    s.until("the floor", lambda a: s.floor() == FLOOR_CY_OUT)


def level_2(s: Session) -> None:
    """Level 2 (ante 5 each) from the next hand; dee, away, posts and is folded at her
    turn until her blinds and ante take her last chips: she goes out, 3rd."""
    s.ask(op="jump", seconds=100)
    view = s.shows("PAY SEAT 1: 2010", "LEVEL 2 NEXT HAND: 10/20 A5")
    assert (view["tournament"]["level"], view["tournament"]["level_ms_left"]) == (2, 120_000)
    s.keys("NEXT")  # hand 2: dee in the big blind, 20 and her ante
    view = s.shows("SEAT 1 TO ACT  AWAY: 7", "CALL 20")
    assert seats(view) == {"1": (2005, "playing"), "3": (1975, "playing"), "7": (35, "playing")}
    s.keys("FOLD")
    s.keys("CHECK")  # bob calls: the action reaches dee, folded
    view = s.shows("PAY SEAT 3: 55", "MAIN POT  NEXT: DEAL")
    assert seats(view) == {"1": (2005, "playing"), "3": (2020, "playing"), "7": (35, "sitting_out")}
    for hand, act, left in ((3, "FOLD", 20), (4, "FOLD", 15)):
        s.ask(op="jump", seconds=10)
        s.keys("NEXT")
        view = s.until(f"hand {hand}", lambda a, hand=hand: a["view"]["hand"] == hand)["view"]
        assert view["seats"]["7"]["stack"] == left
        s.keys(act)
    s.ask(op="jump", seconds=10)
    s.keys("NEXT")  # hand 5: her ante and 10 of the big blind, all in
    view = s.shows("SEAT 1 TO ACT  AWAY: 7", "CALL 20")
    assert view["seats"]["7"] == {**view["seats"]["7"], "stack": 0, "status": "all_in"}
    for _ in range(8):  # ana and bob check it down
        s.keys("CHECK")
    s.shows("SHOWDOWN: WINNING SEAT, ENTER", "SHOW: 3 7 1  NEXT: POTS")
    s.keys("1", "ENTER", "ENTER")
    view = s.shows("PAY SEAT 1: 45", "MAIN POT 1/2  NEXT: MORE")
    assert seats(view) == {"1": (2050, "playing"), "3": (2010, "playing")}
    assert view["tournament"]["eliminated"][1:] == [
        {"player": "dee", "hand": 5, "stack_at_start": 15, "place": 3}
    ]
    s.until("the floor", lambda a: s.floor() == FLOOR_DEE_OUT)


def the_break(s: Session) -> None:
    """Level 2 runs out into the break (no hand, the rebuys' last chance): ana's add-on;
    the break counts down, then level 3 with its colour-up."""
    s.ask(op="jump", seconds=90)
    s.until("the break", lambda a: a["view"]["tournament"]["break"])
    s.keys("FUNC", "5", "1", "ENTER", "1", "0", "0", "0", "ENTER")
    s.keys("NEXT")  # the last payout page: on a break, the break's lines
    view = s.shows("BREAK 1:00", "LEVEL 3 NEXT HAND: 25/50 A25")
    assert (view["meters"]["add_ons"], view["seats"]["1"]["stack"]) == (1, 3050)
    s.keys("NEXT")
    s.shows("BREAK 1:00", "NO: ON A BREAK: NO HAND")
    s.keys("CLEAR")  # the payouts from their first page again, then the break's
    s.shows("PAY SEAT 1: 45", "MAIN POT 1/2  NEXT: MORE")
    s.keys("NEXT")
    s.shows("BREAK 1:00", "LEVEL 3 NEXT HAND: 25/50 A25")
    s.ask(op="jump", seconds=25)
    s.shows("BREAK 0:35", "LEVEL 3 NEXT HAND: 25/50 A25")
    s.ask(op="jump", seconds=35)
    view = s.shows("PAY SEAT 1: 20", "LEVEL 3 NEXT HAND: 25/50 A25")
    assert (view["tournament"]["level"], view["tournament"]["break"]) == (3, False)
    s.until("the floor", lambda a: s.floor() == FLOOR_LEVEL_3)


def level_3_power_cut(s: Session) -> None:
    """Hand 6 at level 3 (bob's 2010 coloured up to 2025); 70 s on, a tick tells the
    level clock; 20 s later the power goes. Back on: the hand goes on, the level clock
    with the time of its last tick (50 s left; the 20 s since are given back)."""
    s.keys("NEXT")
    view = s.shows("SEAT 3 TO ACT", "CALL 25")
    assert seats(view) == {"1": (2975, "playing"), "3": (1975, "playing")}
    assert view["meters"]["coloured_up"] == 15
    s.ask(op="jump", seconds=70)
    s.until("the minute's tick", lambda a: a["view"]["tournament"]["level_ms_left"] == 50_000)
    s.ask(op="jump", seconds=20)
    s.power_cut()
    view = s.shows("SEAT 3 TO ACT: CALL 25", "POWER LOST IN HAND 6")
    assert (view["hand"], view["phase"], view["to_act"]) == (6, "preflop", 3)
    assert seats(view) == {"1": (2975, "playing"), "3": (1975, "playing")}
    tournament = view["tournament"]
    assert (tournament["level"], tournament["level_ms_left"], tournament["paused"]) == (
        3,
        50_000,
        False,
    )
    s.ask(op="jump", seconds=5)
    s.keys("ALLIN")  # told before the input: 45 s left
    view = s.until("bob all in", lambda a: a["view"]["to_act"] == 1)["view"]
    assert view["tournament"]["level_ms_left"] == 45_000


def played_down(s: Session) -> None:
    """Bob all in, ana calls and wins: bob 2nd, ana has won."""
    s.keys("CHECK")
    s.keys("1", "ENTER", "ENTER")
    view = s.shows("POWER LOST IN HAND 6", "PAY SEAT 1: 4050")
    assert seats(view) == {"1": (5075, "waiting")}
    assert view["tournament"]["eliminated"] == [
        {"player": "cy", "hand": 1, "stack_at_start": 1000, "place": 4},
        {"player": "dee", "hand": 5, "stack_at_start": 15, "place": 3},
        {"player": "bob", "hand": 6, "stack_at_start": 2025, "place": 2},
    ]
    s.until("the floor", lambda a: s.floor() == FLOOR_BOB_OUT)


def test_a_tournament_on_the_bench_played_down_to_one_player(
    tmp_path: Path, broker: LocalBroker
) -> None:
    session = Session(tmp_path, broker)
    try:
        level_1(session)
        level_2(session)
        the_break(session)
        level_3_power_cut(session)
        played_down(session)
    finally:
        session.close()
    assert session.floor() == FLOOR_BOB_OUT

    def msg_seqs(heard: list[dict[str, Any]]) -> list[int]:
        return [p["msg_seq"] for p in heard if isinstance(p.get("msg_seq"), int)]

    before_cut = msg_seqs(session.heard[: session.heard_before_cut])
    assert before_cut == sorted(set(before_cut)), "a message twice or out of order"
    # The power cut may send again what was in flight (QoS 1): the floor drops a copy by
    # its msg_seq. What is left is every message, once and in order.
    firsts = list(dict.fromkeys(msg_seqs(session.heard)))  # where each was first heard
    assert firsts == list(range(1, len(firsts) + 1)), "the floor missed a message or misordered it"
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller",
            "meters",
            "--state-dir",
            str(tmp_path / "state"),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    meters = json.loads(report.stdout)
    assert {k: meters[k] for k in ("entries", "rebuys", "add_ons", "eliminations")} == {
        "entries": 4,
        "rebuys": 1,
        "add_ons": 1,
        "eliminations": 3,
    }
    assert (meters["coloured_up"], meters["players_left"], meters["winner"]) == (15, 1, "ana")
    assert [(e["player"], e["place"]) for e in meters["eliminated"]] == [
        ("cy", 4),
        ("dee", 3),
        ("bob", 2),
    ]
