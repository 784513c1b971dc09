"""Faults by who must act (controller/faults.py): a full disk is a storage fault, a bug
a software fault, damage to the journal a memory fault; each is shown, refused with and
logged as what it is, never one as another."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from controller.daemon.outputs import FAULT_LINE
from controller.faults import Fault, SoftwareFault
from controller.journal import (
    Journal,
    JournalCorrupt,
    JournalIntegrityError,
    LogKind,
    StorageFault,
    StorageFull,
)
from tests.daemon_helpers import running, seat_players, shown, wait_for, write_config
from tests.test_journal_storage import fill_up, small_fs, with_events  # noqa: F401 (a fixture)


def test_each_sticky_fault_is_its_own_kind(tmp_path: Path) -> None:
    storage = StorageFull(tmp_path, "recording an event", 0)
    software = SoftwareFault("TypeError: boom")
    memory = JournalCorrupt("file is not a database")
    assert not isinstance(storage, JournalIntegrityError)
    assert not isinstance(software, JournalIntegrityError)
    assert all(isinstance(fault, Fault) for fault in (storage, software, memory))
    assert storage.lock_error() == {
        "code": "storage_fault",
        "message": "STORAGE FAULT: CALL TECHNICIAN",
    }
    assert software.lock_error() == {
        "code": "software_fault",
        "message": "SOFTWARE FAULT: CALL TECHNICIAN",
    }
    assert memory.lock_error() == {"code": "memory_fault", "message": FAULT_LINE}
    assert "MEMORY" not in storage.display + software.display


def test_a_full_disk_is_a_storage_fault_not_a_memory_fault(
    small_fs: Path,  # noqa: F811 (the fixture)
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A real filesystem that fills up under the running daemon (a size-limited tmpfs)."""
    config = write_config(small_fs)
    with running(config) as daemon, caplog.at_level(logging.ERROR, "table-controller"):
        seat_players(daemon, {2: "ana", 5: "luis"})
        fill_up(small_fs)
        outcomes = [
            daemon.submit({"type": "sit", "seat": 1 + n % 9, "player": f"p{n}", "chips": 100})
            for n in range(200)
        ]
        failed = next(o for o in outcomes if o.seq is None)
        assert failed.error == {
            "code": "storage_fault",
            "message": "STORAGE FAULT: CALL TECHNICIAN",
        }
        wait_for(lambda: shown(daemon).line1 == "STORAGE FAULT: CALL TECHNICIAN")
        assert shown(daemon).line2 == "STORAGE FULL"
        again = daemon.submit({"type": "state"})
        assert again.seq is None and again.error is not None
        assert again.error["code"] == "storage_fault"
        assert daemon.controller is not None
        assert isinstance(daemon.controller.fault, StorageFault)
        assert "salvage cannot help" in daemon.controller.fault.message
        (small_fs / "filler").unlink()  # room again for the journal to be read
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert any(
        line.startswith(
            "STORAGE FAULT storage_full: recording an event failed: the filesystem is full"
        )
        for line in logged
    ), logged
    assert not any("MEMORY" in line for line in logged), logged
    with Journal.open_readonly(small_fs / "state") as journal:
        failed_checks = [
            e for e in journal.iter_system_log(kinds=[LogKind.INTEGRITY]) if not e.detail.get("ok")
        ]
    assert failed_checks == []


def test_a_daemon_started_on_a_full_disk_locks_with_a_storage_fault(
    small_fs: Path,  # noqa: F811 (the fixture)
) -> None:
    config = write_config(small_fs)
    with_events(small_fs / "state")
    fill_up(small_fs)
    with running(config) as daemon:
        assert isinstance(daemon.controller.fault, StorageFault)  # type: ignore[union-attr]
        wait_for(lambda: shown(daemon).line1 == "STORAGE FAULT: CALL TECHNICIAN")
        refused = daemon.submit({"type": "state"})
        assert refused.error == {
            "code": "storage_fault",
            "message": "STORAGE FAULT: CALL TECHNICIAN",
        }


def test_a_bug_is_a_software_fault_not_a_memory_fault(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon, caplog.at_level(logging.ERROR, "table-controller"):
        seat_players(daemon, {2: "ana", 5: "luis"})
        daemon.inputs.put("not a device event")  # the loop meets something it cannot handle
        wait_for(lambda: shown(daemon).line1 == "SOFTWARE FAULT: CALL TECHNICIAN")
        assert shown(daemon).line2 == "SOFTWARE FAULT"
        refused = daemon.submit({"type": "start_hand"})
        assert refused.seq is None
        assert refused.error == {
            "code": "software_fault",
            "message": "SOFTWARE FAULT: CALL TECHNICIAN",
        }
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert any(line.startswith("SOFTWARE FAULT software_fault: TypeError") for line in logged)
    assert not any("MEMORY" in line for line in logged), logged
    with Journal.open_readonly(tmp_path / "state") as journal:
        entries = list(journal.iter_system_log(kinds=[LogKind.FAULT]))
        failed_checks = [
            e for e in journal.iter_system_log(kinds=[LogKind.INTEGRITY]) if not e.detail.get("ok")
        ]
    assert [e.detail["code"] for e in entries] == ["software_fault"]
    assert failed_checks == []
