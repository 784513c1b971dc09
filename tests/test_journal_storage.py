"""Issue 13 items 12 and 14: a full or read-only filesystem is a storage fault with the
right advice, never a corruption verdict, and a clean stop on a full disk is still
known as clean. On a real small filesystem: a tmpfs mounted with a size limit (root
only; skipped elsewhere)."""

from __future__ import annotations

import json
import os
import shutil
import signal
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
    salvage,
)
from controller.journal.files import release_lock
from tests.cli import tablectl, tablectl_command
from tests.waiting import eventually

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


def break_chain_at(directory: Path, player: str) -> None:
    """One byte of that player's event changed in the database: the chain breaks there."""
    db = directory / "journal.sqlite3"
    data = bytearray(db.read_bytes())
    data[data.index(f'"player":"{player}"'.encode()) + 11] ^= 0x01
    db.write_bytes(bytes(data))


@pytest.mark.slow
def test_a_salvage_that_fills_the_disk_at_any_step_loses_nothing(
    small_fs: Path, tmp_path: Path
) -> None:
    """Issue 22 item 1, full disk: the space left is swept in 4 KiB steps (a page) from none to
    enough, so the disk fills at every step of the salvage in turn (the private copy,
    the new journal, the marker, the ack mark's copies, the new ack mark). Each run
    either finishes or fails as a storage fault, and the run after space is freed ends
    with what a salvage on a roomy disk keeps, the evidence byte for byte."""
    template = tmp_path / "template"
    with_events(template, 400)
    with Journal.open(template, CONFIG, table_id="T1"):
        pass  # closed: the events in the database
    break_chain_at(template, "p60")
    roomy = tmp_path / "roomy"
    shutil.copytree(template, roomy)
    kept = salvage(roomy, CONFIG, table_id="T1").kept_last_seq
    assert kept == 59
    evidence = (template / "journal.sqlite3").read_bytes()
    outcomes: list[str] = []
    for free in range(0, 2048 * 1024, 4 * 1024):
        state = small_fs / "state"
        shutil.copytree(template, state)
        fill_up(small_fs)
        filler = small_fs / "filler"
        os.truncate(filler, max(0, filler.stat().st_size - free))
        try:
            salvage(state, CONFIG, table_id="T1")
            outcomes.append("done")
        except StorageFull:
            outcomes.append("pending" if (state / "salvage.pending").exists() else "refused")
            if outcomes[-1] == "refused":  # nothing moved, nothing left behind
                assert (state / "journal.sqlite3").read_bytes() == evidence
                assert sorted(p.name for p in state.iterdir() if p.is_file()) == [
                    "journal.ack", "journal.ack.mirror", "journal.lock", "journal.sqlite3",
                ]  # fmt: skip
                assert not (state / "damaged").exists() or not any((state / "damaged").iterdir())
            filler.unlink()
            salvage(state, CONFIG, table_id="T1")  # the same command once space is freed
        filler.unlink(missing_ok=True)
        with Journal.open(state, CONFIG, table_id="T1") as j:
            assert j.fault is None and j.verify().ok and j.last_seq == kept, outcomes
        (aside,) = (state / "damaged").iterdir()
        assert (aside / "journal.sqlite3").read_bytes() == evidence
        assert not [
            p for p in state.iterdir() if p.name.startswith(("salvage", "journal.sqlite3."))
        ]
        shutil.rmtree(state)
        if outcomes[-1] == "done":
            break
    assert outcomes[-1] == "done" and outcomes.count("refused") >= 3, outcomes


def killed_at_the_marker(command: list[str], state: Path) -> bool:
    """Run the salvage, SIGKILL it as soon as its marker is there; whether it was."""
    process = subprocess.Popen(command)
    eventually(lambda: (state / "salvage.pending").exists() or process.poll() is not None, 60)
    process.send_signal(signal.SIGKILL)
    process.wait()
    return (state / "salvage.pending").exists()


@pytest.mark.slow
def test_a_salvage_killed_after_its_marker_resumes_once_the_full_disk_has_room(
    small_fs: Path, tmp_path: Path
) -> None:
    """Killed once the marker is written (the new journal complete beside the damaged
    one), then run again on a full disk: a storage fault, nothing lost; run once more
    after space is freed: the salvage finishes, keeping what it would have kept."""
    state = small_fs / "state"
    with_events(state, 400)
    break_chain_at(state, "p60")
    config = tmp_path / "table.yaml"
    config.write_text(CONFIG)
    command = [*tablectl_command("journal", "salvage"), "--state-dir", str(state)]
    command += ["--config", str(config)]
    for _attempt in range(20):  # until the kill lands between the marker and the end
        if killed_at_the_marker(command, state):
            break
        shutil.rmtree(state)
        with_events(state, 400)
        break_chain_at(state, "p60")
    else:
        pytest.skip("the salvage always ended before it could be killed")
    fill_up(small_fs)
    full = tablectl("journal", "salvage", "--state-dir", str(state), "--config", str(config))
    if full.returncode != 0:  # the marker's steps left needed room (ack copies, ack mark)
        assert full.returncode == 3 and "the filesystem is full" in full.stderr, full.stderr
        assert "run this salvage again before starting the service" in full.stderr
        assert (state / "salvage.pending").exists()
    (small_fs / "filler").unlink()
    done = tablectl("journal", "salvage", "--state-dir", str(state), "--config", str(config))
    assert done.returncode == 0 or full.returncode == 0, done.stderr
    with Journal.open(state, CONFIG, table_id="T1") as j:
        assert j.fault is None and j.verify().ok and j.last_seq == 59
    assert not (state / "salvage.pending").exists()
