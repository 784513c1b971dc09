"""The journal's prune (every 25 hands) runs off the key's path: the key that ends the
25th hand is recorded and shown (lights, display) first; the prune follows once the
loop is idle, between hands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.daemon.reconfig import PRUNE_EVERY_HANDS
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
