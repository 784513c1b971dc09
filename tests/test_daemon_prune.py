"""The journal's prune (every 25 hands) runs off the key's path: the key that ends the
25th hand is recorded and shown (lights, display) first; the prune follows once the
loop is idle, between hands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.daemon.recall import recall
from controller.daemon.reconfig import PRUNE_EVERY_HANDS
from controller.daemon.recovery import fold
from controller.journal import Journal, PruneReport
from controller.rules import state_view
from tests.daemon_helpers import running, seat_players, view, wait_for, write_config


def test_the_prune_waits_until_the_hand_ending_key_is_shown(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        journal, controller = daemon.journal, daemon.controller
        assert journal is not None and controller is not None
        seen: list[dict[str, Any]] = []
        prune = journal.prune

        def watched(*args: Any, **kwargs: Any) -> Any:
            shown = controller.last_shown
            seen.append(
                {"shown": None if shown is None else dict(shown.view or {}), "state": view(daemon)}
            )
            return prune(*args, **kwargs)

        journal.prune = watched  # type: ignore[method-assign]
        seat_players(daemon, {2: "ana", 5: "luis"})
        for _ in range(PRUNE_EVERY_HANDS):
            assert daemon.submit({"type": "start_hand"}).ok
            assert daemon.submit(
                {"type": "act", "seat": view(daemon)["to_act"], "action": "fold"}
            ).ok
        wait_for(lambda: bool(seen), what="the prune")
    shown, state = seen[0]["shown"], seen[0]["state"]
    assert state["phase"] == "idle" and state["hand"] == PRUNE_EVERY_HANDS
    # What the lights and display were driven from when the prune began: the ended hand.
    assert shown is not None and (shown["hand"], shown["phase"]) == (state["hand"], "idle")


def test_a_dealer_who_never_pauses_still_gets_the_journal_pruned(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        journal = daemon.journal
        assert journal is not None
        calls: list[dict[str, Any]] = []
        prune = journal.prune

        def counted(*args: Any, **kwargs: Any) -> Any:
            calls.append(view(daemon))
            return prune(*args, **kwargs)

        journal.prune = counted  # type: ignore[method-assign]
        seat_players(daemon, {2: "ana", 5: "luis"})
        hands = 0
        while not calls and hands < 3 * PRUNE_EVERY_HANDS:
            # The next hand starts at once: the loop is never idle for long.
            assert daemon.submit({"type": "start_hand"}).ok
            assert daemon.submit(
                {"type": "act", "seat": view(daemon)["to_act"], "action": "fold"}
            ).ok
            hands += 1
    assert calls, "never pruned"
    assert PRUNE_EVERY_HANDS <= calls[0]["hand"] <= 2 * PRUNE_EVERY_HANDS
    assert calls[0]["phase"] == "idle"


@pytest.mark.slow  # a daemon plays 27 hands and prunes: out of the edit loop
def test_after_the_daemons_prune_every_kept_hand_is_recalled_and_folded_from_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The prune drops the snapshots older than the one recall's last ten hands fold
    from, but keeps every event while fewer than ``keep_hands`` hands were played: a
    fold from the journal's start (recall of more than ten hands, or of hand 1; the
    casino day's own fold) still meets the first event's snapshot, which says under
    which rules the events were recorded. It keeps that snapshot (seen on the casino
    day, seed 11: `the snapshot at seq 1 cannot be read: it is missing`)."""
    config = write_config(tmp_path, snapshot_every=5)
    with running(config) as daemon:
        journal = daemon.journal
        assert journal is not None
        reports: list[PruneReport] = []
        prune = journal.prune

        def watched(*args: Any, **kwargs: Any) -> PruneReport:
            reports.append(prune(*args, **kwargs))
            return reports[-1]

        journal.prune = watched  # type: ignore[method-assign]
        seat_players(daemon, {2: "ana", 5: "luis"})
        for _ in range(PRUNE_EVERY_HANDS + 2):
            assert daemon.submit({"type": "start_hand"}).ok
            assert daemon.submit(
                {"type": "act", "seat": view(daemon)["to_act"], "action": "fold"}
            ).ok
        wait_for(lambda: bool(reports), what="the prune")
        played = view(daemon)["hand"]
    assert reports[0].removed_snapshots > 0 and reports[0].removed_events == 0
    state = tmp_path / "state"
    with Journal.open_readonly(state) as journal:
        assert journal.verify().ok
        hands = recall(journal, 40)
        from_start = fold(journal, snapshot=None)
        resumed = fold(journal)
    assert [hand.hand for hand in hands] == list(range(1, played + 1))
    assert all(hand.rebuilt for hand in hands)
    assert [hand.result for hand in hands] == ["ended"] * played
    assert state_view(from_start.table) == state_view(resumed.table)
    for number in (1, played):
        assert main(["recall", "--json", "--state-dir", str(state), "--hand", str(number)]) == 0
        shown = json.loads(capsys.readouterr().out)["hands"]
        assert [(hand["hand"], hand["rebuilt"]) for hand in shown] == [(number, True)]
