"""Issue 13 items 12 and 14: a full or read-only filesystem is a storage fault with the
right advice, never a corruption verdict, and a clean stop on a full disk is still
known as clean. On a real small filesystem: a tmpfs mounted with a size limit (root
only; skipped elsewhere)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.journal import (
    Journal,
    JournalCorrupt,
    LogKind,
    StorageFull,
    StorageReadOnly,
    WallClock,
)
from controller.journal.files import release_lock
from tests.cli import tablectl

CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"


def _mount(point: Path, size: str) -> bool:
    if os.geteuid() != 0:
        return False
    point.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    point = tmp_path / "fs"
    if not _mount(point, "2m"):
        pytest.skip("needs root to mount a size-limited tmpfs")
    try:
        yield point
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(point)], capture_output=True, check=False)
        subprocess.run(["umount", "-l", str(point)], capture_output=True, check=False)


def with_events(directory: Path, count: int = 100) -> None:
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        for n in range(1, count + 1):
            j.append(
                {"type": "sit", "seat": n % 9 + 1, "player": f"p{n}", "chips": 100},
                accepted=True,
                by="d",
            )


def fill_up(point: Path) -> None:
    fd = os.open(point / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)


def test_starting_on_a_full_disk_is_a_storage_fault_not_corruption(small_fs: Path) -> None:
    state = small_fs / "state"
    with_events(state)
    fill_up(small_fs)
    with pytest.raises(StorageFull) as raised:
        Journal.open(state, CONFIG, table_id="T1")
    assert not isinstance(raised.value, JournalCorrupt)
    assert "full" in raised.value.message and "salvage cannot help" in raised.value.message
    salvage = tablectl("journal", "salvage", "--state-dir", str(state))
    assert salvage.returncode == 3 and "Traceback" not in salvage.stderr
    assert "the filesystem is full" in salvage.stderr
    assert not (state / "damaged").exists() or not any((state / "damaged").iterdir())
    shown = tablectl("state", "--state-dir", str(state))
    assert shown.returncode == 3 and json.loads(shown.stdout)["fault"]["code"] == "storage_full"
    (small_fs / "filler").unlink()  # space freed: the same journal is fine
    with Journal.open(state, CONFIG, table_id="T1") as j:
        assert j.fault is None and j.verify().ok and j.last_seq == 100


def test_a_read_only_filesystem_is_a_storage_fault_not_damage(small_fs: Path) -> None:
    state = small_fs / "state"
    with_events(state)
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    with pytest.raises(StorageReadOnly, match="read-only"):
        Journal.open(state, CONFIG, table_id="T1")
    salvage = tablectl("journal", "salvage", "--state-dir", str(state))
    assert salvage.returncode == 3 and "Traceback" not in salvage.stderr
    assert "read-only" in salvage.stderr
    subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)
    with Journal.open(state, CONFIG, table_id="T1") as j:
        assert j.fault is None and j.verify().ok


def test_a_clean_stop_on_a_full_disk_is_not_taken_for_a_crash(small_fs: Path) -> None:
    state = small_fs / "state"
    j = Journal.open(state, CONFIG, table_id="T1")
    for n in range(1, 101):
        j.append({"type": "tick", "ms": n}, accepted=True, by=None)
    fill_up(small_fs)
    j.close()  # its log entry and marker cannot be written to the database
    (small_fs / "filler").unlink()
    with Journal.open(state, CONFIG, table_id="T1") as again:
        kinds = [entry.kind for entry in again.iter_system_log()]
        assert LogKind.UNCLEAN_SHUTDOWN not in kinds
        late = [e for e in again.iter_system_log(kinds=[LogKind.SHUTDOWN])]
        assert late and late[-1].detail.get("recorded_at_next_start") is True
    j = Journal.open(state, CONFIG, table_id="T1")  # a real crash after that is still one
    j.append({"type": "tick", "ms": 1}, accepted=True, by=None)
    release_lock(j._lock_fd)  # type: ignore[arg-type]  # the process "dies": lock gone, no close
    j._lock_fd = None
    with Journal.open(state, CONFIG, table_id="T1") as after_crash:
        kinds = [entry.kind for entry in after_crash.iter_system_log()]
        assert kinds[-3:].count(LogKind.UNCLEAN_SHUTDOWN) == 1


def test_the_daemon_started_on_a_full_disk_shows_a_storage_fault(small_fs: Path) -> None:
    from controller.config import load_config
    from controller.daemon.service import Daemon
    from tests.daemon_helpers import RecordingNotifier, write_config

    config = write_config(small_fs)
    with_events(small_fs / "state")
    fill_up(small_fs)
    daemon = Daemon(load_config(config), simulated=True, notifier=RecordingNotifier())
    try:
        controller = daemon.start()
        assert controller.fault is not None and controller.fault.code == "storage_full"
        assert "salvage cannot help" in controller.fault.message
        assert daemon.notifier.sent[-1].startswith("READY LOCKED: storage_full")  # type: ignore[attr-defined]
    finally:
        daemon.close()


class SyncLater:
    """A board whose clock gets synchronised when the test says so (probed every time)."""

    def __init__(self) -> None:
        self.synced = False

    def clock(self) -> WallClock:
        return WallClock(lambda: self.synced, recheck_seconds=0)


def test_a_clock_sync_in_a_commit_that_failed_is_logged_with_the_next_one(
    small_fs: Path,
) -> None:
    """Issue 22 item 7: the clock-synced flag was set inside the append's transaction,
    so when that commit failed (a full disk) the clock_sync entry was lost for good."""
    state = small_fs / "state"
    board = SyncLater()
    with Journal.open(state, CONFIG, table_id="T1", clock=board.clock()) as j:
        j.append({"type": "tick", "ms": 1}, accepted=True, by=None)
        j.checkpoint()  # the WAL is empty: the next commit needs new space
        board.synced = True
        fill_up(small_fs)
        with pytest.raises(sqlite3.OperationalError, match="full"):
            j.append({"type": "tick", "ms": 2}, accepted=True, by=None)
        assert not list(j.iter_system_log(kinds=[LogKind.CLOCK_SYNC]))
        (small_fs / "filler").unlink()
        assert j.append({"type": "tick", "ms": 2}, accepted=True, by=None) == 2
        syncs = list(j.iter_system_log(kinds=[LogKind.CLOCK_SYNC]))
        assert len(syncs) == 1 and syncs[0].last_seq == 2  # written with seq 2
        j.append({"type": "tick", "ms": 3}, accepted=True, by=None)
        assert len(list(j.iter_system_log(kinds=[LogKind.CLOCK_SYNC]))) == 1
