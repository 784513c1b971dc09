"""A journal recorded by the release before issue 31, read by this one.

An upgrade finds a journal whose last events came after its last snapshot (one every
``journal.snapshot_every`` events, none at a clean stop): recovery folds them again.
Issue 31 changed what some of them do (a tip's bust, the big-tip confirmation, an undo
after a leave, the witness PIN, the tip shortcut), so they are folded as the release
that recorded them played them, and this release's rules take over from the first
event it records (with a snapshot). ``tests/data/earlier_release_journals.json`` holds
journals recorded by main at 0ceec39 with ``tablectl replay --state-dir`` (each event
row as recorded: the event, accepted or refused, by whom, its hand) and that release's
state at their end; the journals are written again here row for row.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from controller.config import load_config
from controller.daemon.recall import recall
from controller.daemon.recovery import RulesBook, fold
from controller.durable import durable_replay
from controller.journal import Journal
from controller.rules import state_view

DATA = json.loads((Path(__file__).parent / "data" / "earlier_release_journals.json").read_text())
COMPARED = ("hand", "phase", "button", "to_act", "pot_total", "seats")


def recorded(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """The journal ``name`` as the earlier release recorded it, and its configuration."""
    config = tmp_path / "table.yaml"
    text = DATA["config"].replace("./state", str(tmp_path / "state"))
    config.write_text(text)
    journal = Journal.open(tmp_path / "state", text, table_id="BENCH")
    with journal:
        for hand, event, accepted, code, message, by in DATA["journals"][name]["records"]:
            result = None if accepted else {"code": code, "message": message}
            journal.append(event, accepted=accepted, by=by, hand=hand, result=result)
    return tmp_path / "state", config


def view_of(state_dir: Path) -> dict[str, Any]:
    journal = Journal.open_readonly(state_dir)
    with journal:
        folded = fold(journal, RulesBook(journal))
    view = state_view(folded.table)
    return {key: view[key] for key in COMPARED}


def earlier(name: str) -> dict[str, Any]:
    return {key: DATA["journals"][name]["state"][key] for key in COMPARED}


@pytest.mark.parametrize("name", sorted(DATA["journals"]))
def test_a_journal_of_the_earlier_release_folds_as_it_played(tmp_path: Path, name: str) -> None:
    state_dir, _ = recorded(tmp_path, name)
    assert view_of(state_dir) == earlier(name)
    shift = DATA["journals"][name]["state"]["shift"]
    journal = Journal.open_readonly(state_dir)
    with journal:
        view = state_view(fold(journal, RulesBook(journal)).table)
    assert (view["shift"]["number"], view["shift"]["open"]) == (shift["number"], shift["open"])


def replayed(config: Path, state_dir: Path, lines: list[str]) -> list[dict[str, Any]]:
    out = io.StringIO()
    assert durable_replay(load_config(config), str(state_dir), lines, out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_this_release_takes_over_at_the_first_event_it_records(tmp_path: Path) -> None:
    """After the heads-up journal (a tip bust stopped play there), this release plays
    on: its first event carries a snapshot, and from there a tip that busts a player
    stops nothing (issue 31 item 4), live and folded again alike."""
    state_dir, config = recorded(tmp_path, "A")
    last = len(DATA["journals"]["A"]["records"])
    lines = [
        '{"type": "act", "seat": 1, "action": "fold"}',  # seat 2 wins 20: 1000
        '{"type": "tip", "seat": 2, "amount": 1000}',  # busts bob: play goes on
        '{"type": "chips", "seat": 2, "amount": 500}',
        '{"type": "start_hand"}',
        '{"type": "state"}',
    ]
    out = replayed(config, state_dir, lines)
    assert [line["ok"] for line in out] == [True] * 5
    journal = Journal.open_readonly(state_dir)
    with journal:
        assert journal.latest_snapshot() is not None
        assert journal.latest_snapshot()[0] == last + 1  # type: ignore[index]
    # the game went on: the button moved on to seat 1 (a new game would keep it at 2)
    live = out[-1]["state"]
    assert (live["hand"], live["button"], live["to_act"]) == (3, 1, 1)
    assert {k: live[k] for k in COMPARED} == view_of(state_dir)


def test_a_fold_from_before_this_releases_first_event_takes_its_rules_from_there(
    tmp_path: Path,
) -> None:
    """Recall folds from an earlier snapshot, or from the journal's start: from this
    release's first event on (the one with the snapshot that says so) the events are
    folded under its rules, in a journal it began (a big tip confirmed) as in one it
    took over."""
    config = tmp_path / "table.yaml"
    config.write_text(DATA["config"].replace("./state", str(tmp_path / "state")))
    key = '{{"type": "key", "key": "{}"}}'.format
    lines = [
        '{"type": "sit", "seat": 1, "player": "ana", "chips": 1000}',
        '{"type": "sit", "seat": 2, "player": "bob", "chips": 1000}',
        '{"type": "start_hand"}',
        '{"type": "act", "seat": 2, "action": "fold"}',  # ana: 1005
        # a tip of 510, asked and confirmed
        *(key(k) for k in ("FUNC", "7", "1", "ENTER", "5", "1", "0", "ENTER", "ENTER")),
        '{"type": "state"}',
    ]
    out = replayed(config, tmp_path / "state", lines)
    assert out[-1]["state"]["seats"]["1"]["stack"] == 495
    journal = Journal.open_readonly(tmp_path / "state")
    with journal:
        folded = fold(journal, RulesBook(journal), snapshot=None)  # from the start
        hands = recall(journal)
    assert state_view(folded.table)["seats"] == out[-1]["state"]["seats"]
    assert [hand.hand for hand in hands] == [1]
