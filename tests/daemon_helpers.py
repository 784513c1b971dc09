"""Shared pieces of the daemon tests: a bench configuration in a temporary folder, the
daemon run in-process with simulated devices, and waits on conditions (never sleeps)."""

from __future__ import annotations

import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from controller.config import Settings, load_config
from controller.daemon.loop import Notifier
from controller.daemon.service import Daemon
from controller.rules import state_view
from tests.waiting import eventually

WAIT = 15.0  # generous for a loaded CI machine; a passing test never waits this long

CONFIG = """\
table: {{id: T1, seats: 9}}
game: {{structure: no_limit, smallest_chip: 5, small_blind: 5, big_blind: {big_blind}}}
clock: {{seconds: {clock}, warning: {warning}, on_expiry: fold}}
hardware:
  simulated: true
  pin_factory: mock
  lights:
    pins: {{1: 16, 2: 17, 3: 18, 4: 19, 5: 20, 6: 21, 7: 22, 8: 23, 9: 24}}
journal: {{state_dir: {state_dir}, snapshot_every: {snapshot_every}}}
logging: {{level: DEBUG}}
"""


def write_config(
    directory: Path,
    *,
    big_blind: int = 10,
    clock: int = 60,
    warning: int = 10,
    snapshot_every: int = 20,
    name: str = "table.yaml",
) -> Path:
    path = directory / name
    path.write_text(
        CONFIG.format(
            big_blind=big_blind,
            clock=clock,
            warning=warning,
            state_dir=directory / "state",
            snapshot_every=snapshot_every,
        )
    )
    return path


def wait_for(condition: Callable[[], bool], timeout: float = WAIT, what: str = "") -> None:
    if not eventually(condition, timeout):
        raise AssertionError(f"not within {timeout} s: {what or condition}")


class RecordingNotifier(Notifier):
    """The notify calls, remembered instead of sent."""

    def __init__(self, watchdog_every: float | None = None) -> None:
        super().__init__()
        self.sent: list[str] = []
        self.ready = lambda status=None: self._note(f"READY {status}")
        self.status = lambda text: self._note(f"STATUS {text}")
        self.watchdog = lambda: self._note("WATCHDOG")
        self.stopping = lambda status=None: self._note("STOPPING")
        self.extend = lambda seconds: self._note(f"EXTEND {seconds}")
        self.interval = lambda: watchdog_every

    def _note(self, text: str) -> bool:
        self.sent.append(text)
        return True


@contextmanager
def running(config: Path, **options: Any) -> Iterator[Daemon]:
    """The daemon started in-process (simulated devices) with its loop in a thread."""
    settings: Settings = load_config(config)
    options.setdefault("notifier", RecordingNotifier())
    daemon = Daemon(settings, config_path=str(config), simulated=True, **options)
    daemon.start()
    daemon.run_in_thread()
    try:
        yield daemon
    finally:
        daemon.stop()
        if daemon.thread is not None:
            daemon.thread.join(WAIT)
        daemon.close()


def view(daemon: Daemon) -> dict[str, Any]:
    controller = daemon.controller
    assert controller is not None and controller.recorder is not None
    return state_view(controller.recorder.table)


def seat_players(daemon: Daemon, seats: dict[int, str], chips: int = 1000) -> None:
    for seat, name in seats.items():
        outcome = daemon.submit({"type": "sit", "seat": seat, "player": name, "chips": chips})
        assert outcome.ok, outcome


def lit(daemon: Daemon, seat: int) -> float:
    assert daemon.devices is not None and daemon.devices.sim is not None
    lights = daemon.devices.sim.lights
    assert lights is not None
    return lights.level(seat)


def shown(daemon: Daemon) -> Any:
    assert daemon.devices is not None and daemon.devices.sim is not None
    display = daemon.devices.sim.display
    assert display is not None
    return display.shown


def press(daemon: Daemon, *keys: str) -> None:
    assert daemon.devices is not None and daemon.devices.sim is not None
    keypad = daemon.devices.sim.keypad
    assert keypad is not None
    before = keypad.delivered
    keypad.press(*keys)
    assert keypad.wait_delivered(before + len(keys), WAIT)


def fold_hands(daemon: Daemon, count: int) -> None:
    """Deal ``count`` hands, each ended by the first seat to act folding (heads-up)."""
    for _ in range(count):
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["phase"] == "preflop")
        press(daemon, "FOLD")
        wait_for(lambda: view(daemon)["phase"] == "idle")


def tear_the_tail(config: Path, work: Path) -> None:
    """Leave the journal in ``work/state`` as storage that lost its last writes leaves
    it: two runs seat players, then the database goes back to its copy after the first,
    an older database beside a newer ack mark."""
    state, older = work / "state", work / "older.sqlite3"
    with running(config) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis"})
    shutil.copy(state / "journal.sqlite3", older)
    with running(config) as daemon:
        seat_players(daemon, {8: "marta"})
    shutil.copy(older, state / "journal.sqlite3")


def journal_events(state_dir: Path) -> list[Any]:
    from controller.journal import Journal

    with Journal.open_readonly(state_dir) as journal:
        return list(journal.iter_events())


class NotifySocket:
    """A real AF_UNIX datagram socket, as systemd listens on ``$NOTIFY_SOCKET``."""

    def __init__(self) -> None:
        self.directory = tempfile.TemporaryDirectory(prefix="notify-")
        self.path = str(Path(self.directory.name) / "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(WAIT)
        self.messages: list[str] = []

    def receive_until(self, wanted: str, timeout: float = WAIT) -> list[str]:
        """Every message received until one holding ``wanted``."""
        deadline = time.monotonic() + timeout
        while not any(wanted in m for m in self.messages):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {wanted!r} within {timeout} s: {self.messages}")
            self.sock.settimeout(left)
            try:
                self.messages.append(self.sock.recv(4096).decode())
            except TimeoutError:
                continue
        return self.messages

    def close(self) -> None:
        self.sock.close()
        self.directory.cleanup()
