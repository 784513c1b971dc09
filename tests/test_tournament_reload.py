"""A configuration that turns a table with players seated from cash games into a
tournament table, or back: their chips would change what they are (money into tournament
chips, or tournament chips into money, the meters hiding or showing the shift's money).
The daemon refuses the reload (the running configuration stays, play goes on) or the
start, naming the players; a change of the tournament's own levels is taken as any."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import load_config
from controller.daemon import reconfig
from controller.daemon.service import Daemon, StartError
from tests.daemon_helpers import (
    RecordingNotifier,
    running,
    seat_players,
    view,
    wait_for,
    write_config,
)

PLAYERS = {2: "ana", 5: "luis"}
TOURNAMENT = """\
tournament:
  starting_stack: 1000
  levels:
    - {minutes: 10, small_blind: 5, big_blind: 10, ante: 10, smallest_chip: 5}
"""


def as_tournament(config: Path) -> str:
    """The same table as a tournament table (dead button, the big blind's ante)."""
    text = config.read_text().replace("game: {", "game: {button: dead, ante_form: big_blind, ")
    return text + TOURNAMENT


def reload_refused(daemon: Daemon) -> list[str]:
    """SIGHUP, once the loop has handled it: the problems of the refused changes (system
    log ``config_refused``); nothing held to be taken later."""
    daemon.reload()  # what SIGHUP does
    daemon.submit({"type": "state"})  # the loop has handled the reload
    assert daemon.controller is not None and daemon.controller.pending_config is None
    assert daemon.journal is not None
    return [
        entry.detail["problem"]
        for entry in daemon.journal.iter_system_log(kinds=("config_refused",))
    ]


def test_a_reload_adding_a_tournament_at_a_cash_table_with_players_is_refused(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        config.write_text(as_tournament(config))
        assert reload_refused(daemon) == [
            f"a tournament: section is added in {config}, but seat 2 (ana), seat 5 (luis) "
            "play cash games at this table with money: have those players leave first "
            "(a table becomes a tournament table empty)"
        ]
        assert view(daemon)["tournament"] is None
        assert view(daemon)["meters"]["buy_ins"] == 2000
        assert daemon.submit({"type": "start_hand"}).ok  # play goes on


def test_a_start_without_the_tournament_of_its_players_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    cash = config.read_text()
    config.write_text(as_tournament(config))
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        assert daemon.submit({"type": "leave", "seat": 2}).ok
    config.write_text(cash)
    daemon = Daemon(
        load_config(config), config_path=str(config), simulated=True, notifier=RecordingNotifier()
    )
    with pytest.raises(StartError) as refused:
        daemon.start()
    assert str(refused.value) == (
        f"the configuration cannot be taken: the tournament: section is gone from {config}, "
        "but seat 5 (luis) plays the tournament at this table with its chips: have that "
        "player leave first (a table becomes a cash table empty)"
    )


@pytest.mark.slow  # three daemon starts (about 1 s)
def test_a_tournament_table_emptied_becomes_a_cash_table_and_levels_change_with_players(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path)
    cash = config.read_text()
    config.write_text(as_tournament(config))
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
    config.write_text(config.read_text().replace("ante: 10,", "ante: 5,"))
    with running(config) as daemon:  # the levels changed: players stay
        assert view(daemon)["tournament"]["ante"] == 5
        for seat in PLAYERS:
            assert daemon.submit({"type": "leave", "seat": seat}).ok
    config.write_text(cash)
    with running(config) as daemon:
        assert view(daemon)["tournament"] is None


@pytest.mark.slow  # waits for the changed file to hold still (0.5 s)
def test_a_reload_without_the_level_in_force_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Levels cut below the level the tournament is at: the table would say level 3 and
    play the last level left's stakes, refusing to set the level it says it is at."""
    monkeypatch.setattr(reconfig, "CONFIG_SETTLE_NS", 500_000_000)
    config = write_config(tmp_path)
    three = as_tournament(config) + (
        "    - {minutes: 10, small_blind: 10, big_blind: 20, ante: 20, smallest_chip: 5}\n"
        "    - {minutes: 10, small_blind: 25, big_blind: 50, ante: 50, smallest_chip: 25}\n"
    )
    config.write_text(three)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        assert daemon.submit({"type": "tournament", "action": "start", "level": 3}).ok
        config.write_text(three[: three.index("    - {minutes: 10, small_blind: 10")])
        assert reload_refused(daemon) == [
            f"tournament.levels in {config} has 1 level, but the tournament is at level 3: "
            "keep its levels through level 3 (change the levels to come, not those played), "
            "or have a supervisor set level 1 or lower first"
        ]
        tournament = view(daemon)["tournament"]
        assert (tournament["level"], tournament["small_blind"]) == (3, 25)
        # as the message says: a supervisor sets level 1, and the same file is taken
        assert daemon.submit({"type": "tournament", "action": "level", "level": 1}).ok
        daemon.reload()
        wait_for(lambda: len(daemon.journal.configs()) == 2, what="the shorter levels taken")  # type: ignore[union-attr]
        assert view(daemon)["tournament"]["level"] == 1
