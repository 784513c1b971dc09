"""controller/replay.py: ``step`` and ``refuse``, the one way an input event is folded
into a table (replay, the tray report, the recorder, recovery and recall use them)."""

from __future__ import annotations

from pathlib import Path

from controller.replay import process, refuse, step
from controller.rules import RuleSettings, Table

ROOT = Path(__file__).resolve().parent.parent
SIT = {"type": "sit", "seat": 2, "player": "ana", "chips": 100}


def test_an_accepted_event_is_applied_with_its_effects() -> None:
    table = Table(RuleSettings())
    done = step(table, SIT)
    assert done.ok and done.refusal is None and done.event is not None
    assert done.effects and table.state.seats[2].stack == 100


def test_a_refused_event_changes_nothing_but_what_a_refusal_leaves() -> None:
    table = Table(RuleSettings())
    step(table, SIT)
    before = table.state.to_dict()
    done = step(table, SIT)  # the seat is taken
    assert not done.ok and done.refusal is not None and done.effects == []
    assert table.state.to_dict() == before


def test_what_is_not_an_event_is_refused_as_bad_event() -> None:
    table = Table(RuleSettings())
    done = step(table, {"type": "teleport"})
    assert done.event is None and done.refusal is not None
    assert done.refusal.code == "bad_event"
    assert process(table, {"type": "teleport"}, 7) == {
        "seq": 7,
        "ok": False,
        "error": done.refusal.as_dict(),
    }


def test_a_recorded_refusal_outside_the_keypad_folds_to_nothing() -> None:
    """The state keeps no copy of a refusal's words (issue 16 item 3): only a refused
    key leaves something (``Table.refused``)."""
    table = Table(RuleSettings())
    before = table.state.to_dict()
    refuse(table, SIT)
    refuse(table, {"type": "teleport"})  # not an event: folded all the same
    assert table.state.to_dict() == before
