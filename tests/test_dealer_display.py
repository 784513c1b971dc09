"""The dealer display device, through the daemon with every device simulated (issue 11):
the payouts and the pots page on the 2x40 display with NEXT, keyed on the simulated
keypad and read off the simulated display's serial frames."""

from __future__ import annotations

from pathlib import Path

from drivers.interfaces import Pattern
from tests.daemon_helpers import lit, running, seat_players, view, wait_for
from tests.test_at_the_table import (
    FAST_MS,
    assert_blinks,
    key_in,
    pattern,
    sim,
    table_config,
    text_lines,
    wait_pattern,
    wait_shown,
    wait_steady,
)


def test_side_pots_and_payouts_page_on_the_display_device(tmp_path: Path) -> None:
    with running(table_config(tmp_path)) as daemon:
        for seat, name, chips in ((2, "ana", 100), (5, "luis", 300), (8, "marta", 1000)):
            assert daemon.submit({"type": "sit", "seat": seat, "player": name, "chips": chips}).ok
        key_in(daemon, "NEXT ALLIN ALLIN ALLIN")  # 8, 2, 5 all in: a side pot
        wait_for(lambda: view(daemon)["phase"] == "showdown")
        wait_shown(daemon, line1="SHOWDOWN: WINNING SEAT, ENTER", line2="SHOW: 8 2 5  NEXT: POTS")
        key_in(daemon, "NEXT")
        wait_shown(daemon, line1="MAIN POT 300 (1/2)", line2="SEATS 2 5 8")
        key_in(daemon, "NEXT")
        wait_shown(daemon, line1="SIDE POT 1 400 (2/2)", line2="SEATS 5 8")
        key_in(daemon, "2 ENTER ENTER 5 ENTER ENTER")
        wait_shown(daemon, line1="PAY SEAT 2: 300", line2="MAIN POT 1/2  NEXT: MORE")
        key_in(daemon, "NEXT")
        wait_shown(daemon, line1="PAY SEAT 5: 400", line2="SIDE POT 1 2/2  NEXT: DEAL")
        assert view(daemon)["hand"] == 1
        key_in(daemon, "NEXT")
        wait_for(lambda: view(daemon)["hand"] == 2)
        for line in [line for lines in text_lines(daemon) for line in lines]:
            assert len(line) <= 40 and "RANKING" not in line


# -- the seat lights during a device fault (item 6) ----------------------------------------


def test_keypad_lost_every_seat_blinks_fast_tray_lost_the_lights_show_the_game(
    tmp_path: Path,
) -> None:
    """The card: every seat blinking fast is a fault that stops play (call a technician):
    the keypad or the display lost. A lost tray or puck sensor does not stop the game:
    the lights go on showing it. Read off the MockFactory pins, not the driver's word."""
    with running(table_config(tmp_path)) as daemon:
        sim_devices = sim(daemon)
        assert sim_devices.keypad is not None and sim_devices.tray is not None
        seat_players(daemon, {2: "ana", 5: "luis", 8: "marta"})
        key_in(daemon, "NEXT")
        wait_steady(daemon, 8, 1.0)  # seat 8 to act
        sim_devices.keypad.unplug()
        for seat in range(1, 10):  # the empty seats too: nobody plays on
            wait_pattern(daemon, seat, Pattern.FAST_BLINK)
        assert_blinks(daemon, 3, FAST_MS)
        assert_blinks(daemon, 8, FAST_MS)
        sim_devices.keypad.replug()
        wait_steady(daemon, 8, 1.0)
        wait_steady(daemon, 3, 0.0)
        sim_devices.tray.unplug()
        wait_for(
            lambda: (
                "tray"
                in (
                    daemon.controller.last_shown.device_faults  # type: ignore[union-attr]
                    or {}
                )
            ),
            what="the tray fault",
        )
        assert pattern(daemon, 8) is Pattern.ON and lit(daemon, 8) == 1.0
        assert pattern(daemon, 3) is Pattern.OFF
        sim_devices.tray.replug()
