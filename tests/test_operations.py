"""Tips, dealers and shifts (issue 24) through the shell: the durable journal and its
recovery, recall, the tray report, `tablectl meters` and the floor feed."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.config import load_config
from controller.daemon.recall import as_text, recall
from controller.durable import durable_replay
from controller.floor.clock import Stamp
from controller.floor.messages import messages_for
from controller.floor.topics import TableTopics
from controller.journal import Journal
from controller.rules import RuleSettings, Table, parse_event, state_view
from controller.rules.settings import DealerSettings, GameSettings
from tests.floor_schema import assert_valid

CONFIG = """\
table: {id: "T7", seats: 9}
game: {structure: no_limit, small_blind: 5, big_blind: 10, smallest_chip: 5}
journal: {snapshot_every: 3}
"""
SHIFT_OPEN = {
    "type": "shift",
    "action": "open",
    "counts": {"5": 100, "25": 40},
    "by": "S1",
    "witness": "S2",
}
SHIFT_CLOSE = {**SHIFT_OPEN, "action": "close", "counts": {"5": 60, "25": 40}, "by": "S3"}
SESSION = [
    {"type": "dealer", "id": "D204"},
    SHIFT_OPEN,
    {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
    {"type": "sit", "seat": 5, "player": "luis", "chips": 600},
    {"type": "sit", "seat": 8, "player": "marta", "chips": 1500},
    {"type": "start_hand"},
    {"type": "tick", "ms": 90_000},
    {"type": "act", "seat": 8, "action": "fold"},
    {"type": "act", "seat": 2, "action": "fold"},
    {"type": "tip", "seat": 5, "amount": 10},
    {"type": "dealer", "id": "D311"},
    {"type": "start_hand"},
    {"type": "tick", "ms": 30_000},
    {"type": "act", "seat": 2, "action": "fold"},
    {"type": "act", "seat": 5, "action": "fold"},
    {"type": "leave", "seat": 5},
]


def journal(tmp_path: Path, events: list[dict[str, Any]]) -> tuple[Path, list[dict[str, Any]]]:
    config = tmp_path / "table.yaml"
    config.write_text(CONFIG)
    out = io.StringIO()
    lines = [json.dumps(e) for e in events]
    assert durable_replay(load_config(config), str(tmp_path / "state"), lines, out) == 0
    return tmp_path / "state", [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_session_is_journalled_and_resumed_with_its_dealer_and_meters(
    tmp_path: Path, capsys: Any
) -> None:
    state_dir, out = journal(tmp_path, SESSION + [{"type": "state"}])
    assert all(line["ok"] for line in out), out
    view = out[-1]["state"]
    assert view["dealer"] == "D311"
    assert view["meters"] == {
        "hands": 2,
        "rake": 0,
        "jackpot": 0,
        "time_fees": 0,
        "tips": 10,
        "buy_ins": 3100,
        "cash_outs": 590,
    }
    assert main(["state", "--state-dir", str(state_dir), "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)["state"]
    assert resumed["meters"] == view["meters"] and resumed["dealer"] == "D311"
    # durable replay goes on from the journal: the shift closes in a second run
    config = tmp_path / "table.yaml"
    more = io.StringIO()
    assert durable_replay(load_config(config), str(state_dir), [json.dumps(SHIFT_CLOSE)], more) == 0
    assert json.loads(more.getvalue())["ok"] is True


def test_recall_names_each_hands_dealer_and_lists_the_tips(tmp_path: Path, capsys: Any) -> None:
    state_dir, _ = journal(tmp_path, SESSION)
    with Journal.open_readonly(state_dir) as j:
        hands = recall(j)
    assert [(h.hand, h.dealer) for h in hands] == [(1, "D204"), (2, "D311")]
    assert [(t["seat"], t["amount"], t["dealer"]) for t in hands[0].tips] == [(5, 10, "D204")]
    text = as_text(hands)
    assert "dealer D204" in text and "dealer D311" in text
    assert "tip: seat 5 gave 10 to dealer D204 (toke box)" in text
    assert main(["recall", "--json", "--state-dir", str(state_dir)]) == 0
    listed = json.loads(capsys.readouterr().out)["hands"]
    assert listed[0]["dealer"] == "D204" and listed[0]["tips"][0]["amount"] == 10


def test_recall_lists_a_tip_put_right_with_the_tip(tmp_path: Path, capsys: Any) -> None:
    fix = {"type": "tip_correction", "amount": 5, "by": "1042"}
    state_dir, out = journal(tmp_path, SESSION[:10] + [fix] + SESSION[10:])
    assert all(line["ok"] for line in out), out
    with Journal.open_readonly(state_dir) as j:
        hands = recall(j)
    tips = hands[0].tips
    assert [(t["seat"], t["amount"], t.get("was"), t["dealer"], t["by"]) for t in tips] == [
        (5, 10, None, "D204", "D204"),
        (5, 5, 10, "D204", "1042"),
    ]
    text = as_text(hands)
    assert "tip put right: seat 5's tip to dealer D204 was 10, is 5 (5 back to the stack)" in text
    assert "by 1042" in text.split("tip put right")[1].splitlines()[0]


def test_the_tray_report_lists_tips_apart_from_the_difference(tmp_path: Path, capsys: Any) -> None:
    state_dir, _ = journal(tmp_path, SESSION)
    assert main(["tray", "--state-dir", str(state_dir)]) == 0
    report = capsys.readouterr().out
    assert "tips                      10   (toke box, not the tray)" in report
    assert main(["tray", "--state-dir", str(state_dir), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["tips"] == 10 and figures["sold"] == 3100


def test_tablectl_meters_prints_the_shift_report(tmp_path: Path, capsys: Any) -> None:
    state_dir, _ = journal(tmp_path, SESSION + [SHIFT_CLOSE])
    assert main(["meters", "--state-dir", str(state_dir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["shift"] == 1 and report["close"]["by"] == "S3"
    assert report["table"]["hands"] == 2 and report["table"]["ms"] == 120_000
    assert report["table"]["hands_per_hour"] == 60.0
    assert report["seats"]["5"]["cash_outs"] == 590 and report["seats"]["5"]["tips"] == 10
    assert report["dealers"]["D204"]["hands"] == 1 and report["dealers"]["D204"]["tips"] == 10
    assert report["dealers"]["D311"]["cash_outs"] == 590
    assert report["float"] == {
        "open": 1500,
        "sold": 3100,
        "fills": 0,
        "credits": 0,
        "expected": -1600,
        "close": 1300,
        "difference": 2900,
    }
    assert main(["meters", "--state-dir", str(state_dir)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("SHIFT 1: opened by S1 with S2 at hand 0; closed by S3 with S2")
    assert "TABLE" in text and "D204" in text and "difference             +2900" in text
    assert main(["meters", "--state-dir", str(state_dir), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["scope"], r["name"]) for r in rows][:1] == [("table", "")]
    assert {r["name"] for r in rows if r["scope"] == "dealer"} == {"D204", "D311"}
    assert main(["meters", "--state-dir", str(state_dir), "--shift", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == report
    assert main(["meters", "--state-dir", str(state_dir), "--shift", "7"]) == 2
    assert "no shift 7: the shifts are 0 (before the first open) to 2" in capsys.readouterr().err
    assert main(["meters", "--state-dir", str(tmp_path / "nowhere")]) == 2
    assert "nothing recorded yet" in capsys.readouterr().err


def test_tablectl_meters_shows_what_came_before_the_opening_count(
    tmp_path: Path, capsys: Any
) -> None:
    """A tip between shift 1's close and shift 2's open is shift 2's, and its report
    says it came before the opening count."""
    tip = {"type": "tip", "seat": 8, "amount": 5}
    state_dir, out = journal(tmp_path, SESSION + [SHIFT_CLOSE, tip])
    assert all(line["ok"] for line in out), out
    assert main(["meters", "--state-dir", str(state_dir)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("SHIFT 2: not opened yet (the figures since shift 1 closed at hand 2)")
    second_open = {**SHIFT_OPEN, "counts": {"5": 60, "25": 40}}
    state_dir, out = journal(tmp_path, [second_open])
    assert main(["meters", "--state-dir", str(state_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "SHIFT 2: opened by S1 with S2 at hand 2; open"
    assert lines[1] == (
        "before the opening count (since shift 1 closed at hand 2): hands 0, rake 0, "
        "jackpot 0, time fees 0, tips 5, buy ins 0, cash outs 0"
    )
    assert main(["meters", "--state-dir", str(state_dir), "--shift", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["table"]["tips"] == 10


def _floor(table: Table, obj: dict[str, Any]) -> list[dict[str, Any]]:
    before = state_view(table)
    effects = table.apply(parse_event(obj))
    rows = messages_for(
        {"seq": 9, "event": obj},
        {"ok": True, "effects": effects, "by": obj.get("by")},
        before,
        state_view(table),
        topics=TableTopics("casino", "lv", "T7"),
        stamp=Stamp(1_740_863_645_123_456_789, True),
    )
    payloads = [{**json.loads(row.payload), "msg_seq": 1} for row in rows]
    assert_valid(payloads)
    return [p for p, row in zip(payloads, rows, strict=True) if row.topic.endswith("/hands")]


def test_the_floor_hears_tips_dealers_pushes_and_shift_reports() -> None:
    settings = RuleSettings(
        game=GameSettings(big_blind=10, small_blind=5, smallest_chip=5),
        dealer=DealerSettings(push_minutes=1),
    )
    table = Table(settings)
    dealer = _floor(table, {"type": "dealer", "id": "D204"})
    assert [(p["kind"], p["change"], p["dealer"]) for p in dealer] == [("dealer", "in", "D204")]
    shift = _floor(table, SHIFT_OPEN)
    assert [(p["kind"], p["action"], p["float"]) for p in shift] == [("shift", "open", 1500)]
    for obj in (
        {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
        {"type": "sit", "seat": 5, "player": "luis", "chips": 600},
    ):
        _floor(table, obj)
    started = _floor(table, {"type": "start_hand"})
    assert [(p["kind"], p["dealer"]) for p in started] == [("hand_start", "D204")]
    push = _floor(table, {"type": "tick", "ms": 60_000})
    assert [(p["kind"], p["change"], p["minutes"]) for p in push] == [("dealer", "push_due", 1)]
    assert _floor(table, {"type": "tick", "ms": 60_000}) == []  # said once
    ended = _floor(table, {"type": "act", "seat": 5, "action": "fold"})
    assert [(p["kind"], p["dealer"]) for p in ended] == [("hand_end", "D204")]
    tip = _floor(table, {"type": "tip", "seat": 2, "amount": 5})
    assert tip == [
        {
            **tip[0],
            "kind": "tip",
            "hand": 1,
            "seat": 2,
            "amount": 5,
            "dealer": "D204",
            "player": "ana",
            "stack": 1000,
        }
    ]
    fixed = _floor(table, {"type": "tip_correction", "amount": 0, "by": "1042"})
    assert fixed == [
        {
            **fixed[0],
            "kind": "tip_correction",
            "hand": 1,
            "seat": 2,
            "amount": 0,
            "was": 5,
            "dealer": "D204",
            "player": "ana",
            "stack": 1005,
            "by": "1042",
        }
    ]
    tip = _floor(table, {"type": "tip", "seat": 2, "amount": 5})
    closed = _floor(table, SHIFT_CLOSE)
    assert len(closed) == 1 and closed[0]["kind"] == "shift" and closed[0]["action"] == "close"
    assert closed[0]["report"]["table"]["tips"] == 5
    assert closed[0]["report"] == table.state.shifts[-1]


def test_the_daemon_tells_the_time_for_the_push_and_the_shift(tmp_path: Path) -> None:
    """With a dealer signed in and dealer.push_minutes set, the daemon journals a tick
    when the push falls due (and one a minute from the first shift open on, between a
    close and the next open too), not one before every input: the reminder shows on the
    display between hands, once."""
    from tests.daemon_helpers import journal_events, running, shown, view, wait_for, write_config
    from tests.mock_clock import MockClock

    config = write_config(tmp_path)
    config.write_text(config.read_text() + "dealer: {push_minutes: 1}\n")
    clock = MockClock()
    with running(config, clock=clock) as daemon:
        assert daemon.submit({"type": "dealer", "id": "D204"}).ok
        assert daemon.submit({"type": "sit", "seat": 2, "player": "ana", "chips": 500}).ok
        clock.jump(30.0)
        assert daemon.submit({"type": "sit", "seat": 5, "player": "bo", "chips": 500}).ok
        clock.jump(30.0)  # the minute: due
        wait_for(lambda: view(daemon)["shift"]["push_due"], what="the push due")
        wait_for(lambda: shown(daemon).line1 == "DEALER D204: PUSH DUE", what="the reminder")
        assert daemon.submit(SHIFT_OPEN).ok
        clock.jump(45.0)
        assert daemon.submit({"type": "tip", "seat": 2, "amount": 5}).ok  # no tick before it
        clock.jump(15.0)  # a minute of the shift
        wait_for(lambda: view(daemon)["tray"]["unchanged_ms"] == 120_000, what="the minute told")
        assert daemon.submit(SHIFT_CLOSE).ok
        # the next shift counts its time from the close: told too (the push was said)
        clock.jump(300.0)
        wait_for(lambda: view(daemon)["tray"]["unchanged_ms"] == 420_000, what="the time told")
        assert daemon.submit({"type": "state"}).ok
    ticks = [e.event["ms"] for e in journal_events(tmp_path / "state") if e.event["type"] == "tick"]
    assert ticks == [60_000, 60_000, 300_000]


@pytest.mark.slow  # a whole bench session, keyed through its script (4 s)
def test_the_bench_plays_a_tip_a_dealer_change_and_a_shift_close(tmp_path: Path) -> None:
    """`tablectl bench --script` keys the casino's operations on the simulated keypad:
    a dealer signs in, a shift opens behind two supervisors' PINs, a hand is played, a
    tip, a dealer change, the shift closes; `tablectl meters` then reports it."""
    from controller import supervisor_pins
    from tests.cli import tablectl
    from tests.test_bench_tui import bench_config

    bench_config(tmp_path)
    pins = tmp_path / "pins"
    supervisor_pins.save_pins(
        pins,
        {
            "1042": supervisor_pins.hash_pin("2468", n=2**4),
            "2077": supervisor_pins.hash_pin("1357", n=2**4),
        },
    )
    count = "2 5 ENTER 4 0 ENTER ENTER 2 0 7 7 ENTER 1 3 5 7 ENTER"  # 40 x 25
    supervisor = "keys FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER"
    script = tmp_path / "ops.txt"
    script.write_text(
        "seat\n"
        "keys FUNC 8 2 0 4 ENTER\nwait-for DEALER 204 SIGNED IN\n"
        f"{supervisor} 8 {count}\nwait-for SHIFT OPEN: 1042 AND 2077\n"
        "demo 1\n"
        "keys FUNC 7 1 ENTER 5 ENTER\nwait-for TIP 5 FROM SEAT 1\n"
        "keys FUNC 8 3 1 1 ENTER\nwait-for DEALER 311 SIGNED IN\n"
        f"{supervisor} 9 {count}\nwait-for SHIFT CLOSED: 1042 AND 2077\n"
    )
    done = tablectl(
        "bench",
        "--config",
        "bench.yaml",
        "--script",
        str(script),
        cwd=tmp_path,
        timeout=120,
        env={**os.environ, "TABLECTL_PINS": str(pins)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = tablectl("meters", "--state-dir", str(tmp_path / "state"), "--json")
    assert report.returncode == 0, report.stderr
    shift = json.loads(report.stdout)
    assert shift["shift"] == 1 and shift["close"]["witness"] == "2077"
    assert shift["table"]["hands"] == 1 and shift["table"]["tips"] == 5
    assert shift["float"]["open"] == shift["float"]["close"] == 1000
    assert shift["dealers"]["204"]["hands"] == 1  # the hand was dealt by 204
    assert shift["dealers"]["204"]["tips"] == 5


def test_salvage_keeps_the_shift_the_tips_and_the_dealer_before_the_damage(
    tmp_path: Path, capsys: Any
) -> None:
    from tests.test_journal import flip_in_file

    later = {"type": "sit", "seat": 3, "player": "damage-here", "chips": 500}
    state_dir, out = journal(tmp_path, SESSION + [later, {"type": "state"}])
    flip_in_file(state_dir / "journal.sqlite3", b"damage-here", 3)
    report = Journal.salvage(state_dir)
    assert report.kept_last_seq == len(SESSION)  # every event up to the damage
    assert main(["state", "--state-dir", str(state_dir), "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)["state"]
    assert resumed["dealer"] == "D311" and resumed["shift"] == {
        "number": 1,
        "open": True,
        "push_due": False,
    }
    assert resumed["meters"]["tips"] == 10 and resumed["meters"]["cash_outs"] == 590


def test_the_state_summary_and_meters_before_any_shift(tmp_path: Path, capsys: Any) -> None:
    """Before the first open the meters count from the journal's start, and say so."""
    state_dir, _ = journal(tmp_path, SESSION[2:5] + [{"type": "dealer", "id": "D9"}])
    assert main(["state", "--state-dir", str(state_dir), "--summary"]) == 0
    summary = capsys.readouterr().out
    assert (
        "dealer D9; shift 0 not open: hands 0, rake 0, jackpot 0, time fees 0, tips 0," in summary
    )
    assert main(["meters", "--state-dir", str(state_dir)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("SHIFT 0: no shift opened yet (the figures since the journal began)")
    assert "float: not counted (no shift opened)" in text
