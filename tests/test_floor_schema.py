"""docs/floor.schema.json: the floor feed's contract (issue 15, item 5). The end-to-end
floor tests validate everything the daemon sends against it (the `back_office`
fixture); these check the schema itself and the messages of every kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller import device_faults
from controller.floor import operations, tournament
from controller.floor.clock import Stamp
from controller.floor.messages import fault_message, state_message, status_payload
from controller.floor.play import ENDINGS, SEAT_CHANGES
from controller.floor.topics import TableTopics
from tests.floor_schema import SCHEMA_PATH, assert_valid, guide_examples, problems
from tests.keypad_tables import THREE, keys
from tests.test_floor_play import HAND_EVENTS, HAND_KEYS, START, play

SCHEMA = json.loads(SCHEMA_PATH.read_text())
TOPICS = TableTopics("casino", "lv", "T1")
STAMP = Stamp(1_740_863_645_123_000_000, True)


def published(rows: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The payloads as the publisher sends them: with their msg_seq."""
    return [{**body, "msg_seq": number} for number, (_, body) in enumerate(rows, 1)]


def test_the_schema_lists_every_code_and_kind_from_their_one_source() -> None:
    definitions = SCHEMA["$defs"]
    assert definitions["fault"]["properties"]["fault"]["enum"] == list(device_faults.CODES)
    assert definitions["hand_end"]["properties"]["ended_by"]["enum"] == list(ENDINGS)
    assert definitions["seat"]["properties"]["change"]["enum"] == list(SEAT_CHANGES)
    assert set(SCHEMA["properties"]["kind"]["enum"]) == {
        "event",
        "refusal",
        "fault",
        "hand_start",
        "hand_end",
        "tray",
        "state",
        "status",
        "action",
        "award",
        "correction",
        "transfer",
        "seat",
        "clock",
        "power",
        *operations.KINDS,
        *tournament.KINDS,
    }
    assert definitions["level"]["properties"]["why"]["enum"] == list(tournament.LEVEL_CAUSES)
    assert definitions["dealer"]["properties"]["change"]["enum"] == list(operations.DEALER_CHANGES)
    assert SCHEMA["properties"]["v"] == {"const": 1}


def test_every_message_of_keyed_and_sent_hands_validates(tmp_path: Path) -> None:
    rows = play(tmp_path / "a", START + keys(HAND_KEYS), by="d17")
    rows += play(tmp_path / "b", START + HAND_EVENTS)
    rows += play(
        tmp_path / "c", START + keys("BET 3 0 ENTER FOLD CLOCK") + [{"type": "tick", "ms": 60_000}]
    )
    rows += play(
        tmp_path / "d",
        [
            *THREE,
            {"type": "move_seat", "from": 5, "to": 7},
            {"type": "leave", "seat": 2},
            {"type": "misdeal"},
            {"type": "start_hand"},
            {"type": "act", "seat": 8, "action": "check"},
            {"type": "misdeal"},
        ],
    )
    triple_draw = {"game": {"structure": "fixed_limit", "form": "triple_draw"}}
    rows += play(
        tmp_path / "e",
        START
        + [
            {"type": "act", "seat": 8, "action": "call"},
            {"type": "act", "seat": 2, "action": "call"},
            {"type": "act", "seat": 5, "action": "check"},
            *[{"type": "act", "seat": seat, "action": "check"} for seat in (2, 5, 8)],
        ],
        config=triple_draw,
    )
    rows += play(  # play stopped by a lost keypad, the clock standing still, and back
        tmp_path / "f",
        START
        + keys("CLOCK")
        + [
            {"type": "device", "device": "keypad", "status": "lost"},
            {"type": "tick", "ms": 90_000},
            {"type": "device", "device": "keypad", "status": "back"},
        ],
    )
    payloads = published(rows)
    stopped = [p for p in payloads if p["kind"] == "state" and p["state"]["play_stopped"]]
    assert [p["state"]["play_stopped"] for p in stopped] == [["keypad_lost"]]
    assert {p["phase"] for p in payloads if p["kind"] == "action"} >= {"predraw", "draw1"}
    assert {p["kind"] for p in payloads} >= {
        "event",
        "refusal",
        "hand_start",
        "hand_end",
        "state",
        "action",
        "award",
        "seat",
        "clock",
    }
    assert assert_valid(payloads) == len(rows)


