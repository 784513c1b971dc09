"""`tablectl recall`: the last hands rebuilt from the journal (controller.daemon.recall),
also after retention has pruned the journal."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path
from types import ModuleType

import pytest

from controller.cli import main
from controller.config import load_config
from controller.daemon.recall import recall
from controller.durable import durable_replay
from controller.journal import Journal
from tests.bench_harness import load_bench


def harness() -> ModuleType:
    return load_bench("daemon_killloop")


def journal_with_hands(tmp_path: Path, count: int) -> Path:
    kill = harness()
    config = tmp_path / "table.yaml"
    config.write_text(kill.CONFIG.replace("snapshot_every: 25", "snapshot_every: 7"))
    settings = load_config(config)
    lines = kill.make_lines(settings.rules, count, random.Random(3))
    state = tmp_path / "state"
    assert durable_replay(settings, str(state), lines, io.StringIO()) == 0
    return state


@pytest.mark.slow  # hands played and recalled: out of the edit loop
def test_recall_shows_the_last_ten_hands_with_every_action(tmp_path: Path) -> None:
    state = journal_with_hands(tmp_path, 900)
    with Journal.open_readonly(state) as journal:
        hands = recall(journal)
        last_hand = max(r.hand for r in journal.iter_events() if r.hand is not None)
    assert [h.hand for h in hands] == list(range(last_hand - 9, last_hand + 1))
    finished = [h for h in hands if h.result == "ended"]
    assert finished and all(h.rebuilt for h in hands)
    for hand in finished:
        assert {p["kind"] for p in hand.posts} >= {"big_blind"}
        assert hand.actions and hand.pots
        paid = sum(s["amount"] for pot in hand.pots for s in pot["shares"])
        posted = sum(p["live"] + p["dead"] for p in hand.posts)
        assert paid + hand.fees["rake"] + hand.fees["jackpot"] >= posted


@pytest.mark.slow  # hands played, pruned and recalled: out of the edit loop
def test_recall_after_retention_loses_no_action(tmp_path: Path) -> None:
    """Retention keeps the newest snapshot before the last ten hands (and every event
    from it), so all ten are still rebuilt, exactly as before the prune."""
    state = journal_with_hands(tmp_path, 1500)
    with Journal.open(state, (tmp_path / "table.yaml").read_text()) as journal:
        before = recall(journal)
        report = journal.prune(10)
        assert report.removed_events > 0
        assert journal.verify().ok
        after = recall(journal)
    assert [h.hand for h in after] == [h.hand for h in before]
    assert all(h.rebuilt for h in after)
    assert [h.as_dict() for h in after] == [h.as_dict() for h in before]


@pytest.mark.slow  # hands played, pruned and recalled: out of the edit loop
def test_recall_command_rebuilds_ten_hands_after_pruning(tmp_path: Path, capsys: object) -> None:
    """`tablectl recall` on a pruned journal whose newest snapshot falls inside the last
    ten hands: every one of them comes back with its posts, pots and awards."""
    state = journal_with_hands(tmp_path, 1500)
    with Journal.open(state, (tmp_path / "table.yaml").read_text()) as journal:
        window = journal.first_seq_of_last_hands(10)
        latest = journal.latest_snapshot()
        assert window is not None and latest is not None and latest[0] > window
        report = journal.prune(10)
        assert report.removed_events > 0 and report.kept_from_seq < window
    assert main(["recall", "--json", "--state-dir", str(state)]) == 0
    hands = json.loads(capsys.readouterr().out)["hands"]  # type: ignore[attr-defined]
    assert len(hands) == 10 and all(hand["rebuilt"] for hand in hands)
    ended = [hand for hand in hands if hand["result"] == "ended"]
    assert len(ended) >= 9
    for hand in ended:
        assert any(post["kind"] == "big_blind" for post in hand["posts"]), hand["hand"]
        assert hand["pots"] and all(pot["shares"] for pot in hand["pots"]), hand["hand"]
        awarded = sum(share["amount"] for pot in hand["pots"] for share in pot["shares"])
        assert awarded == sum(pot["amount"] for pot in hand["pots"]) > 0
    assert main(["recall", "--state-dir", str(state)]) == 0
    text = capsys.readouterr().out  # type: ignore[attr-defined]
    assert text.count("HAND ") == 10 and "not rebuilt" not in text
    assert text.count("posts:") == 10 and "main pot" in text


def test_recall_command_text_and_json(tmp_path: Path, capsys: object) -> None:
    state = journal_with_hands(tmp_path, 300)
    assert main(["recall", "3", "--state-dir", str(state)]) == 0
    text = capsys.readouterr().out  # type: ignore[attr-defined]
    assert text.count("HAND ") == 3 and "posts:" in text and "preflop:" in text
    assert "1970" not in text
    assert main(["recall", "--json", "--state-dir", str(state)]) == 0
    data = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert len(data["hands"]) == 10


DRAW_CONFIG = """\
table: {id: LOW, seats: 6}
game: {structure: fixed_limit, form: triple_draw, small_blind: 5, big_blind: 10}
"""
DRAW_HAND = [
    {"type": "sit", "seat": 1, "player": "ana", "chips": 500},
    {"type": "sit", "seat": 3, "player": "bob", "chips": 500},
    {"type": "sit", "seat": 5, "player": "cy", "chips": 500},
    {"type": "start_hand"},
    {"type": "act", "seat": 5, "action": "raise", "to": 20},
    {"type": "act", "seat": 1, "action": "call"},
    {"type": "act", "seat": 3, "action": "call"},
    {"type": "act", "seat": 1, "action": "check"},
    {"type": "act", "seat": 3, "action": "bet", "to": 10},
    {"type": "act", "seat": 5, "action": "fold"},
    {"type": "act", "seat": 1, "action": "call"},
    {"type": "act", "seat": 1, "action": "bet", "to": 20},
]


def test_recall_names_the_rounds_of_a_draw_game(tmp_path: Path, capsys: object) -> None:
    """Triple draw: the actions are filed under predraw, draw1 and draw2, and the hand
    in progress shows its round."""
    config = tmp_path / "table.yaml"
    config.write_text(DRAW_CONFIG)
    state = tmp_path / "state"
    lines = [json.dumps(event) for event in DRAW_HAND]
    assert durable_replay(load_config(config), str(state), lines, io.StringIO()) == 0
    with Journal.open_readonly(state) as journal:
        (hand,) = recall(journal)
    streets = [(a["street"], a["seat"], a["action"]) for a in hand.actions]
    assert streets == [
        ("predraw", 5, "raise"),
        ("predraw", 1, "call"),
        ("predraw", 3, "call"),
        ("draw1", 1, "check"),
        ("draw1", 3, "bet"),
        ("draw1", 5, "fold"),
        ("draw1", 1, "call"),
        ("draw2", 1, "bet"),
    ]
    assert [s["street"] for s in hand.streets] == ["draw1", "draw2"]
    assert hand.now is not None and hand.now["phase"] == "draw2" and hand.now["to_act"] == 3
    assert main(["recall", "--state-dir", str(state)]) == 0
    text = capsys.readouterr().out  # type: ignore[attr-defined]
    assert re.search(r"predraw:\n(    .*\n)*    .*  seat 5 raise to 20\n", text), text
    assert re.search(r"draw2:\n(    .*\n)*    .*  seat 1 bet to 20\n", text), text
    assert "now: draw2, seat 3 to act" in text


UNDO_CONFIG = """\
table: {id: U, seats: 6}
game: {structure: no_limit, small_blind: 50, big_blind: 100}
"""
UNDO_HAND = [
    {"type": "sit", "seat": 1, "player": "ana", "chips": 1000},
    {"type": "sit", "seat": 3, "player": "bob", "chips": 1000},
    {"type": "sit", "seat": 5, "player": "cy", "chips": 1000},
    {"type": "start_hand"},
    {"type": "act", "seat": 5, "action": "call"},
    {"type": "act", "seat": 1, "action": "raise", "to": 300},  # seq 6
    {"type": "undo", "by": "1042"},  # seq 7: the supervisor takes it back
    {"type": "act", "seat": 1, "action": "call"},  # seq 8: the player only called
]


def test_recall_shows_the_door_opened_and_closed_during_a_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.yaml"
    config.write_text(UNDO_CONFIG)
    state = tmp_path / "state"
    events = [
        *UNDO_HAND[:5],
        {"type": "door", "status": "open"},  # seq 6
        {"type": "door", "status": "closed"},  # seq 7
    ]
    lines = [json.dumps(event) for event in events]
    assert durable_replay(load_config(config), str(state), lines, io.StringIO()) == 0
    with Journal.open_readonly(state) as journal:
        (hand,) = recall(journal)
    assert [(c["kind"], c["causes"], c["seq"]) for c in hand.corrections] == [
        ("play_stopped", ["door_open"], 6),
        ("play_stopped", [], 7),
    ]
    assert main(["recall", "--state-dir", str(state)]) == 0
    text = capsys.readouterr().out
    assert re.search(r"play stopped \(door open\) at seq 6, .*\n  play goes on at seq 7", text)


def test_recall_marks_an_undone_action_where_it_was_taken_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 21 item 3: an undone raise was listed as if it stood (`seat 1 raise to
    300`, then `seat 1 call 100`), the undo only at the bottom among the corrections. A
    dispute reader needs the raise marked as undone on its own line and the undo in the
    order it happened, in the text and in the JSON."""
    config = tmp_path / "table.yaml"
    config.write_text(UNDO_CONFIG)
    state = tmp_path / "state"
    lines = [json.dumps(event) for event in UNDO_HAND]
    assert durable_replay(load_config(config), str(state), lines, io.StringIO()) == 0
    with Journal.open_readonly(state) as journal:
        (hand,) = recall(journal)
    listed = [(a["seq"], a["seat"], a["action"], a["undone_seq"]) for a in hand.actions]
    assert listed == [
        (5, 5, "call", None),
        (6, 1, "raise", 7),
        (7, 1, "undo", None),
        (8, 1, "call", None),
    ]
    undo = hand.actions[2]
    assert undo["undoes"] == 6 and undo["by"] == "1042"
    assert all(c["kind"] != "undo" for c in hand.corrections)  # not again at the bottom
    assert main(["recall", "--state-dir", str(state)]) == 0
    text = capsys.readouterr().out
    assert re.search(
        r"seq 6  seat 1 raise to 300  UNDONE \(seq 7\)\n"
        r".*seq 7  UNDO: seat 1 raise to 300 \(seq 6\) taken back \(by 1042\)\n"
        r".*seq 8  seat 1 call 100\n",
        text,
    ), text
    assert "  undo: seat" not in text
    assert main(["recall", "--json", "--state-dir", str(state)]) == 0
    (shown,) = json.loads(capsys.readouterr().out)["hands"]
    assert [a["undone_seq"] for a in shown["actions"]] == [None, 7, None, None]
    assert shown["actions"][2]["action"] == "undo" and shown["actions"][2]["undoes"] == 6


