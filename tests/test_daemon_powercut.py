"""Power cuts: SIGKILL at random moments while events stream in (bench/daemon_killloop.py
is the harness; it runs 1,000 kills, here 50). After every kill nothing acknowledged is
lost, nothing is applied twice, and the state equals a reference replay's."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest

from tests.bench_harness import load_bench

# slow, out of the edit loop (README, Tests): power cuts: processes killed mid-write, again and again
pytestmark = pytest.mark.slow


def load_harness() -> ModuleType:
    return load_bench("daemon_killloop")


@pytest.mark.slow
def test_fifty_kills_of_the_durable_path_lose_nothing(tmp_path: Path) -> None:
    harness = load_harness()
    seed = random.randrange(2**32)
    report = harness.kill_loop(tmp_path / "state", kills=50, rng=random.Random(seed))
    assert report.kills == 50, seed
    assert report.killed_while_streaming >= 25, (seed, report)
    assert report.acknowledged > 200, (seed, report)
