"""Issue 30 item 6: a state directory renamed, replaced or deleted under a running
daemon is noticed: play is locked with a storage fault that says what happened and
where the journal went, instead of events acknowledged into the moved copy while a
second start on the configured path reads another journal (3 of 3 tries: 20
acknowledged events missing from where the next start looks). `tablectl run` as a
process, real SQLite files."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest

from controller.journal import Journal, StateDirectoryMoved
from tests.daemon_helpers import NotifySocket, wait_for, write_config
from tests.test_daemon_service import SITS, Process, drained, environment

LATER = [
    {"type": "sit", "seat": seat, "player": f"late{n}", "chips": 1000}
    for n, seat in enumerate([1, 3, 4, 6, 7, 9] * 4)
][:20]


def journalled(state: Path) -> list[int]:
    with Journal.open_readonly(state) as journal:
        return [record.seq for record in journal.iter_events()]


def seated(tmp_path: Path, log: str, env: dict[str, str]) -> Process:
    """The daemon as a process, three players seated and acknowledged."""
    daemon = Process(write_config(tmp_path), tmp_path / log, env)
    try:
        daemon.send(*SITS)
        daemon.wait_acks(len(SITS))
    except BaseException:
        daemon.proc.kill()
        daemon.finish()
        raise
    assert all(ack["ok"] for ack in daemon.acks)
    return daemon


def answers_after(daemon: Process, count: int) -> list[dict[str, Any]]:
    daemon.wait_acks(count)
    return daemon.acks[count - len(LATER) : count]


@pytest.mark.slow
def test_a_state_directory_replaced_under_the_daemon_locks_play_and_says_where_it_went(
    tmp_path: Path,
) -> None:
    state, moved = tmp_path / "state", tmp_path / "state.moved"
    first = seated(tmp_path, "first.log", environment(None))
    try:
        os.rename(state, moved)  # the directory moved away, a copy put in its place
        shutil.copytree(moved, state)
        first.send(*LATER)
        later = answers_after(first, len(SITS) + len(LATER))
        # nothing acknowledged into the moved copy: every input refused, play locked
        assert [(a["seq"], a["ok"], a["error"]["code"]) for a in later] == [
            (None, False, "storage_fault")
        ] * len(LATER)
        second = Process(tmp_path / "table.yaml", tmp_path / "second.log", environment(None))
        second.send({"type": "sit", "seat": 1, "player": "next", "chips": 1000})
        second.wait_acks(1)
        second.proc.send_signal(signal.SIGTERM)
        assert second.finish() == 0
    finally:
        first.proc.send_signal(signal.SIGTERM)
        first.finish()
    acknowledged = [ack["seq"] for ack in first.acks if ack["seq"] is not None]
    assert set(acknowledged) <= set(journalled(state))  # where the next start looks
    assert journalled(moved)[-1] == max(acknowledged)  # nothing written after the move
    log = (tmp_path / "first.log").read_text()
    assert "Traceback" not in log
    assert (
        f"STORAGE FAULT state_dir_moved: recording an event failed: the state directory "
        f"{state} was replaced while the service was running; the journal it had open is "
        f"now {moved}. No more events are recorded" in log
    )
    assert f"mv {moved} {state}, after moving aside what is at {state} now" in log


@pytest.mark.slow
def test_an_idle_daemon_notices_its_state_directory_renamed_at_the_watchdog_ping(
    tmp_path: Path,
) -> None:
    state, moved = tmp_path / "state", tmp_path / "state.old"
    notify = NotifySocket()
    daemon = seated(tmp_path, "daemon.log", environment(notify, 200_000))
    try:
        os.rename(state, moved)
        wait_for(
            lambda: drained(notify) and "state_dir_moved" in (tmp_path / "daemon.log").read_text(),
            what="the fault at a watchdog ping, with no input",
        )
    finally:
        daemon.proc.send_signal(signal.SIGTERM)
        daemon.finish()
        notify.close()
    log = (tmp_path / "daemon.log").read_text()
    assert f"the state directory {state} was renamed or deleted while the service" in log
    assert not state.exists()  # nothing made again at the old path


def test_a_journal_notices_its_database_replaced_in_place(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with Journal.open(state, "table: {id: T1}\n") as journal:
        journal.append({"type": "tick", "ms": 1}, accepted=True, by=None)
        shutil.copyfile(state / "journal.sqlite3", tmp_path / "copy.sqlite3")
        os.replace(tmp_path / "copy.sqlite3", state / "journal.sqlite3")
        with pytest.raises(StateDirectoryMoved, match="journal.sqlite3 was replaced while"):
            journal.append({"type": "tick", "ms": 1}, accepted=True, by=None)
        assert isinstance(journal.fault, StateDirectoryMoved)