def test_recall_lists_door_device_and_clock_events_where_they_happened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 31 item 12: the door, a device and the clock were listed after every
    action of the hand (or, a tray or puck lost, not at all), so a dispute reader could
    not tell what came before what."""
    config = tmp_path / "table.yaml"
    config.write_text(UNDO_CONFIG + "clock: {seconds: 30, warning: 10}\n")
    state = tmp_path / "state"
    events = [
        *UNDO_HAND[:5],  # seq 5: seat 5 calls
        {"type": "door", "status": "open"},  # seq 6
        {"type": "door", "status": "closed"},  # seq 7
        {"type": "act", "seat": 1, "action": "call"},  # seq 8
        {"type": "device", "device": "tray", "status": "lost"},  # seq 9
        {"type": "call_clock"},  # seq 10: on seat 3
        {"type": "tick", "ms": 25_000},  # seq 11: the warning
        {"type": "tick", "ms": 5_000},  # seq 12: expired, seat 3 folded
        {"type": "device", "device": "tray", "status": "back"},  # seq 13
    ]
    lines = [json.dumps(event) for event in events]
    assert durable_replay(load_config(config), str(state), lines, io.StringIO()) == 0
    with Journal.open_readonly(state) as journal:
        (hand,) = recall(journal)
    assert [(c["kind"], c["seq"]) for c in hand.corrections] == [
        ("play_stopped", 6),
        ("play_stopped", 7),
        ("device", 9),
        ("clock_called", 10),
        ("clock_warning", 11),
        ("clock_expired", 12),
        ("device", 13),
    ]
    assert main(["recall", "--state-dir", str(state)]) == 0
    text = capsys.readouterr().out
    listed = [
        re.sub(r"\d\d:\d\d:\d\d(\.\d+)?Z( unsynced)?", "T", line.strip())
        for line in text.splitlines()
        if re.search(r"seq (\d+)", line) and "HAND" not in line
    ]
    assert listed == [
        "T  seq 5  seat 5 call 100",
        "play stopped (door open) at seq 6, T",
        "play goes on at seq 7, T",
        "T  seq 8  seat 1 call 100",
        "device: tray lost at seq 9, T",
        "clock called: seat 3 at seq 10, T",
        "clock warning: seat 3 at seq 11, T",
        "clock expired: seat 3 (fold) at seq 12, T",
        "T  seq 12  seat 3 fold",
        "device: tray back at seq 13, T",
    ], text


TOURNAMENT_CONFIG = """\
table: {id: TT, seats: 9}
game: {big_blind: 10, smallest_chip: 5}
tournament:
  starting_stack: 1000
  single_table: true
  levels:
    - {minutes: 1, small_blind: 5, big_blind: 10, smallest_chip: 5}
    - {minutes: 1, small_blind: 10, big_blind: 20, smallest_chip: 5}
