"""A journal written by the first release (main at 50ef6a9, before the mirror, the table
id and the outbox hash), made by that release's own code, opened by this one: read,
upgraded, and a SIGKILL at any moment of the upgrade neither faults it nor loses anything.

The first release is taken from this repository's history (``git archive``); the test is
skipped where that history is not available (an sdist, a shallow clone)."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.journal import ChainBroken, Journal, salvage
from tests.releases import release_tree
from tests.system_tools import needs

# slow, out of the edit loop (README, Tests): the first release's journal, killed at every moment of its upgrade
pytestmark = pytest.mark.slow

FIRST_RELEASE = "50ef6a9"
ROOT = Path(__file__).resolve().parents[1]
CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"
EVENTS = 120

WRITER = """
import json, os, signal, sys
from pathlib import Path
from controller.journal import Journal
j = Journal.open(Path(sys.argv[1]), sys.argv[2])
for _ in range(int(sys.argv[3])):
    s = j.last_seq + 1
    j.append({"type": "sit", "seat": s % 9 + 1, "player": f"p{s}", "chips": 100},
             accepted=True, by="dealer-7", hand=s // 8,
             snapshot=json.dumps({"after": s}) if s % 50 == 0 else None,
             outbox=[("casino/main/table/T1/event", json.dumps({"seq": s}))])
if sys.argv[4] == "crash":
    os.kill(os.getpid(), signal.SIGKILL)
