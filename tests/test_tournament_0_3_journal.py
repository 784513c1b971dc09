"""A tournament table's journal recorded by 0.3.0 (rules edition 2), read by this
release (edition 3): its events fold as 0.3.0 played them (a player with no chips kept
his seat during the rebuys, and rebought in it), and this release's rulings (docs/rules.md
T3, T4: out at the hand's end) take over at the first event it records.

0.3.0 is played here by this release's own rules at edition 2 (``tournament_as_0_3``,
the scenarios ``T4_as_0_3_...`` and ``T6_as_0_3_...`` prove it plays as 0.3.0 did):
the recorder stamps its snapshots with the edition it is given."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from controller.config import load_config
from controller.daemon import recorder
from controller.daemon.recovery import RulesBook, fold
from controller.durable import durable_replay
from controller.journal import Journal
from controller.rules import state_view

CONFIG = """\
table: {{id: T1, seats: 9}}
game: {{big_blind: 10, smallest_chip: 5}}
journal: {{state_dir: {state}}}
tournament:
  starting_stack: 1000
  single_table: true
  levels:
    - {{minutes: 10, small_blind: 5, big_blind: 10, smallest_chip: 5}}
    - {{minutes: 10, small_blind: 10, big_blind: 20, smallest_chip: 5}}
  rebuy_levels: 1
  rebuy_chips: 1000
"""

RECORDED_BY_0_3 = [
    {"type": "sit", "seat": 1, "player": "ana", "chips": 3000},
    {"type": "sit", "seat": 4, "player": "bob", "chips": 100},
    {"type": "sit", "seat": 7, "player": "cy", "chips": 50},
    {"type": "tournament", "action": "start", "by": "S1"},
    {"type": "start_hand"},
    {"type": "act", "seat": 7, "action": "all_in"},
    {"type": "act", "seat": 1, "action": "call"},
    {"type": "act", "seat": 4, "action": "all_in"},
    {"type": "act", "seat": 1, "action": "call"},
    {"type": "award", "ranking": [[1], [4], [7]]},
    {"type": "chips", "seat": 4, "amount": 1000},  # bob rebuys in his seat
]


def replayed(config: Path, state: Path, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = io.StringIO()
    lines = [json.dumps(event) for event in [*events, {"type": "state"}]]
    assert durable_replay(load_config(config), str(state), lines, out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def folded(state: Path) -> dict[str, Any]:
    journal = Journal.open_readonly(state)
    with journal:
        return state_view(fold(journal, RulesBook(journal)).table)


def test_a_0_3_tournament_journal_folds_as_it_played_then_this_release_takes_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    config = tmp_path / "t.yaml"
    config.write_text(CONFIG.format(state=state))
    with monkeypatch.context() as patched:
        patched.setattr(recorder, "RULES_EDITION", 2)
        out = replayed(config, state, RECORDED_BY_0_3)
    assert all(line["ok"] for line in out), out
    as_recorded = out[-1]["state"]
    assert {n: (s["stack"], s["status"]) for n, s in as_recorded["seats"].items()} == {
        "1": (3150, "playing"),
        "4": (1000, "playing"),
        "7": (0, "sitting_out"),
    }
    assert as_recorded["tournament"]["eliminated"] == []
    # recovery folds the events after its first snapshot again, as 0.3.0 played them
    # (this release's rules would refuse the rebuy: bob out, his seat empty)
    again = folded(state)
    assert (again["seats"], again["tournament"]) == (
        as_recorded["seats"],
        as_recorded["tournament"],
    )
    # this release plays on: hand 2 ends, and cy, still without chips, is out at once
    # (0.3.0 kept him until the rebuys ended), 3rd
    out = replayed(
        config,
        state,
        [
            {"type": "start_hand"},
            {"type": "act", "seat": 4, "action": "fold"},
        ],
    )
    assert all(line["ok"] for line in out), out
    live = out[-1]["state"]
    assert set(live["seats"]) == {"1", "4"}
    assert live["tournament"]["eliminated"] == [
        {"player": "cy", "hand": 2, "stack_at_start": 0, "place": 3}
    ]
    assert {k: folded(state)[k] for k in ("seats", "tournament")} == {
        k: live[k] for k in ("seats", "tournament")
    }
