"""Issue 13 item 14: a flooding chip tray never delays a key. Measured as order and
queue bound (what waits, what gets journalled), never as a timed assertion."""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

from controller.config import load_config
from controller.daemon.inputs import Stop, Submit
from controller.daemon.inqueue import DEVICE_BOUND, InputQueue
from controller.daemon.service import Daemon
from controller.journal import Journal
from drivers.events import DeviceFault, DoorChanged, KeyPressed, PuckMoved, TrayCounts
from tests.daemon_helpers import RecordingNotifier, wait_for, write_config


def reading(n: int) -> TrayCounts:
    return TrayCounts(counts={5: 100 + n % 7, 25: 40})


def test_a_key_after_a_flood_of_readings_waits_behind_at_most_one() -> None:
    inputs = InputQueue()
    for n in range(10_000):
        inputs.put(reading(n))
    inputs.put(KeyPressed(key="FOLD"))
    for n in range(10_000):
        inputs.put(reading(n + 3))
    assert inputs.qsize() == 2 and inputs.merged == 19_999
    assert inputs.get_nowait() == KeyPressed(key="FOLD")  # the stale readings are gone
    assert inputs.get_nowait() == reading(10_002)  # the newest reading, once
    with pytest.raises(queue.Empty):
        inputs.get_nowait()


def test_readings_merge_per_kind_and_keep_the_order_of_everything_else() -> None:
    inputs = InputQueue()
    items = [
        KeyPressed(key="NEXT"),
        reading(1),
        PuckMoved(seat=3),
        KeyPressed(key="CHECK"),
        reading(2),
        PuckMoved(seat=4),
        Submit({"type": "state"}),
    ]
    for item in items:
        inputs.put(item)
    got = [inputs.get_nowait() for _ in range(inputs.qsize())]
    assert got == [
        KeyPressed(key="NEXT"),
        KeyPressed(key="CHECK"),
        reading(2),
        PuckMoved(seat=4),
        Submit({"type": "state"}),
    ]


def test_device_events_are_bounded_and_the_daemons_own_never_dropped() -> None:
    inputs = InputQueue()
    for n in range(DEVICE_BOUND + 500):
        inputs.put(DeviceFault(device="keypad", message=f"noise {n}"))
    inputs.put(Stop("test"))
    assert inputs.qsize() == DEVICE_BOUND + 1 and inputs.dropped == 500
    got = [inputs.get_nowait() for _ in range(inputs.qsize())]
    assert got[-1] == Stop("test")
    assert got[DEVICE_BOUND - 1] == DeviceFault(
        device="keypad", message=f"noise {DEVICE_BOUND - 1}"
    )


def test_a_door_reading_is_never_dropped_behind_a_flood() -> None:
    """Dropped, a door closed would leave play stopped for good (or an opening unseen)."""
    inputs = InputQueue()
    for n in range(DEVICE_BOUND + 10):
        inputs.put(DeviceFault(device="keypad", message=f"noise {n}"))
    inputs.put(DoorChanged(status="open"))
    inputs.put(DoorChanged(status="closed"))
    got = [inputs.get_nowait() for _ in range(inputs.qsize())]
    assert got[-2:] == [DoorChanged(status="open"), DoorChanged(status="closed")]


def test_the_daemon_handles_a_key_behind_a_tray_flood_with_one_tray_row(tmp_path: Path) -> None:
    """20,000 readings and a key waiting before the loop starts: the journal gets the key
    and one tray row, not 20,001 rows."""
    daemon = Daemon(
        load_config(write_config(tmp_path)), simulated=True, notifier=RecordingNotifier()
    )
    daemon.start()
    try:
        for n in range(10_000):
            daemon.inputs.put(reading(n))
        daemon.inputs.put(KeyPressed(key="NEXT"))
        for n in range(10_000):
            daemon.inputs.put(reading(n + 1))
        assert daemon.inputs.qsize() == 2
        daemon.run_in_thread()
        wait_for(lambda: daemon.inputs.empty(), what="the queue drained")
    finally:
        daemon.stop()
        if daemon.thread is not None:
            daemon.thread.join(15)
        daemon.close()
    with Journal.open_readonly(tmp_path / "state") as journal:
        kinds = [
            record.event["type"]
            for record in journal.iter_events()
            if record.event["type"] in ("key", "tray")
        ]
    assert kinds == ["key", "tray"]


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_tray_readings_reach_the_loop_at_most_every_quarter_second() -> None:
    clock = FakeClock()
    inputs = InputQueue(tray_every=0.25, clock=clock)
    inputs.put(reading(1))
    assert inputs.get_nowait() == reading(1)
    inputs.put(reading(2))
    inputs.put(KeyPressed(key="BET"))
    assert inputs.get_nowait() == KeyPressed(key="BET")  # passes the held reading
    with pytest.raises(queue.Empty):
        inputs.get_nowait()  # the tray settles: nothing due yet
    inputs.put(reading(3))  # replaces reading 2
    clock.now += 0.25
    assert inputs.get_nowait() == reading(3)
    assert inputs.empty()
