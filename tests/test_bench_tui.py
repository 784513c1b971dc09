"""`tablectl bench` as a technician sees it: the real program in an 80x24 tmux pane,
keys typed with ``send-keys``, the screen read back with ``capture-pane``.

Every wait polls the captured screen until a condition holds (or fails after a
generous timeout); nothing sleeps for luck. Each test has its own tmux server (a
socket in its temporary folder) and its own copy of config/bench.yaml with the journal
in that folder. ``tablectl bench --script`` and ``--demo`` (no screen) and
``tablectl selftest --simulated --yes`` are checked here too.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import PinState

from drivers.interfaces import Pattern
from tests.cli import tablectl, tablectl_command
from tests.system_tools import find, needs

# slow, out of the edit loop (README, Tests): the bench screen in a real tmux
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
TMUX = find("tmux")
WAIT = 20.0  # generous for a loaded CI machine; a passing test never waits this long
needs_tmux = needs("tmux", "the bench screen tests")


def bench_config(folder: Path) -> Path:
    """config/bench.yaml with its journal in ``folder``/state, logging at INFO."""
    text = (ROOT / "config" / "bench.yaml").read_text()
    text = text.replace("logging: {level: DEBUG}", "logging: {level: INFO}")
    assert "state_dir: ./state" in text
    path = folder / "bench.yaml"
    path.write_text(text)
    return path


class Pane:
    """One tmux pane running ``tablectl bench``, on a private tmux server."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        conf = folder / "tmux.conf"
        conf.write_text(
            'set -g remain-on-exit on\nset -g default-terminal "screen"\nset -g status off\n'
        )
        self.base = [str(TMUX), "-S", str(folder / "tmux.sock"), "-f", str(conf)]
        self.command = " ".join(tablectl_command("bench", "--config", "bench.yaml"))

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            [*self.base, *args], capture_output=True, text=True, cwd=self.folder, timeout=10
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, extra: str = "") -> None:
        self.tmux(
            "new-session",
            "-d",
            "-s",
            "bench",
            "-x",
            "80",
            "-y",
            "24",
            "-c",
            str(self.folder),
            f"{self.command} {extra}".strip(),
        )

    def restart(self) -> None:
        self.tmux("respawn-pane", "-k", "-t", "bench", self.command)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "bench")

    def history(self) -> str:
        """The screen and what scrolled off it, lines joined as they were written."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-100", "-t", "bench")

    def escapes(self) -> str:
        return self.tmux("capture-pane", "-p", "-e", "-t", "bench")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "bench", *keys)

    def dead(self) -> bool:
        return self.tmux("display-message", "-p", "-t", "bench", "#{pane_dead}").strip() == "1"

    def wait(self, condition: Callable[[str], object], what: str, timeout: float = WAIT) -> str:
        """The screen once ``condition(screen)`` is true (polled)."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if condition(screen):
                return screen
            if time.monotonic() > deadline:
                log = self.folder / "state" / "bench.log"
                tail = log.read_text()[-3000:] if log.exists() else "(no log)"
                raise AssertionError(f"not within {timeout} s: {what}\n{screen}\n{tail}")
            time.sleep(0.05)

    def wait_text(self, text: str, timeout: float = WAIT) -> str:
        return self.wait(lambda screen: text in screen, repr(text), timeout)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    bench_config(tmp_path)
    screen = Pane(tmp_path)
    try:
        yield screen
    finally:
        screen.close()


def to_act(screen: str) -> int:
    seat = acting(screen)
    assert seat is not None, screen
    return seat


def acting(screen: str) -> int | None:
    """The seat the dealer display names as to act, if it names one."""
    found = re.search(r"SEAT (\d+) TO ACT", screen)
    return int(found.group(1)) if found else None


def seat_box(screen: str, seat: int) -> tuple[str, str, str]:
    """The three lines of a seat's box on the ring (18 columns from its first line)."""
    lines = screen.splitlines()
    for row, line in enumerate(lines):
        found = re.search(rf"[ >]{seat:>2} \S", line)
        if found and row + 2 < len(lines):
            col = found.start()
            return tuple(line_[col : col + 18] for line_ in lines[row : row + 3])  # type: ignore[return-value]
    raise AssertionError(f"seat {seat} not on the screen:\n{screen}")


