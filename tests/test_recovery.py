"""Start-up checks: each kind of journal damage is found and becomes the right sticky
fault (display, lights, ``tablectl state``), never silently accepted; the technician's
salvage is the way out. A different configuration is recorded, not ignored."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from controller.cli import main
from controller.daemon.outputs import FAULT_LINE
from controller.journal import Journal
from tests.daemon_helpers import (
    running,
    seat_players,
    shown,
    tear_the_tail,
    view,
    wait_for,
    write_config,
)

PLAYERS = {2: "ana", 5: "luis", 8: "marta"}


def played(tmp_path: Path, *, snapshot_every: int = 5) -> Path:
    """A journal with three players seated and a hand in progress; returns the config."""
    config = write_config(tmp_path, snapshot_every=snapshot_every)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        assert daemon.submit({"type": "start_hand"}).ok
        assert daemon.submit({"type": "act", "seat": 8, "action": "call"}).ok
    return config


def assert_locked(
    config: Path, code: str | tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    codes = (code,) if isinstance(code, str) else code
    with running(config) as daemon:
        controller = daemon.controller
        assert controller is not None and controller.fault is not None
        assert controller.fault.code in codes, controller.fault.message
        wait_for(lambda: shown(daemon).line1 == FAULT_LINE, what="fault on the display")
        lights = daemon.devices.lights  # type: ignore[union-attr]
        assert {lights.pattern(seat).value for seat in range(1, 10)} == {"fast_blink"}
        outcome = daemon.submit({"type": "act", "seat": 2, "action": "fold"})
        assert outcome.error == {"code": "memory_fault", "message": "MEMORY FAULT: CALL TECHNICIAN"}
        assert any("READY" in sent for sent in daemon.notifier.sent)  # type: ignore[attr-defined]
    capsys.readouterr()
    status = main(["state", "--state-dir", str(config.parent / "state")])
    line = json.loads(capsys.readouterr().out)
    assert status == 3 and line["fault"]["code"] in codes


def salvage_and_restart(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "salvage", "--state-dir", str(config.parent / "state")]) == 0
    assert "salvaged" in capsys.readouterr().out
    with running(config) as daemon:
        assert daemon.controller is not None and daemon.controller.fault is None
        assert "ana" in json.dumps(view(daemon)["seats"])
        assert daemon.submit({"type": "state"}).ok


def test_a_torn_tail_is_a_memory_fault(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path)
    tear_the_tail(config, tmp_path)
    assert_locked(config, "torn_tail", capsys)
    salvage_and_restart(config, capsys)


def test_a_flipped_byte_is_a_memory_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = played(tmp_path)
    db = tmp_path / "state" / "journal.sqlite3"
    data = bytearray(db.read_bytes())
    where = data.find(b'"player":"luis"')
    assert where > 0
    data[where + 11] ^= 0x01  # "luis" -> "mois"-like: one bit in the middle of the file
    db.write_bytes(bytes(data))
    assert_locked(config, ("chain_broken", "journal_corrupt"), capsys)
    salvage_and_restart(config, capsys)


def test_a_deleted_snapshot_is_a_memory_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = played(tmp_path, snapshot_every=3)
    db = tmp_path / "state" / "journal.sqlite3"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0] > 0
        conn.execute("DELETE FROM snapshots WHERE seq = (SELECT MAX(seq) FROM snapshots)")
    assert_locked(config, "snapshot_missing", capsys)


def test_a_different_configuration_is_recorded_between_hands(tmp_path: Path) -> None:
    config = played(tmp_path)
    write_config(tmp_path, big_blind=20, snapshot_every=5)
    with running(config) as daemon:
        controller = daemon.controller
        assert controller is not None and controller.fault is None
        assert controller.pending_config is not None  # a hand is in progress: held
        assert daemon.journal is not None and len(daemon.journal.configs()) == 1
        for _ in range(2):
            if view(daemon)["phase"] != "idle":
                assert daemon.submit(
                    {"type": "act", "seat": view(daemon)["to_act"], "action": "fold"}
                ).ok
        wait_for(lambda: len(daemon.journal.configs()) == 2)  # type: ignore[union-attr]
    with Journal.open_readonly(tmp_path / "state") as journal:
        kinds = [entry.kind for entry in journal.iter_system_log()]
        assert "config_change" in kinds
        assert journal.configs()[-1].sha256 != journal.configs()[0].sha256


def test_recovery_replays_refusals_as_audit_records_only(tmp_path: Path) -> None:
    config = write_config(tmp_path, snapshot_every=1000)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        assert not daemon.submit({"type": "sit", "seat": 2, "player": "x", "chips": 5}).ok
        assert daemon.submit({"type": "start_hand"}).ok
        before = view(daemon)
    with running(config) as again:
        assert view(again) == before
