"""The bench: the real daemon with every device simulated, and the hands that play them.

``Bench`` starts the same ``Daemon`` as ``tablectl run`` (the same loop, journal,
recovery and drivers) with ``simulated=True``, runs its loop in a thread, and offers
what a technician does at a table: press keypad keys (``press``: bytes from the
simulated keypad, through the real serial driver), move the button puck, put chips in
the tray or take them out, pull a cable and plug it back. ``snapshot()`` gathers what
the screen draws, from the devices as they are (the pins of the seat lights, what the
display received, what the tray holds) and from what the loop last showed
(``Controller.last_shown``).

Any thread may call the actions; ``snapshot()`` belongs to one thread (the screen's),
because the lamp watcher keeps its reading position.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.bench.lamps import Lamp, LampWatcher
from controller.config import Settings
from controller.daemon.display import LastShown
from controller.daemon.recorder import Outcome
from controller.daemon.service import Daemon
from controller.daemon.timekeeping import Clock
from drivers.build import Simulators
from drivers.sim.display import Shown as DisplayShown

log = logging.getLogger("table-controller")

SERIAL_DEVICES = ("keypad", "tray", "display")
CONNECT_TIMEOUT = 10.0


@dataclass(frozen=True)
class Snapshot:
    """Everything the screen draws, taken at one instant."""

    table_id: str
    seats: int
    stakes: str
    state_dir: str
    shown: LastShown | None  # what the loop last showed (None before the first show)
    lamps: dict[int, Lamp]
    has_puck: bool  # a puck sensor is configured
    puck_seat: int | None  # where the puck sensor (the driver) sees the puck
    puck_fault: tuple[int, ...]  # seats seeing it at once, while that fault lasts
    display: DisplayShown  # what the simulated display received
    tray_counts: dict[int, int]  # what the simulated tray holds
    plugged: dict[str, bool]
    connected: dict[str, bool]
    last_seq: int
    log: tuple[str, ...] = ()
    demo: str | None = None
    door: str | None = None  # the door switch's reading (None: no switch, not yet read)


class _Recent(logging.Handler):
    """The daemon's latest log lines, for the screen's message rows."""

    def __init__(self, keep: int = 20) -> None:
        super().__init__(logging.INFO)
        self.lines: deque[str] = deque(maxlen=keep)
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            self.lines.append(self.format(record))


@dataclass
class _Tray:
    """The simulated chip tray the bench's keys fill: the chip value being changed and the
    counts."""

    value: int | None = None  # the chip value the + and - keys change
    counts: dict[int, int] = field(default_factory=dict)  # what the bench put in it
    lock: threading.Lock = field(default_factory=threading.Lock)


class Bench:
    def __init__(
        self,
        settings: Settings,
        *,
        config_path: str | None = None,
        state_dir: str | os.PathLike[str] | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings
        self.daemon = Daemon(
            settings, config_path=config_path, simulated=True, state_dir=state_dir, clock=clock
        )
        self.recent = _Recent()
        self.demo_status: str | None = None
        self._tray = _Tray()
        self._lamps: LampWatcher | None = None
        self._paid_out: int | None = None  # the table's chips sold the tray has paid
        self._paying = threading.Lock()
        self._stop_paying = threading.Event()

    # -- start and stop ------------------------------------------------------------------

    def start(self) -> None:
        """Start the daemon (raises ``StartError``), its loop, and wait for the devices."""
        log.addHandler(self.recent)
        self.daemon.start()
        recovered = self.last_shown()  # before the loop hears the devices power up
        self.daemon.run_in_thread()
        sim = self.sim
        devices = self.daemon.devices
        assert devices is not None
        for name in SERIAL_DEVICES:
            device = getattr(devices, name)
            wait = getattr(device, "wait_connected", None)
            if wait is not None:
                wait(CONNECT_TIMEOUT)
        if sim.lights is not None:
            hardware = self.settings.hardware
            assert hardware is not None
            pins = {seat: sim.lights.pin(seat) for seat in sim.lights.seats}
            self._lamps = LampWatcher(pins, hardware.lights)
        if sim.tray is not None:
            self._restore_tray(recovered)
            self._paid_out = self._sold()  # the restored tray has paid these already
            threading.Thread(target=self._pay_buy_ins, name="bench-tray", daemon=True).start()

    def close(self) -> None:
        """Stop the loop and close the journal cleanly (the next start resumes)."""
        self._stop_paying.set()
        try:
            self.daemon.close()
        finally:
            log.removeHandler(self.recent)

    @property
    def sim(self) -> Simulators:
        devices = self.daemon.devices
        if devices is None or devices.sim is None:
            raise RuntimeError("the bench's devices are not running")
        return devices.sim

    @property
    def alive(self) -> bool:
        thread = self.daemon.thread
        return thread is not None and thread.is_alive()

    # -- what the technician does ---------------------------------------------------------

    def press(self, *keys: str, wait: float | None = None) -> str | None:
        """Press dealer-keypad keys; a reason when they went nowhere. With ``wait``,
        return once the driver has received them all (at most ``wait`` seconds)."""
        keypad = self.sim.keypad
        if keypad is None:
            return "no simulated keypad"
        if not keypad.plugged:
            return "keypad unplugged: key lost"
        delivered = keypad.delivered
        keypad.press(*keys)
        if wait is not None and not keypad.wait_delivered(delivered + len(keys), wait):
            return "the keypad driver did not take the keys"
        return None

    def place_puck(self, seat: int) -> str | None:
        puck = self.sim.puck
        if puck is None:
            return "no puck sensor configured"
        if seat not in puck.seats:
            return f"no puck sensor at seat {seat}"
        puck.place(seat)
        return None

    def lift_puck(self) -> str | None:
        puck = self.sim.puck
        if puck is None:
            return "no puck sensor configured"
        puck.lift()
        return None

    def set_door(self, opened: bool | None = None) -> str:
        """Open or close the controller's door (its switch's simulated pin); None: the
        other way from where it is. Says which."""
        door = self.sim.door
        if door is None:
            return "no door switch configured (hardware.door.pin)"
        if opened is None:
            opened = not door.is_open
        (door.open if opened else door.close)()
        return "door opened" if opened else "door closed"

    def toggle_plug(self, device: str) -> str:
        """Pull a serial device's cable, or plug it back; says which."""
        handle = getattr(self.sim, device, None)
        if handle is None:
            return f"no simulated {device}"
        if handle.plugged:
            handle.unplug()
            return f"{device} unplugged"
        handle.replug()
        return f"{device} plugged back in"

    def sit(self, seat: int, player: str, chips: int) -> Outcome:
        """A player sits down (a rules event handed to the loop, as a console would);
        the buy-in leaves the tray (``pay_buy_ins``)."""
        outcome = self.daemon.submit(
            {"type": "sit", "seat": seat, "player": player, "chips": chips}, by="bench"
        )
        self.pay_buy_ins()
        return outcome

    def buy_chips(self, seat: int, amount: int) -> Outcome:
        outcome = self.daemon.submit({"type": "chips", "seat": seat, "amount": amount}, by="bench")
        self.pay_buy_ins()
        return outcome

    # -- the tray ----------------------------------------------------------------------------

    def tray_values(self) -> list[int]:
        sim = self.sim.tray
        values = set(self.settings.tray.float_counts)
        if sim is not None:
            values |= set(sim.counts)
        return sorted(values) or [self.settings.rules.game.smallest_chip]

    def selected_value(self) -> int:
        values = self.tray_values()
        with self._tray.lock:
            if self._tray.value not in values:
                self._tray.value = values[0]
            return self._tray.value

    def next_value(self) -> int:
        values = self.tray_values()
        with self._tray.lock:
            index = values.index(self._tray.value) if self._tray.value in values else -1
            self._tray.value = values[(index + 1) % len(values)]
            return self._tray.value

    def _set_tray(self, change: Callable[[dict[int, int]], dict[int, int]]) -> str | None:
        """Change what the tray holds; the reader reports it at once."""
        sim = self.sim.tray
        if sim is None:
            return "no simulated tray"
        with self._tray.lock:  # the device takes it later: keep our own tally meanwhile
            self._tray.counts = change(dict(self._tray.counts))
            sim.set_counts(self._tray.counts)
        return None

    def set_tray(self, counts: Mapping[int, int]) -> str | None:
        """The tray holds exactly ``counts`` (chip value -> chips)."""
        wanted = dict(counts)
        return self._set_tray(lambda _: wanted)

    def change_tray(self, value: int, chips: int) -> str | None:
        """Put ``chips`` chips worth ``value`` in the tray (negative: take them out)."""

        def change(counts: dict[int, int]) -> dict[int, int]:
            counts[value] = max(0, counts.get(value, 0) + chips)
            return counts

        return self._set_tray(change)

    def pay_buy_ins(self) -> None:
        """Pay out of the tray every buy-in the table recorded since the last call, as
        the dealer does at a table: a player seated or chips bought, by the keypad
        (``FUNC 1``, ``FUNC 5``), a script, the demo or a console; largest chips first.
        Chips the table no longer counts as sold (a voided hand's buy-in) go back in.
        Without it a seat keyed on the bench left the tray short (``OFF BY 1000``)."""
        with self._paying:
            sold = self._sold()
            if sold is None or self._paid_out is None or sold == self._paid_out:
                return
            change, self._paid_out = sold - self._paid_out, sold
            if change > 0:
                self._set_tray(lambda counts: _without(counts, change))
            else:
                self._set_tray(lambda counts: self._with(counts, -change))

    def _sold(self) -> int | None:
        """The chips sold at the table so far (``TableState.bought_in``), None while locked."""
        controller = self.daemon.controller
        recorder = controller.recorder if controller is not None else None
        return recorder.table.state.bought_in if recorder is not None else None

    def _pay_buy_ins(self) -> None:
        """The tray's own thread: buy-ins keyed on the keypad are paid within 0.1 s,
        long before the tray's reading is compared (``tray.stable_seconds``)."""
        while not self._stop_paying.wait(0.1):
            with contextlib.suppress(Exception):  # never stop the bench over the tray
                self.pay_buy_ins()

    def _with(self, counts: dict[int, int], amount: int) -> dict[int, int]:
        """``counts`` and chips worth ``amount``, the float's largest chips first."""
        values = set(self.settings.tray.float_counts or counts)
        for value in sorted(values | {self.settings.rules.game.smallest_chip}, reverse=True):
            chips, amount = divmod(amount, value)
            if chips:
                counts[value] = counts.get(value, 0) + chips
        return counts

    def balance_tray(self) -> str:
        """Make the tray hold what the ledger expects (the float less the chips sold)."""
        shown = self.last_shown()
        if shown is None or shown.tray is None or not shown.tray.checked:
            return "no tray float configured: nothing to balance against"
        expected = shown.tray.expected
        return (
            self._set_tray(lambda _: self._expected_counts(expected))
            or f"tray set to the expected {expected}"
        )

    def _expected_counts(self, expected: int) -> dict[int, int]:
        floated = dict(self.settings.tray.float_counts)
        total = sum(value * count for value, count in floated.items())
        if expected <= total:
            return _without(floated, total - expected)
        smallest = min(floated, default=self.settings.rules.game.smallest_chip)
        floated[smallest] = floated.get(smallest, 0) + (expected - total) // smallest
        return floated

    def _restore_tray(self, shown: LastShown | None) -> None:
        """The tray holds what it held when the bench stopped (its last journalled
        reading), or else what the ledger expects."""
        view = shown.view if shown is not None else None
        reading = view.get("tray") if view is not None else None
        if isinstance(reading, Mapping) and reading.get("read") and reading.get("counts"):
            counts = {int(value): int(count) for value, count in reading["counts"].items()}
            self._set_tray(lambda _: counts)
        elif shown is not None and shown.tray is not None and shown.tray.checked:
            expected = shown.tray.expected
            self._set_tray(lambda _: self._expected_counts(expected))

    # -- what the screen draws ---------------------------------------------------------------

    def last_shown(self) -> LastShown | None:
        controller = self.daemon.controller
        return controller.last_shown if controller is not None else None

    def snapshot(self) -> Snapshot:
        devices = self.daemon.devices
        assert devices is not None
        sim = self.sim
        controller = self.daemon.controller
        recorder = controller.recorder if controller is not None else None
        # the game in force (the table's): a changed configuration waits for the hand's end
        rules = recorder.table.settings if recorder is not None else self.settings.rules
        game = rules.game
        return Snapshot(
            table_id=rules.table_id,
            seats=rules.seats,
            stakes=(
                f"{game.structure.replace('_', ' ')}"
                + ("" if game.form == "flop" else f" {game.form.replace('_', ' ')}")
                + f" {game.sb_amount}/{game.big_blind}"
            ),
            state_dir=str(self.daemon.state_dir),
            shown=self.last_shown(),
            lamps=self._lamps.read() if self._lamps is not None else {},
            has_puck=sim.puck is not None,
            puck_seat=devices.puck.seat,
            puck_fault=tuple(devices.puck.fault_seats),
            display=sim.display.shown if sim.display is not None else DisplayShown(),
            tray_counts=sim.tray.counts if sim.tray is not None else {},
            plugged={
                name: bool(getattr(sim, name).plugged)
                for name in SERIAL_DEVICES
                if getattr(sim, name) is not None
            },
            connected={name: bool(getattr(devices, name).connected) for name in SERIAL_DEVICES},
            last_seq=recorder.last_seq if recorder is not None else 0,
            log=tuple(self.recent.lines),
            demo=self.demo_status,
            door=devices.door.status,
        )

    def puck_seat(self) -> int | None:
        """Where the puck sensor sees the puck."""
        devices = self.daemon.devices
        return devices.puck.seat if devices is not None else None

    def view(self) -> dict[str, Any] | None:
        """The state view the loop last showed (None before the first, or while locked)."""
        shown = self.last_shown()
        return shown.view if shown is not None else None


def _without(counts: Mapping[int, int], amount: int) -> dict[int, int]:
    """``counts`` less chips worth ``amount``, largest chips first (as far as they go)."""
    left = dict(counts)
    for value in sorted(left, reverse=True):
        take = min(left[value], amount // value)
        left[value] -= take
        amount -= take * value
    return left
