"""What the bench screen shows: a pure function of a ``Snapshot`` and the terminal size.

``render`` fills a ``Canvas`` (text and a style name per piece); ``controller.bench.tui``
paints it with curses, and the headless modes print ``Canvas.text()``. Keeping the
drawing free of curses makes it testable and lets a script print what a technician
would see.

The ring (80x24 and up): a title row; the seats around the middle (pots, the dealer
display's two lines as the display device received them, the clock digits, the
button); under it the tray, the devices, messages and the keys. Smaller terminals get
one line per seat; very small ones a request for a bigger window.

Styles: ``title``, ``act`` (the seat to act: reverse video), ``dim`` (folded, away,
empty), ``lamp`` (a lit seat light), ``alarm``, ``warn``, ``ok``, ``frame``, ``key``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.bench.keys import BENCH_HELP, KEYPAD_HELP, help_line
from controller.bench.lamps import Lamp
from controller.bench.layout import BOX_WIDTH, MESSAGE_ROWS, POT_ROWS, RingLayout, ring_layout
from controller.bench.session import Snapshot
from drivers.interfaces import Pattern

MIN_COMPACT = (8, 30)  # rows, columns below which only a request to enlarge is shown

LAMP_WORDS = {
    Pattern.ON: "ON",
    Pattern.OFF: "off",
    "dim": "DIM",
    Pattern.SLOW_BLINK: "SLOW",
    Pattern.FAST_BLINK: "FAST",
    Pattern.WINK: "WINK",
    Pattern.PULSE: "PULS",
}
STATUS_WORDS = {
    "playing": "playing",
    "folded": "folded",
    "all_in": "all-in",
    "sitting_out": "away",
    "waiting": "waiting",
}


@dataclass
class UiState:
    """The screen's own state, beside the table's."""

    prefix: str | None = None  # "puck" or "unplug": waiting for the second key
    message: str = ""  # the answer to the last key
    tray_value: int | None = None  # the chip value + and - change


@dataclass
class Canvas:
    """The text pieces of one bench screen, cut at its edges, before they are drawn."""

    rows: int
    cols: int
    pieces: list[tuple[int, int, str, str]] = field(default_factory=list)

    def put(self, row: int, col: int, text: str, style: str = "") -> None:
        """Write ``text`` at (row, col), cut at the edges."""
        if not 0 <= row < self.rows or col >= self.cols or not text:
            return
        if col < 0:
            text, col = text[-col:], 0
        text = text[: self.cols - col]
        if text:
            self.pieces.append((row, col, text, style))

    def lines(self) -> list[str]:
        grid = [[" "] * self.cols for _ in range(self.rows)]
        for row, col, text, _ in self.pieces:
            grid[row][col : col + len(text)] = list(text)
        return ["".join(line).rstrip() for line in grid]

    def text(self) -> str:
        return "\n".join(self.lines()).rstrip("\n") + "\n"


def render(snap: Snapshot, ui: UiState, rows: int, cols: int) -> Canvas:
    canvas = Canvas(rows, cols)
    if rows < MIN_COMPACT[0] or cols < MIN_COMPACT[1]:
        for offset, line in enumerate(
            ("terminal too small", f"now {cols}x{rows}", "80x24 shows the table", "q quits")
        ):
            canvas.put(offset, 0, line)
        return canvas
    layout = ring_layout(snap.seats, rows, cols)
    _title(canvas, snap)
    if layout is not None:
        _ring(canvas, snap, ui, layout)
    else:
        _compact(canvas, snap, ui)
    return canvas


# -- pieces shared by both layouts -------------------------------------------------------


def _view(snap: Snapshot) -> dict[str, Any] | None:
    return snap.shown.view if snap.shown is not None else None


def _title(canvas: Canvas, snap: Snapshot) -> None:
    view = _view(snap)
    where = ""
    if view is not None:
        where = f"  hand {view['hand']} {view['phase']}"
    left = f" BENCH  table {snap.table_id}  {snap.stakes}{where}"
    right = f"journal {snap.state_dir}  seq {snap.last_seq} "
    if len(left) + 1 + len(right) > canvas.cols:  # a long game name or folder: the
        right = f"seq {snap.last_seq} "  # folder gives way, the seq always shows
        left = left[: max(0, canvas.cols - 1 - len(right))]
    pad = max(1, canvas.cols - len(left) - len(right))
    canvas.put(0, 0, (left + " " * pad + right).ljust(canvas.cols), "title")


def _glyph(lamp: Lamp | None) -> tuple[str, str]:
    if lamp is None:
        return "   ", ""
    if lamp.level >= 0.5:
        return "(*)", "lamp"
    if lamp.level > 0.0:
        return "(+)", "lamp"
    return "( )", "dim"


def _marks(view: dict[str, Any] | None, seat: int, snap: Snapshot) -> str:
    marks = ""
    if view is not None:
        if view.get("button") == seat:
            marks += "D"
        if view.get("small_blind") == seat:
            marks += "sb"
        if view.get("big_blind") == seat:
            marks += "bb"
    if seat == snap.puck_seat or seat in snap.puck_fault:
        marks += "@"
    return marks


def seat_lines(snap: Snapshot, seat: int, width: int = BOX_WIDTH) -> tuple[list[str], str]:
    """A seat's three lines and its style (``act``, ``dim`` or plain)."""
    view = _view(snap)
    info = (view or {}).get("seats", {}).get(str(seat))
    lamp = snap.lamps.get(seat)
    glyph, _ = _glyph(lamp)
    kind = LAMP_WORDS.get(lamp.kind, lamp.kind) if lamp is not None else ""
    marks = _marks(view, seat, snap)
    acting = view is not None and view.get("to_act") == seat
    pointer = ">" if acting else " "
    if info is None:
        lines = [
            f"{pointer}{seat:>2} {'empty':<{width - 8}} {glyph}",
            "",
            f" {'':<8}{marks:<5}{kind:>{width - 14}}",
        ]
        return [line[:width].ljust(width) for line in lines], "dim"
    name = str(info["player"])
    bet = int(info["bet"])
    missed = info.get("missed") or []
    right = (
        f"bet {bet}"
        if bet
        else ("missed " + "+".join(m[0].upper() for m in missed) if missed else "")
    )
    status = "TO ACT" if acting else STATUS_WORDS.get(info["status"], info["status"])
    lines = [
        f"{pointer}{seat:>2} {name:<{width - 8}.{width - 8}} {glyph}",
        f" {info['stack']:<8}{right:>{width - 9}}",
        f" {status:<8}{marks:<5}{kind:>{width - 14}}",
    ]
    style = "act" if acting else "dim" if info["status"] in ("folded", "sitting_out") else ""
    return [line[:width].ljust(width) for line in lines], style


