"""The floor link and the journal's chain together: floor messages that belong to no
event (the state at start-up, a device fault raised or cleared, the power loss) never
break the chain, as issue 30 found them doing on every floor-linked table, and a row
of them added, changed or removed by hand is still caught.

From outside first: ``tablectl bench --script`` with a ``floor:`` section pointing at a
real Mosquitto, stopped cleanly, restarted, a keypad unplugged and plugged back, then
SIGKILLed (a power cut) and started again; ``tablectl journal verify`` after each."""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import subprocess
import sys
import tarfile
import time
from io import BytesIO
from pathlib import Path

import pytest

from controller.floor.consumer import Collector
from controller.journal import Journal, LogKind
from tests.cli import ROOT, daemon_env, tablectl, tablectl_command
from tests.daemon_helpers import WAIT, wait_for
from tests.localbroker import LocalBroker
from tests.test_bench_tui import bench_config
from tests.test_daemon_floor import floor_config
from tests.test_daemon_service import SITS, Process
from tests.test_floor_publisher import _first_copies, back_office

__all__ = ["back_office"]  # a pytest fixture, used by name


def floor_bench(tmp_path: Path, broker: LocalBroker) -> Path:
    path = bench_config(tmp_path)
    path.write_text(
        path.read_text() + f"floor: {{site: lv, host: {broker.host}, port: {broker.port}}}\n"
    )
    return path


