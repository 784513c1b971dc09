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
