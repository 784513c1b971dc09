"""Keypad-to-queue latency, alone and while the chip tray floods the link at 1 kHz.

The real serial drivers run against the simulated keypad and tray (pty pairs), both
putting events on one queue as in the daemon. For each key, the time from
``SimKeypad.press`` to the driver's ``queue.put`` of the ``KeyPressed`` is recorded.
A consumer thread drains the queue as the controller loop would.

    .venv/bin/python bench/driver_latency.py [--presses 500] [--flood-hz 1000]
"""

from __future__ import annotations

import argparse
import contextlib
import queue
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from drivers.events import DeviceEvent, KeyPressed, TrayCounts
from drivers.keypad import SerialKeypad
from drivers.settings import SerialDeviceSettings
from drivers.sim.keypad import SimKeypad
from drivers.sim.tray import SimTray
from drivers.tray import SerialChipTray


class StampedQueue(queue.Queue[DeviceEvent]):
    """Records when each key event is put, and counts tray events."""

    def __init__(self) -> None:
        super().__init__()
        self.key_put = threading.Event()
        self.key_put_at = 0.0
        self.tray_events = 0

    def put(self, item: DeviceEvent, block: bool = True, timeout: float | None = None) -> None:
        if isinstance(item, KeyPressed):
            self.key_put_at = time.perf_counter()
            self.key_put.set()
        elif isinstance(item, TrayCounts):
            self.tray_events += 1
        super().put(item, block, timeout)


def drain(events: StampedQueue, stop: threading.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(queue.Empty):
            events.get(timeout=0.1)


def measure(
    keypad: SimKeypad, events: StampedQueue, presses: int, rng: random.Random
) -> list[float]:
    latencies = []
    for n in range(presses):
        time.sleep(rng.uniform(0.002, 0.01))  # not in step with the flood
        events.key_put.clear()
        started = time.perf_counter()
        keypad.press(str(n % 10))
        if not events.key_put.wait(10.0):
            raise RuntimeError("a key press never reached the queue")
        latencies.append(events.key_put_at - started)
    return latencies


def report(name: str, latencies: list[float], extra: str = "") -> None:
    ms = sorted(value * 1000 for value in latencies)
    p50 = statistics.median(ms)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    print(
        f"{name:24} n={len(ms):4}  p50 {p50:6.3f} ms  p99 {p99:6.3f} ms  max {ms[-1]:7.3f} ms{extra}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=500)
    parser.add_argument("--flood-hz", type=float, default=1000.0)
    args = parser.parse_args()
    rng = random.Random(1)
    directory = Path(tempfile.mkdtemp(prefix="driver-latency-"))
    events = StampedQueue()
    stop = threading.Event()
    consumer = threading.Thread(target=drain, args=(events, stop), daemon=True)
    consumer.start()
    devices: list[Any] = []
    try:
        keypad_sim = SimKeypad(directory / "keypad")
        tray_sim = SimTray(directory / "tray", counts={5: 100, 25: 40, 100: 10})
        devices += [keypad_sim, tray_sim]
        keypad = SerialKeypad(SerialDeviceSettings(port=keypad_sim.path), events)
        tray = SerialChipTray(SerialDeviceSettings(port=tray_sim.path), events)
        devices[:0] = [keypad, tray]
        if not (keypad.wait_connected(10) and tray.wait_connected(10)):
            raise RuntimeError("the simulated devices did not connect")
        measure(keypad_sim, events, 20, rng)  # warm up
        report("keypad alone", measure(keypad_sim, events, args.presses, rng))

        tray_sim.flood(args.flood_hz)
        time.sleep(0.5)
        sent_before, events_before = tray_sim.readings_sent, events.tray_events
        started = time.perf_counter()
        latencies = measure(keypad_sim, events, args.presses, rng)
        elapsed = time.perf_counter() - started
        tray_sim.flood(None)
        sent = (tray_sim.readings_sent - sent_before) / elapsed
        reported = (events.tray_events - events_before) / elapsed
        report(
            f"keypad, tray at {args.flood_hz:.0f} Hz",
            latencies,
            f"  (tray sent {sent:.0f} readings/s, driver reported {reported:.0f}/s)",
        )
        counters = tray.counters
        print(
            f"tray link: frames {counters.frames}, dropped {counters.dropped}, "
            f"duplicates {counters.duplicates}; keypad link: dropped {keypad.counters.dropped}"
        )
    finally:
        stop.set()
        for device in devices:
            device.close()
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
