"""The bench without a screen: a script of bench commands, then the table as text.

``tablectl bench --script FILE`` runs FILE, one command a line (``#`` comments and
blank lines skipped), and prints the screen as it would look at 80x24 after the last
one (and at every ``screen``)::

    sit 3 ana 1000          a player sits down (a rules event, as a console sends it)
    seat                    the demo's players sit down (where seats are free)
    keys NEXT CHECK         dealer-keypad keys, by name (BET 1 2 0 ENTER ...)
    puck 3 | lift           move the button puck / take it off the table
    tray 5=200 25=100       what the chip tray holds
    unplug keypad           also replug; keypad, tray or display
    door open | door close  open or close the controller's door (hardware.door)
    demo 2                  the demo plays 2 hands (default 3)
    wait 0.5                seconds
    wait-for SEAT 3 TO ACT  until the screen shows the text (10 s at most)
    screen                  print the screen now

Every command waits until the loop has had what it sent (keys received by the
driver, the queue drained), so ``screen`` shows their outcome.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import IO

from controller.bench.demo import Demo
from controller.bench.render import UiState, render
from controller.bench.session import Bench
from drivers.events import KEYS

SCREEN = (24, 80)
WAIT_FOR = 10.0
SETTLE = 0.2


class ScriptError(Exception):
    """A line of the script cannot be run: says which and why."""


def screen_text(bench: Bench, rows: int = SCREEN[0], cols: int = SCREEN[1]) -> str:
    return render(bench.snapshot(), UiState(), rows, cols).text()


def settle(bench: Bench, timeout: float = 5.0) -> None:
    """Wait until the loop has taken everything queued, and a moment for the last."""
    inputs = bench.daemon.inputs
    deadline = time.monotonic() + timeout
    while not inputs.empty() and time.monotonic() < deadline:
        time.sleep(0.01)
    controller = bench.daemon.controller
    loops = controller.loops if controller is not None else 0
    deadline = time.monotonic() + SETTLE
    while controller is not None and controller.loops == loops and time.monotonic() < deadline:
        time.sleep(0.01)


def run_script(bench: Bench, lines: Iterable[str], out: IO[str]) -> None:
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        word, _, rest = text.partition(" ")
        command = COMMANDS.get(word)
        if command is None:
            raise ScriptError(
                f"line {number}: unknown command {word!r} (known: {', '.join(sorted(COMMANDS))})"
            )
        try:
            answer = command(bench, rest.strip(), out)
        except (ValueError, IndexError) as error:
            raise ScriptError(f"line {number}: {text}: {error}") from None
        if answer:
            raise ScriptError(f"line {number}: {text}: {answer}")
        settle(bench)


def _keys(bench: Bench, rest: str, out: IO[str]) -> str | None:
    keys = rest.upper().split()
    unknown = [key for key in keys if key not in KEYS]
    if unknown:
        return f"not keypad keys: {' '.join(unknown)} (keys: {' '.join(KEYS)})"
    return bench.press(*keys, wait=WAIT_FOR)


def _sit(bench: Bench, rest: str, out: IO[str]) -> str | None:
    seat, player, chips = rest.split()
    outcome = bench.sit(int(seat), player, int(chips))
    if not outcome.ok:
        return str((outcome.error or {}).get("message"))
    return None  # the buy-in left the tray (Bench.pay_buy_ins)


def _seat(bench: Bench, rest: str, out: IO[str]) -> str | None:
    demo = Demo(bench, hands=0, pace=0.0)
    demo.run()
    return demo.error


def _demo(bench: Bench, rest: str, out: IO[str]) -> str | None:
    demo = Demo(
        bench, hands=int(rest or 3), pace=0.0, report=lambda line: print(line, file=out, flush=True)
    )
    demo.run()
    return demo.error


def _puck(bench: Bench, rest: str, out: IO[str]) -> str | None:
    return bench.place_puck(int(rest))


def _lift(bench: Bench, rest: str, out: IO[str]) -> str | None:
    return bench.lift_puck()


def _tray(bench: Bench, rest: str, out: IO[str]) -> str | None:
    counts = {}
    for item in rest.split():
        value, _, count = item.partition("=")
        counts[int(value)] = int(count)
    return bench.set_tray(counts)


def _plug(plugged: bool) -> Callable[[Bench, str, IO[str]], str | None]:
    def change(bench: Bench, rest: str, out: IO[str]) -> str | None:
        device = getattr(bench.sim, rest, None) if rest in ("keypad", "tray", "display") else None
        if device is None:
            return "name keypad, tray or display (simulated)"
        if device.plugged != plugged:
            bench.toggle_plug(rest)
        return None

    return change


def _door(bench: Bench, rest: str, out: IO[str]) -> str | None:
    if rest not in ("open", "close", "closed"):
        return "door open or door close"
    said = bench.set_door(rest == "open")
    return None if said.startswith("door ") else said


def _wait(bench: Bench, rest: str, out: IO[str]) -> str | None:
    time.sleep(float(rest))
    return None


def _wait_for(bench: Bench, rest: str, out: IO[str]) -> str | None:
    deadline = time.monotonic() + WAIT_FOR
    while rest not in screen_text(bench):
        if time.monotonic() > deadline:
            return f"not on the screen within {WAIT_FOR:g} s:\n{screen_text(bench)}"
        time.sleep(0.05)
    return None


def _screen(bench: Bench, rest: str, out: IO[str]) -> str | None:
    out.write(screen_text(bench))
    out.flush()
    return None


COMMANDS: dict[str, Callable[[Bench, str, IO[str]], str | None]] = {
    "keys": _keys,
    "sit": _sit,
    "seat": _seat,
    "demo": _demo,
    "puck": _puck,
    "lift": _lift,
    "tray": _tray,
    "unplug": _plug(False),
    "replug": _plug(True),
    "door": _door,
    "wait": _wait,
    "wait-for": _wait_for,
    "screen": _screen,
}