def bench_script(tmp_path: Path, name: str, text: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / f"{name}.txt"
    script.write_text(text)
    return tablectl(
        "bench", "--config", "bench.yaml", "--script", str(script), cwd=tmp_path, timeout=90
    )


def verify(state: Path) -> subprocess.CompletedProcess[str]:
    return tablectl("journal", "verify", "--state-dir", str(state), cwd=ROOT)


def claims(state: Path) -> list[str]:
    """What each ``floor_queued`` entry queued (``about``), in order."""
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn:
        rows = conn.execute(
            "SELECT json_extract(detail, '$.about') FROM system_log WHERE kind = ? ORDER BY id",
            (LogKind.FLOOR_QUEUED.value,),
        ).fetchall()
    return [str(row[0]) for row in rows]


@pytest.mark.slow  # four bench runs and a kill (about 10 s)
def test_a_floor_linked_bench_restarted_reseated_and_cut_verifies(
    tmp_path: Path, broker: LocalBroker
) -> None:
    floor_bench(tmp_path, broker)
    state = tmp_path / "state"
    first = bench_script(tmp_path, "seat", "sit 2 ana 1000\nsit 6 bob 1000\n")
    assert first.returncode == 0, first.stderr
    assert verify(state).returncode == 0
    again = bench_script(tmp_path, "again", "screen\n")  # a clean restart: its state queued
    assert again.returncode == 0, again.stderr
    checked = verify(state)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # the keypad's cable pulled and put back, then the power goes while the bench waits
    script = tmp_path / "reseat.txt"
    script.write_text(
        "unplug keypad\nwait-for keypad UNPLUGGED\nreplug keypad\nwait-for keypad ok\nwait 60\n"
    )
    proc = subprocess.Popen(
        tablectl_command("bench", "--config", "bench.yaml", "--script", str(script)),
        cwd=tmp_path,
        env=daemon_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: claims(state).count("fault") >= 2, what="the fault and its clear queued")
        time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(WAIT)
    back = bench_script(tmp_path, "back", "screen\n")
    assert back.returncode == 0, back.stderr
    assert "MEMORY FAULT" not in back.stdout
    checked = verify(state)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "OK" in checked.stdout
    assert claims(state) == ["state", "state", "state", "fault", "fault", "power", "state"]
    with Journal.open_readonly(state) as journal:
        assert len(list(journal.iter_system_log(kinds=[LogKind.POWER_LOSS]))) == 1


# -- a board locked by 0.2.1, brought back ----------------------------------------------

RELEASE_0_2_1 = "eb3c95a863c658faea57f78dd9b51edcf843b378"  # "0.2.1: CHANGELOG"


@pytest.fixture(scope="module")
def release_0_2_1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """0.2.1's own code, from this repository's history."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", RELEASE_0_2_1, "controller", "drivers"],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError) as error:
        pytest.skip(f"0.2.1 ({RELEASE_0_2_1}) is not in this checkout: {error}")
    tree = tmp_path_factory.mktemp("release-0.2.1")
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def old_bench(old: Path, tmp_path: Path, name: str, text: str, *, kill_after: str = "") -> str:
    """0.2.1's ``tablectl bench --script``; with ``kill_after``, SIGKILLed once its
    journal's system log holds that many ``device_clear`` entries."""
    script = tmp_path / f"{name}.txt"
    script.write_text(text)
    env = {**daemon_env(), "PYTHONPATH": str(old)}
    command = [sys.executable, "-m", "controller", "bench", "--config", "bench.yaml"]
    proc = subprocess.Popen(
        [*command, "--script", str(script)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    if kill_after:
        wait_for(lambda: log_kinds(tmp_path / "state").count(kill_after) >= 1, what=kill_after)
        time.sleep(0.3)
        proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=90)
    return out


def log_kinds(state: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3", timeout=10)) as conn:
        return [str(r[0]) for r in conn.execute("SELECT kind FROM system_log ORDER BY id")]


def outbox_rows(state: Path) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn:
        return conn.execute(
            "SELECT id, seq, topic, payload, qos, retain FROM outbox ORDER BY id"
        ).fetchall()


def events(state: Path) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn:
        return conn.execute("SELECT seq, event, hash FROM events ORDER BY seq").fetchall()


@pytest.mark.slow  # 0.2.1's bench four times, this release's twice (about 15 s)
def test_a_board_locked_by_0_2_1_is_brought_back_by_the_documented_steps(
    tmp_path: Path, broker: LocalBroker, release_0_2_1: Path
) -> None:
    """docs/journal.md, 'A board locked by the floor messages of 0.2.x': exactly those
    steps, on a journal 0.2.1's own bench locked as issue 30 found it."""
    floor_bench(tmp_path, broker)
    state = tmp_path / "state"
    old_bench(release_0_2_1, tmp_path, "seat", "sit 2 ana 1000\nsit 6 bob 1000\n")
    old_bench(release_0_2_1, tmp_path, "again", "screen\n")
    old_bench(
        release_0_2_1,
        tmp_path,
        "reseat",
        "unplug keypad\nwait-for keypad UNPLUGGED\nreplug keypad\nwait-for keypad ok\nwait 60\n",
        kill_after=LogKind.DEVICE_CLEAR.value,
    )
    locked = old_bench(release_0_2_1, tmp_path, "locked", "screen\n")
    assert "MEMORY FAULT" in locked  # what the field sees
    before_rows, before_events = outbox_rows(state), events(state)
    assert len(before_rows) > len([r for r in before_rows if r[2].endswith("/events")])
    # The documented steps: 1. the service stopped (the bench is); 2. this release
    # installed (this checkout); 3. `tablectl journal verify`: OK, nothing written.
    checked = verify(state)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert outbox_rows(state) == before_rows and LogKind.FLOOR_QUEUED not in log_kinds(state)
    # 4. the service started: no fault, the old rows adopted by the chain, nothing lost
    back = bench_script(tmp_path, "back", "screen\n")
    assert back.returncode == 0, back.stderr
    assert "MEMORY FAULT" not in back.stdout
    assert outbox_rows(state)[: len(before_rows)] == before_rows
    assert events(state)[: len(before_events)] == before_events
    adopted = [c for c in claims(state) if c == "None"]  # the adoption's entries say no `about`
    assert adopted, claims(state)
    assert not list(state.glob("damaged*")) and not (state / "salvage.pending").exists()
    checked = verify(state)
    assert checked.returncode == 0, checked.stdout + checked.stderr


# -- a power loss reaches the floor even when the restart dies right after logging it ------

KILL_AFTER_POWER_LOSS = """
import os, signal, sys
from contextlib import contextmanager
from controller.journal.writing import JournalWriter

# A kill point, from outside the firmware: SIGKILL the process as soon as a transaction
# that wrote a power_loss system log entry has committed.
insert_log, transaction = JournalWriter._insert_log, JournalWriter._transaction
def noting(self, kind, detail):
    if kind == "power_loss":
        self._kill_after_commit = True
    return insert_log(self, kind, detail)
@contextmanager
def killing(self):
    with transaction(self):
        yield
    if getattr(self, "_kill_after_commit", False):
        os.kill(os.getpid(), signal.SIGKILL)
JournalWriter._insert_log, JournalWriter._transaction = noting, killing
from controller.cli import main
sys.exit(main(["run", "--config", sys.argv[1], "--stdin-events"]))
"""


def power_messages(collector: Collector) -> list[dict[str, object]]:
    return [p for p in _first_copies(collector.messages) if p["kind"] == "power"]


@pytest.mark.slow  # three daemon processes (about 6 s)
def test_a_power_loss_reaches_the_floor_when_the_restart_dies_right_after_logging_it(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    config = floor_config(tmp_path, broker)
    state = tmp_path / "state"
    log = tmp_path / "daemon.log"
    first = Process(config, log, daemon_env())  # 1. seated, then the power goes
    first.send(*SITS)
    first.wait_acks(len(SITS))
    first.proc.send_signal(signal.SIGKILL)
    first.finish()
    last_seq = max(int(ack["seq"]) for ack in first.acks)
    # 2. the restart writes its power_loss entry and dies at once (the kill point)
    with log.open("a") as err:
        killed = subprocess.run(
            [sys.executable, "-c", KILL_AFTER_POWER_LOSS, str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=daemon_env(),
            cwd=ROOT,
            timeout=60,
        )
    assert killed.returncode == -signal.SIGKILL
    with Journal.open_readonly(state) as journal:
        (cut,) = list(journal.iter_system_log(kinds=[LogKind.POWER_LOSS]))
    real_cut = cut.detail["last_record"]
    assert cut.detail["last_seq"] == last_seq
    # 3. started again: the floor hears of the real cut, with its time
    third = Process(config, log, daemon_env())
    try:
        assert back_office.wait_for(
            lambda _: any(p["last_seq"] == last_seq for p in power_messages(back_office)), WAIT
        ), power_messages(back_office)
    finally:
        third.proc.send_signal(signal.SIGTERM)
        third.finish()
    first_power = power_messages(back_office)[0]
    assert first_power["last_seq"] == last_seq
    assert first_power["last_record"]["ts_ns"] == real_cut["wall_ns"]  # type: ignore[index]
    checked = verify(state)
    assert checked.returncode == 0, checked.stdout + checked.stderr