def seat_runs(seats: list[int]) -> str:
    """Seats as the screen lists them: runs of three or more as a range (``1-4 7 9``)."""
    parts: list[str] = []
    run: list[int] = []
    for seat in [*sorted(seats), None]:
        if seat is not None and run and seat == run[-1] + 1:
            run.append(seat)
            continue
        if len(run) >= 3:
            parts.append(f"{run[0]}-{run[-1]}")
        else:
            parts.extend(str(s) for s in run)
        run = [seat] if seat is not None else []
    return " ".join(parts)


def pot_lines(view: dict[str, Any] | None, width: int, rows: int = POT_ROWS) -> list[str]:
    """The total, then every pot with the seats that can win it (``side1 400 [3 7]``),
    packed into ``rows`` lines of ``width``. Pots that do not fit are counted on the
    last line; the dealer display pages every pot with ``NEXT`` (``n``)."""
    if view is None:
        return ["POT -"]
    items = []
    for index, pot in enumerate(view.get("pots") or []):
        name = "main" if index == 0 else f"side{index}"
        items.append(f"{name} {pot['amount']} [{seat_runs(pot['eligible'])}]")
    lines = [f"POT {view.get('pot_total', 0)}" + (":" if items else "")]

    def more(count: int) -> str:
        return f"  +{count} more: n pages"

    for number, item in enumerate(items):
        after = len(items) - number - 1
        sep = " " if lines[-1].endswith(":") else "  "
        joined = lines[-1] + sep + item
        reserve = len(more(after)) if after and len(lines) == rows else 0
        if len(joined) + reserve <= width:
            lines[-1] = joined
            continue
        if (
            len(lines) < rows
            and len(item) + (len(more(after)) if after and len(lines) + 1 == rows else 0) <= width
        ):
            lines.append(item)
            continue
        lines[-1] = (lines[-1] + more(after + 1))[:width]
        break
    return lines


