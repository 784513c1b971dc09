"""The floor feed says what the rules did, whatever the input path (issue 15, items 1-2).

The real recorder on a real SQLite journal with the daemon's outbox builder
(`controller.floor.feed.Feed`); the rows it commits with each event are read back from
the journal's outbox. A hand keyed on the keypad and the same hand sent as events
give the same `action`, `award`, `seat`, `clock` and `hand_end` messages."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import yaml

from controller.config import load_config_text
from controller.daemon.recorder import Recorder
from controller.durable import durable_replay
from controller.floor.feed import Feed
from controller.floor.topics import TableTopics
from controller.journal import Journal
from controller.rules import Table
from tests.keypad_tables import THREE, keys, settings
from tests.scenario_runner import merged_config

TOPICS = TableTopics("casino", "lv", "T1")
ENVELOPE = ("v", "table_id", "site", "ts", "ts_ns", "clock_synced", "seq", "msg_seq")
PLAY = ("action", "award", "seat", "clock", "correction", "hand_end")
START = [*THREE, {"type": "start_hand"}]


def outbox(state_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    with contextlib.closing(sqlite3.connect(state_dir / "journal.sqlite3")) as conn:
        rows = conn.execute("SELECT topic, payload FROM outbox ORDER BY id").fetchall()
    return [(topic.rsplit("/", 1)[1], json.loads(payload)) for topic, payload in rows]


def play(
    state_dir: Path,
    events: list[dict[str, Any]],
    by: str | None = None,
    config: dict[str, Any] | None = None,
) -> list[tuple[str, dict[str, Any]]]:
    """Every event through the recorder (refusals allowed); the outbox rows."""
    table_settings = settings(config)
    journal = Journal.open(state_dir, table_settings.config_text)
    recorder = Recorder(
        journal, Table(table_settings.rules), snapshot_every=1000, outbox=Feed(TOPICS)
    )
    for event in events:
        recorder.record(event, by=by)
    journal.close()
    return outbox(state_dir)


def told(
    rows: list[tuple[str, dict[str, Any]]],
    kinds: tuple[str, ...] = PLAY,
    drop: tuple[str, ...] = ENVELOPE,
) -> list[tuple[str, dict[str, Any]]]:
    return [
        (leaf, {k: v for k, v in body.items() if k not in drop})
        for leaf, body in rows
        if body["kind"] in kinds
    ]


HAND_KEYS = (
    "BET 3 0 ENTER FOLD CHECK CHECK BET 5 0 ENTER CHECK CHECK CHECK CHECK CHECK 5 ENTER ENTER"
)
HAND_EVENTS = [
    {"type": "act", "seat": 8, "action": "raise", "to": 30},
    {"type": "act", "seat": 2, "action": "fold"},
    {"type": "act", "seat": 5, "action": "call"},
    {"type": "act", "seat": 5, "action": "check"},
    {"type": "act", "seat": 8, "action": "bet", "to": 50},
    {"type": "act", "seat": 5, "action": "call"},
    *[{"type": "act", "seat": seat, "action": "check"} for seat in (5, 8, 5, 8)],
    {"type": "award", "ranking": [[5]]},
]


def test_a_hand_keyed_and_the_same_hand_sent_as_events_tell_the_floor_the_same(
    tmp_path: Path,
) -> None:
    keyed = play(tmp_path / "keys", START + keys(HAND_KEYS), by="d17")
    sent = play(tmp_path / "events", START + HAND_EVENTS, by="d17")
    assert told(keyed) == told(sent)
    actions = [body for leaf, body in told(keyed, ("action",))]
    assert [(a["seat"], a["action"], a["amount"], a["to"], a["by"]) for a in actions] == [
        (8, "raise", 30, 30, "d17"),
        (2, "fold", 0, 5, "d17"),
        (5, "call", 20, 30, "d17"),
        (5, "check", 0, 0, "d17"),
        (8, "bet", 50, 50, "d17"),
        (5, "call", 50, 50, "d17"),
        (5, "check", 0, 0, "d17"),
        (8, "check", 0, 0, "d17"),
        (5, "check", 0, 0, "d17"),
        (8, "check", 0, 0, "d17"),
    ]
    assert [a["phase"] for a in actions[:4]] == ["preflop", "preflop", "preflop", "flop"]
    assert actions[0]["stack"] == 1470 and actions[0]["player"] == "marta"
    ((leaf, award),) = told(keyed, ("award",))
    assert leaf == "actions"
    assert award["pots"] == [{"index": 0, "amount": 165, "winners": [5], "shares": {"5": 165}}]
    assert (award["ended_by"], award["ranking"]) == ("award", [[5]])
    ((_, end),) = told(keyed, ("hand_end",))
    assert end["ended_by"] == "award"  # not "key"
    # the raw keys travel on their own topic, never with the events
    assert {
        leaf for leaf, body in keyed if body["kind"] == "event" and body["event"]["type"] == "key"
    } == {"keys"}
    assert all(body["event"]["type"] != "key" for leaf, body in keyed if leaf == "events")


def test_a_refused_award_keyed_at_the_table_reaches_the_floor(tmp_path: Path) -> None:
    to_showdown = "BET 3 0 ENTER FOLD CHECK CHECK BET 5 0 ENTER CHECK CHECK CHECK CHECK CHECK"
    rows = play(tmp_path, START + keys(to_showdown + " 2 ENTER"), by="d17")
    refusals = [body for leaf, body in rows if body["kind"] == "refusal"]
    assert len(refusals) == 1, refusals  # "NO: SEAT 4 IS NOT TO ACT"-like keys stay home
    refusal = refusals[0]
    assert refusal["keying"] == "award" and refusal["input"] == {"type": "key", "key": "ENTER"}
    assert refusal["error"]["code"] == "bad_ranking" and refusal["by"] == "d17"

    # an award the keypad hands to the rules, refused there, is published as that award
    rows = play(
        tmp_path / "misdeal", START + keys("BET 3 0 ENTER") + [{"type": "award", "ranking": [[5]]}]
    )
    (refusal,) = [body for leaf, body in rows if body["kind"] == "refusal"]
    assert refusal["event"] == {"type": "award", "ranking": [[5]]}


def test_a_refused_seating_keyed_at_the_table_reaches_the_floor(tmp_path: Path) -> None:
    rows = play(tmp_path, START + keys("FOLD FOLD FUNC 1 2 ENTER"))
    (refusal,) = [body for leaf, body in rows if body["kind"] == "refusal"]
    assert (refusal["keying"], refusal["error"]["code"]) == ("sit", "seat_taken")


def test_a_routine_key_refusal_stays_at_the_table(tmp_path: Path) -> None:
    rows = play(tmp_path, START + keys("ENTER 7 CHECK"))
    assert [body for leaf, body in rows if body["kind"] == "refusal"] == []


def test_the_clock_called_warned_and_expired_and_the_hand_it_ends(tmp_path: Path) -> None:
    rows = play(
        tmp_path,
        START
        + keys("BET 3 0 ENTER FOLD CLOCK")
        + [{"type": "tick", "ms": 50_000}, {"type": "tick", "ms": 10_000}],
        by="d17",
    )
    clocks = [body for leaf, body in told(rows, ("clock",))]
    assert [(c["clock"], c["seat"], c["remaining_ms"], c["by"]) for c in clocks] == [
        ("called", 5, 60_000, "d17"),
        ("warning", 5, 10_000, None),
        ("expired", 5, 0, None),
    ]
    assert clocks[-1]["action"] == "fold"
    folded = [body for leaf, body in told(rows, ("action",))][-1]
    assert (folded["seat"], folded["action"], folded["cause"]) == (5, "fold", "clock")
    ((_, end),) = told(rows, ("hand_end",))
    assert end["ended_by"] == "clock"
    ((_, award),) = told(rows, ("award",))
    assert award["ended_by"] == "clock" and award["pots"][0]["winners"] == [8]
    assert award["returned"] == {"8": 20}  # the raise no one called


def test_the_last_fold_and_a_misdeal_say_so(tmp_path: Path) -> None:
    rows = play(tmp_path / "fold", START + keys("FOLD FOLD"))
    assert [b["ended_by"] for _, b in told(rows, ("hand_end",))] == ["fold"]
    rows = play(tmp_path / "void", START + keys("CHECK") + [{"type": "misdeal"}])
    ends = [b for _, b in told(rows, ("hand_end",))]
    assert [(b["ended_by"], b["void"]) for b in ends] == [("misdeal", True)]


def test_seat_changes_and_the_seats_they_open(tmp_path: Path) -> None:
    rows = play(
        tmp_path,
        [
            *THREE,
            {"type": "sit_out", "seat": 2},
            {"type": "sit_in", "seat": 2},
            {"type": "move_seat", "from": 5, "to": 7},
            {"type": "leave", "seat": 2},
        ],
        by="floor1",
    )
    seats = [body for _, body in told(rows, ("seat",))][3:]
    assert [(s["seat"], s["change"], s.get("from"), s["player"]) for s in seats] == [
        (2, "sat_out", None, "ana"),
        (2, "sat_in", None, "ana"),
        (7, "moved", 5, "luis"),
        (5, "open", None, None),
        (2, "left", None, "ana"),
        (2, "open", None, None),
    ]
    assert {s["by"] for s in seats} == {"floor1"}
    assert {leaf for leaf, body in rows if body["kind"] == "seat"} == {"seats"}


def test_durable_replay_into_a_tables_journal_queues_its_floor_messages(
    tmp_path: Path,
) -> None:
    config = merged_config(
        {"floor": {"site": "lv", "host": "127.0.0.1"}, "table": {"id": "T1", "seats": 9}}
    )
    table_settings = load_config_text(yaml.safe_dump(config), "<test config>")
    lines = [json.dumps(e) for e in START + HAND_EVENTS]
    assert durable_replay(table_settings, str(tmp_path), lines, io.StringIO()) == 0
    sent = play(tmp_path / "direct", START + HAND_EVENTS)
    queued = outbox(tmp_path)
    # The journal's chain head rides on hand_end (docs/floor.md); a play without a
    # journal has none, so it is compared apart.
    heads = [body["chain_head"] for _, body in queued if body["kind"] == "hand_end"]
    assert heads and all(head.startswith("v1:") for head in heads)
    assert told(queued, drop=(*ENVELOPE, "chain_head")) == told(sent)


def test_a_shot_clock_starts_extends_and_expires(tmp_path: Path) -> None:
    config = {
        "clock": {
            "seconds": 30,
            "warning": 10,
            "shot_clock": True,
            "time_banks": 1,
            "time_bank_seconds": 20,
        }
    }
    rows = play(
        tmp_path,
        START + [{"type": "tick", "ms": 30_000}, {"type": "tick", "ms": 20_000}],
        config=config,
    )
    clocks = [(b["clock"], b["seat"], b["remaining_ms"]) for _, b in told(rows, ("clock",))]
    assert clocks[:5] == [
        ("started", 8, 30_000),
        ("extended", 8, 20_000),
        ("warning", 8, 0),
        ("expired", 8, 0),
        ("started", 2, 30_000),
    ]


def test_a_short_all_in_tells_the_floor_it_was_no_full_raise(tmp_path: Path) -> None:
    """marta raises to 400 (a full raise), luis goes all in for 600 (200 more: less than
    the 390 a full raise needs): `full_raise` says so, so a consumer knows the betting
    was not reopened for marta; keyed or sent, the floor hears the same."""
    from tests.floor_schema import assert_valid

    events = [
        {"type": "act", "seat": 8, "action": "raise", "to": 400},
        {"type": "act", "seat": 2, "action": "fold"},
        {"type": "act", "seat": 5, "action": "all_in"},
    ]
    sent = play(tmp_path / "events", START + events, by="d17")
    keyed = play(tmp_path / "keys", START + keys("BET 4 0 0 ENTER FOLD ALLIN"), by="d17")
    assert told(keyed, ("action",)) == told(sent, ("action",))
    actions = [body for _, body in sent if body["kind"] == "action"]
    assert [
        (a["seat"], a["action"], a["to"], a["all_in"], a.get("full_raise")) for a in actions
    ] == [
        (8, "raise", 400, False, True),
        (2, "fold", 5, False, None),
        (5, "raise", 600, True, False),
    ]
    assert assert_valid([{**a, "msg_seq": n} for n, a in enumerate(actions, 1)]) == 3
    # and what the table did agrees: marta may only call or fold now
    from tests.keypad_tables import feed

    t = Table(settings().rules)
    feed(t, START + events)
    legal = t.legal()
    assert t.state.hand is not None and t.state.hand.to_act == 8 and legal is not None
    assert legal.min_raise_to is None and legal.call == 200
