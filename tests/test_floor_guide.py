"""docs/floor.md's examples are what a table sends: one hand at table T7 (seats 2, 5
and 8), played through the real recorder and the daemon's outbox builder on a real
SQLite journal, gives every example of the guide's story exactly, field for field
(the wall time aside), `seq` and `msg_seq` included. An integrator who builds on the
examples builds on the feed."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from controller.daemon.recorder import Recorder
from controller.floor.feed import Feed
from controller.floor.topics import TableTopics
from controller.journal import Journal
from controller.rules import Table
from tests.floor_schema import guide_examples
from tests.keypad_tables import THREE, settings

WALL_TIME = ("ts", "ts_ns", "clock_synced")
#: The journal's chain head hashes the recorded times too: the guide shortens its hash.
HASHED = "chain_head"
#: The kinds the story tells; `fault`, `tray` and `status` come from devices and the
#: link, and a refusal with `input` from keys (tests/test_floor_play.py).
STORY_KINDS = {
    "action",
    "award",
    "seat",
    "clock",
    "correction",
    "event",
    "refusal",
    "hand_start",
    "hand_end",
    "transfer",
    "state",
}


def act(seat: int, action: str, to: int | None = None) -> dict[str, Any]:
    return {"type": "act", "seat": seat, "action": action, **({"to": to} if to else {})}


#: (event, who entered it): the guide's hand, then a supervisor's transfer and a move.
STORY: list[tuple[dict[str, Any], str | None]] = [
    *[(sit, "d17") for sit in THREE],
    ({"type": "start_hand"}, "d17"),
    (act(8, "raise", 30), "d17"),
    (act(2, "call"), "d17"),
    (act(5, "call"), "d17"),
    (act(2, "check"), "d17"),
    (act(5, "bet", 210), "d17"),
    (act(8, "call"), "d17"),
    ({"type": "call_clock"}, "d17"),  # on seat 2, who lets it run out: folded
    *[({"type": "tick", "ms": 1000}, None)] * 60,
    (act(5, "check"), "d17"),
    (act(8, "bet", 50), "d17"),
    ({"type": "undo"}, "s1"),  # the bet was keyed by mistake: the supervisor undoes it
    (act(8, "check"), "d17"),
    (act(5, "check"), "d17"),
    (act(8, "check"), "d17"),
    ({"type": "award", "ranking": [[2]]}, "d17"),  # refused: seat 2 folded
    ({"type": "award", "ranking": [[5, 8]]}, "d17"),  # a split pot
    (
        {
            "type": "transfer",
            "from": 5,
            "to": 8,
            "amount": 30,
            "reason": "wrong_payout",
            "by": "1042",
        },
        None,
    ),
    ({"type": "move_seat", "from": 5, "to": 7}, "d17"),
    ({"type": "door", "status": "open"}, None),  # the controller's door opened
]


def sent(state_dir: Path) -> list[dict[str, Any]]:
    """The story through the recorder; each outbox row as published (msg_seq: its id)."""
    table_settings = settings({"clock": {"seconds": 60, "warning": 10, "on_expiry": "fold"}})
    journal = Journal.open(state_dir, table_settings.config_text)
    recorder = Recorder(
        journal,
        Table(table_settings.rules),
        snapshot_every=1000,
        outbox=Feed(TableTopics("casino", "east", "T7"), chain_head=journal.chain_head),
    )
    for event, by in STORY:
        recorder.record(event, by=by)
    journal.close()
    with contextlib.closing(sqlite3.connect(state_dir / "journal.sqlite3")) as conn:
        rows = conn.execute("SELECT id, payload FROM outbox ORDER BY id").fetchall()
    return [{**json.loads(payload), "msg_seq": number} for number, payload in rows]


def test_the_guides_examples_are_what_the_table_sends(tmp_path: Path) -> None:
    def timeless(message: dict[str, Any]) -> dict[str, Any]:
        shown = {k: v for k, v in message.items() if k not in WALL_TIME}
        if HASHED in shown:  # v1:SEQ:LOGID:HEX: the guide shortens HEX, which differs
            version, seq, log_id, _ = shown[HASHED].split(":")  # with each run's times
            shown[HASHED] = (version, seq, log_id)
        return shown

    raw = sent(tmp_path)
    heads = [m[HASHED] for m in raw if HASHED in m]
    assert heads and all(len(h.rsplit(":", 1)[1]) == 64 for h in heads), heads
    messages = [timeless(m) for m in raw]
    examples = [e for e in guide_examples() if e["kind"] in STORY_KINDS and "input" not in e]
    assert {e["kind"] for e in examples} == STORY_KINDS
    wrong = []
    for example in examples:
        if timeless(example) not in messages:
            same = [m for m in messages if m.get("msg_seq") == example.get("msg_seq")]
            wrong.append(f"{json.dumps(example)}\n  sent: {json.dumps(same)}")
    assert not wrong, "\n".join(wrong)


def test_the_award_comes_before_the_seat_it_busted(tmp_path: Path) -> None:
    """A player who loses the last chips is `busted` by the award: a consumer reading
    in `msg_seq` order learns who won before who went broke."""
    from tests.test_floor_play import START, play

    rows = play(
        tmp_path,
        START
        + [
            act(8, "raise", 30),
            act(2, "fold"),
            act(5, "all_in"),
            act(8, "call"),
            {"type": "award", "ranking": [[8], [5]]},
        ],
        by="d17",
    )
    told = [
        (body["kind"], body.get("change"))
        for _, body in rows
        if body["kind"] in ("award", "seat", "hand_end") and body.get("seq", 0) > 4
    ]
    assert told == [("award", None), ("seat", "busted"), ("hand_end", None)], told
