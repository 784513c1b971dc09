"""R12: an action may be taken back after the table was restored from a snapshot, so a
journal replayed from a snapshot gives the same result as the original run."""

from __future__ import annotations

import json

from controller.rules import RuleSettings, Table, parse_event, state_view
from controller.rules.settings import GameSettings
from controller.rules.state import TableState

SETTINGS = RuleSettings(game=GameSettings(big_blind=10, small_blind=5, smallest_chip=5))
EVENTS = [
    {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
    {"type": "sit", "seat": 5, "player": "luis", "chips": 600},
    {"type": "sit", "seat": 8, "player": "marta", "chips": 1500},
    {"type": "start_hand"},
    {"type": "call_clock"},
    {"type": "tick", "ms": 1500},
    {"type": "act", "seat": 8, "action": "raise", "to": 30},
]


def played() -> Table:
    table = Table(SETTINGS)
    for event in EVENTS:
        table.apply(parse_event(event))
    return table


def test_R12_undo_survives_a_snapshot_and_restores_the_same_state() -> None:
    original = played()
    before_act = Table(SETTINGS)
    for event in EVENTS[:-1]:
        before_act.apply(parse_event(event))
    snapshot = json.loads(json.dumps(original.state.to_dict()))
    restored = Table(SETTINGS, TableState.from_dict(snapshot))

    for table in (original, restored):
        table.apply(parse_event({"type": "undo"}))
    assert restored.state.to_dict() == original.state.to_dict()
    expected = state_view(before_act)
    assert state_view(restored) == expected
    assert expected["to_act"] == 8 and expected["clock"]["remaining_ms"] == 58500
