"""The largest amounts the table handles (docs/replay.md, docs/configuration.md).

One bound for every amount of money in chip units: a buy-in, a seat's stack, a bet, a
chip value, a tray movement, and every amount option of the configuration. It is far
beyond any table's needs, and ten seats' stacks together stay well inside ``±2^53``,
the range of numbers an input line may hold (docs/replay.md, bad lines), so every figure
the table shows is exact in JSON and in SQLite.
"""

from __future__ import annotations

MAX_AMOUNT = 10**12

#: The longest dealer's or supervisor's id an event's ``by`` may hold (the keypad's
#: ids have at most 12 digits), and the longest player's name: both are shown on the
#: 40-column display, journalled, sent to the floor and printed in recall.
MAX_ID_CHARS = 32
MAX_NAME_CHARS = 40

#: A supervisor's PIN: at least ``MIN_PIN_DIGITS`` digits (``supervisor.pin_digits``
#: may ask for more), at most ``MAX_PIN_DIGITS``, the longest code the keypad takes.
MIN_PIN_DIGITS = 4
MAX_PIN_DIGITS = 12
