"""The system log's end is anchored (issue 30 item 6): deleting its tail by hand
(``DELETE FROM system_log WHERE id >= N``: a power loss, two rejected PINs, a locked
supervisor) is caught at the next start and by ``tablectl journal verify``, as
docs/journal.md promises; the log's own chain cannot see its end cut off, so each copy
of the ack mark names the last entry committed. The salvage still brings such a journal
back."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal import Journal
from controller.journal.ackmark import ACK_NAMES, read_acks
from tests.cli import ROOT, tablectl_in_process
from tests.releases import release_tree

CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"


def opened(state: Path) -> Journal:
    return Journal.open(state, CONFIG, allow_config_change=True, table_id="T1")


WRITER = """
import os, signal, sys
from pathlib import Path
from controller.journal import Journal, LogKind
journal = Journal.open(Path(sys.argv[1]), sys.argv[2], allow_config_change=True, table_id="T1")
for seat in (2, 5, 7):
    journal.append({"type": "sit", "seat": seat, "player": f"p{seat}", "chips": 100},
                   accepted=True, by="dealer-7", hand=0)
print(journal.log_system(LogKind.POWER_LOSS, {"last_seq": 3}), flush=True)
journal.log_system("pin_rejected", {"supervisor": "1042"})
journal.log_system("pin_rejected", {"supervisor": "1042"})
journal.log_system("supervisor_locked", {"supervisor": "1042"})
if sys.argv[3] == "cut":
    os.kill(os.getpid(), signal.SIGKILL)
journal.close()
"""


def a_day_with_a_tail(state: Path, *, close: bool = True) -> int:
    """Events, then the entries an adversary would rather remove, written by a process
    that stops cleanly or is SIGKILLed (a power cut); the first one's id."""
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(state), CONFIG, "close" if close else "cut"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == (0 if close else -signal.SIGKILL), done.stderr
    return int(done.stdout.split()[0])


def delete_tail(state: Path, first: int) -> None:
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn:
        conn.execute("DELETE FROM system_log WHERE id >= ?", (first,))
        conn.commit()


def kinds(state: Path) -> list[str]:
    with Journal.open_readonly(state) as journal:
        return [entry.kind for entry in journal.iter_system_log()]


@pytest.mark.parametrize("stop", ["clean", "power cut"])
def test_the_system_logs_tail_deleted_is_caught_at_start_and_by_verify(
    tmp_path: Path, stop: str
) -> None:
    state = tmp_path / "state"
    first = a_day_with_a_tail(state, close=stop == "clean")
    delete_tail(state, first)
    assert "supervisor_locked" not in kinds(state)
    done = tablectl_in_process("journal", "verify", "--state-dir", str(state))
    assert done.returncode == 3, done.stdout
    assert "entries were removed from its end" in done.stdout
    with opened(state) as journal:  # the start: play locked, nothing rewritten
        assert journal.fault is not None and journal.fault.code == "chain_broken"
        assert "entries were removed from its end" in journal.fault.message
    with opened(state) as journal:  # and still at the next one
        assert journal.fault is not None


def test_a_log_tail_deleted_and_written_again_is_caught(tmp_path: Path) -> None:
    """The tail removed and as many entries written in its place (the ids reused)."""
    state = tmp_path / "state"
    first = a_day_with_a_tail(state)
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn:
        rows = conn.execute(
            "SELECT id, kind, detail, wall_ns, clock_synced, mono_ns, last_seq, hash "
            "FROM system_log WHERE id >= ? ORDER BY id",
            (first,),
        ).fetchall()
        conn.execute("DELETE FROM system_log WHERE id >= ?", (first,))
        conn.execute("DELETE FROM sqlite_sequence WHERE name = 'system_log'")
        conn.commit()
    with opened(state) as journal:  # innocent entries fill the ids again
        for _ in rows:
            journal.log_system("door", {"status": "closed"})
    done = tablectl_in_process("journal", "verify", "--state-dir", str(state))
    assert done.returncode == 3, done.stdout


def test_the_salvage_brings_back_a_journal_whose_log_tail_was_deleted(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = a_day_with_a_tail(state)
    delete_tail(state, first)
    report = Journal.salvage(state, CONFIG, table_id="T1")
    assert report.kept_events == 3 and report.dropped_events == 0
    with opened(state) as journal:
        assert journal.fault is None
        assert journal.verify().ok
        journal.log_system("door", {"status": "open"})
    assert all(read_acks(state).marks) and len(read_acks(state).marks) == len(ACK_NAMES)
    done = tablectl_in_process("journal", "verify", "--state-dir", str(state))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow  # 1.6 s of the edit loop at 0.3.0 (measured with --durations)
def test_the_ack_mark_follows_every_log_entry(tmp_path: Path) -> None:
    """No false alarm: a journal written, stopped, cut and started again many times,
    entries logged between events, verifies each time."""
    state = tmp_path / "state"
    for round_ in range(3):
        a_day_with_a_tail(state, close=round_ % 2 == 0)
        done = tablectl_in_process("journal", "verify", "--state-dir", str(state))
        assert done.returncode == 0, done.stdout
    with opened(state) as journal:
        assert journal.fault is None and journal.verify().ok
    assert {mark.log_head is not None for mark in read_acks(state).marks} == {True}


ROLLED_BACK = """
import sys
from pathlib import Path
from controller.journal import Journal
with Journal.open(Path(sys.argv[1]), sys.argv[2], allow_config_change=True, table_id="T1") as j:
    print(j.fault.code if j.fault else "ok", j.verify().ok, flush=True)
    j.log_system("door", {"status": "open"})
"""


@pytest.mark.slow  # 0.2.1 from the repository's history (about 2 s)
def test_a_rollback_to_0_2_1_reads_the_mark_and_the_upgrade_after_it_too(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The log's head follows the 128 bytes 0.2.1 reads (docs/install.md: the older
    release reads the journal as it is); 0.2.1 rewrites only those, and this release
    then reads a mark without a head (no check, no false alarm) until it writes one."""
    old = release_tree(
        tmp_path_factory, "eb3c95a863c658faea57f78dd9b51edcf843b378", "release 0.2.1", "controller"
    )
    state = tmp_path / "state"
    a_day_with_a_tail(state)
    done = subprocess.run(
        [sys.executable, "-c", ROLLED_BACK, str(state), CONFIG],
        capture_output=True,
        text=True,
        cwd=old,
        env={**os.environ, "PYTHONPATH": str(old)},
        timeout=60,
    )
    assert done.stdout.split() == ["ok", "True"], done.stdout + done.stderr
    with opened(state) as journal:
        assert journal.fault is None and journal.verify().ok
    assert {mark.log_head is not None for mark in read_acks(state).marks} == {True}
