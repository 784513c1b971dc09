"""Issue 13 item 3 through the daemon: a table never plays another table's journal."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from controller.daemon.outputs import FAULT_LINE
from controller.journal import Journal
from tests.daemon_helpers import running, seat_players, shown, wait_for, write_config

PLAYERS = {2: "ana", 5: "luis", 8: "marta"}


def renamed(config: Path, table: str) -> None:
    config.write_text(re.sub(r"id: \w+,", f"id: {table},", config.read_text(), count=1))


def test_a_table_started_on_another_tables_state_directory_is_locked(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    renamed(config, "TB")
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
    db = tmp_path / "state" / "journal.sqlite3"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    renamed(config, "TA")
    with running(config) as daemon:
        wait_for(lambda: shown(daemon).line1 == FAULT_LINE)
        controller = daemon.controller
        assert controller is not None and controller.fault is not None
        assert controller.fault.code == "journal_foreign"
        assert "table TB" in controller.fault.message and "table TA" in controller.fault.message
        outcome = daemon.submit({"type": "sit", "seat": 1, "player": "x", "chips": 100})
        assert not outcome.ok and outcome.seq is None
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # TB's journal untouched


def test_a_reload_naming_another_table_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        renamed(config, "T9")
        daemon.reload()
        seat_players(daemon, {1: "zoe"})
        assert daemon.journal is not None and len(daemon.journal.configs()) == 1
    with Journal.open_readonly(tmp_path / "state") as journal:
        assert journal.table_id == "T1"