j.close()
"""

OPENER = """
import sys
from pathlib import Path
from controller.journal import Journal
Journal.open(Path(sys.argv[1]), sys.argv[2], allow_config_change=True, table_id="T1").close()
"""


@pytest.fixture(scope="module")
def first_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return release_tree(tmp_path_factory, FIRST_RELEASE, "the first release", "controller")


def legacy_journal(first_release: Path, directory: Path, how: str) -> None:
    """EVENTS events, each with a floor message, written by the first release; ``how`` is
    "crash" (SIGKILL: the events only in the WAL) or "close"."""
    env = {**os.environ, "PYTHONPATH": str(first_release)}
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(directory), CONFIG, str(EVENTS), how],
        env=env,
        cwd=first_release,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == (-signal.SIGKILL if how == "crash" else 0), done.stderr
    assert len((directory / "journal.ack").read_bytes()) == 52  # the first release's mark
    assert not (directory / "journal.ack.mirror").exists()


def floor_messages(directory: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(directory / "journal.sqlite3") as sql:
        return [
            (int(seq), str(payload))
            for seq, payload in sql.execute("SELECT seq, payload FROM outbox ORDER BY id")
        ]


@pytest.mark.parametrize("how", ["crash", "close"])
def test_a_first_release_journal_with_floor_messages_opens_and_verifies(
    first_release: Path, tmp_path: Path, how: str
) -> None:
    """Every first-release journal of a table with a floor link (floor messages, no hash
    of them in its events) was a broken chain at seq 1: play locked at the first start."""
    directory = tmp_path / "state"
    legacy_journal(first_release, directory, how)
    shown = subprocess.run(
        [sys.executable, "-m", "controller", "journal", "verify", "--state-dir", str(directory)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert f"{directory}: OK" in shown.stdout, shown.stdout + shown.stderr
    with Journal.open(directory, CONFIG, allow_config_change=True, table_id="T1") as j:
        assert j.fault is None
        assert j.verify().ok, j.verify().summary()
        for _ in range(5):
            s = j.last_seq + 1
            j.append(
                {"type": "sit", "seat": 1, "player": f"p{s}", "chips": 100},
                accepted=True,
                by="dealer-7",
                hand=s // 8,
                outbox=[("casino/main/table/T1/event", f"{s}")],
            )
    with Journal.open(directory, CONFIG, allow_config_change=True, table_id="T1") as j:
        assert j.fault is None and j.verify().ok and j.last_seq == EVENTS + 5
    assert len(floor_messages(directory)) == EVENTS + 5
    # The events written after the upgrade still have their floor messages checked.
    with sqlite3.connect(directory / "journal.sqlite3") as sql:
        sql.execute("UPDATE outbox SET payload = 'changed' WHERE seq = ?", (EVENTS + 3,))
    with Journal.open(directory, CONFIG, allow_config_change=True, table_id="T1") as j:
        problem = j.verify().first_problem
    assert isinstance(problem, ChainBroken) and problem.seq == EVENTS + 3


def test_the_salvage_of_a_first_release_journal_keeps_its_floor_messages(
    first_release: Path, tmp_path: Path
) -> None:
    """Unsent floor messages of a first-release journal are not thrown away by a salvage
    as if they did not match a hash their events never recorded."""
    directory = tmp_path / "state"
    legacy_journal(first_release, directory, "crash")
    before = floor_messages(directory)
    report = salvage(directory, CONFIG, force=True, table_id="T1")
    assert report.kept_events == EVENTS and report.dropped_events == 0
    assert floor_messages(directory) == before
    with Journal.open(directory, CONFIG, allow_config_change=True, table_id="T1") as j:
        assert j.fault is None and j.verify().ok


def test_a_sigkill_at_any_moment_of_the_upgrade_faults_nothing_and_loses_nothing(
    first_release: Path, tmp_path: Path
) -> None:
    template = tmp_path / "template"
    legacy_journal(first_release, template, "crash")
    expected = floor_messages(template)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for attempt in range(12):
        directory = tmp_path / f"state-{attempt}"
        subprocess.run(["cp", "-a", str(template), str(directory)], check=True)
        opener = subprocess.Popen([sys.executable, "-c", OPENER, str(directory), CONFIG], env=env)
        # From the interpreter's start to the end of the open; the last ones may finish.
        time.sleep(0.05 + attempt * 0.03)
        opener.send_signal(signal.SIGKILL)
        opener.wait(timeout=60)
        with Journal.open(directory, CONFIG, allow_config_change=True, table_id="T1") as j:
            assert j.fault is None, (attempt, j.fault)
            result = j.verify()
            assert result.ok, (attempt, result.summary())
            assert j.last_seq == EVENTS
            events = [
                json.loads(r.event)["player"] if isinstance(r.event, str) else r.event["player"]
                for r in j.iter_events()
            ]
        assert events == [f"p{s}" for s in range(1, EVENTS + 1)]
        assert floor_messages(directory) == expected


@needs("strace", "the upgrade's real system calls")
def test_the_upgrade_never_has_an_ack_mark_copy_half_written(
    first_release: Path, tmp_path: Path
) -> None:
    """A power cut keeps what was fsynced; what was written but not yet fsynced may be
    torn. The upgrade rewrote the 52-byte mark in place as 88 bytes and created the
    mirror, both in flight together before one fsync each: a cut there could leave both
    unreadable, a false ack_mark_lost. The real syscalls of the upgrade (strace) must
    show each copy written under another name, fsynced and renamed into place, one
    after the other, before anything is written to either in place."""
    directory = tmp_path / "state"
    legacy_journal(first_release, directory, "crash")
    trace = tmp_path / "trace"
    subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-o",
            str(trace),
            "-e",
            "trace=openat,write,pwrite64,ftruncate,fsync,fdatasync,rename,renameat,renameat2,close",
            sys.executable,
            "-c",
            OPENER,
            str(directory),
            CONFIG,
        ],
        check=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    names = {"journal.ack", "journal.ack.mirror", "journal.ack.new", "journal.ack.mirror.new"}
    fds: dict[tuple[str, str], str] = {}
    steps: list[tuple[str, str]] = []  # (what, file)
    for line in trace.read_text().splitlines():
        pid, _, call = line.partition(" ")
        call = call.strip()
        opened = re.match(r'openat\(\w+, "([^"]+)".*\) = (\d+)$', call)
        if opened and Path(opened.group(1)).name in names:
            fds[(pid, opened.group(2))] = Path(opened.group(1)).name
            continue
        used = re.match(r"(write|pwrite64|ftruncate|fsync|fdatasync)\((\d+)", call)
        if used and (pid, used.group(2)) in fds:
            steps.append((used.group(1), fds[(pid, used.group(2))]))
        moved = re.match(r'rename\w*\(.*"([^"]+)",.*"([^"]+)"', call)
        if moved and Path(moved.group(2)).name in names:
            steps.append(("rename", Path(moved.group(2)).name))
        closed = re.match(r"close\((\d+)\)", call)
        if closed:
            fds.pop((pid, closed.group(1)), None)
    done = next(
        (i for i, step in enumerate(steps) if step == ("rename", "journal.ack.mirror")),
        len(steps) - 1,
    )
    upgrade = steps[: done + 1]
    assert upgrade == [
        ("write", "journal.ack.new"),
        ("fsync", "journal.ack.new"),
        ("rename", "journal.ack"),
        ("write", "journal.ack.mirror.new"),
        ("fsync", "journal.ack.mirror.new"),
        ("rename", "journal.ack.mirror"),
    ], steps
    with Journal.open(directory, CONFIG, allow_config_change=True, table_id="T1") as j:
        assert j.fault is None and j.verify().ok