def _clock(snap: Snapshot) -> tuple[str, str]:
    ms = snap.display.clock_ms
    if ms is None:
        return "CLOCK --", ""
    return f"CLOCK {-(-ms // 1000):>2}", "warn" if snap.display.warning else "ok"


def _button(snap: Snapshot) -> tuple[str, str]:
    view = _view(snap)
    shown = snap.shown
    if not snap.has_puck:
        seen = "(no sensor)"
    elif snap.puck_fault:
        seen = "seats " + "+".join(str(seat) for seat in snap.puck_fault)
    elif snap.puck_seat is not None:
        seen = f"seat {snap.puck_seat}"
    else:
        seen = "lifted"
    check = shown.puck if shown is not None else None
    if view is not None and view.get("phase") != "idle":
        return f"BUTTON rules {view.get('button')}  puck {seen}", ""
    if check is None:
        return f"BUTTON last {view.get('button') if view else '-'}  puck {seen}", ""
    if check.expected is None:
        return f"BUTTON next -  puck {seen}", ""
    if check.status == "ok":
        return f"BUTTON next {check.expected}  puck {seen} ok", "ok"
    return f"BUTTON next {check.expected}  puck {seen} MOVE IT", "alarm"


def _tray(snap: Snapshot, ui: UiState) -> tuple[str, str]:
    counts = dict(snap.tray_counts)
    if ui.tray_value is not None:
        counts.setdefault(ui.tray_value, 0)
    parts = []
    for value in sorted(counts):
        piece = f"{value}x{counts[value]}"
        parts.append(f"[{piece}]" if value == ui.tray_value else piece)
    total = sum(value * count for value, count in counts.items())
    line = "TRAY " + (" ".join(parts) or "(empty)") + f" = {total}"
    status = snap.shown.tray if snap.shown is not None else None
    if status is None or not status.checked:
        return line, ""
    if status.counted is not None and status.counted != total:
        line += f"  read {status.counted}"  # the reader has not reported the change (yet)
    line += f"  expected {status.expected}"
    if status.alarm:
        return line + f"  OFF BY {status.difference}", "alarm"
    if status.difference:
        return line + f"  off by {status.difference}" + ("" if status.stable else " ..."), "warn"
    return line + "  ok", "ok"


def _devices(snap: Snapshot) -> list[tuple[str, str]]:
    """(text, style) pieces: each serial device, the puck, a sticky fault."""
    shown = snap.shown
    faults = shown.device_faults if shown is not None else {}
    pieces: list[tuple[str, str]] = [("DEVICES", "")]
    if shown is not None and shown.fault is not None:
        pieces.append((f"LOCKED: {shown.fault}: call a technician", "alarm"))
    for name in ("keypad", "tray", "display"):
        if name not in snap.plugged:
            pieces.append((f"{name} (none)", "dim"))
        elif not snap.plugged[name]:
            pieces.append((f"{name} UNPLUGGED", "alarm"))
        elif name in faults:
            pieces.append((f"{name}: {faults[name]}", "alarm"))
        elif snap.connected.get(name):
            pieces.append((f"{name} ok", "ok"))
        else:
            pieces.append((f"{name} ...", "warn"))
    if snap.door == "open":
        pieces.append(("DOOR OPEN", "alarm"))
    elif snap.door == "closed":
        pieces.append(("door closed", "ok"))
    if "puck" in faults:
        pieces.append((f"puck: {faults['puck']}", "alarm"))
    return pieces


def _put_pieces(canvas: Canvas, row: int, pieces: list[tuple[str, str]]) -> None:
    col = 0
    for text, style in pieces:
        canvas.put(row, col, text, style)
        col += len(text) + 2


def _prompt(ui: UiState) -> str:
    if ui.prefix == "puck":
        return "PUCK: type the seat number (0 for seat 10, Esc cancels)"
    if ui.prefix == "unplug":
        return "UNPLUG/REPLUG: k keypad, t tray, d display (Esc cancels)"
    return ""


def _messages(snap: Snapshot, ui: UiState) -> list[tuple[str, str]]:
    """The message rows: the screen's answer, the demo, the daemon's latest log line."""
    rows: list[tuple[str, str]] = []
    prompt = _prompt(ui)
    if prompt:
        rows.append((prompt, "key"))
    if ui.message:
        rows.append((ui.message, ""))
    if snap.demo:
        rows.append((snap.demo, "key"))
    for line in reversed(snap.log[-2:]):
        rows.append(("log: " + line, "dim"))
    return rows


