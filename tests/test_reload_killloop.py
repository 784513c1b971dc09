"""SIGKILL during configuration reloads (issue 22 item 3): ``bench/reload_killloop.py``
with a few kills; the bench runs a hundred. After every kill the journal is whole, the
state folds, and no half-written file was ever put in force; after the last start the
file on disk is in force."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench_harness import load_bench


@pytest.mark.slow
def test_kill_minus_nine_during_reloads_leaves_journal_and_configuration_agreeing(
    tmp_path: Path,
) -> None:
    harness = load_bench("reload_killloop")
    report = harness.kill_loop(tmp_path, kills=5, seed=5)
    assert report.kills == 5 and report.written_in_two_parts >= 1
    assert report.configs_recorded >= 2
