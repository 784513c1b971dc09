"""The scripted demo: seats players and plays a few hands by itself.

Players sit down through rules events handed to the loop (as a floor console would),
and their buy-ins leave the chip tray. Everything else goes the way a dealer does it:
the button puck is moved to where the rules want it, and every action is keyed on the
simulated keypad (``NEXT``, ``CHECK``, ``BET 2 0 ENTER``, ``FOLD``, the winner's seat
at the showdown), so the demo exercises the same driver and keypad grammar as a
dealer's fingers. The choices come from a seeded random generator: the same demo
every time.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

from controller.bench.session import Bench

PLAYERS = ("ana", "bob", "cruz", "dee", "eli", "fay", "gus", "hal", "ivy", "jo")
SEAT_ORDER = (1, 3, 5, 7, 9, 2, 4, 6, 8, 10)
TABLE_SIZE = 5  # seated players the demo wants
STEP_TIMEOUT = 5.0
POLL = 0.005  # how often a wait looks at the table again (s): a hand is about 15 waits
MAX_PAGES = 20  # payout pages NEXT turns before it deals (a payout per seat and pot)


class DemoStopped(Exception):
    """The demo was stopped, or the table did not answer as expected."""


def digits(amount: int) -> list[str]:
    return list(str(amount))


def choose(legal: dict[str, Any], rng: random.Random) -> list[str]:
    """The keys of one plausible action: mostly checks and calls, some minimum bets and
    raises, a few folds."""
    roll = rng.random()
    raise_to = legal.get("min_raise_to")
    if legal.get("check"):
        if raise_to and roll < 0.3:
            return ["BET", *digits(int(raise_to)), "ENTER"]
        return ["CHECK"]
    if roll < 0.15:
        return ["FOLD"]
    if raise_to and roll < 0.3:
        return ["BET", *digits(int(raise_to)), "ENTER"]
    return ["CHECK"]  # calls when facing a bet


def _progress(view: dict[str, Any] | None) -> Any:
    """What changes when an action was taken."""
    if view is None:
        return None
    bets = tuple(sorted((seat, s["bet"], s["status"]) for seat, s in view["seats"].items()))
    return (view["hand"], view["phase"], view["to_act"], view["pot_total"], bets)


def _entry_open(view: dict[str, Any]) -> bool:
    """A keypad entry is unfinished (after BET, before ENTER, say)."""
    keypad = view.get("keypad") or {}
    return keypad.get("entry") is not None


class Demo:
    def __init__(
        self,
        bench: Bench,
        *,
        hands: int = 3,
        pace: float = 0.8,
        seed: int = 7,
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.bench = bench
        self.hands = hands
        self.pace = pace
        self.rng = random.Random(seed)
        self.report = report
        self.played = 0
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- control -----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="bench-demo", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def run(self) -> None:
        """The whole demo, in the calling thread."""
        try:
            self._status("demo: seating players")
            self.seat_players()
            for number in range(1, self.hands + 1):
                self._status(f"demo: hand {number} of {self.hands}")
                self.play_hand()
                self.played += 1
            self._status(
                f"demo finished: {self.played} hand(s) played" if self.hands else "players seated"
            )
        except DemoStopped as stopped:
            self.error = str(stopped) or None
            self._status(f"demo stopped{': ' + str(stopped) if str(stopped) else ''}")

    # -- steps -------------------------------------------------------------------------

    def seat_players(self) -> None:
        view = self._view()
        seated = {int(seat) for seat in view["seats"]}
        if len(seated) >= 3:
            return
        names = {s["player"] for s in view["seats"].values()}
        free = [
            seat
            for seat in SEAT_ORDER
            if seat <= self.bench.settings.rules.seats and seat not in seated
        ]
        players = [name for name in PLAYERS if name not in names]
        for seat, player in zip(free, players, strict=False):
            if len(seated) >= min(TABLE_SIZE, self.bench.settings.rules.seats):
                break
            chips = self._buy_in()
            outcome = self.bench.sit(seat, player, chips)
            if not outcome.ok:
                raise DemoStopped(f"seat {seat} refused: {(outcome.error or {}).get('message')}")
            seated.add(seat)
            self._pause()

    def deal(self) -> dict[str, Any]:
        """The next hand dealt, as the dealer does it: busted players buy chips, the puck
        goes where the rules want the button, then ``NEXT``; a hand already in play is
        left as it is. The state view after."""
        view = self._view()
        if view["phase"] != "idle":
            return view
        self._rebuy_busted(view)
        self._move_puck()
        hand = view["hand"]
        # NEXT pages the last hand's payouts first (one a page), then deals
        for _ in range(MAX_PAGES):
            view = self._next(view, hand)
            if view["hand"] > hand:
                return view
        raise DemoStopped("the hand did not start")

    def play_hand(self) -> None:
        view = self.deal()
        hand = view["hand"]
        while True:
            view = self._view()
            if view["hand"] != hand or view["phase"] == "idle":
                return
            if view["phase"] == "showdown":
                self._award(view)
                continue
            legal = view.get("legal")
            if view.get("to_act") is None or legal is None:
                self._wait_change(view, "the hand is stuck")
                continue
            self._pause()
            self._act(choose(legal, self.rng))

    def _next(self, view: dict[str, Any], hand: int) -> dict[str, Any]:
        """``NEXT``: a new hand, or the next payout page on the display."""
        shown = view["display"]
        self._keys(["NEXT"])
        return self._wait(
            lambda v: v["hand"] > hand or v["display"] != shown, "the hand did not start"
        )

    def _act(self, keys: list[str]) -> None:
        before = _progress(self._view())

        def taken(view: dict[str, Any]) -> bool:
            return not _entry_open(view) and _progress(view) != before

        self._keys(keys)
        try:
            self._wait(taken, "no answer", timeout=STEP_TIMEOUT)
        except DemoStopped:
            if self._stop.is_set():
                raise
            self._keys(["CLEAR", "FOLD"])  # a refused entry: fold is always allowed
            self._wait(taken, "the action was refused")

    def _award(self, view: dict[str, Any]) -> None:
        pots = view.get("pots") or []
        eligible = pots[-1]["eligible"] if pots else view.get("showdown_order") or []
        if not eligible:
            raise DemoStopped("nobody to award the pot to")
        winner = self.rng.choice(list(eligible))
        self._pause()
        pots_before = view.get("pots")
        self._keys([*digits(int(winner)), "ENTER", "ENTER"])
        self._wait(
            lambda v: (
                v["phase"] != "showdown" or (v.get("pots") != pots_before and not _entry_open(v))
            ),
            "the award was not taken",
        )

    def _rebuy_busted(self, view: dict[str, Any]) -> None:
        big_blind = self.bench.settings.rules.game.big_blind
        for seat, info in view["seats"].items():
            if info["stack"] < big_blind:
                self.bench.buy_chips(int(seat), self._buy_in())  # paid from the tray

    def _move_puck(self) -> None:
        shown = self.bench.last_shown()
        if shown is None or shown.puck is None or shown.puck.expected is None:
            return
        expected = shown.puck.expected
        if self.bench.puck_seat() != expected:
            self._pause()
            self.bench.place_puck(expected)
            self._wait(lambda v: v.get("puck") == expected, "the puck was not seen")

    # -- helpers -----------------------------------------------------------------------

    def _buy_in(self) -> int:
        game = self.bench.settings.rules.game
        chips = 100 * game.big_blind
        if game.max_buy_in is not None:
            chips = min(chips, game.max_buy_in)
        if game.min_buy_in is not None:
            chips = max(chips, game.min_buy_in)
        return chips

    def _keys(self, keys: list[str]) -> None:
        """Press ``keys`` and wait until the keypad driver has them all."""
        problem = self.bench.press(*keys, wait=STEP_TIMEOUT)
        if problem is not None:
            raise DemoStopped(problem)

    def _view(self) -> dict[str, Any]:
        view = self.bench.view()
        if view is None:
            raise DemoStopped("play is locked")
        return view

    def _wait(
        self, condition: Callable[[dict[str, Any]], bool], what: str, timeout: float = STEP_TIMEOUT
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            if self._stop.is_set():
                raise DemoStopped()
            view = self._view()
            if condition(view):
                return view
            if time.monotonic() > deadline:
                raise DemoStopped(what)
            self._stop.wait(POLL)

    def _wait_change(self, view: dict[str, Any], what: str) -> None:
        before = _progress(view)
        self._wait(lambda v: _progress(v) != before, what)

    def _pause(self) -> None:
        if self._stop.wait(self.pace):
            raise DemoStopped()

    def _status(self, text: str) -> None:
        self.bench.demo_status = text
        if self.report is not None:
            self.report(text)
