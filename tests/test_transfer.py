"""The supervisor's ``transfer`` (docs/replay.md) beyond the rules core, whose scenarios are
``tests/scenarios/Transfer_*.yaml``: durable replay, `tablectl state`, salvage,
`tablectl recall`, and the floor message built from it."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from controller.cli import main
from controller.config import load_config
from controller.daemon.recall import as_text, recall
from controller.durable import durable_replay
from controller.floor.clock import Stamp
from controller.floor.messages import messages_for
from controller.floor.topics import TableTopics
from controller.journal import Journal
from tests.test_journal import flip_in_file

CONFIG = """\
table: {id: "T7", seats: 9}
game: {structure: no_limit, small_blind: 5, big_blind: 10, smallest_chip: 5}
journal: {snapshot_every: 3}
"""
HAND = [
    {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
    {"type": "sit", "seat": 5, "player": "luis", "chips": 600},
    {"type": "sit", "seat": 8, "player": "marta", "chips": 1500},
    {"type": "start_hand"},
    {"type": "act", "seat": 8, "action": "call"},
    {"type": "act", "seat": 2, "action": "call"},
    {"type": "act", "seat": 5, "action": "check"},
    *[{"type": "act", "seat": s, "action": "check"} for _ in range(3) for s in (2, 5, 8)],
    {"type": "award", "ranking": [[5]]},  # seat 8 had won: the dealer keyed seat 5
]
TRANSFER = {
    "type": "transfer",
    "from": 5,
    "to": 8,
    "amount": 30,
    "reason": "wrong_payout",
    "by": "1042",
}
STACKS = {"2": 990, "5": 590, "8": 1520}


def lines(events: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(e) for e in events]


def journal(tmp_path: Path, events: list[dict[str, Any]]) -> tuple[Path, list[dict[str, Any]]]:
    config = tmp_path / "table.yaml"
    config.write_text(CONFIG)
    out = io.StringIO()
    assert durable_replay(load_config(config), str(tmp_path / "state"), lines(events), out) == 0
    return tmp_path / "state", [json.loads(line) for line in out.getvalue().splitlines()]


def stacks(state: dict[str, Any]) -> dict[str, int]:
    return {seat: s["stack"] for seat, s in state["seats"].items()}


def resumed(state_dir: Path, capsys: Any) -> dict[str, Any]:
    assert main(["state", "--state-dir", str(state_dir)]) == 0
    return json.loads(capsys.readouterr().out)["state"]


def test_a_transfer_is_journalled_and_folded_again(tmp_path: Path, capsys: Any) -> None:
    state_dir, out = journal(tmp_path, HAND + [TRANSFER, {"type": "state"}])
    assert all(line["ok"] for line in out)
    assert stacks(out[-1]["state"]) == STACKS
    assert stacks(resumed(state_dir, capsys)) == STACKS
    with Journal.open_readonly(state_dir) as j:
        record = [r for r in j.iter_events() if r.event["type"] == "transfer"][0]
    assert record.accepted and record.by == "1042" and record.event == TRANSFER


def test_salvage_keeps_a_transfer_made_before_the_damage(tmp_path: Path, capsys: Any) -> None:
    later = {"type": "sit", "seat": 3, "player": "damage-here", "chips": 500}
    state_dir, _ = journal(tmp_path, HAND + [TRANSFER, later, {"type": "state"}])
    flip_in_file(state_dir / "journal.sqlite3", b"damage-here", 3)
    report = Journal.salvage(state_dir)
    assert report.kept_last_seq == len(HAND) + 1  # every event up to the transfer
    assert stacks(resumed(state_dir, capsys)) == STACKS


def test_recall_lists_the_transfer_with_the_hand_it_corrects(tmp_path: Path) -> None:
    state_dir, _ = journal(tmp_path, HAND + [TRANSFER, {"type": "start_hand"}])
    with Journal.open_readonly(state_dir) as j:
        hands = recall(j)
    assert [h.hand for h in hands] == [1, 2]
    first = hands[0]
    assert [{k: v for k, v in t.items() if k != "time"} for t in first.transfers] == [
        {
            "from": 5,
            "to": 8,
            "amount": 30,
            "reason": "wrong_payout",
            "seq": len(HAND) + 1,
            "by": "1042",
        }
    ]
    assert hands[1].transfers == []
    assert (
        "transfer after the hand: 30 from seat 5 to seat 8 (wrong payout) (by 1042) "
        f"at seq {len(HAND) + 1}" in as_text(hands)
    )


def test_a_transfer_goes_to_the_floor_as_a_transfer_message() -> None:
    seats = {"5": {"player": "luis", "stack": 620}, "8": {"player": "marta", "stack": 1490}}
    after = {
        "hand": 1,
        "phase": "idle",
        "seats": {"5": {"player": "luis", "stack": 590}, "8": {"player": "marta", "stack": 1520}},
    }
    result = {
        "ok": True,
        "transfers": [{"from": 5, "to": 8, "amount": 30, "reason": "wrong_payout", "by": "1042"}],
    }
    rows = messages_for(
        {"seq": 40, "event": {"type": "key", "key": "ENTER"}},
        result,
        {"hand": 1, "phase": "idle", "seats": seats},
        after,
        topics=TableTopics("casino", "lv", "T7"),
        stamp=Stamp(1_740_863_645_123_456_789, True),
    )
    sent = [(row.topic, json.loads(row.payload)) for row in rows]
    transfers = [(topic, p) for topic, p in sent if p["kind"] == "transfer"]
    assert len(transfers) == 1
    topic, payload = transfers[0]
    assert topic == "casino/lv/table/T7/hands"
    assert {
        k: payload[k]
        for k in ("seq", "hand", "from", "to", "amount", "reason", "by", "players", "stacks")
    } == {
        "seq": 40,
        "hand": 1,
        "from": 5,
        "to": 8,
        "amount": 30,
        "reason": "wrong_payout",
        "by": "1042",
        "players": {"5": "luis", "8": "marta"},
        "stacks": {"5": 590, "8": 1520},
    }
    # and the event itself, with the stacks it changed, as for any accepted event
    assert [p["kind"] for _, p in sent] == ["event", "transfer", "state"]


SEATED_WRONG = {
    "type": "transfer",
    "from": 8,
    "to": 5,
    "amount": 100,
    "reason": "chips_misplaced",
    "by": "1042",
}


def test_recall_lists_a_transfer_made_before_the_first_hand(tmp_path: Path, capsys: Any) -> None:
    """Chips misplaced at seating, put right before hand 1: recall shows the transfer
    before hand 1 (and alone, before any hand is played), in text and JSON."""
    state_dir, _ = journal(tmp_path, HAND[:3] + [SEATED_WRONG])
    assert main(["recall", "--state-dir", str(state_dir)]) == 0
    alone = capsys.readouterr().out
    assert "BEFORE HAND 1" in alone
    assert (
        "transfer before the first hand: 100 from seat 8 to seat 5 (chips misplaced) "
        "(by 1042) at seq 4" in alone
    )
    (tmp_path / "b").mkdir()
    state_dir, _ = journal(tmp_path / "b", HAND[:3] + [SEATED_WRONG] + HAND[3:] + [TRANSFER])
    with Journal.open_readonly(state_dir) as j:
        hands = recall(j)
        assert [h.hand for h in recall(j, 1)] == [0, 1]  # it goes with hand 1
    assert [h.hand for h in hands] == [0, 1]
    before = hands[0]
    assert before.result == "before the first hand"
    assert [t["seq"] for t in before.transfers] == [4]
    assert [t["seq"] for t in hands[1].transfers] == [len(HAND) + 2]
    text = as_text(hands)
    assert text.index("BEFORE HAND 1") < text.index("HAND 1  seq")
    assert main(["recall", "--state-dir", str(state_dir), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["hands"]
    assert listed[0]["hand"] == 0 and listed[0]["transfers"][0]["reason"] == "chips_misplaced"
    assert main(["recall", "--state-dir", str(state_dir), "--hand", "1"]) == 0
    assert "BEFORE HAND 1" in capsys.readouterr().out
