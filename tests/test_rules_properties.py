"""Properties of the rules core over random event streams, legal and illegal.

Streams come from ``tests.rules_fuzz``: mostly the engine's own ``legal`` moves, mixed
with junk (wrong seats, wrong amounts, events out of place, unknown types). For every
stream and every event:

- chips are conserved: stacks + chips waiting to play + bets + pots + everything the
  house took = chips bought in - chips cashed out;
- a refused event leaves the state exactly as it was;
- ``pot_total`` is the sum of the pots and the bets (and of every chip in the middle);
- no exception other than ``Refusal`` escapes;
- while play is stopped (a lost keypad or display) a tick leaves the clock as it was
  and no hand starts, under dead and moving button and every betting structure;

and replaying the same events always gives the same state, byte for byte; a journal
snapshot of the state restores the same table; an action taken back at once (``undo``)
leaves the state exactly as it was before the action.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules import Table, state_view
from controller.rules.state import TableState
from tests.rules_fuzz import (
    RandomChooser,
    StoppedBefore,
    apply_checked,
    check_invariants,
    check_play_stopped,
    next_event,
    opening,
    play,
    play_stream,
    random_settings,
    stopped_event,
)

# slow, out of the edit loop (README, Tests): property tests over random hands and sessions
pytestmark = pytest.mark.slow

T = TypeVar("T")

PROPERTY = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)


class DataChooser:
    """Hypothesis draws behind the ``Chooser`` interface, so failures shrink."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))

    def pick(self, options: Sequence[T]) -> T:
        return self.data.draw(st.sampled_from(options))


def _stream(data: st.DataObject, steps: int) -> tuple[Table, list[dict[str, Any]]]:
    return play_stream(DataChooser(data), steps)


@PROPERTY
@given(st.data())
def test_random_streams_keep_every_invariant(data: st.DataObject) -> None:
    table, events = _stream(data, steps=150)
    # the same events give the same state, byte for byte
    again = play(table.settings, events)
    assert again.state.to_dict() == table.state.to_dict()
    assert json.dumps(state_view(again)) == json.dumps(state_view(table))
    # a journal snapshot (the JSON form) restores the same table
    snapshot = json.loads(json.dumps(table.state.to_dict()))
    restored = Table(table.settings, TableState.from_dict(snapshot))
    assert restored.state.to_dict() == table.state.to_dict()
    assert state_view(restored) == state_view(table)


@pytest.mark.parametrize("button", ["dead", "moving"])
@pytest.mark.parametrize("structure", ["no_limit", "pot_limit", "fixed_limit"])
def test_small_tables_under_every_button_and_structure(button: str, structure: str) -> None:
    """Two to four seats, where play goes into and out of heads-up most: every invariant,
    the heads-up blinds (B3) among them, under both button methods and every betting
    structure; a few seeded streams (``bench/rules_soak.py`` runs many more)."""
    for seed in range(10):
        chooser = RandomChooser(random.Random(seed))
        play_stream(chooser, 300, seats=2 + seed % 3, button=button, structure=structure)


def test_seeded_streams_on_random_tables() -> None:
    """A hundred seeded streams on random tables (every setting drawn, up to nine seats),
    as ``bench/rules_soak.py`` plays many more: seed 64 found a misdeal losing the chips
    a seat kept in by the floor had bought during the hand (chips not conserved), a
    table the small tables above never make."""
    for seed in range(100):
        play_stream(RandomChooser(random.Random(seed)), 400)


def one_action(before: dict[str, Any], table: Table) -> bool:
    """The event just applied added exactly one action to the hand's log."""
    h = table.state.hand
    old = before["hand"]
    return h is not None and old is not None and len(h.log) == len(old["log"]) + 1


def test_long_random_sessions() -> None:
    """A few long seeded sessions: many hands in a row on one table. Now and then an
    accepted action is taken back at once (R12): the state is exactly as before it
    (but for the undo record: one action may be taken back, not two)."""
    for seed in range(8):
        chooser = RandomChooser(random.Random(seed))
        rules = random_settings(chooser)
        table = Table(rules)
        events = opening(rules, chooser)
        for obj in events:
            apply_checked(table, obj)
        for step in range(1500):
            obj = next_event(chooser, table)
            before = table.state.to_dict() if obj["type"] == "act" else None
            accepted = apply_checked(table, obj)
            events.append(obj)
            if accepted and before is not None and not one_action(before, table):
                # R10: the action let a pending out-of-turn action bind; undo takes
                # back that one, the last
                before = None
            if (
                accepted
                and before is not None
                and step % 5 == 0
                and apply_checked(table, {"type": "undo"})
            ):
                # exactly as before, except that only one action may be taken back
                after = table.state.to_dict()
                assert after.pop("undo") is None
                before.pop("undo")
                assert after == before, f"undo of {obj}"
                assert apply_checked(table, obj)
                events += [{"type": "undo"}, obj]
            check_invariants(table)
        assert play(rules, events).state.to_dict() == table.state.to_dict()


@pytest.mark.parametrize("button", ["dead", "moving"])
@pytest.mark.parametrize("structure", ["no_limit", "pot_limit", "fixed_limit"])
@settings(PROPERTY, max_examples=20)
@given(data=st.data())
def test_while_play_is_stopped_the_clock_stands_still_and_no_hand_starts(
    data: st.DataObject, button: str, structure: str
) -> None:
    """Streams where the keypad and the display are lost and come back often, the clock
    called and long ticks among them (``rules_fuzz.check_play_stopped``): while
    ``play_stopped`` is not empty a tick never changes the clock's ``remaining_ms`` or
    warning and never expires it, and ``start_hand`` (or ``NEXT``) is refused; every
    other invariant holds too."""
    chooser = DataChooser(data)
    rules = random_settings(chooser)
    rules = replace(rules, game=replace(rules.game, structure=structure, button=button))
    table = Table(rules)
    for obj in opening(rules, chooser):
        apply_checked(table, obj)
    for _ in range(120):
        obj = stopped_event(chooser, table)
        before = StoppedBefore(table)
        accepted = apply_checked(table, obj)
        check_invariants(table)
        check_play_stopped(table, obj, before, accepted)
