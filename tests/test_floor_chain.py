"""The floor link and the journal's chain together: floor messages that belong to no
event (the state at start-up, a device fault raised or cleared, the power loss) never
break the chain, as issue 30 found them doing on every floor-linked table, and a row
of them added, changed or removed by hand is still caught.

From outside first: ``tablectl bench --script`` with a ``floor:`` section pointing at a
real Mosquitto, stopped cleanly, restarted, a keypad unplugged and plugged back, then
SIGKILLed (a power cut) and started again; ``tablectl journal verify`` after each."""

from __future__ import annotations

import contextlib
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.floor.consumer import Collector
from controller.journal import Journal, LogKind
from tests.cli import ROOT, daemon_env, tablectl, tablectl_command
from tests.daemon_helpers import WAIT, wait_for
from tests.localbroker import LocalBroker
from tests.releases import release_tree
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


def cut_bench(tmp_path: Path, script: Path, *, faults: int, after: float, what: str) -> str:
    """``tablectl bench --script`` SIGKILLed (a power cut) ``after`` seconds past the
    moment its journal holds ``faults`` fault messages queued; what it printed."""
    proc = subprocess.Popen(
        tablectl_command("bench", "--config", "bench.yaml", "--script", str(script)),
        cwd=tmp_path,
        env=daemon_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        wait_for(lambda: claims(tmp_path / "state").count("fault") >= faults, what=what)
        time.sleep(after)
    finally:
        proc.send_signal(signal.SIGKILL)
    return proc.communicate(timeout=WAIT)[0]


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
    cut_bench(tmp_path, script, faults=2, after=0.2, what="the fault and its clear queued")
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
    return release_tree(tmp_path_factory, RELEASE_0_2_1, "release 0.2.1", "controller", "drivers")


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
    adopted = [c for c in claims(state) if c == "adopted"]
    assert adopted, claims(state)
    assert not list(state.glob("damaged*")) and not (state / "salvage.pending").exists()
    checked = verify(state)
    assert checked.returncode == 0, checked.stdout + checked.stderr


# -- a power loss reaches the floor even when the restart dies right after logging it ------

KILL_AFTER = """
import os, signal, sys
from contextlib import contextmanager
from controller.journal.writing import JournalWriter

# A kill point, from outside the firmware: SIGKILL the process as soon as a transaction
# that wrote a system log entry of the kind given has committed.
insert_log, transaction = JournalWriter._insert_log, JournalWriter._transaction
def noting(self, kind, detail):
    if kind == sys.argv[2]:
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


def last_record_before(state: Path, start: int) -> int:
    """The wall time of the last record journalled before the ``start``-th start (0 the
    first): the moment the power went at the latest."""
    with Journal.open_readonly(state) as journal:
        entries = list(journal.iter_system_log())
        ups = [i for i, e in enumerate(entries) if e.kind == LogKind.POWER_UP]
        before = entries[: ups[start]]
        event = journal.event(entries[ups[start]].last_seq)
    assert event is not None
    return before[-1].wall_ns if before[-1].last_seq >= event.seq else event.wall_ns


@pytest.mark.slow  # three daemon processes (about 6 s)
@pytest.mark.parametrize(
    "killed_after",
    [LogKind.POWER_LOSS.value, LogKind.CONFIG_LOADED.value],
    ids=["logged", "recovering"],
)
def test_a_power_loss_reaches_the_floor_when_the_restart_dies(
    tmp_path: Path, broker: LocalBroker, back_office: Collector, killed_after: str
) -> None:
    """The restart dies right after writing the power loss to the system log, or while
    recovering (before writing it): the next start sends the real cut to the floor."""
    config = floor_config(tmp_path, broker)
    state = tmp_path / "state"
    log = tmp_path / "daemon.log"
    first = Process(config, log, daemon_env())  # 1. seated, then the power goes
    first.send(*SITS)
    first.wait_acks(len(SITS))
    first.proc.send_signal(signal.SIGKILL)
    first.finish()
    last_seq = max(int(ack["seq"]) for ack in first.acks)
    # 2. the restart dies at the kill point
    with log.open("a") as err:
        killed = subprocess.run(
            [sys.executable, "-c", KILL_AFTER, str(config), killed_after],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=daemon_env(),
            cwd=ROOT,
            timeout=60,
        )
    assert killed.returncode == -signal.SIGKILL
    real_cut = last_record_before(state, 1)
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
    assert first_power["last_record"]["ts_ns"] == real_cut  # type: ignore[index]
    checked = verify(state)
    assert checked.returncode == 0, checked.stdout + checked.stderr


# -- any mix of restarts, power cuts, device reseats and broker outages ---------------------

RESEATS = {
    "keypad": "unplug keypad\nwait-for keypad UNPLUGGED\nreplug keypad\nwait-for keypad ok\n",
    "tray": "unplug tray\nwait 0.5\nreplug tray\nwait 0.5\n",
    "display": "unplug display\nwait 0.5\nreplug display\nwait 0.5\n",
}


@pytest.mark.slow  # eight bench runs (about 40 s)
def test_restarts_cuts_reseats_and_outages_in_any_order_leave_a_journal_that_verifies(
    tmp_path: Path, broker: LocalBroker
) -> None:
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    floor_bench(tmp_path, broker)
    state = tmp_path / "state"
    first = bench_script(tmp_path, "seat", "sit 2 ana 1000\nsit 6 bob 1000\n")
    assert first.returncode == 0, first.stderr
    done: list[str] = []
    for step in range(6):
        if rng.random() < 0.3:  # the broker goes away for this run, or comes back
            (broker.stop if broker.running else broker.start)()
            done.append("broker " + ("down" if not broker.running else "up"))
        reseat = "".join(RESEATS[d] for d in rng.sample(sorted(RESEATS), rng.randrange(3)))
        cut = rng.random() < 0.5
        done.append(f"run {step}: {reseat.count('unplug')} reseat(s), {'cut' if cut else 'stop'}")
        script = tmp_path / f"step{step}.txt"
        script.write_text(reseat + ("wait 60\n" if cut else "screen\n"))
        if cut:
            wanted = claims(state).count("fault") + 2 * reseat.count("unplug")
            out = cut_bench(
                tmp_path, script, faults=wanted, after=rng.random() * 0.5, what=f"{seed}: {done}"
            )
        else:
            out = bench_script(tmp_path, f"step{step}", script.read_text()).stdout
        assert "MEMORY FAULT" not in out, (seed, done, out)
        checked = verify(state)
        assert checked.returncode == 0, (seed, done, checked.stdout)
    if not broker.running:
        broker.start()
    last = bench_script(tmp_path, "last", "screen\n")
    assert "MEMORY FAULT" not in last.stdout, (seed, done, last.stdout)
    assert verify(state).returncode == 0, (seed, done)
