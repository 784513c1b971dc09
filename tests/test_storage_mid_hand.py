"""The storage failing while the daemon plays a hand (a real size-limited tmpfs, filled
up in the middle of a hand): the dealer and the technician are
told it is the storage, with the advice that works (free space or mount it read-write,
then restart; not the salvage), as a start on the same storage says; and after the
restart on working storage the hand goes on with nothing acknowledged lost.

Before (main up to 2d5295b, which fixed it in parallel with this test), a failed
append mid-hand was MEMORY FAULT WRITE, "the journal could not record an event:
database or disk is full", with no advice, while the start after it said STORAGE FULL
and what to do. (A read-only remount cannot be made mid-hand here:
the kernel refuses it while the journal's files are open for writing, "mount point is
busy"; the kernel's own remount after I/O errors goes through the same code path.)"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.journal import Journal
from tests.daemon_helpers import press, running, seat_players, shown, view, wait_for, write_config
from tests.test_journal_storage import fill_up, small_fs  # noqa: F401  (the fixture)

# slow, out of the edit loop (README, Tests): a real tmpfs filled up under a playing daemon
pytestmark = pytest.mark.slow


def _fill(point: Path) -> Callable[[], None]:
    fill_up(point)
    return lambda: os.unlink(point / "filler")


@pytest.mark.parametrize(
    ("break_it", "code", "display", "advice"),
    [
        (_fill, "storage_full", "STORAGE FULL", "Free space on it"),
    ],
)
def test_the_storage_failing_mid_hand_says_so_and_play_resumes_after_a_restart(
    small_fs: Path,  # noqa: F811
    break_it: Callable[[Path], Callable[[], None]],
    code: str,
    display: str,
    advice: str,
) -> None:
    config = write_config(small_fs)
    with running(config) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis", 7: "eva"})
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["phase"] == "preflop")
        controller = daemon.controller
        assert controller is not None and controller.recorder is not None
        acknowledged = controller.recorder.journal.last_seq
        to_act = view(daemon)["to_act"]
        repair = break_it(small_fs)
        press(daemon, "CHECK")  # the first action of the hand cannot be written
        wait_for(lambda: controller.fault is not None)
        fault = controller.fault
        assert fault is not None and fault.code == code, fault
        assert advice in fault.message and "salvage cannot help" in fault.message
        wait_for(lambda: shown(daemon).line2 == display, what=f"{display} on the display")
        assert view(daemon)["to_act"] == to_act  # nothing was applied
        repair()
    with running(config) as daemon:  # the restart, on working storage
        controller = daemon.controller
        assert controller is not None and controller.fault is None
        assert view(daemon)["phase"] == "preflop" and view(daemon)["to_act"] == to_act
        press(daemon, "FOLD")
        wait_for(lambda: view(daemon)["to_act"] != to_act)
    with Journal.open(
        small_fs / "state", config.read_text(), allow_config_change=True, table_id="T1"
    ) as journal:
        assert journal.fault is None and journal.verify().ok
        assert journal.last_seq > acknowledged
