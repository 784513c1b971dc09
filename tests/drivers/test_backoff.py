"""drivers.backoff: the one back-off of the serial links and the floor publisher."""

from __future__ import annotations

import itertools

from drivers.backoff import MAX_DOUBLINGS, backoff_s
from drivers.serial_link import FIRST_BACKOFF, MAX_BACKOFF, backoff_delays


def test_the_wait_doubles_from_the_first_failure_up_to_the_maximum() -> None:
    waits = [backoff_s(failures, 0.5, 30.0) for failures in range(1, 10)]
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]


def test_a_long_outage_neither_overflows_nor_grows_past_the_maximum() -> None:
    assert backoff_s(10**9, 0.5, 30.0) == 30.0
    assert backoff_s(10**9, 1e-6, 1e9) == 1e-6 * 2**MAX_DOUBLINGS


def test_the_serial_links_reopen_on_the_same_back_off() -> None:
    delays = list(itertools.islice(backoff_delays(), 12))
    assert delays == [backoff_s(n, FIRST_BACKOFF, MAX_BACKOFF) for n in range(1, 13)]
    assert delays[:7] == [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0]
