"""Issue 22 item 1: a salvage killed part-way and run again ends with what an
uninterrupted salvage keeps, never an empty journal while events were acknowledged.

The harness is ``bench/salvage_killloop.py`` (200 trials of 1,200 events); here it runs
12 trials of 300 events, the first kill of each at each of the salvage's steps in turn
(real ``tablectl journal salvage`` processes, SIGKILL, real SQLite files)."""

from __future__ import annotations

import importlib.util
import random
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from controller.journal import Journal
from tests.cli import tablectl

HARNESS = Path(__file__).resolve().parent.parent / "bench" / "salvage_killloop.py"


def load_harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("salvage_killloop", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_a_salvage_killed_at_any_step_and_run_again_keeps_what_it_would_have(
    tmp_path: Path,
) -> None:
    harness = load_harness()
    report = harness.kill_loop(tmp_path, 12, random.Random(2026), events=300, every_step=True)
    assert report.ok, "\n".join(report.lines())
    assert report.trials == 12 and report.kills >= 12 and report.reference_kept == 32
    caught = sum(n for moment, n in report.kill_moments.items() if "not seen" not in moment)
    assert caught >= 8, report.lines()  # most kills landed on the step they waited for


def test_no_database_while_events_were_acknowledged_is_refused_naming_the_damaged_copy(
    tmp_path: Path,
) -> None:
    """What an interrupted salvage of an earlier version left: the database moved to
    damaged/, the new one never put in place, the ack mark at seq 1200. The salvage run
    again used to start the table from an empty journal that verified."""
    harness = load_harness()
    state = tmp_path / "state"
    harness.damaged_journal(state, 120)
    aside = state / "damaged" / "20261205T101010Z"
    aside.mkdir(parents=True)
    (state / "journal.sqlite3").rename(aside / "journal.sqlite3")
    config = tmp_path / "table.yaml"
    config.write_text(harness.CONFIG)
    refused = tablectl("journal", "salvage", "--state-dir", str(state), "--config", str(config))
    assert refused.returncode == 3, refused.stdout
    assert "events up to seq 120 were acknowledged" in refused.stderr
    assert f"mv {aside}/journal.sqlite3* {state}/" in refused.stderr
    assert "--start-empty" in refused.stderr
    assert not (state / "journal.sqlite3").exists()  # nothing built, nothing moved
    assert sorted(p.name for p in (state / "damaged").iterdir()) == [aside.name]
    for name in ("journal.sqlite3",):  # the technician does as told
        shutil.move(aside / name, state / name)
    done = tablectl("journal", "salvage", "--state-dir", str(state), "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert "events kept: 14;" in done.stdout
    with Journal.open(state, harness.CONFIG, table_id="T1") as journal:
        assert journal.fault is None and journal.verify().ok and journal.last_seq == 14
