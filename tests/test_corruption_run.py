"""The corruption run (bench/corruption.py, 300+ trials) in small: random deletions, bit
flips, zeroed blocks and truncations of every journal file; never a silent loss of an
acknowledged event, never a traceback, every salvage verifies (issue 13)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.bench_harness import load_bench

# slow, out of the edit loop (README, Tests): hundreds of damaged journals, each opened and salvaged
pytestmark = pytest.mark.slow


def test_no_damage_to_any_journal_file_loses_acknowledged_events_unnoticed(
    tmp_path: Path,
) -> None:
    harness = load_bench("corruption")
    report = harness.corruption_run(tmp_path, 60, random.Random(2026), events=300)
    assert report.ok, "\n".join(report.lines())
    assert report.trials == 60 and report.verdicts["held, fault"] > 5
    assert report.salvaged == report.verdicts["held, fault"]
