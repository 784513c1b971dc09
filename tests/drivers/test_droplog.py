from __future__ import annotations

import logging

import pytest

from drivers.droplog import DropLog


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_first_drop_is_logged_then_at_most_once_per_interval(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    log = DropLog("keypad", interval=10.0, clock=clock)
    with caplog.at_level(logging.WARNING, logger="drivers"):
        log.note("bad_crc", detail="CRC mismatch")
        for _ in range(1000):
            clock.now += 0.001
            log.note("bad_crc")
            log.note("garbage_bytes", 7)
        assert len(caplog.records) == 1
        assert caplog.records[0].getMessage() == (
            "keypad: dropped input: bad_crc 1 (latest: CRC mismatch)"
        )
        clock.now += 10.0
        log.note("torn")
        assert len(caplog.records) == 2
        assert caplog.records[1].getMessage() == (
            "keypad: dropped input in the last 11 s: bad_crc 1000, garbage_bytes 7000, torn 1"
        )
    assert log.lines_logged == 2


def test_tick_logs_what_is_pending_once_the_interval_passed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    log = DropLog("tray", interval=10.0, clock=clock)
    with caplog.at_level(logging.WARNING, logger="drivers"):
        log.note("unknown")
        log.note("unknown")
        log.tick()
        assert len(caplog.records) == 1
        clock.now += 10.0
        log.tick()
        log.tick()
        assert [r.getMessage() for r in caplog.records][1:] == [
            "tray: dropped input in the last 10 s: unknown 1"
        ]