"""
TOURNAMENT_HANDS = [
    {"type": "sit", "seat": 1, "player": "ana", "chips": 3000},
    {"type": "sit", "seat": 4, "player": "bob", "chips": 100},
    {"type": "sit", "seat": 7, "player": "cy", "chips": 1000},
    {"type": "tournament", "action": "start", "by": "S1"},
    {"type": "start_hand"},
    {"type": "tick", "ms": 61000},  # level 2 during hand 1
    {"type": "act", "seat": 7, "action": "fold"},
    {"type": "act", "seat": 1, "action": "call"},
    {"type": "act", "seat": 4, "action": "all_in"},
    {"type": "act", "seat": 1, "action": "call"},
    {"type": "award", "ranking": [[1], [4]]},
]


def test_recall_lists_a_tournaments_level_changes_and_players_out(
    tmp_path: Path, capsys: object
) -> None:
    """T1, T4: the level clock's changes and the players out are listed with the hand
    they happened in, where they happened."""
    config = tmp_path / "table.yaml"
    config.write_text(TOURNAMENT_CONFIG)
    state = tmp_path / "state"
    lines = [json.dumps(event) for event in TOURNAMENT_HANDS]
    assert durable_replay(load_config(config), str(state), lines, io.StringIO()) == 0
    with Journal.open_readonly(state) as journal:
        (before, hand) = recall(journal)
    assert [(e["kind"], e["seq"]) for e in before.tournament] == [("level", 4)]
    assert [{k: v for k, v in e.items() if k not in ("time", "by")} for e in hand.tournament] == [
        {
            "kind": "level",
            "level": 2,
            "small_blind": 10,
            "big_blind": 20,
            "ante": 0,
            "break": False,
            "paused": False,
            "why": "clock",
            "seq": 6,
        },
        {
            "kind": "elimination",
            "hand": 1,
            "seat": 4,
            "player": "bob",
            "stack_at_start": 100,
            "place": 3,
            "seq": 11,
        },
    ]
    assert main(["recall", "--state-dir", str(state)]) == 0
    text = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "  tournament started: level 1 (5/10 ante 0) from the next hand (by S1) at seq 4" in text
    assert "  level up: level 2 (10/20 ante 0) from the next hand at seq 6" in text
    assert "  out: bob (seat 4), began the hand with 100, place 3 at seq 11" in text


@pytest.mark.slow  # hands played, pruned and recalled: out of the edit loop
def test_recall_of_a_journal_whose_first_snapshot_was_pruned_lists_the_early_hands_raw(
    tmp_path: Path,
) -> None:
    """A journal pruned without keeping its first snapshot (by 0.3.0, or a prune not
    told which to keep) keeps its first events but not the snapshot that says under
    which rules they were recorded: recall rebuilds from the earliest snapshot kept and
    lists the hands before it from their raw events, instead of failing on seq 1."""
    state = journal_with_hands(tmp_path, 300)
    with Journal.open(state, (tmp_path / "table.yaml").read_text()) as journal:
        before = recall(journal, 40)
        report = journal.prune(200)
        assert report.removed_snapshots > 0 and report.removed_events == 0
        first_kept = journal.connection.execute("SELECT MIN(seq) FROM snapshots").fetchone()[0]
        after = recall(journal, 40)
    assert first_kept > 1 and before[0].hand == 1
    # the seating before hand 1 comes too, as its raw events (hand 0)
    assert [h.hand for h in after] == [0] + [h.hand for h in before]
    raw = [h for h in after if not h.rebuilt]
    assert raw and all(h.first_seq <= first_kept for h in raw)
    rebuilt = [h.as_dict() for h in after if h.rebuilt]
    assert rebuilt == [h.as_dict() for h in before if h.hand > raw[-1].hand]