# -- the ring ------------------------------------------------------------------------------


def _ring(canvas: Canvas, snap: Snapshot, ui: UiState, layout: RingLayout) -> None:
    for seat, box in layout.seats.items():
        lines, style = seat_lines(snap, seat, box.width)
        for offset, line in enumerate(lines):
            canvas.put(box.row + offset, box.col, line, style)
        glyph, glyph_style = _glyph(snap.lamps.get(seat))
        if glyph.strip():
            canvas.put(box.row, box.col + box.width - len(glyph), glyph, glyph_style)
    middle = layout.middle
    row, col, width = middle.row, middle.col, middle.width
    view = _view(snap)
    pots = pot_lines(view, width)  # just above the display, growing upwards
    for offset, line in enumerate(pots, start=POT_ROWS - len(pots)):
        canvas.put(row + offset, col, line)
    row += POT_ROWS - 1
    canvas.put(row + 1, col, ("+- dealer display " + "-" * width)[: width - 1] + "+", "frame")
    for offset, line in enumerate((snap.display.line1, snap.display.line2)):
        canvas.put(row + 2 + offset, col, "|", "frame")
        canvas.put(row + 2 + offset, col + 1, line.ljust(width - 2), "bold")
        canvas.put(row + 2 + offset, col + width - 1, "|", "frame")
    canvas.put(row + 4, col, "+" + "-" * (width - 2) + "+", "frame")
    clock, clock_style = _clock(snap)
    canvas.put(row + 5, col, clock, clock_style)
    if view is None and snap.shown is not None and snap.shown.fault is not None:
        canvas.put(row + 5, col + 10, f"LOCKED: {snap.shown.fault}", "alarm")
    button, button_style = _button(snap)
    canvas.put(row + 6, col, button[:width], button_style)
    dealer_row = layout.seats[1].row + 1 if 1 in layout.seats else layout.bottom - 2
    canvas.put(dealer_row, (canvas.cols - 6) // 2, "DEALER", "dim")
    _bottom(canvas, snap, ui, layout.bottom)


def _bottom(canvas: Canvas, snap: Snapshot, ui: UiState, row: int) -> None:
    cols = canvas.cols
    tray, tray_style = _tray(snap, ui)
    canvas.put(row, 0, tray, tray_style)
    _put_pieces(canvas, row + 1, _devices(snap))
    messages = _messages(snap, ui)
    for offset, message in enumerate(messages[:MESSAGE_ROWS]):  # all above the key lines
        canvas.put(row + 2 + offset, 0, *message)
    row += 2 + MESSAGE_ROWS
    canvas.put(row, 0, "-" * cols, "frame")
    canvas.put(row + 1, 0, help_line("KEYPAD", KEYPAD_HELP, cols), "key")
    canvas.put(row + 2, 0, help_line("BENCH ", BENCH_HELP, cols), "key")


# -- one line per seat -------------------------------------------------------------------------


def _compact(canvas: Canvas, snap: Snapshot, ui: UiState) -> None:
    view = _view(snap)
    rows: list[tuple[str, str]] = []
    clock, clock_style = _clock(snap)
    pots = pot_lines(view, canvas.cols - len(clock) - 2)
    rows.append((f"{clock}  {pots[0]}", clock_style))
    rows.extend((" " * (len(clock) + 2) + line, "") for line in pots[1:])
    rows.append(("| " + snap.display.line1, "bold"))
    rows.append(("| " + snap.display.line2, "bold"))
    for seat in range(1, snap.seats + 1):
        lines, style = seat_lines(snap, seat)
        rows.append((f"{lines[0]} {lines[1].strip():<18} {lines[2].strip()}", style))
    rows.append(_button(snap))
    rows.append(_tray(snap, ui))
    rows.append(("  ".join(text for text, _ in _devices(snap)), ""))
    messages = _messages(snap, ui)
    rows.extend(m for m in messages if not m[0].startswith("log: "))
    room = canvas.rows - 1 - len(rows) - 2  # the log lines go first, never under the keys
    rows.extend([m for m in messages if m[0].startswith("log: ")][: max(room, 0)])
    rows.append((help_line("KEYPAD", KEYPAD_HELP, canvas.cols), "key"))
    rows.append((help_line("BENCH ", BENCH_HELP, canvas.cols), "key"))
    for offset, (text, style) in enumerate(rows[: canvas.rows - 1]):
        canvas.put(1 + offset, 0, text, style)