def stack(screen: str, seat: int) -> int:
    return int(seat_box(screen, seat)[1].split()[0])


def title_width(screen: str) -> int:
    """The title row spans the screen (its last character is a space capture drops)."""
    lines = screen.splitlines()
    return len(lines[0]) if lines and lines[0].startswith(" BENCH") else 0


def clock(screen: str) -> int | None:
    found = re.search(r"CLOCK +(\d+)", screen)
    return int(found.group(1)) if found else None


@needs_tmux
def test_a_hand_on_the_screen_resizes_and_resumes(pane: Pane) -> None:
    pane.start()
    pane.wait_text("DEALER")
    screen = pane.wait_text("KEYPAD f=FOLD")  # the mapping is on the screen
    assert "BENCH  p<n>=puck" in screen and "q=quit" in screen
    assert all(len(line) <= 80 for line in screen.splitlines())

    pane.keys("s")  # the demo's players sit down
    pane.wait_text("players seated")
    pane.keys("n")  # NEXT: the first hand
    screen = pane.wait_text("TO ACT")
    seat = to_act(screen)
    # the seat to act: a pointer on its box, and the box in reverse video
    assert seat_box(screen, seat)[0].startswith(f">{seat:>2} ")
    assert "TO ACT" in seat_box(screen, seat)[2]
    reverse = r"\x1b\[(?:[0-9]+;)*7(?:;[0-9]+)*m"  # SGR 7, maybe with others
    assert re.search(rf"{reverse}>\s?{seat} ", pane.escapes()), pane.escapes()
    before = stack(screen, seat)

    pane.keys("b", "4", "0", "Enter")  # BET 4 0 ENTER: a raise to 40
    screen = pane.wait(
        lambda s: acting(s) not in (None, seat) and "bet 40" in s,
        "the raise applied and the next seat to act",
    )
    assert stack(screen, seat) == before - 40
    assert "bet 40" in seat_box(screen, seat)[1]
    assert not seat_box(screen, seat)[0].startswith(">")
    caller = to_act(screen)
    assert seat_box(screen, caller)[0].startswith(f">{caller:>2} ")

    pane.keys("k")  # CLOCK: the countdown starts on the seat to act
    first = clock(pane.wait(lambda s: clock(s) is not None, "the clock digits"))
    assert first is not None and first <= 60
    pane.wait(lambda s: (clock(s) or 99) < first, "the clock counting down", timeout=10)

    pane.keys("c")  # the caller calls 40
    screen = pane.wait(lambda s: "bet 40" in seat_box(s, caller)[1], "the call")
    called = stack(screen, caller)
    assert "bet 40" in seat_box(screen, caller)[1]

    # resize: smaller than 80x24 gives one line per seat, tiny asks for more room,
    # and back to 80x24 the ring again; the program lives through all of it
    pane.tmux("resize-window", "-t", "bench", "-x", "60", "-y", "20")
    pane.wait(lambda s: "| SEAT" in s and "DEALER" not in s, "the one-line-per-seat view")
    pane.tmux("resize-window", "-t", "bench", "-x", "20", "-y", "6")
    pane.wait_text("terminal too small")
    pane.tmux("resize-window", "-t", "bench", "-x", "120", "-y", "40")
    pane.wait(lambda s: "DEALER" in s and title_width(s) == 119, "the ring at 120x40")
    pane.tmux("resize-window", "-t", "bench", "-x", "80", "-y", "24")
    screen = pane.wait(lambda s: "DEALER" in s and title_width(s) == 79, "the ring at 80x24")
    assert not pane.dead()
    hand_title = re.search(r"hand \d+ \w+", screen)
    assert hand_title, screen

    pane.keys("q")  # quit: the journal stays, and the next start resumes the game
    pane.wait(lambda s: pane.dead(), "the bench to stop")
    assert "the game stays in" in pane.history()
    assert (pane.folder / "state" / "journal.sqlite3").exists()
    pane.restart()
    screen = pane.wait_text("DEALER")
    screen = pane.wait(lambda s: "TO ACT" in s, "the resumed hand")
    assert hand_title.group(0) in screen
    assert stack(screen, caller) == called and stack(screen, seat) == before - 40
    pane.keys("q")
    pane.wait(lambda s: pane.dead(), "the bench to stop")


