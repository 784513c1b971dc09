"""The state's JSON form (``TableState.to_dict``), which journal snapshots and every
hand's ``before_hand`` (for a misdeal) are made of: what ``dataclasses.asdict`` gives,
and a misdeal after a snapshot round trip voids the hand as it would have anyway."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace

from controller.rules import RuleSettings, Table, parse_event, state_view
from controller.rules.settings import GameSettings
from controller.rules.state import (
    KEPT_THROUGH_A_VOID,
    LEFT_OUT_OF_A_SNAPSHOT,
    TableState,
    _plain,
)

SETTINGS = RuleSettings(
    seats=6,
    game=GameSettings(big_blind=10, small_blind=5, smallest_chip=5, out_of_turn="record"),
)
EVENTS = [
    {"type": "sit", "seat": 1, "player": "ana", "chips": 1000},
    {"type": "sit", "seat": 3, "player": "luis", "chips": 600},
    {"type": "sit", "seat": 5, "player": "marta", "chips": 1500},
    {"type": "start_hand"},
    {"type": "call_clock"},
    {"type": "chips", "seat": 3, "amount": 100},  # pending until the hand ends
    {"type": "act", "seat": 3, "action": "check"},  # the big blind, out of turn: recorded
    {"type": "act", "seat": 5, "action": "raise", "to": 30},
]


def played(events: list[dict[str, object]]) -> Table:
    table = Table(SETTINGS)
    for event in events:
        table.apply(parse_event(event))
    return table


def expected_form(state: TableState) -> dict[str, object]:
    """``dataclasses.asdict`` of the state, with the JSON form's text seat keys, and
    the snapshot before the hand in the same form (without its own ``before_hand``)."""
    before = state.before_hand
    data = asdict(replace(state, before_hand=None))
    data["seats"] = {str(k): v for k, v in data["seats"].items()}
    data["tray"] = {str(k): v for k, v in data["tray"].items()}
    data["before_hand"] = before.to_dict() if before is not None else None
    return data


def test_the_json_form_is_what_asdict_gives_mid_hand() -> None:
    table = played(EVENTS)
    state = table.state
    assert state.hand is not None and state.before_hand is not None and state.undo is not None
    assert state.hand.out_of_turn and state.undo.clock is not None  # nested records
    assert state.to_dict() == expected_form(state)
    # the snapshot is the table as it was just before the hand started, without what
    # a misdeal takes from the table as it is
    before = expected_form(played(EVENTS[:3]).state)
    del before["before_hand"]
    for name in LEFT_OUT_OF_A_SNAPSHOT:
        del before[name]
    assert state.to_dict()["before_hand"] == before
    # taken again after the events of the hand, its JSON form has not moved
    assert state.before_hand.to_dict() == before
    # and the copy shares nothing with the live state
    data = state.to_dict()
    data["seats"]["1"]["stack"] = -1
    data["positions"]["dealt"].append(99)
    data["before_hand"]["seats"]["1"]["stack"] = -1
    assert state.seats[1].stack != -1 and 99 not in state.positions.dealt
    assert state.before_hand.to_dict()["seats"]["1"]["stack"] == 1000


@dataclass
class _One:
    only: int


@dataclass
class _None:
    pass


@dataclass
class _Holder:
    one: _One
    none: _None
    many: list[_One]


def test_records_of_one_field_or_none_convert_like_asdict() -> None:
    holder = _Holder(_One(7), _None(), [_One(1), _One(2)])
    assert _plain(holder) == asdict(holder)


def test_a_misdeal_after_a_snapshot_round_trip_voids_the_hand_as_without_it() -> None:
    straight = played(EVENTS)
    snapshot = json.loads(json.dumps(straight.state.to_dict()))
    restored = Table(SETTINGS, TableState.from_dict(snapshot))
    assert restored.state == straight.state
    for table in (straight, restored):
        table.apply(parse_event({"type": "misdeal"}))
    assert restored.state.to_dict() == straight.state.to_dict()
    assert state_view(restored) == state_view(straight)
    # the hand is void: stacks as before it, the chips bought during it added
    stacks = {n: s.stack for n, s in restored.state.seats.items()}
    assert stacks == {1: 1000, 3: 700, 5: 1500}
    assert restored.state.redeal is not None
    # and the re-deal plays the same hand again from either table
    for table in (straight, restored):
        table.apply(parse_event({"type": "start_hand"}))
    assert restored.state.to_dict() == straight.state.to_dict()


def test_a_snapshot_leaves_out_only_what_a_misdeal_takes_from_the_table_as_it_is() -> None:
    """A field left out of the snapshot before the hand must be one the misdeal takes
    from the current table, or a void would give it its default; and what a snapshot
    leaves out must load (``from_dict`` gives it its default)."""
    assert set(KEPT_THROUGH_A_VOID) >= LEFT_OUT_OF_A_SNAPSHOT
    assert set(KEPT_THROUGH_A_VOID) <= {f.name for f in fields(TableState)}
    state = played(EVENTS).state
    assert state.before_hand is not None
    data = state.before_hand.to_dict()
    assert not LEFT_OUT_OF_A_SNAPSHOT & set(data)
    TableState.from_dict(data)
