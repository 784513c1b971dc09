"""Time in the daemon: the monotonic clock measures, ``tick`` events tell the rules.

The rules core never reads a clock: the action clock, the keypad lock-out and the chip
tray's stability only move with ``tick`` events, and a tick is journalled like any
other input so that replaying the journal gives the same state. A tick every 100 ms
would fill the journal with noise, so the daemon journals one only when it matters:

- right before any other input event, while time matters to the rules (an action
  clock runs and play is not stopped, the supervisor PIN is locked out, or the chip tray's float check waits
  for a reading to hold still): the time elapsed since the last journalled tick, so the
  event meets the table as it is at that instant. When nothing depends on time, the
  idle time is dropped instead of journalled (``elapsed_ms`` is the table time during
  which time mattered), which halves the journal's rows per hand;
- exactly when the running clock crosses its warning point and when it expires (the
  loop sleeps until that instant, computed from the last tick, not by polling);
- when the chip tray's reading has held for ``tray.stable_seconds`` (the float check);
- every :data:`PERIODIC_MS` while a clock runs, so a power cut loses at most that much
  clock time: after recovery the clock resumes with the time it had at the last
  journalled tick, never more than it really had.

Between journalled ticks the clock display counts down from the monotonic clock
(:meth:`Timekeeper.countdown_ms`). Elapsed time is carried in nanoseconds and
journalled in whole milliseconds; the remainder is kept for the next tick, so no time
is lost to rounding. Wall time is used only for timestamps (``describe_wall_time``).

The monotonic clock does not run across a power cut or a reboot, so the time the
table was off is not counted: the clock resumes where its last tick left it.

The daemon takes its clock (``Daemon(clock=...)``), as trio's run takes one: the
``Clock`` says what time it is and waits for the next input until an instant.
``SystemClock`` is the monotonic clock and sleeps for real; tests pass a clock whose
time moves only when they say so (``tests/mock_clock.py``), so the action clock's
warning and expiry are tested through the daemon without spending seconds.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from controller.rules import tournament
from controller.rules.ops import push_left_ms, shift_counting
from controller.rules.settings import RuleSettings
from controller.rules.state import Clock as ActionClock
from controller.rules.state import TableState

PERIODIC_MS = 5000
"""A tick is journalled at least this often while an action clock runs."""

MS = 1_000_000


class InputSource(Protocol):
    """What the loop reads its inputs from: ``queue.Queue`` or the daemon's
    ``InputQueue`` (``controller.daemon.inqueue``); ``queue.Empty`` when none came."""

    def get(self, block: bool = True, timeout: float | None = None) -> Any: ...

    def get_nowait(self) -> Any: ...


class Clock(Protocol):
    """The daemon's time: every instant it uses is a ``now_ns()`` value."""

    def now_ns(self) -> int:
        """The monotonic time in nanoseconds."""
        ...

    def next_input(self, inputs: InputSource, until_ns: int | None) -> Any | None:
        """The next item on ``inputs``, waiting for it until the instant ``until_ns``
        (for ever when None); None when that instant came first."""
        ...


class SystemClock:
    """The monotonic clock; waiting is a real sleep on the queue."""

    def now_ns(self) -> int:
        return time.monotonic_ns()

    def next_input(self, inputs: InputSource, until_ns: int | None) -> Any | None:
        try:
            if until_ns is None:
                return inputs.get()
            timeout = max(0.0, (until_ns - time.monotonic_ns()) / 1e9)
            return inputs.get(timeout=timeout) if timeout != 0 else inputs.get_nowait()
        except queue.Empty:
            return None


