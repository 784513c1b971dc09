"""Recovery: a snapshot written before the state's records were typed (issue 16) still
loads, and the table plays on from it exactly as it did then (tests/legacy_snapshots.py)."""

from __future__ import annotations

import json

import pytest

from controller.rules import Table
from controller.rules.state import TableState
from tests.legacy_snapshots import DATA, play_on, settings_from

CASES = json.loads(DATA.read_text())


def test_the_legacy_snapshots_cover_every_record() -> None:
    found = {k for case in CASES for k in case["found"]}
    assert found >= {"undo", "undo_clock", "out_of_turn", "keypad", "redeal", "showdown"}


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c['seed']}" for c in CASES])
def test_a_legacy_snapshot_loads_and_plays_on_as_before(case: dict) -> None:
    table = Table(settings_from(case["settings"]), TableState.from_dict(case["snapshot"]))
    assert play_on(table, case["events"]) == case["digests"]
    # and the state it is in now survives its own snapshot
    again = TableState.from_dict(json.loads(json.dumps(table.state.to_dict())))
    assert again.to_dict() == table.state.to_dict()


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c['seed']}" for c in CASES])
def test_an_undo_recorded_in_a_legacy_snapshot_takes_the_action_back_as_before(case: dict) -> None:
    table = Table(settings_from(case["settings"]), TableState.from_dict(case["snapshot"]))
    assert play_on(table, [{"type": "undo"}]) == case["undo"]
