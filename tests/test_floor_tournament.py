"""The floor feed of a tournament table (``controller.floor.tournament``): ``level`` and
``elimination`` messages on the ``hands`` topic, valid against docs/floor.schema.json,
from the rules core's own effects."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from controller.floor.clock import Stamp
from controller.floor.messages import messages_for, table_info
from controller.floor.topics import TableTopics
from controller.rules import Table, parse_event, state_view
from tests.floor_schema import assert_valid
from tests.test_tournament import SETTINGS

TOPICS = TableTopics("casino", "lv", "T7")
STAMP = Stamp(1_740_863_645_123_456_789, True)


def feed(table: Table, events: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Each event through the rules and the feed: (leaf, payload) of every message."""
    out: list[tuple[str, dict[str, Any]]] = []
    for seq, event in enumerate(events, start=1):
        before = state_view(table)
        effects = table.apply(parse_event(event))
        messages = messages_for(
            {"seq": seq, "event": event},
            {"ok": True, "effects": effects, "by": event.get("by")},
            before,
            state_view(table),
            topics=TOPICS,
            stamp=STAMP,
            table=table_info(table.settings),
        )
        for n, message in enumerate(messages, start=1):
            payload = {**json.loads(message.payload), "msg_seq": seq * 100 + n}
            out.append((message.topic.removeprefix("casino/lv/table/T7/"), payload))
    return out


#: Two players; the level clock started, run into the break after level 1 and out of
#: it; ana out of hand 1, 2nd.
EVENTS = [
    {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
    {"type": "sit", "seat": 5, "player": "luis", "chips": 1000},
    {"type": "tournament", "action": "start", "by": "S1"},
    {"type": "tick", "ms": 61000},
    {"type": "tick", "ms": 120000},
    {"type": "start_hand"},
    {"type": "act", "seat": 5, "action": "all_in"},
    {"type": "act", "seat": 2, "action": "call"},
    {"type": "award", "ranking": [[5], [2]]},
]


def test_the_level_clock_and_an_elimination_reach_the_floor() -> None:
    table = Table(SETTINGS)
    published = feed(
        table,
        EVENTS,
    )
    assert_valid(payload for _, payload in published)
    levels = [p for leaf, p in published if p["kind"] == "level" and leaf == "hands"]
    assert [(p["seq"], p["level"], p["break"], p["why"], p["by"]) for p in levels] == [
        (3, 1, False, "start", "S1"),
        (4, 2, True, "break", None),
        (5, 2, False, "clock", None),
    ]
    assert (levels[2]["small_blind"], levels[2]["big_blind"], levels[2]["ante"]) == (150, 300, 300)
    assert levels[2]["level_ms_left"] == 59000
    out = [p for leaf, p in published if p["kind"] == "elimination" and leaf == "hands"]
    assert [
        {
            k: p[k]
            for k in ("seq", "hand", "seat", "player", "stack_at_start", "place", "players_left")
        }
        for p in out
    ] == [
        {
            "seq": 9,
            "hand": 1,
            "seat": 2,
            "player": "ana",
            "stack_at_start": 1000,
            "place": 2,
            "players_left": 1,
        }
    ]
    states = [p for _, p in published if p["kind"] == "state"]
    assert states[-1]["table"]["tournament"] is True
    assert states[-1]["state"]["tournament"]["eliminated"] == [
        {"player": "ana", "hand": 1, "stack_at_start": 1000, "place": 2}
    ]


def test_the_floor_messages_name_the_tournament() -> None:
    """``tournament.id``: every ``level`` and ``elimination`` message and the retained
    state's ``table`` carry it (null when the table names none), valid by the schema."""
    assert SETTINGS.tournament is not None
    named = dataclasses.replace(
        SETTINGS, tournament=dataclasses.replace(SETTINGS.tournament, id="SUN-500")
    )
    for settings, name in ((named, "SUN-500"), (SETTINGS, None)):
        published = feed(Table(settings), EVENTS)
        assert_valid(payload for _, payload in published)
        told = [
            (p["kind"], p["tournament_id"])
            for _, p in published
            if p["kind"] in ("level", "elimination")
        ]
        assert told == [("level", name)] * 3 + [("elimination", name)]
        states = [p for _, p in published if p["kind"] == "state"]
        assert {p["table"]["tournament_id"] for p in states} == {name}