def test_faults_status_state_transfer_and_the_chain_head_validate() -> None:
    fault = json.loads(
        fault_message(
            TOPICS,
            "keypad_lost",
            device="keypad",
            active=True,
            detail="keypad is missing",
            seq=3,
            stamp=STAMP,
        ).payload
    )
    state = json.loads(
        state_message(
            TOPICS, {"hand": 0, "phase": "idle", "seats": {}}, seq=None, stamp=STAMP
        ).payload
    )
    status = json.loads(
        status_payload(
            TOPICS, link="down", reason="connection lost", unsent=None, stamp=STAMP, will=True
        )
    )
    envelope = {
        "v": 1,
        "table_id": "T1",
        "site": "lv",
        "ts": STAMP.iso,
        "ts_ns": STAMP.wall_ns,
        "clock_synced": True,
        "seq": 9,
        "msg_seq": 12,
    }
    transfer = {
        **envelope,
        "kind": "transfer",
        "from": 3,
        "to": 5,
        "amount": 200,
        "reason": "wrong_payout",
        "by": "s1",
    }
    puck = json.loads(
        status_payload(
            TOPICS,
            link="up",
            reason=None,
            unsent=0,
            stamp=STAMP,
            device_faults={},
            puck={"status": "moved", "expected": 8, "seen": [3]},
        )
    )
    assert_valid([{**fault, "msg_seq": 1}, {**state, "msg_seq": 2}, status, transfer, puck])
    assert problems({**puck, "puck": {"status": "moved", "expected": 8}})
    # What the schema refuses: a code not in the list, another version, a stray field.
    assert problems({**fault, "msg_seq": 1, "fault": "keypad"})
    assert problems({**fault, "msg_seq": 1, "v": 2})
    assert problems({**fault, "msg_seq": 1, "colour": "red"})
    assert problems({**status, "msg_seq": 1, "kind": "fault"})
    assert problems({**transfer, "amount": 0})


def test_the_door_opened_and_closed_goes_out_as_events_with_play_stopped() -> None:
    """The door switch's events (journalled by the daemon) reach the floor on `events`
    with the state's `play_stopped` in their changes, then the retained state; the
    schema's causes are the rules' own (`controller.rules.stopped.CAUSES`)."""
    from controller.floor.messages import messages_for
    from controller.rules import stopped

    causes = SCHEMA["$defs"]["state"]["properties"]["state"]["properties"]["play_stopped"]
    assert causes["items"]["enum"] == list(stopped.CAUSES.values())
    closed = {"hand": 2, "phase": "flop", "seats": {}, "play_stopped": []}
    opened = {**closed, "play_stopped": ["door_open"]}
    out = []
    for seq, (status, before, after) in enumerate(
        [("open", closed, opened), ("closed", opened, closed)], 40
    ):
        rows = messages_for(
            {"seq": seq, "event": {"type": "door", "status": status}},
            {"ok": True, "effects": []},
            before,
            after,
            topics=TOPICS,
            stamp=STAMP,
        )
        assert [row.topic.rsplit("/", 1)[1] for row in rows] == ["events", "state"]
        event = json.loads(rows[0].payload)
        assert event["event"] == {"type": "door", "status": status}
        assert event["changes"] == {"play_stopped": [before["play_stopped"], after["play_stopped"]]}
        out += [json.loads(row.payload) for row in rows]
    assert_valid([{**body, "msg_seq": n} for n, body in enumerate(out, 1)])


def test_every_example_in_the_floor_guide_validates() -> None:
    """docs/floor.md shows integrators what arrives: every JSON example in it holds to
    the schema (a block may hold several objects)."""
    examples = guide_examples()
    kinds = {e["kind"] for e in examples}
    assert kinds == set(SCHEMA["properties"]["kind"]["enum"]), kinds
    assert assert_valid(examples) == len(examples) >= 20
