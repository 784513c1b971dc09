"""The bench's keyboard: which computer key is which dealer-keypad key, and the rest.

One table, ``KEYPAD``, maps keys to the dealer keypad; ``BENCH`` lists the bench's own
keys. The screen's help lines are made from these tables, so what is shown is what is
bound.
"""

from __future__ import annotations

import curses

#: computer key -> dealer keypad key (digits map to themselves)
KEYPAD: dict[str, str] = {
    "f": "FOLD",
    "c": "CHECK",
    "b": "BET",
    "a": "ALLIN",
    "k": "CLOCK",
    "n": "NEXT",
    "F": "FUNC",
    "x": "CLEAR",
    "\n": "ENTER",
    **{str(digit): str(digit) for digit in range(10)},
}

ENTER_CODES = (10, 13, curses.KEY_ENTER)
BACKSPACE_CODES = (8, 127, curses.KEY_BACKSPACE, curses.KEY_DC)
ESCAPE = 27

#: the help lines' words: (what to type, what it does)
KEYPAD_HELP: tuple[tuple[str, str], ...] = (
    ("f", "FOLD"),
    ("c", "CHECK"),
    ("b", "BET"),
    ("0-9", ""),
    ("Ent", "ENTER"),
    ("a", "ALLIN"),
    ("x", "CLEAR"),
    ("k", "CLOCK"),
    ("n", "NEXT"),
    ("F", "FUNC"),
)
BENCH_HELP: tuple[tuple[str, str], ...] = (
    ("p<n>", "puck"),
    ("l", "lift"),
    ("t", "chip"),
    ("+/-", "tray"),
    ("r", "balance"),
    ("u", "unplug"),
    ("o", "door"),
    ("s", "seat"),
    ("q", "quit"),  # before demo: at 80 columns the line ends there, and quit must show
    ("d", "demo"),
)

#: after ``u``: which serial device's cable to pull or plug back
UNPLUG: dict[str, str] = {"k": "keypad", "t": "tray", "d": "display"}


def keypad_key(code: int) -> str | None:
    """The dealer-keypad key a computer key stands for, or None."""
    if code in ENTER_CODES:
        return "ENTER"
    if code in BACKSPACE_CODES:
        return "CLEAR"
    if 0 <= code < 256:
        return KEYPAD.get(chr(code))
    return None


def help_line(title: str, items: tuple[tuple[str, str], ...], width: int) -> str:
    """``title`` and as many ``key=WORD`` items as fit in ``width`` columns."""
    line = title
    for key, word in items:
        item = f" {key}={word}" if word else f" {key}"
        if len(line) + len(item) > width:
            break
        line += item
    return line
