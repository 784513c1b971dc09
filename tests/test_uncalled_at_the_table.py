"""Issue 12, defect 5 (guard) at the table: after an uncalled all-in bet comes back,
the daemon's state and the seat lights show the bettor as a playing seat, not all in,
also after a restart folds the journal again.

The daemon runs in-process with simulated devices (as in ``tests/test_at_the_table.py``):
the keys go in on the keypad's pty, the lights are read on their mock pins' patterns.
"""

from __future__ import annotations

from pathlib import Path

from controller.daemon.service import Daemon
from drivers.interfaces import Pattern
from tests.daemon_helpers import running, view, wait_for
from tests.test_at_the_table import key_in, table_config, wait_pattern


def sit(daemon: Daemon, seat: int, player: str, chips: int) -> None:
    outcome = daemon.submit({"type": "sit", "seat": seat, "player": player, "chips": chips})
    assert outcome.ok, outcome


def seats(daemon: Daemon) -> dict[str, tuple[int, str]]:
    return {n: (s["stack"], s["status"]) for n, s in view(daemon)["seats"].items()}


def test_the_bettor_whose_all_in_comes_back_shows_playing_on_the_lights(
    tmp_path: Path,
) -> None:
    config = table_config(tmp_path)
    with running(config) as daemon:
        sit(daemon, 2, "ana", 1000)
        sit(daemon, 5, "luis", 300)
        sit(daemon, 8, "marta", 1000)
        key_in(daemon, "NEXT ALLIN")  # marta (the button, first to act) all in: 1000
        wait_for(lambda: view(daemon)["to_act"] == 2)
        wait_pattern(daemon, 8, Pattern.PULSE)
        assert seats(daemon)["8"] == (0, "all_in")
        key_in(daemon, "FOLD CHECK")  # ana folds; luis calls all in for 300
        wait_for(lambda: view(daemon)["phase"] == "showdown")
        # 700 of marta's 1000 came back: she plays on with them, luis is all in
        assert seats(daemon) == {"2": (995, "folded"), "5": (0, "all_in"), "8": (700, "playing")}
        wait_pattern(daemon, 5, Pattern.PULSE)
        wait_pattern(daemon, 8, Pattern.OFF)
    # a restart folds the journal again: the same seats, the same lights
    with running(config) as daemon:
        wait_for(lambda: view(daemon)["phase"] == "showdown")
        assert seats(daemon) == {"2": (995, "folded"), "5": (0, "all_in"), "8": (700, "playing")}
        wait_pattern(daemon, 5, Pattern.PULSE)
        wait_pattern(daemon, 8, Pattern.OFF)
        key_in(daemon, "5 ENTER ENTER")  # luis wins the 605
        wait_for(lambda: view(daemon)["phase"] == "idle")
        assert seats(daemon) == {
            "2": (995, "playing"),
            "5": (605, "playing"),
            "8": (700, "playing"),
        }
