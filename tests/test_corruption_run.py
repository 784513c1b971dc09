"""The corruption run (bench/corruption.py, 300+ trials) in small: random deletions, bit
flips, zeroed blocks and truncations of every journal file; never a silent loss of an
acknowledged event, never a traceback, every salvage verifies (issue 13)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

# slow, out of the edit loop (README, Tests): hundreds of damaged journals, each opened and salvaged
pytestmark = pytest.mark.slow

HARNESS = Path(__file__).resolve().parent.parent / "bench" / "corruption.py"


def test_no_damage_to_any_journal_file_loses_acknowledged_events_unnoticed(
    tmp_path: Path,
) -> None:
    spec = importlib.util.spec_from_file_location("corruption", HARNESS)
    assert spec is not None and spec.loader is not None
    harness = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = harness  # its dataclasses look their module up
    spec.loader.exec_module(harness)
    report = harness.corruption_run(tmp_path, 60, random.Random(2026), events=300)
    assert report.ok, "\n".join(report.lines())
    assert report.trials == 60 and report.verdicts["held, fault"] > 5
    assert report.salvaged == report.verdicts["held, fault"]
