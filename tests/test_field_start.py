"""Starting as the service on a board in the field: no network at boot, a recovery that
runs long (more time asked of systemd on a real notify socket), and ``systemctl reload``
(the unit's ExecReload= run against the real daemon process)."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller import notify
from controller.daemon.recovery import RulesBook, fold
from controller.daemon.startup import StartProgress
from controller.journal import Journal
from tests.daemon_helpers import NotifySocket, running, seat_players, wait_for, write_config
from tests.system_tools import needs, require
from tests.test_daemon_service import SITS, Process, environment
from tests.test_systemd_unit import UNIT, unit_settings
from tests.test_unit_sandbox import needs_root

# slow, out of the edit loop (README, Tests): the daemon started as the service, on a real notify socket
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

#: Units that are reached only once a network is up (or has given up).
NETWORK_WAITS = (
    "network-online.target",
    "systemd-networkd-wait-online.service",
    "NetworkManager-wait-online.service",
    "time-sync.target",
)


def test_the_unit_does_not_wait_for_the_network() -> None:
    settings = unit_settings(UNIT.read_text())
    for key in ("Unit.Wants", "Unit.Requires", "Unit.After", "Unit.Requisite", "Unit.BindsTo"):
        named = " ".join(settings.get(key, [])).split()
        waits = [unit for unit in named if unit in NETWORK_WAITS]
        assert not waits, (
            f"{key}= names {waits}: a table with its floor network down "
            "would wait for the network's timeout before it can play"
        )


@needs_root
@needs("unshare", "the no-network start test")
def test_the_daemon_reaches_ready_with_no_network_and_queues_for_the_floor(
    tmp_path: Path,
) -> None:
    # A network namespace of its own: not even the loopback is up, as on a board whose
    # floor network is down at boot. The floor broker is named, so DNS fails too.
    unshare = require("unshare", "the no-network start test")
    config = write_config(tmp_path)
    config.write_text(
        config.read_text() + "floor: {site: lv, host: floor-broker.casino.example, port: 1883}\n"
    )
    notify_socket = NotifySocket()
    env = environment(notify_socket)
    log = (tmp_path / "daemon.log").open("a")
    proc = subprocess.Popen(
        [
            unshare,
            "--net",
            sys.executable,
            "-m",
            "controller",
            "run",
            "--config",
            str(config),
            "--stdin-events",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        notify_socket.receive_until("READY=1")
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write('{"type": "sit", "seat": 2, "player": "ana", "chips": 1000}\n')
        proc.stdin.flush()
        assert '"ok": true' in proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        notify_socket.close()
        log.close()
    with Journal.open_readonly(tmp_path / "state") as journal:
        queued = journal.connection.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]
    assert queued >= 2  # the start-up state and the sit, kept for when the link is up


def test_a_long_recovery_asks_systemd_for_more_time(tmp_path: Path) -> None:
    config = write_config(tmp_path, snapshot_every=100_000)  # every event is replayed
    with running(config) as daemon:
        for _ in range(3):
            seat_players(daemon, {2: "ana", 5: "luis"})
            for seat in (2, 5):
                assert daemon.submit({"type": "leave", "seat": seat}).ok
    notify_socket = NotifySocket()
    try:
        daemon_process = Process(config, tmp_path / "daemon.log", environment(notify_socket))
        messages = list(notify_socket.receive_until("READY=1"))
        daemon_process.proc.send_signal(signal.SIGTERM)
        assert daemon_process.finish() == 0
    finally:
        notify_socket.close()
    before_ready = messages[: next(i for i, m in enumerate(messages) if "READY=1" in m)]
    extensions = [m for m in before_ready if m.startswith("EXTEND_TIMEOUT_USEC=")]
    # One for each step: the software check, opening the journal, the integrity check,
    # the fold.
    assert len(extensions) == 4, messages
    assert all(m == "EXTEND_TIMEOUT_USEC=30000000" for m in extensions)
    assert "STATUS=starting: recovering the state" in before_ready


def test_the_fold_keeps_asking_while_it_advances(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fold that takes long (here: a clock that advances one second per reading)
    # asks again every 2 seconds of progress, on the real notify socket.
    config = write_config(tmp_path, snapshot_every=100_000)
    with running(config) as daemon:
        seat_players(daemon, {seat: f"p{seat}" for seat in range(1, 10)})
    notify_socket = NotifySocket()
    monkeypatch.setenv("NOTIFY_SOCKET", notify_socket.path)
    try:
        now = iter(range(1_000_000))
        progress = StartProgress(
            notify.extend_timeout, notify.status, clock=lambda: float(next(now))
        )
        with Journal.open_readonly(tmp_path / "state") as journal:
            folded = fold(journal, RulesBook(journal), on_record=progress.record)
        sent = notify_socket.receive_until("EXTEND_TIMEOUT_USEC=")
    finally:
        notify_socket.close()
    assert folded.replayed >= 9
    assert progress.extensions >= folded.replayed // 2 - 1
    assert any(m.startswith("STATUS=starting: recovering, seq") for m in sent), sent


def test_systemctl_reload_reaches_the_daemon_as_sighup(tmp_path: Path) -> None:
    # systemctl reload runs the unit's ExecReload= with $MAINPID: run that command line
    # against the real daemon process and see it re-read its configuration.
    reload_lines = unit_settings(UNIT.read_text()).get("Service.ExecReload")
    assert reload_lines, "the docs say `systemctl reload table-controller`; ExecReload= is missing"
    config = write_config(tmp_path)
    daemon = Process(config, tmp_path / "daemon.log", environment(None))
    try:
        daemon.send(*SITS)
        daemon.wait_acks(len(SITS))
        write_config(tmp_path, big_blind=20)
        command = [
            part.replace("$MAINPID", str(daemon.proc.pid)) for part in shlex.split(reload_lines[-1])
        ]
        assert Path(command[0]).is_file(), f"{command[0]} does not exist on this system"
        subprocess.run(command, check=True, timeout=30)
        wait_for(
            lambda: "SIGHUP: reloading the configuration" in (tmp_path / "daemon.log").read_text(),
            what="the reload",
        )
    finally:
        daemon.proc.send_signal(signal.SIGTERM)
        assert daemon.finish() == 0
