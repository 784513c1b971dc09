"""One table of ``bench/casino_day.py``: the real daemon (``tablectl run``'s ``Daemon``,
its loop, journal, recovery, floor publisher and drivers) on simulated devices, with its
time on a clock the day moves (``tests/mock_clock.py``), driven by JSON commands on
standard input, one a line, each answered on standard output once the loop has taken
it (``{"ok": ..., "seq": N, "view": {...}, "fault": ..., "display": [...]}``).

    python bench/casino_table.py --config table.yaml

It is ``tablectl bench``'s session (``controller.bench.session.Bench``: keypad keys as
the keypad's bytes through the real serial driver, the puck and the door on gpiozero's
mock pins, buy-ins paid from the simulated tray) without a screen, so that the day can
SIGKILL it at any moment as a power cut does. SIGHUP re-reads the configuration, as
``tablectl run`` does; SIGTERM (or the ``quit`` command) stops it cleanly.

Commands (``op``): ``view``; ``keys`` (``keys``: names); ``sit`` (``seat``, ``player``,
``chips``); ``buy`` (``seat``, ``amount``); ``hand`` (``seed``: the bench demo's dealer
plays one hand on the keypad, seating players first when fewer than two sit);
``unplug``/``replug`` (``device``: keypad, tray, display); ``puck`` (``seat``; 0 lifts
it; ``seats``: a list seen at once, a sensor fault); ``door`` (``open``); ``jump``
(``seconds`` of table time); ``quit``.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import signal
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.bench.demo import Demo, DemoStopped  # noqa: E402
from controller.bench.script import settle  # noqa: E402
from controller.bench.session import Bench  # noqa: E402
from controller.config import load_config  # noqa: E402
from controller.daemon.process import setup_logging, unbuffered_stdin  # noqa: E402
from controller.lines import read_lines  # noqa: E402
from tests.mock_clock import MockClock  # noqa: E402

WAIT = 10.0
# a process still there this long after SIGTERM writes its threads' stacks to its log
# (standard error), for the day's ``clean stop`` check, which gives up at 30 s
STACKS_AFTER = 20.0
UNSETTLED = ("view", "hand", "deal")  # nothing queued, or already waited for
# pins whose reading reaches the queue once it has held for the debounce time (real
# time): as before, the queue emptied and a moment (0.2 s at most) for the loop
DEBOUNCED = ("puck", "door")


class Barrier:
    """Put on the loop's queue behind what a command queued: reached once the loop has
    handled everything before it (``LoopClock``)."""

    def __init__(self) -> None:
        self.reached = threading.Event()


class LoopClock(MockClock):
    """The day's clock, which also tells when the loop has handled what was queued: a
    ``Barrier`` taken off the queue wakes the loop as an instant come would (it looks
    at the time, does what is due), and is reached when the loop next waits, so every
    input before it, and what the time brought (a ``jump``'s ticks), is handled."""

    def __init__(self) -> None:
        super().__init__()
        self._taken: list[Barrier] = []  # only the loop's thread touches it

    def next_input(self, inputs: Any, until_ns: int | None) -> Any | None:
        while self._taken:
            self._taken.pop().reached.set()
        item = super().next_input(inputs, until_ns)
        if isinstance(item, Barrier):
            self._taken.append(item)
            return None
        return item


class Table:
    def __init__(self, config: str) -> None:
        settings = load_config(config)
        setup_logging(settings.logging.level)
        self.clock = LoopClock()
        self.bench = Bench(settings, config_path=config, clock=self.clock)
        self.lock = threading.Lock()

    def answer(self, problem: str | None = None) -> dict[str, Any]:
        shown = self.bench.last_shown()
        controller = self.bench.daemon.controller
        recorder = controller.recorder if controller is not None else None
        display = self.bench.sim.display
        return {
            "ok": problem is None,
            "error": problem,
            "seq": recorder.last_seq if recorder is not None else None,
            "view": shown.view if shown is not None else None,
            "fault": shown.fault if shown is not None else "not started",
            "device_faults": dict(shown.device_faults) if shown is not None else {},
            "display": [display.shown.line1, display.shown.line2] if display is not None else [],
        }

    def run(self, command: dict[str, Any]) -> str | None:
        op = command.get("op")
        bench = self.bench
        if op == "view":
            return None
        if op == "keys":
            return bench.press(*command["keys"], wait=WAIT)
        if op == "sit":
            outcome = bench.sit(command["seat"], command["player"], command["chips"])
            return None if outcome.ok else str((outcome.error or {}).get("message"))
        if op == "buy":
            outcome = bench.buy_chips(command["seat"], command["amount"])
            return None if outcome.ok else str((outcome.error or {}).get("message"))
        if op == "hand":
            return self.hand(int(command.get("seed", 0)))
        if op == "deal":
            return self.deal()
        if op in ("unplug", "replug"):
            return self.plug(command["device"], op == "replug")
        if op == "puck":
            return self.puck(command)
        if op == "door":
            said = bench.set_door(bool(command["open"]))
            return None if said.startswith("door ") else said
        if op == "jump":
            self.clock.jump(float(command["seconds"]))
            return None
        return f"unknown command {op!r}"

    def puck(self, command: dict[str, Any]) -> str | None:
        puck = self.bench.sim.puck
        if puck is None:
            return "no puck sensor"
        if "seats" in command:
            puck.see(command["seats"])
        elif command.get("seat"):
            puck.place(int(command["seat"]))
        else:
            puck.lift()
        return None

    def plug(self, name: str, plugged: bool) -> str | None:
        """Pull a cable out or plug it back, and wait until the driver has seen it."""
        device = getattr(self.bench.sim, name)
        if device.plugged != plugged:
            self.bench.toggle_plug(name)
        driver = getattr(self.bench.daemon.devices, name)
        deadline = time.monotonic() + WAIT
        while bool(driver.connected) != plugged:
            if time.monotonic() > deadline:
                return f"the {name} driver did not see its cable {'back' if plugged else 'go'}"
            time.sleep(0.02)
        # the driver puts its fault (or its clearing) on the queue just after: the loop
        # has handled it once it shows it
        while True:
            settled(self.bench)
            shown = self.bench.last_shown()
            if shown is None or shown.fault is not None:
                return None  # locked: no device faults shown (the day stops on it)
            if (name in shown.device_faults) != plugged:
                return None
            if time.monotonic() > deadline:
                return f"the loop did not show the {name}'s cable {'back' if plugged else 'out'}"

    def deal(self) -> str | None:
        """The next hand dealt (the puck moved, NEXT), its actions left to the caller."""
        try:
            Demo(self.bench, hands=0, pace=0.0).deal()
        except DemoStopped as stopped:
            return f"no hand dealt: {stopped}"
        return None

    def hand(self, seed: int) -> str | None:
        """One hand keyed as the bench's demo dealer keys it (players seated first when
        fewer than two sit)."""
        demo = Demo(self.bench, hands=0, pace=0.0, seed=seed)
        try:
            view = self.bench.view()
            if view is None or len(view["seats"]) < 2:
                demo.seat_players()
            demo.play_hand()
        except DemoStopped as stopped:
            return f"the hand stopped: {stopped}"
        return None


def settled(bench: Bench) -> None:
    """The loop has handled all that was queued (a command's inputs, the clock's
    wake-up and what the new time brought): a barrier put now is reached, and nothing
    is left (a tray reading held back, ``InputQueue``, lets the barrier pass it). Keys
    are queued before the keypad has them acknowledged (``press(wait=)``). A loop not
    running is not waited for."""
    deadline = time.monotonic() + WAIT
    while bench.alive and time.monotonic() < deadline:
        barrier = Barrier()
        bench.daemon.inputs.put(barrier)
        barrier.reached.wait(max(0.0, deadline - time.monotonic()))
        if bench.daemon.inputs.empty():
            return
        time.sleep(0.01)  # a held tray reading: its turn comes within 0.25 s


#: taken by the main thread with ``sigwait``, blocked in every other thread, as ``tablectl
#: run`` takes them (``controller.daemon.process``): a SIGTERM the kernel gave to another
#: thread left the main thread blocked reading standard input, and the table never
#: stopped (seed 11 of a full day, the 30-day run's day 11; 1 clean stop in 125)
SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1)


