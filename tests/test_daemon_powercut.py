"""Power cuts: SIGKILL at random moments while events stream in (bench/daemon_killloop.py
is the harness; it runs 1,000 kills, here 50). After every kill nothing acknowledged is
lost, nothing is applied twice, and the state equals a reference replay's."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

# slow, out of the edit loop (README, Tests): power cuts: processes killed mid-write, again and again
pytestmark = pytest.mark.slow

HARNESS = Path(__file__).resolve().parent.parent / "bench" / "daemon_killloop.py"


def load_harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("daemon_killloop", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_fifty_kills_of_the_durable_path_lose_nothing(tmp_path: Path) -> None:
    harness = load_harness()
    seed = random.randrange(2**32)
    report = harness.kill_loop(tmp_path / "state", kills=50, rng=random.Random(seed))
    assert report.kills == 50, seed
    assert report.killed_while_streaming >= 25, (seed, report)
    assert report.acknowledged > 200, (seed, report)
