"""Reducing `table.seats` below an occupied seat (issue 13 item 13): check-config cannot
know who sits where, so the daemon refuses the reload (the running configuration stays,
play goes on) or the start, with a message naming the seats and what to do."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from controller.config import load_config
from controller.daemon.service import Daemon, StartError
from tests.daemon_helpers import (
    RecordingNotifier,
    running,
    seat_players,
    view,
    wait_for,
    write_config,
)

PLAYERS = {2: "ana", 5: "luis", 8: "marta"}


def six_seats(config: Path) -> None:
    """The same table with six seats (and lights for six)."""
    text = config.read_text().replace("seats: 9", "seats: 6")
    config.write_text(text.replace(", 7: 22, 8: 23, 9: 24", ""))


@pytest.mark.slow  # waits out the 2 s a changed file must hold still
def test_a_reload_that_would_strand_a_player_is_refused_and_play_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        six_seats(config)
        daemon.reload()  # what SIGHUP does
        daemon.submit({"type": "state"})  # the loop has handled the reload
        assert "NOT taken" in caplog.text
        assert "seat 8 (marta) is occupied" in caplog.text
        assert "keep table.seats at 8 or more" in caplog.text
        assert daemon.journal is not None and len(daemon.journal.configs()) == 1
        refused = list(daemon.journal.iter_system_log(kinds=("config_refused",)))
        assert len(refused) == 1 and "seat 8 (marta)" in refused[0].detail["problem"]
        assert daemon.controller is not None and daemon.controller.fault is None
        assert daemon.controller.recorder is not None
        assert daemon.controller.recorder.table.settings.seats == 9
        assert daemon.submit({"type": "start_hand"}).ok  # play goes on, seat 8 dealt in
        assert set(view(daemon)["seats"]) == {"2", "5", "8"}
        assert daemon.submit({"type": "misdeal"}).ok
        # marta leaves: the same file is taken
        assert daemon.submit({"type": "leave", "seat": 8}).ok
        daemon.reload()  # taken once the file has read the same for a while
        wait_for(lambda: len(daemon.journal.configs()) == 2)  # type: ignore[union-attr]
        assert daemon.controller.recorder.table.settings.seats == 6


def test_a_start_that_would_strand_players_is_refused_naming_the_seats(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, {**PLAYERS, 7: "eva"})
    six_seats(config)
    daemon = Daemon(
        load_config(config), config_path=str(config), simulated=True, notifier=RecordingNotifier()
    )
    with pytest.raises(StartError) as refused:
        daemon.start()
    message = str(refused.value)
    assert "seat 7 (eva), seat 8 (marta) are occupied" in message
    assert "table.seats is 6" in message and "keep table.seats at 8 or more" in message
    # the players are still there with the old file
    config.write_text(config.read_text().replace("seats: 6", "seats: 9"))
    with running(config) as again:
        assert set(view(again)["seats"]) == {"2", "5", "7", "8"}
