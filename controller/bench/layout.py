"""Where things go on the bench screen: pure arithmetic on the terminal's size.

The table is drawn as the dealer sees it from the dealer's place at the bottom: seat 1
at the dealer's left (bottom left of the screen), the seats going clockwise up the
left side, across the top and down the right side, the last seat at the dealer's
right. The middle holds the pots, the dealer display and the clock; the bottom rows
hold the tray, the devices, the messages and the keys.

The seats sit in bands: a row across the top, a column down each side, and next to
the dealer at the bottom. ``BANDS`` says how many seats each band takes, by table
size; a band's seats are spread evenly along it, so the picture grows with the
terminal. ``ring_layout`` returns None when the terminal is too small for the ring
(under 80x24): the screen then shows one line per seat.
"""

from __future__ import annotations

from dataclasses import dataclass

BOX_WIDTH = 18
BOX_HEIGHT = 3
MIDDLE_WIDTH = 42  # the dealer display's 40 characters and its frame
POT_ROWS = 3  # the pots and the seats that can win each, packed into three lines
MIDDLE_HEIGHT = 6 + POT_ROWS  # pots, the display in its frame (4), the clock, the button
MESSAGE_ROWS = 3  # the screen's answer, the demo, the daemon's latest log lines
BOTTOM_ROWS = 3 + MESSAGE_ROWS + 2  # tray, devices, the messages, a rule, two key lines
MIN_RING = (24, 80)  # rows, columns
DEALER_GAP = 20  # columns kept free for the dealer between the two bottom bands

#: seats -> (top, each side, each bottom band); top + 2 x side + 2 x bottom = seats
BANDS: dict[int, tuple[int, int, int]] = {
    1: (1, 0, 0),
    2: (0, 1, 0),
    3: (1, 1, 0),
    4: (2, 1, 0),
    5: (1, 1, 1),
    6: (2, 1, 1),
    7: (1, 2, 1),
    8: (2, 2, 1),
    9: (3, 2, 1),
    10: (4, 2, 1),
}


@dataclass(frozen=True)
class Box:
    """A rectangle of the bench screen, in character cells."""

    row: int
    col: int
    height: int
    width: int

    def overlaps(self, other: Box) -> bool:
        return not (
            self.row + self.height <= other.row
            or other.row + other.height <= self.row
            or self.col + self.width <= other.col
            or other.col + other.width <= self.col
        )


@dataclass(frozen=True)
class RingLayout:
    """Where the bench screen draws each seat, the middle of the table and the bottom panel."""

    seats: dict[int, Box]
    middle: Box  # pots, dealer display, clock, button
    bottom: int  # first row of the bottom panel


def _spread(first: int, last: int, count: int) -> list[int]:
    """``count`` evenly spaced positions from ``first`` to ``last`` (the middle for one)."""
    if count == 1:
        return [round((first + last) / 2)]
    return [round(first + (last - first) * i / (count - 1)) for i in range(count)]


def ring_layout(seats: int, rows: int, cols: int) -> RingLayout | None:
    """Seat boxes around the middle for a ``rows`` x ``cols`` screen, or None."""
    if rows < MIN_RING[0] or cols < MIN_RING[1] or seats not in BANDS:
        return None
    top_count, side_count, bottom_count = BANDS[seats]
    top, bottom = 1, rows - BOTTOM_ROWS  # the ring uses rows top .. bottom - 1
    low = bottom - BOX_HEIGHT  # the bottom band's row
    right = cols - BOX_WIDTH
    inset = 0 if top_count > 3 else round(cols * 0.15)
    # clockwise from the dealer's left: bottom band, left side up, top, right side down
    places: list[tuple[int, int]] = []
    half = cols // 2
    bottom_cols = (
        _spread(
            half - DEALER_GAP // 2 - BOX_WIDTH - (BOX_WIDTH + 1) * (bottom_count - 1),
            half - DEALER_GAP // 2 - BOX_WIDTH,
            bottom_count,
        )
        if bottom_count
        else []
    )
    places += [(low, col) for col in reversed(bottom_cols)]
    side_rows = (
        _spread(top + BOX_HEIGHT + 1, low - BOX_HEIGHT - 1, side_count) if side_count else []
    )
    places += [(row, 0) for row in reversed(side_rows)]
    places += [(top, col) for col in _spread(inset, right - inset, top_count)] if top_count else []
    places += [(row, right) for row in side_rows]
    places += [(low, cols - 1 - col - BOX_WIDTH + 1) for col in bottom_cols]
    boxes = {
        seat: Box(row, col, BOX_HEIGHT, BOX_WIDTH)
        for seat, (row, col) in enumerate(places, start=1)
    }
    middle_row = top + (bottom - top - MIDDLE_HEIGHT) // 2
    middle = Box(middle_row, (cols - MIDDLE_WIDTH) // 2, MIDDLE_HEIGHT, MIDDLE_WIDTH)
    placed = list(boxes.values())
    for index, box in enumerate(placed):
        if box.overlaps(middle) or any(box.overlaps(other) for other in placed[index + 1 :]):
            return None
    return RingLayout(boxes, middle, bottom)
