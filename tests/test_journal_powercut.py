"""Power-cut test: SIGKILL a process appending to the journal at random moments.

The harness is ``bench/journal_killloop.py`` (which runs 1,000 kills); here it runs
50, plus a shorter loop whose child also prunes and archives, so kills land inside
retention too. Every kill is followed by a reopen and the checks listed there.
"""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest

from tests.bench_harness import load_bench

# slow, out of the edit loop (README, Tests): power cuts: processes killed mid-write, again and again
pytestmark = pytest.mark.slow


def load_harness() -> ModuleType:
    return load_bench("journal_killloop")


@pytest.mark.slow
def test_fifty_kills_lose_nothing_acknowledged(tmp_path: Path) -> None:
    harness = load_harness()
    seed = random.randrange(2**32)
    try:
        report = harness.kill_loop(tmp_path / "state", kills=50, rng=random.Random(seed))
    except harness.KillLoopFailure as failure:
        pytest.fail(f"seed {seed}: {failure}")
    assert report.kills == 50, seed
    assert report.killed_while_streaming >= 25, (seed, report)
    assert report.acknowledged > 100, (seed, report)
    assert report.last_seq >= report.acknowledged


@pytest.mark.slow
def test_kills_during_pruning_and_archiving_lose_nothing(tmp_path: Path) -> None:
    harness = load_harness()
    seed = random.randrange(2**32)
    try:
        report = harness.kill_loop(
            tmp_path / "state", kills=15, rng=random.Random(seed), prune_every=30
        )
    except harness.KillLoopFailure as failure:
        pytest.fail(f"seed {seed}: {failure}")
    assert report.kills == 15 and report.acknowledged > 30, (seed, report)