def serve(table: Table, lines: Iterable[bytes], out: IO[str], lock: threading.Lock) -> None:
    """The commands, a JSON line each, each answered on ``out`` (under ``lock``)."""
    with lock:
        out.write(json.dumps(table.answer()) + "\n")
        out.flush()
    for line in lines:
        command = json.loads(line)
        if command.get("op") == "quit":
            return
        try:
            problem = table.run(command)
        except (KeyError, ValueError, AttributeError, TypeError) as error:
            problem = f"{type(error).__name__}: {error}"
        if command.get("op") in DEBOUNCED:
            settle(table.bench)
        elif command.get("op") not in UNSETTLED:
            settled(table.bench)
        with lock:
            out.write(json.dumps(table.answer(problem)) + "\n")
            out.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)  # before any thread starts
    table = Table(args.config)
    table.bench.start()
    main_thread = threading.get_ident()
    answering = threading.Lock()

    def commands() -> None:
        try:
            serve(table, read_lines(unbuffered_stdin()), sys.stdout, answering)
        finally:  # the end of standard input, or ``quit``: stop as SIGTERM does
            signal.pthread_kill(main_thread, signal.SIGUSR1)

    threading.Thread(target=commands, name="commands", daemon=True).start()
    try:
        while signal.sigwait(SIGNALS) == signal.SIGHUP:
            table.bench.daemon.reload()
        faulthandler.dump_traceback_later(STACKS_AFTER, exit=False)
    finally:
        answering.acquire()  # no answer half written when the process ends
        table.bench.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