@needs_tmux
def test_the_demo_plays_hands_by_itself(pane: Pane) -> None:
    pane.start("--hands 2 --pace 0.02")
    pane.wait_text("DEALER")
    pane.keys("d")
    screen = pane.wait_text("demo finished: 2 hand(s) played", timeout=40)
    assert re.search(r"hand 2 (idle|preflop)", screen), screen
    assert re.search(r"TRAY .* expected \d+  ok", screen), screen  # buy-ins left the tray
    pane.keys("p", "4")  # the puck to seat 4: the sensor sees it there
    pane.wait(lambda s: "puck seat 4" in s, "the puck at seat 4")
    pane.keys("u", "k")  # pull the keypad's cable
    pane.wait_text("keypad UNPLUGGED")
    pane.keys("f")
    pane.wait_text("keypad unplugged: key lost")
    pane.keys("u", "k")
    pane.wait_text("keypad ok")
    pane.keys("q")
    pane.wait(lambda s: pane.dead(), "the bench to stop")


def test_script_without_a_screen(tmp_path: Path) -> None:
    bench_config(tmp_path)
    script = tmp_path / "hand.txt"
    script.write_text(
        "# two players, one hand\n"
        "sit 2 ana 1000\nsit 6 bob 1000\npuck 6\nkeys NEXT\n"
        "wait-for SEAT 6 TO ACT\nkeys BET 3 0 ENTER\nwait-for SEAT 2 TO ACT\n"
    )
    done = tablectl(
        "bench", "--config", "bench.yaml", "--script", str(script), cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    screen = done.stdout
    assert "hand 1 preflop" in screen
    assert stack(screen, 6) == 970 and "bet 30" in seat_box(screen, 6)[1]
    assert seat_box(screen, 2)[0].startswith(">")
    assert "the game stays in" in done.stderr


def test_script_opens_and_closes_the_door_mid_hand(tmp_path: Path) -> None:
    """The bench's door (config/bench.yaml hardware.door, key o on the screen, `door` in
    a script): opened with the clock called, the display says DOOR OPEN: CLOCK HELD and
    the devices row DOOR OPEN; closed, the hand goes on."""
    bench_config(tmp_path)
    script = tmp_path / "door.txt"
    script.write_text(
        "sit 2 ana 1000\nsit 6 bob 1000\npuck 6\nkeys NEXT\nwait-for SEAT 6 TO ACT\n"
        "keys CLOCK\ndoor open\nwait-for DOOR OPEN: CLOCK HELD\ndoor open\nwait 1.5\nscreen\n"
        "door close\nwait-for door closed\nkeys CHECK\nwait-for SEAT 2 TO ACT\n"
    )
    done = tablectl(
        "bench", "--config", "bench.yaml", "--script", str(script), cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    opened, closed = done.stdout.split(" BENCH  table")[1:]
    assert "|DOOR OPEN: CLOCK HELD" in opened and "display ok  DOOR OPEN" in opened
    assert "CLOCK 60" in opened  # 1.5 s after the door opened: held
    assert "DOOR OPEN" not in closed and "display ok  door closed" in closed
    assert "|SEAT 2 TO ACT" in closed


def test_script_shows_the_rounds_of_a_draw_game(tmp_path: Path) -> None:
    """A triple-draw table on the bench: the title names the game and the round, and
    the dealer display (as the simulated display received it) names the round."""
    path = bench_config(tmp_path)
    text = path.read_text().replace(
        "  structure: no_limit\n", "  structure: fixed_limit\n  form: triple_draw\n"
    )
    path.write_text(text)
    script = tmp_path / "hand.txt"
    script.write_text(
        "sit 2 ana 1000\nsit 6 bob 1000\npuck 6\nkeys NEXT\n"
        "wait-for PREDRAW: SEAT 6 TO ACT\nkeys CHECK\nkeys CHECK\n"
        "wait-for DRAW 1: SEAT 2 TO ACT\n"
    )
    done = tablectl(
        "bench", "--config", "bench.yaml", "--script", str(script), cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    screen = done.stdout
    assert "fixed limit triple draw 5/10" in screen and "hand 1 draw1" in screen
    assert "DRAW 1: SEAT 2 TO ACT" in screen


def test_demo_without_a_screen_and_a_bad_script(tmp_path: Path) -> None:
    bench_config(tmp_path)
    done = tablectl(
        "bench", "--config", "bench.yaml", "--demo", "--hands", "1", cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "demo finished: 1 hand(s) played" in done.stdout
    bad = tmp_path / "bad.txt"
    bad.write_text("keys NEXT\nfly 3\n")
    done = tablectl(
        "bench", "--config", "bench.yaml", "--script", str(bad), cwd=tmp_path, timeout=60
    )
    assert done.returncode == 1
    assert "line 2: unknown command 'fly'" in done.stderr


def test_bench_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    done = tablectl("bench", "--demo", cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert "no --config given and there is no config/bench.yaml" in done.stderr
    # a table's own configuration: its journal is the table's record, not a bench's
    example = str(ROOT / "config" / "table.example.yaml")
    done = tablectl("bench", "--config", example, "--demo", cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert "configuration of real hardware" in done.stderr and "--state-dir" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_selftest_simulated_runs_unattended(tmp_path: Path) -> None:
    bench_config(tmp_path)
    done = subprocess.run(
        tablectl_command("selftest", "--config", "bench.yaml", "--simulated", "--yes"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for device in ("display", "lights", "puck", "door", "keypad", "tray"):
        assert any(re.match(rf"PASS +{device} ", line) for line in lines), done.stdout
    assert "9 seat lights" in done.stdout and "all 19 keys" in done.stdout
    assert "200 x 5, 100 x 25, 40 x 100 = 7500" in done.stdout
    assert lines[-1] == "selftest: all checks passed"


# -- the pieces, without a terminal ------------------------------------------------------


def test_the_ring_fits_every_table_size() -> None:
    from controller.bench.layout import ring_layout

    for seats in range(2, 11):
        for rows, cols in ((24, 80), (30, 100), (50, 200)):
            layout = ring_layout(seats, rows, cols)
            assert layout is not None, (seats, rows, cols)
            boxes = layout.seats
            assert sorted(boxes) == list(range(1, seats + 1))
            assert all(
                box.col + box.width <= cols and box.row + box.height <= layout.bottom
                for box in boxes.values()
            )
            # clockwise from the dealer's left: seat 1 left of the last seat, both low
            first, last = boxes[1], boxes[seats]
            assert first.col < last.col and first.row == last.row
    assert ring_layout(9, 23, 80) is None and ring_layout(9, 24, 79) is None


class FakePin:
    """A gpiozero MockPin's history: (seconds since the previous change, level)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.state = 0.0
        self.changed = clock()
        self.states = [PinState(0.0, 0.0)]

    def set(self, level: float) -> None:
        self.states.append(PinState(self.clock() - self.changed, level))
        self.state, self.changed = level, self.clock()

    def clear_states(self) -> None:
        self.states, self.changed = [PinState(0.0, self.state)], self.clock()


def test_the_lamp_watcher_reads_patterns_off_the_pin() -> None:
    from controller.bench.lamps import LampWatcher
    from drivers.settings import LightsSettings

    now = [100.0]
    pin = FakePin(lambda: now[0])
    watcher = LampWatcher({1: pin}, LightsSettings(), clock=lambda: now[0])

    def run(level_at: Callable[[int], float], step: float, count: int) -> str:
        for i in range(count):
            now[0] += step
            pin.set(level_at(i))
        return watcher.read()[1].kind

    assert watcher.read()[1].kind == "off"
    assert run(lambda i: float(i % 2 == 0), 0.125, 12) == Pattern.FAST_BLINK  # 250 ms period
    assert run(lambda i: float(i % 2 == 0), 0.5, 6) == Pattern.SLOW_BLINK  # 1000 ms period
    now[0] += 3.0
    assert run(lambda i: 1.0, 0.1, 1) == "on"  # switched on and held
    now[0] += 3.0
    assert watcher.read()[1].kind == "on" and watcher.read()[1].lit
    assert run(lambda i: (i % 5) / 4, 0.04, 40) == "pulse"
    now[0] += 5.0
    for _ in range(3):  # a plain LED's pulse: 250 ms lit, 1750 ms dark
        pin.set(1.0)
        now[0] += 0.25
        assert watcher.read()[1].kind != Pattern.SLOW_BLINK
        pin.set(0.0)
        now[0] += 1.75
    assert watcher.read()[1].kind == "wink"
    now[0] += 0.25
    assert run(lambda i: float(i % 2 == 0), 0.5, 8) == Pattern.SLOW_BLINK  # never a wink


def test_every_pot_and_its_seats_on_the_80x24_screen(tmp_path: Path) -> None:
    """Issue 11 item 5: side pots were cut off (``side1 400 [1  > 7 SEAT7-H0``)."""
    bench_config(tmp_path)
    script = tmp_path / "pots.txt"
    sits = "".join(f"sit {seat} p{seat} {100 * seat}\n" for seat in range(1, 6))
    # button 5, blinds 1 and 2: seats 3 and 4 all in, 5 calls, 1 and 2 all in
    script.write_text(
        sits + "puck 5\nkeys NEXT ALLIN ALLIN CHECK ALLIN ALLIN\n"
        "wait-for SHOWDOWN\nscreen\nkeys NEXT\nwait-for MAIN POT 500 (1/4)\n"
    )
    done = tablectl(
        "bench", "--config", "bench.yaml", "--script", str(script), cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    screen = done.stdout.split(" BENCH  table")[1]
    for pot in ("main 500 [1-5]", "side1 400 [2-5]", "side2 300 [3-5]", "side3 200 [4 5]"):
        assert pot in screen, screen
    assert all(len(line) <= 80 for line in screen.splitlines())
    assert "|MAIN POT 500 (1/4)" in done.stdout  # the display pages them too


def test_pot_lines_pack_every_pot_or_say_how_many_more() -> None:
    from controller.bench.render import pot_lines, seat_runs

    assert seat_runs([1, 2, 3, 4, 7, 9, 10]) == "1-4 7 9 10"
    view = {
        "pot_total": 4400,
        "pots": [{"amount": 900 - 100 * i, "eligible": list(range(i + 1, 10))} for i in range(8)],
    }
    lines = pot_lines(view, 42)
    assert len(lines) == 3 and all(len(line) <= 42 for line in lines)
    shown = " ".join(lines)
    more = int(shown.split("+")[1].split()[0])
    assert shown.count("[") + more == 8 and "n pages" in shown
    assert pot_lines({"pot_total": 0, "pots": []}, 42) == ["POT 0"]
    assert pot_lines(view, 200) == [
        "POT 4400: main 900 [1-9]  side1 800 [2-9]  side2 700 [3-9]  side3 600 [4-9]  "
        "side4 500 [5-9]  side5 400 [6-9]  side6 300 [7-9]  side7 200 [8 9]"
    ]


def test_a_pin_on_a_bench_without_a_pin_file_is_not_judged_wrong(tmp_path: Path) -> None:
    """No PIN file at all (a bench, a table before `sudo tablectl pin set`): a PIN
    cannot be checked, so it is refused as such (no try lost, never a lock-out), and
    the log says where the file should be and how to make it; never WRONG PIN."""
    bench_config(tmp_path)
    pin = "keys FUNC 0 1 0 4 2 ENTER 1 2 3 4 ENTER\n"
    script = tmp_path / "pin.txt"
    script.write_text(
        "seat\n"
        + (pin + "wait-for PIN CHECK NOT AVAILABLE\nkeys CLEAR\n") * 4
        + "keys FUNC 0\nwait-for SUPERVISOR: ID\n"
    )
    missing = tmp_path / "etc" / "pins"
    done = tablectl(
        "bench",
        "--config",
        "bench.yaml",
        "--script",
        str(script),
        cwd=tmp_path,
        timeout=90,
        env={**os.environ, "TABLECTL_PINS": str(missing)},
    )
    assert done.returncode == 0, done.stderr
    log = (tmp_path / "state" / "bench.log").read_text()
    assert "wrong PIN" not in log and "locked" not in log.lower()
    assert f"no supervisor PIN file at {missing}" in log
    assert "sudo tablectl pin set" in log


def test_a_triple_draw_hand_through_every_round_keeps_the_title_whole(tmp_path: Path) -> None:
    """A fixed-limit triple-draw hand keyed through its four betting rounds (small bets
    in predraw and draw 1, big bets in draws 2 and 3), a bet of the wrong size refused on
    the way, then paid: the stacks are right, and the title row still ends with the
    journal's seq although the game's name is long."""
    path = bench_config(tmp_path)
    path.write_text(
        path.read_text().replace(
            "  structure: no_limit\n", "  structure: fixed_limit\n  form: triple_draw\n"
        )
    )
    script = tmp_path / "hand.txt"
    script.write_text(
        "sit 2 ana 1000\nsit 6 bob 1000\npuck 6\nkeys NEXT\n"
        "wait-for PREDRAW: SEAT 6 TO ACT\nkeys CHECK\nkeys CHECK\n"
        "wait-for DRAW 1: SEAT 2 TO ACT\nkeys BET 2 0 ENTER\nwait-for NO: MAX BET 10\n"
        "keys 1 0 ENTER\nwait-for DRAW 1: SEAT 6 TO ACT\nkeys CHECK\n"
        "wait-for DRAW 2: SEAT 2 TO ACT\nkeys CHECK\nkeys BET 2 0 ENTER\nkeys CHECK\n"
        "wait-for DRAW 3: SEAT 2 TO ACT\nkeys CHECK\nkeys CHECK\n"
        "wait-for SHOW: 2 6\nkeys 6 ENTER ENTER\nwait-for PAY SEAT 6: 80\n"
    )
    done = tablectl(
        "bench", "--config", "bench.yaml", "--script", str(script), cwd=tmp_path, timeout=90
    )
    assert done.returncode == 0, done.stderr
    screen = done.stdout
    assert (stack(screen, 2), stack(screen, 6)) == (960, 1040)
    title = screen.splitlines()[0]
    assert "fixed limit triple draw 5/10" in title and "hand 1 idle" in title
    assert re.search(r"seq \d+$", title), title
    assert len(title) <= 80


def test_bench_says_what_to_fix_in_an_unusable_state_folder(tmp_path: Path) -> None:
    """A file where the state folder should be, or in its path: one line naming the
    file and what to do, as `tablectl run` says it (not "cannot write the log ...:
    File exists")."""
    bench_config(tmp_path)
    (tmp_path / "taken").write_text("")
    for folder, said in (
        (
            "taken",
            f"is a file, not a folder, so the state directory {tmp_path / 'taken'} cannot be used",
        ),
        ("taken/state", f"{tmp_path / 'taken'} is a file, not a folder, so the state directory"),
    ):
        done = tablectl(
            "bench",
            "--config",
            "bench.yaml",
            "--state-dir",
            str(tmp_path / folder),
            "--demo",
            "--hands",
            "1",
            cwd=tmp_path,
            timeout=60,
        )
        assert done.returncode == 1
        assert said in done.stderr and "move the file away" in done.stderr
        assert "--state-dir" in done.stderr and "journal.state_dir" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_title_names_the_game_in_force_while_a_changed_config_is_held(
    tmp_path: Path,
) -> None:
    """A bench restarted on a changed configuration in the middle of a hand: the hand
    goes on under the game it began with, and the title says that game until the hand
    ends, then the new one (it said the new file's game at once)."""
    path = bench_config(tmp_path)
    first = tmp_path / "first.txt"
    first.write_text("sit 2 ana 1000\nsit 6 bob 1000\npuck 6\nkeys NEXT\nwait-for SEAT 6 TO ACT\n")
    done = tablectl(
        "bench", "--config", "bench.yaml", "--script", str(first), cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    path.write_text(
        path.read_text().replace(
            "  structure: no_limit\n", "  structure: fixed_limit\n  form: triple_draw\n"
        )
    )
    second = tmp_path / "second.txt"
    second.write_text(
        "wait-for SEAT 6 TO ACT\nscreen\nkeys FOLD\nwait-for hand 1 idle\nwait-for triple draw\n"
    )
    done = tablectl(
        "bench", "--config", "bench.yaml", "--script", str(second), cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    held, after = done.stdout.split(" BENCH  table")[1:3]
    title = held.splitlines()[0]
    assert "no limit 5/10" in title and "triple draw" not in title, title
    assert "fixed limit triple draw 5/10" in after.splitlines()[0]


def test_a_light_put_out_after_a_while_on_is_never_read_as_a_blink() -> None:
    """Issue 21 item 8: a seat light going from on to off showed `SLOW` for a moment.
    Seen on the bench: a waiting seat winks, its player is to act (on for about a
    second and a half), then acts (off); the two last gaps (dark, lit) were alike, so
    the watcher read a slow blink until the window forgot them."""
    from controller.bench.lamps import LampWatcher
    from drivers.settings import LightsSettings

    settings = LightsSettings()  # blinks of 1000 and 250 ms, a 2000 ms wink
    now = [100.0]
    for dark, lit in ((1.0, 1.5), (1.4, 1.0), (0.9, 0.9), (0.5, 0.5), (2.0, 3.0)):
        now[0] += 10.0  # a fresh light, long dark
        pin = FakePin(lambda: now[0])
        watcher = LampWatcher({1: pin}, settings, clock=lambda: now[0])
        for _ in range(2):  # waiting: a wink (lit 250 ms, dark 1750 ms)
            pin.set(1.0)
            now[0] += 0.25
            pin.set(0.0)
            now[0] += 1.75
        now[0] += dark - 1.75
        pin.set(1.0)  # to act: on
        now[0] += lit
        pin.set(0.0)  # acted: off
        seen = set()
        for _ in range(60):  # the screen's reads over the next 6 s
            now[0] += 0.1
            seen.add(watcher.read()[1].kind)
        assert seen == {"off"}, (dark, lit, seen)


def test_fast_keys_never_show_a_blink_or_a_wink() -> None:
    """Issue 31 item 16: checked back and forth quickly, heads up, each seat's light
    went on (to act) and off at the rhythm of the keys, and the bench named it `SLOW`
    or `WINK` for a moment (seen 4 to 31 times in 4 hands). A light the keys switch is
    `ON`/`off` at every read; the drivers' own blinks and winks are still named."""
    import random

    from controller.bench.lamps import LampWatcher
    from drivers.settings import LightsSettings

    settings = LightsSettings()  # blinks of 1000 and 250 ms, a 2000 ms wink
    rng = random.Random(31)
    now = [100.0]
    wrong = []
    for trial in range(200):
        now[0] += 10.0  # a fresh light, long dark
        pin = FakePin(lambda: now[0])
        watcher = LampWatcher({1: pin}, settings, clock=lambda: now[0])
        winkish = trial % 2  # to act briefly, then the other seats' turns (long dark)
        for change in range(16):
            lit = change % 2 == 0
            pin.set(1.0 if lit else 0.0)
            if winkish:
                gap = rng.uniform(0.15, 0.4) if lit else rng.uniform(0.8, 2.5)
            else:
                gap = rng.uniform(0.1, 0.8)
            for _ in range(int(gap / 0.1)):
                now[0] += 0.1
                kind = watcher.read()[1].kind
                if kind not in ("on", "off"):
                    wrong.append((trial, change, kind))
            now[0] += gap % 0.1
    assert wrong == []


def tray_row(screen: str) -> str:
    return next(line for line in screen.splitlines() if line.startswith("TRAY "))


@needs_tmux
def test_players_seated_on_the_keypad_are_paid_from_the_tray(pane: Pane) -> None:
    """Issue 21 item 8: seating by keypad (`F 1`, seat, chips, card, wait or post) left
    the simulated tray short, and the tray alarm went off (`OFF BY 1000`): only the
    bench's own `s` and the demo took the buy-in out. Keyed as a tired dealer keys it
    (a seat begun and cleared, a chip amount re-keyed after a wrong digit), each buy-in
    now leaves the tray as the dealer pays it, and no alarm follows. The messages stay
    above the key lines at 80x24 (a `log:` line was drawn under them, on row 24)."""
    pane.start()
    pane.wait_text("expected 7500  ok")
    pane.keys("F", "1", "3", "Enter", "1", "0", "0", "x")  # begun, then CLEAR
    pane.wait_text("READY")
    pane.keys("F", "1", "3", "Enter", "1", "0", "0", "7")  # a wrong digit: CLEAR, again
    pane.wait_text("1007_")
    pane.keys("x", "F", "1", "3", "Enter", "1", "0", "0", "0", "Enter", "Enter", "1")
    pane.wait(lambda s: stack_of(s, 3) == 1000, "seat 3 seated with 1000")
    pane.keys("F", "1", "7", "Enter", "5", "0", "0", "Enter", "Enter", "2")
    pane.wait(lambda s: stack_of(s, 7) == 500, "seat 7 seated with 500")
    pane.keys("F", "5", "3", "Enter", "2", "0", "0", "Enter")  # seat 3 buys 200 more
    pane.wait(lambda s: stack_of(s, 3) == 1200, "seat 3's chips bought")
    screen = pane.wait_text("= 5800  expected 5800  ok")
    time.sleep(3.0)  # longer than tray.stable_seconds (2 s): the reading is compared
    screen = pane.screen()
    assert "expected 5800  ok" in tray_row(screen), screen
    assert "OFF BY" not in screen and "TRAY OFF" not in screen, screen
    lines = screen.splitlines()
    assert len(lines) <= 24
    assert lines[-1].startswith("BENCH  p<n>=puck") and lines[-2].startswith("KEYPAD ")
    assert lines[-3].startswith("----")
    logs = [row for row, line in enumerate(lines) if line.startswith("log: ")]
    assert logs and max(logs) < len(lines) - 3, screen
    pane.tmux("resize-window", "-t", "bench", "-x", "70", "-y", "24")  # a line per seat
    screen = pane.wait(lambda s: "| SEAT" in s or "| READY" in s, "the one-line-per-seat view")
    lines = screen.rstrip().splitlines()
    assert lines[-1].startswith("BENCH  p<n>=puck") and lines[-2].startswith("KEYPAD "), screen
    pane.keys("q")
    pane.wait(lambda s: pane.dead(), "the bench to stop")


def stack_of(screen: str, seat: int) -> int | None:
    try:
        return stack(screen, seat)
    except (AssertionError, ValueError, IndexError):
        return None


def test_the_daemon_keeps_out_of_the_benchs_game(tmp_path: Path) -> None:
    """Issue 21 item 8: `tablectl run --config config/bench.yaml` (which the file's
    header suggested) continued the bench's own journal in ./state, and its simulated
    tray wrote a tray alarm into the bench's game. The bench marks its folder; the
    daemon refuses it, saying what to do, and writes nothing there."""
    bench_config(tmp_path)
    script = tmp_path / "sit.txt"
    script.write_text("sit 2 ana 1000\nsit 6 bob 1000\n")
    done = tablectl(
        "bench", "--config", "bench.yaml", "--script", str(script), cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    journal = tmp_path / "state" / "journal.sqlite3"
    before = journal.read_bytes()
    run = tablectl("run", "--config", "bench.yaml", "--simulated", cwd=tmp_path, timeout=60)
    assert run.returncode == 1, run.stderr
    assert "holds the game of `tablectl bench`" in run.stderr, run.stderr
    assert "journal.state_dir" in run.stderr
    assert journal.read_bytes() == before
    header = (ROOT / "config" / "bench.yaml").read_text().split("\n\n")[0]
    assert "tablectl run --config config/bench.yaml" not in header
    look = tmp_path / "look.txt"
    look.write_text("screen\n")
    again = tablectl(  # the bench itself still plays its game
        "bench", "--config", "bench.yaml", "--script", str(look), cwd=tmp_path, timeout=60
    )
    assert again.returncode == 0, again.stderr
    assert stack(again.stdout, 2) == 1000 and stack(again.stdout, 6) == 1000
