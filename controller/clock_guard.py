"""The wall clock for the whole process, even where CPython cannot hold it.

CPython keeps time as a signed 64-bit count of nanoseconds, so with the system clock
past 2262-04-11T23:47:16Z (or before 1677-09-21) ``time.time()`` and ``time.time_ns()``
raise ``OverflowError``, and the standard library calls them on import (``logging``'s
start time) and in every log record: a board whose RTC or a ``date -s`` went that far
ended every ``tablectl`` command, the daemon's start first, in a traceback before a
word was said. :func:`guard`, run by the package's import before anything else, puts
versions in the ``time`` module that never raise for that reason: past the range,
``time.time()`` gives the true reading (a float holds it) and ``time.time_ns()`` the
nearest that 64 bits hold. The journal reads the true reading (:func:`raw_wall_ns`,
through ``clock_gettime`` when CPython cannot) to say how far off the clock is, and
records the bound, marked unsynchronised: a clock fault (``journal/clock.py``).
"""

from __future__ import annotations

import time

WALL_NS_MAX = 2**63 - 1  # 2262-04-11T23:47:16.854775807Z: SQLite's largest integer too
WALL_NS_MIN = -(2**63)  # 1677-09-21T00:12:43.145224192Z

_system_time_ns = time.time_ns  # CPython's own, kept before guard() replaces them
_system_time = time.time


def raw_wall_ns() -> int:
    """The system's wall clock in ns since 1970, whatever its size."""
    try:
        return _system_time_ns()
    except OverflowError:
        return _clock_gettime_ns()


def bounded_time_ns() -> int:
    """``time.time_ns()`` that holds in 64 bits: the nearest bound past it."""
    return min(max(raw_wall_ns(), WALL_NS_MIN), WALL_NS_MAX)


def _time() -> float:
    try:
        return _system_time()
    except OverflowError:
        return raw_wall_ns() / 1e9


def guard() -> None:
    """Put :func:`_time` and :func:`bounded_time_ns` in the ``time`` module (once)."""
    time.time = _time
    time.time_ns = bounded_time_ns


def _clock_gettime_ns() -> int:
    import ctypes

    class Timespec(ctypes.Structure):
        _fields_ = [("tv_sec", ctypes.c_int64), ("tv_nsec", ctypes.c_long)]

    spec = Timespec()
    if ctypes.CDLL(None, use_errno=True).clock_gettime(time.CLOCK_REALTIME, ctypes.byref(spec)):
        return WALL_NS_MAX  # unreadable as well: at least never a traceback
    return int(spec.tv_sec) * 1_000_000_000 + int(spec.tv_nsec)
