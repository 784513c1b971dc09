"""`tablectl meters` at a tournament table (T5, T6, T8): the tournament's counts and
its players out, never money; from a real journal written by durable replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import tablectl

CONFIG = """
table: {id: T3, seats: 9}
game: {big_blind: 10, smallest_chip: 5}
tournament:
  id: SAT-1
  starting_stack: 1000
  single_table: true
  levels:
    - {minutes: 20, small_blind: 5, big_blind: 10, smallest_chip: 5}
    - {minutes: 20, small_blind: 10, big_blind: 20, smallest_chip: 5}
  rebuy_levels: 1
  rebuy_chips: 1000
"""
EVENTS = [
    {"type": "sit", "seat": 1, "player": "ana", "chips": 3000},
    {"type": "sit", "seat": 4, "player": "bob", "chips": 100},
    {"type": "sit", "seat": 7, "player": "cy", "chips": 50, "from_table": "T9"},
    {"type": "chips", "seat": 4, "amount": 1000},
    {"type": "tournament", "action": "start", "by": "S1"},
    {"type": "tournament", "action": "level", "level": 2, "by": "S1"},  # rebuys are over
    {"type": "start_hand"},
    {"type": "act", "seat": 7, "action": "all_in"},
    {"type": "act", "seat": 1, "action": "call"},
    {"type": "act", "seat": 4, "action": "all_in"},
    {"type": "act", "seat": 1, "action": "call"},
    {"type": "award", "ranking": [[1], [4], [7]]},
]


@pytest.mark.slow  # four tablectl runs
def test_T6_meters_of_a_tournament_table_count_the_tournament_never_money(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(CONFIG)
    events = tmp_path / "e.jsonl"
    events.write_text("".join(json.dumps(e) + "\n" for e in EVENTS))
    state_dir = str(tmp_path / "state")
    played = tablectl("replay", "--config", str(config), "--state-dir", state_dir, str(events))
    assert played.returncode == 0, played.stderr
    # bob's rebuy at level 1 (100, within the starting stack) is taken
    assert [json.loads(line)["ok"] for line in played.stdout.splitlines()] == [True] * 12
    text = tablectl("meters", "--state-dir", state_dir)
    assert text.returncode == 0, text.stderr
    assert text.stdout == (
        "TOURNAMENT SAT-1 TABLE T3: level 2 (10/20), players seated 1, 1 hands\n"
        "entries 2, moved in 1, rebuys 1, add-ons 0, eliminations 2, chips coloured up 0\n"
        "  place 1: ana, the winner\n"
        "  place 2: bob out in hand 1 (began it with 1100)\n"
        "  place 3: cy out in hand 1 (began it with 50)\n"
    )
    report = json.loads(tablectl("meters", "--state-dir", state_dir, "--json").stdout)
    assert "buy_ins" not in report and "cash_outs" not in report and "rake" not in report
    assert (report["entries"], report["moved_in"], report["rebuys"]) == (2, 1, 1)
    assert (report["tournament_id"], report["table_id"]) == ("SAT-1", "T3")
    refused = tablectl("meters", "--state-dir", state_dir, "--shift", "0")
    assert (refused.returncode, refused.stderr) == (
        2,
        "tablectl meters: a tournament table keeps no shifts' money: its report has no --shift\n",
    )


def test_the_report_names_the_tournament_when_it_has_a_name() -> None:
    """``tournament.id`` heads the text and is in the JSON; without one, neither."""
    from dataclasses import replace

    from controller.commands.meters import tournament_text
    from controller.rules import Table
    from controller.rules.settings import Level, RuleSettings, TournamentSettings
    from controller.rules.tournament import report

    structure = TournamentSettings(
        starting_stack=1000, levels=(Level(minutes=20, small_blind=5, big_blind=10),)
    )
    for name, head in ((None, "TOURNAMENT TABLE T1:"), ("SAT-1", "TOURNAMENT SAT-1 TABLE T1:")):
        settings = RuleSettings(tournament=replace(structure, id=name))
        shown = report(Table(settings).state, settings)
        assert shown["tournament_id"] == name
        assert tournament_text(shown).startswith(f"{head} level 1 (5/10), players seated 0")