class Timekeeper:
    """How much table time has passed since the last journalled tick, and when the next
    tick must be journalled. All instants are ``time.monotonic_ns()`` values."""

    def __init__(
        self,
        now_ns: int | None = None,
        *,
        periodic_ms: int = PERIODIC_MS,
        monotonic_ns: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        self.monotonic_ns = monotonic_ns
        self.accounted_ns = monotonic_ns() if now_ns is None else now_ns
        self.periodic_ms = periodic_ms

    def now(self) -> int:
        return self.monotonic_ns()

    def pending_ms(self, now_ns: int) -> int:
        """Whole milliseconds of table time not yet told to the rules."""
        return max(0, (now_ns - self.accounted_ns) // MS)

    def told(self, ms: int) -> None:
        """A tick of ``ms`` was journalled and applied."""
        self.accounted_ns += ms * MS

    def restart(self, now_ns: int) -> None:
        """Forget time not yet told (after recovery, or while play is locked)."""
        self.accounted_ns = now_ns

    def tick_due(
        self, state: TableState, warning_ms: int, extra: Iterable[int | None] = ()
    ) -> int | None:
        """The instant a tick must be journalled, or None when no time matters now.

        ``warning_ms``: the clock's warning point; ``extra``: other milliseconds of
        table time (after the last tick) at which something happens.
        """
        after_ms: list[int] = [ms for ms in extra if ms is not None]
        clock = running_clock(state)
        if clock is not None:
            after_ms.append(clock.remaining_ms)
            if not clock.warning and clock.remaining_ms > warning_ms:
                after_ms.append(clock.remaining_ms - warning_ms)
            after_ms.append(self.periodic_ms)
        if not after_ms:
            return None
        return self.accounted_ns + max(0, min(after_ms)) * MS

    def countdown_ms(self, state: TableState, now_ns: int) -> int | None:
        """What the clock display shows now: the clock's time left at the last tick less
        the time since (the rules learn it at the next tick)."""
        clock = state.clock
        if clock is None:
            return None
        if state.play_stopped:  # it stands still (controller.rules.stopped)
            return clock.remaining_ms
        return max(0, clock.remaining_ms - self.pending_ms(now_ns))

    def display_due(self, state: TableState, now_ns: int) -> int | None:
        """When the countdown next shows a different whole second."""
        shown = self.countdown_ms(state, now_ns)
        if not shown or state.play_stopped:
            return None
        step = shown % 1000 or 1000
        return now_ns + step * MS - (now_ns - self.accounted_ns) % MS

    def level_since_ms(self, state: TableState, rules: RuleSettings, now_ns: int) -> int:
        """The time since the last tick that the display shows a tournament's running
        level clock further on (``tournament.display_lines``): 0 when it does not run."""
        if tournament.ms_left_running(state, rules) is None:
            return 0
        return self.pending_ms(now_ns)

    def level_display_due(self, state: TableState, rules: RuleSettings, now_ns: int) -> int | None:
        """Between hands at a tournament table, when the level clock's time left on the
        display next shows a different whole second (the rules learn the time at the
        next tick; the display counts down in between). None when it shows no running
        level clock."""
        left = tournament.ms_left_running(state, rules)
        if left is None or state.hand is not None:
            return None
        shown = left - self.pending_ms(now_ns)
        if shown <= 0:
            return None
        step = shown % 1000 or 1000
        return now_ns + step * MS - (now_ns - self.accounted_ns) % MS


def running_clock(state: TableState) -> ActionClock | None:
    """The action clock while it counts: none while play is stopped."""
    return None if state.play_stopped else state.clock


#: While a shift is open or a push reminder is to come, a tick at least this often (table
#: time): the shift's hours and the reminder's minute, without a tick before every input.
OPS_TICK_MS = 60_000


def ops_tick_after_ms(state: TableState, rules: RuleSettings) -> list[int]:
    """Milliseconds of table time (after the last tick) at which the casino's operations
    need the time told (``controller.rules.ops``): the push reminder's due instant, and
    ``OPS_TICK_MS`` while a shift counts its time (from the first open on, between a
    close and the next open too) or a reminder is to come; none otherwise."""
    push = push_left_ms(state, rules)
    if push is None and not shift_counting(state):
        return []
    return [OPS_TICK_MS] if push is None else [OPS_TICK_MS, push]


def tournament_tick_after_ms(state: TableState, rules: RuleSettings) -> list[int]:
    """Milliseconds of table time (after the last tick) at which a tournament's level
    clock needs the time told (rules T1): the end of the level or break, and
    ``OPS_TICK_MS`` while it runs, so a power cut loses at most that much level time
    and the display's time left is never older; none while it does not run."""
    left = tournament.ms_left_running(state, rules)
    if left is None:
        return []
    return [OPS_TICK_MS, left] if left > 0 else [OPS_TICK_MS]


def tray_stable_after_ms(state: TableState, stable_seconds: float, checked: bool) -> int | None:
    """Milliseconds of table time until the tray reading counts as stable (the float
    check), or None when nothing is waiting for it."""
    if not checked or not state.tray_read:
        return None
    left = state.tray_since_ms + round(stable_seconds * 1000) - state.elapsed_ms
    return left if left > 0 else None


@dataclass(frozen=True)
class WallStamp:
    """A recorded wall time, and whether it can be presented as a date."""

    wall_ns: int
    synced: bool
    redated_ns: int | None = None  # from a later clock_sync entry of the same boot

    def text(self) -> str:
        """The recorded time, marked ``unsynced`` (and re-dated when that can be done)
        when the board's clock was not synchronised: never presented as fact."""
        if self.synced:
            return _iso(self.wall_ns)
        if self.redated_ns is not None:
            return f"{_iso(self.wall_ns)} unsynced (re-dated {_iso(self.redated_ns)})"
        return f"{_iso(self.wall_ns)} unsynced"

    def as_json(self) -> dict[str, Any]:
        return {
            "wall": _iso(self.wall_ns),
            "clock_synced": self.synced,
            "redated": _iso(self.redated_ns) if self.redated_ns is not None else None,
        }


def _iso(wall_ns: int) -> str:
    moment = datetime.fromtimestamp(wall_ns / 1e9, tz=UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S") + "Z"


@dataclass
class _Boot:
    """One boot as the journal's system log tells it: where it starts, and when its clock got
    synced."""

    first_log_id: int  # the boot's power_up entry
    after_seq: int  # events recorded in this boot have a greater seq
    sync: tuple[int, int] | None = None  # (wall_ns, mono_ns) when the clock got synced


class WallDating:
    """Dates records whose wall time was not synchronised, when that can be done.

    The journal's ``clock_sync`` entry holds the wall and monotonic time at the moment
    the clock was first seen synchronised. A record of the same boot (after the same
    ``power_up`` entry) taken earlier gets ``sync_wall - (sync_mono - its_mono)``; the
    monotonic clock does not run across boots, so anything else stays "time unknown".
    """

    def __init__(self, boots: list[_Boot]) -> None:
        self._boots = boots

    @classmethod
    def from_log(cls, entries: Iterable[Any]) -> WallDating:
        """``entries``: the journal's system log (``SystemLogRecord``), oldest first."""
        boots: list[_Boot] = []
        for entry in entries:
            if entry.kind == "power_up":
                boots.append(_Boot(entry.id, entry.last_seq))
            elif entry.kind == "clock_sync" and boots and boots[-1].sync is None:
                detail = entry.detail
                boots[-1].sync = (
                    int(detail.get("wall_ns", entry.wall_ns)),
                    int(detail.get("mono_ns", entry.mono_ns)),
                )
        return cls(boots)

    def for_event(self, seq: int, wall_ns: int, synced: bool, mono_ns: int) -> WallStamp:
        boot = next((b for b in reversed(self._boots) if b.after_seq < seq), None)
        return self._stamp(boot, wall_ns, synced, mono_ns)

    def for_log(self, log_id: int, wall_ns: int, synced: bool, mono_ns: int) -> WallStamp:
        boot = next((b for b in reversed(self._boots) if b.first_log_id <= log_id), None)
        return self._stamp(boot, wall_ns, synced, mono_ns)

    @staticmethod
    def _stamp(boot: _Boot | None, wall_ns: int, synced: bool, mono_ns: int) -> WallStamp:
        if synced:
            return WallStamp(wall_ns, True)
        if boot is not None and boot.sync is not None and mono_ns <= boot.sync[1]:
            sync_wall, sync_mono = boot.sync
            return WallStamp(wall_ns, False, sync_wall - (sync_mono - mono_ns))
        return WallStamp(wall_ns, False)
