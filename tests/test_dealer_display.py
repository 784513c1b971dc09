"""The dealer display device, through the daemon with every device simulated (issue 11):
the payouts and the pots page on the 2x40 display with NEXT, keyed on the simulated
keypad and read off the simulated display's serial frames."""

from __future__ import annotations

from pathlib import Path

from tests.daemon_helpers import running, view, wait_for
from tests.test_at_the_table import key_in, table_config, text_lines, wait_shown


def test_side_pots_and_payouts_page_on_the_display_device(tmp_path: Path) -> None:
    with running(table_config(tmp_path)) as daemon:
        for seat, name, chips in ((2, "ana", 100), (5, "luis", 300), (8, "marta", 1000)):
            assert daemon.submit({"type": "sit", "seat": seat, "player": name,
                                  "chips": chips}).ok
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
