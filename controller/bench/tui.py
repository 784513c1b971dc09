"""The bench's terminal screen (curses, from the standard library).

The screen redraws ten times a second: ``getch`` waits at most 100 ms for a key, so the
loop sleeps in the terminal driver instead of spinning, and curses sends only what
changed (cheap over SSH). A resize (``KEY_RESIZE``) just changes the size the next
frame is drawn for. Keys are handled in ``App.key``: keypad keys go to the simulated
keypad (``Bench.press``), the others move the puck, change the tray, pull cables and
run the demo; the help lines on the screen come from the same tables
(``controller.bench.keys``).
"""

from __future__ import annotations

import contextlib
import curses
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from controller.bench.demo import Demo
from controller.bench.keys import ESCAPE, UNPLUG, keypad_key
from controller.bench.render import Canvas, UiState, render
from controller.bench.session import Bench

FRAME_MS = 100


@dataclass
class DemoOptions:
    """The bench demo: how many hands it plays and the seconds between its keys."""

    hands: int = 3
    pace: float = 0.8


class App:
    def __init__(
        self, screen: curses.window, bench: Bench, demo: DemoOptions, start_demo: bool = False
    ) -> None:
        self.screen = screen
        self.bench = bench
        self.demo_options = demo
        self.ui = UiState(message="keys below; q quits (the game is kept for the next start)")
        self.demo: Demo | None = None
        self.styles: dict[str, int] = {}
        self._painted: Canvas | None = None
        self._setup()
        if start_demo:
            self._toggle_demo()

    def _setup(self) -> None:
        screen = self.screen
        screen.keypad(True)
        screen.timeout(FRAME_MS)
        curses.set_escdelay(25)  # Esc answers at once, not after a second
        with contextlib.suppress(curses.error):  # a terminal that cannot hide it shows it
            curses.curs_set(0)
        bold, reverse, dim = curses.A_BOLD, curses.A_REVERSE, curses.A_DIM
        colours = {
            "lamp": curses.A_BOLD | curses.A_STANDOUT,
            "alarm": bold,
            "warn": bold,
            "ok": 0,
            "key": 0,
        }
        if curses.has_colors():
            curses.start_color()
            try:
                curses.use_default_colors()
                background = -1
            except curses.error:
                background = curses.COLOR_BLACK
            pairs = {
                "lamp": curses.COLOR_YELLOW,
                "alarm": curses.COLOR_RED,
                "warn": curses.COLOR_MAGENTA,
                "ok": curses.COLOR_GREEN,
                "key": curses.COLOR_CYAN,
            }
            for number, (name, colour) in enumerate(pairs.items(), start=1):
                curses.init_pair(number, colour, background)
                colours[name] = curses.color_pair(number) | (bold if name != "key" else 0)
        self.styles = {
            "title": reverse,
            "act": reverse | bold,
            "dim": dim,
            "bold": bold,
            "frame": 0,
            "": 0,
            **colours,
        }

    # -- the loop -----------------------------------------------------------------------

    def run(self) -> None:
        while True:
            self.draw()
            code = self.screen.getch()
            if code == -1:
                continue
            if code == curses.KEY_RESIZE:
                curses.update_lines_cols()
                self._painted = None
                continue
            if not self.key(code):
                break
        if self.demo is not None:
            self.demo.stop()

    def draw(self) -> None:
        rows, cols = self.screen.getmaxyx()
        if not self.bench.alive:
            self.ui.message = "the controller loop has stopped: see the log; q quits"
        canvas = render(self.bench.snapshot(), self.ui, rows, cols)
        if canvas != self._painted:  # an unchanged frame costs the terminal nothing
            paint(self.screen, canvas, self.styles)
            self._painted = canvas

    # -- keys -----------------------------------------------------------------------------

    def key(self, code: int) -> bool:
        """Handle one key; False to quit."""
        ui = self.ui
        char = chr(code) if 0 <= code < 256 else ""
        if ui.prefix is not None:
            prefix, ui.prefix = ui.prefix, None
            if code == ESCAPE:
                ui.message = "cancelled"
            elif prefix == "puck":
                ui.message = self._puck(char)
            else:
                device = UNPLUG.get(char)
                ui.message = (
                    self._background(lambda: self.bench.toggle_plug(device))
                    if device
                    else f"{char or code!r} is not k, t or d: nothing unplugged"
                )
            return True
        if char == "q":
            return False
        keypad = keypad_key(code)
        if keypad is not None:
            ui.message = self.bench.press(keypad) or f"keypad: {keypad}"
            return True
        actions: dict[str, Callable[[], str]] = {
            "p": self._ask_puck,
            "l": self._lift,
            "t": self._next_value,
            "+": lambda: self._tray(+1),
            "=": lambda: self._tray(+1),
            "-": lambda: self._tray(-1),
            "r": self.bench.balance_tray,
            "u": self._ask_unplug,
            "o": self.bench.set_door,
            "s": self._seat_players,
            "d": self._toggle_demo,
        }
        action = actions.get(char)
        if action is None:
            name = curses.keyname(code).decode(errors="replace") if code >= 0 else "?"
            ui.message = f"{name}: not a bench key (see the key lines)"
        else:
            ui.message = action()
        return True

    def _ask_puck(self) -> str:
        self.ui.prefix = "puck"
        return ""

    def _puck(self, char: str) -> str:
        if not char.isdigit():
            return "not a seat number: the puck stays"
        seat = int(char) or 10
        return self.bench.place_puck(seat) or f"puck put on seat {seat}"

    def _lift(self) -> str:
        return self.bench.lift_puck() or "puck lifted"

    def _next_value(self) -> str:
        self.ui.tray_value = self.bench.next_value()
        return f"+ and - now put in or take out chips worth {self.ui.tray_value}"

    def _tray(self, chips: int) -> str:
        value = self.ui.tray_value = self.ui.tray_value or self.bench.selected_value()
        problem = self.bench.change_tray(value, chips)
        return (
            problem
            or f"{'one' if chips > 0 else 'took one'} chip worth {value}"
            f"{' put in the tray' if chips > 0 else ' out of the tray'}"
        )

    def _ask_unplug(self) -> str:
        self.ui.prefix = "unplug"
        return ""

    def _background(self, work: Callable[[], str]) -> str:
        """Run a slow simulator request off the screen's thread; its answer shows later."""

        def run() -> None:
            self.ui.message = work()

        threading.Thread(target=run, name="bench-action", daemon=True).start()
        return "..."

    def _seat_players(self) -> str:
        if self.demo is not None and self.demo.running:
            return "the demo is running (d stops it)"
        self.demo = Demo(self.bench, hands=0, pace=0.0)
        self.demo.start()
        return "seating players"

    def _toggle_demo(self) -> str:
        if self.demo is not None and self.demo.running:
            self.demo.stop()
            return "demo stopped"
        self.demo = Demo(self.bench, hands=self.demo_options.hands, pace=self.demo_options.pace)
        self.demo.start()
        return f"demo: {self.demo_options.hands} hand(s); d stops it"


def paint(screen: curses.window, canvas: Canvas, styles: dict[str, int]) -> None:
    screen.erase()
    for row, col, text, style in canvas.pieces:
        # the bottom-right cell cannot be written without scrolling: harmless
        with contextlib.suppress(curses.error):
            screen.addstr(row, col, text, styles.get(style, 0))
    screen.refresh()


def run(bench: Bench, demo: DemoOptions, start_demo: bool = False) -> None:
    """The screen, until ``q``."""

    def main(screen: curses.window) -> None:
        App(screen, bench, demo, start_demo).run()

    # LINES and COLUMNS in the environment would pin the size and defeat resizing:
    # ncurses must ask the terminal
    for name in ("LINES", "COLUMNS"):
        os.environ.pop(name, None)
    curses.wrapper(main)
