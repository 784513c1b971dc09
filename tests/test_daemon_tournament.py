"""The daemon at a tournament table (rules T1): it tells the rules the time while the
level clock runs (a tick before each input, one at each level's end, one a minute), none
while it is paused, and a restart resumes the level and its time from the journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.daemon_helpers import journal_events, running, shown, view, wait_for, write_config
from tests.mock_clock import MockClock

TOURNAMENT = """\
tournament:
  starting_stack: 1000
  levels:
    - {minutes: 1, small_blind: 5, big_blind: 10, smallest_chip: 5}
    - {minutes: 1, small_blind: 10, big_blind: 20, smallest_chip: 5}
"""


@pytest.mark.slow  # two daemon runs
def test_T1_the_daemon_runs_the_level_clock_and_a_restart_resumes_it(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    config.write_text(config.read_text() + TOURNAMENT)
    clock = MockClock()
    with running(config, clock=clock) as daemon:
        assert daemon.submit({"type": "sit", "seat": 2, "player": "ana", "chips": 1000}).ok
        assert daemon.submit({"type": "tournament", "action": "start", "by": "S1"}).ok
        clock.jump(30.0)
        assert daemon.submit({"type": "sit", "seat": 5, "player": "bo", "chips": 1000}).ok
        clock.jump(30.0)  # level 1 ends at 60 s: told then, not at the next input
        wait_for(lambda: view(daemon)["tournament"]["level"] == 2, what="level 2")
        wait_for(lambda: shown(daemon).line2 == "LEVEL 2 10/20 1:00", what="the display")
        assert daemon.submit({"type": "tournament", "action": "pause", "by": "S1"}).ok
        clock.jump(300.0)  # paused: nothing to tell
        assert daemon.submit({"type": "state"}).ok
        assert daemon.submit({"type": "tournament", "action": "resume", "by": "S1"}).ok
        clock.jump(5.0)
        assert daemon.submit({"type": "state"}).ok
    ticks = [e.event["ms"] for e in journal_events(tmp_path / "state") if e.event["type"] == "tick"]
    assert ticks == [30_000, 30_000, 5_000]
    with running(config, clock=MockClock()) as again:
        level = view(again)["tournament"]
        assert (level["level"], level["level_ms_left"], level["paused"]) == (2, 55_000, False)


@pytest.mark.slow  # a daemon run
def test_T1_the_display_counts_the_level_down_between_ticks(tmp_path: Path) -> None:
    """Between hands the display's time left is the level clock's now, not at the last
    tick (up to a minute old): it counts down each second between the journalled ticks,
    which stay one a minute, and the state keeps the rules' time (the last tick's)."""
    config = write_config(tmp_path)
    config.write_text(config.read_text() + TOURNAMENT.replace("minutes: 1,", "minutes: 5,"))
    clock = MockClock()
    with running(config, clock=clock) as daemon:
        assert daemon.submit({"type": "sit", "seat": 2, "player": "ana", "chips": 1000}).ok
        assert daemon.submit({"type": "tournament", "action": "start", "by": "S1"}).ok
        wait_for(lambda: shown(daemon).line2 == "LEVEL 1 5/10 5:00", what="the display")
        clock.jump(12.5)  # 287.5 s left: 4:48, rounded up as the action clock's digits
        wait_for(lambda: shown(daemon).line2 == "LEVEL 1 5/10 4:48", what="4:48")
        assert view(daemon)["tournament"]["level_ms_left"] == 300_000
        clock.jump(50.0)  # past the minute's tick: the time told then, 3:58 left
        wait_for(lambda: shown(daemon).line2 == "LEVEL 1 5/10 3:58", what="3:58")
        assert view(daemon)["tournament"]["level_ms_left"] == 237_500
        clock.jump(0.7)  # 3:57.8 left: the same second, told by no tick
        clock.jump(0.4)  # 3:57.4: a new second
        wait_for(lambda: shown(daemon).line2 == "LEVEL 1 5/10 3:57", what="3:57")
        assert daemon.submit({"type": "tournament", "action": "pause", "by": "S1"}).ok
        wait_for(lambda: shown(daemon).line2 == "LEVEL 1 5/10 PAUSED", what="paused")
    ticks = [e.event["ms"] for e in journal_events(tmp_path / "state") if e.event["type"] == "tick"]
    assert ticks == [62_500, 1_100]  # the minute's, and the one before the pause
