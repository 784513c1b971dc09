"""`tablectl run` as a process, as systemd runs it: READY after recovery and WATCHDOG
pings on a real AF_UNIX datagram socket, SIGHUP reload, SIGTERM clean stop, and kill -9
followed by a restart that has lost nothing acknowledged."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from controller.journal import Journal
from tests.daemon_helpers import WAIT, NotifySocket, wait_for, write_config

ROOT = Path(__file__).resolve().parents[1]


class Process:
    def __init__(self, config: Path, log: Path, env: dict[str, str]) -> None:
        self.log = log.open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller", "run", "--config", str(config), "--stdin-events"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=env,
            cwd=ROOT,
        )
        self.acks: list[dict[str, Any]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        out: IO[str] | None = self.proc.stdout
        assert out is not None
        for line in out:
            self.acks.append(json.loads(line))

    def send(self, *events: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        for event in events:
            self.proc.stdin.write(json.dumps(event) + "\n")
        self.proc.stdin.flush()

    def wait_acks(self, count: int) -> None:
        wait_for(lambda: len(self.acks) >= count, what=f"{count} acknowledgements")

    def finish(self) -> int:
        code = self.proc.wait(WAIT)
        self.reader.join(WAIT)
        self.log.close()
        return code


def environment(notify: NotifySocket | None, watchdog_usec: int | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NOTIFY_SOCKET", None)
    env.pop("WATCHDOG_USEC", None)
    if notify is not None:
        env["NOTIFY_SOCKET"] = notify.path
    if watchdog_usec is not None:
        env["WATCHDOG_USEC"] = str(watchdog_usec)
    return env


SITS = [{"type": "sit", "seat": s, "player": f"p{s}", "chips": 1000} for s in (2, 5, 8)]


def drained(notify: NotifySocket) -> bool:
    """Read what is waiting on the notify socket, as systemd does; always True."""
    notify.sock.settimeout(0.01)
    with contextlib.suppress(TimeoutError):
        while True:
            notify.messages.append(notify.sock.recv(4096).decode())
    return True


@pytest.mark.slow
def test_ready_watchdog_reload_and_clean_stop(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    notify = NotifySocket()
    try:
        daemon = Process(config, tmp_path / "daemon.log", environment(notify, 200_000))
        messages = list(notify.receive_until("READY=1"))
        notify.messages.clear()
        notify.receive_until("WATCHDOG=1")
        notify.messages.clear()
        notify.receive_until("WATCHDOG=1")  # keeps pinging while the loop is healthy
        daemon.send(*SITS, {"type": "start_hand"})
        daemon.wait_acks(4)
        assert all(ack["ok"] for ack in daemon.acks)
        write_config(tmp_path, big_blind=20)
        daemon.proc.send_signal(signal.SIGHUP)
        # a reloaded file is held once it has read the same for 2 s; meanwhile the loop
        # pings the watchdog, which systemd reads as it comes (a full socket would block)
        wait_for(
            lambda: drained(notify) and "held until" in (tmp_path / "daemon.log").read_text(),
            what="the new configuration held",
        )
        daemon.proc.send_signal(signal.SIGTERM)
        notify.receive_until("STOPPING=1")
        assert daemon.finish() == 0
    finally:
        notify.close()
    assert any("READY=1" in m for m in messages)
    log = (tmp_path / "daemon.log").read_text()
    assert "Traceback" not in log
    with Journal.open_readonly(tmp_path / "state") as journal:
        kinds = [entry.kind for entry in journal.iter_system_log()]
    assert kinds[-1] == "shutdown" and "unclean_shutdown" not in kinds


@pytest.mark.slow
def test_kill_minus_nine_loses_nothing_acknowledged(tmp_path: Path) -> None:
    config = write_config(tmp_path, snapshot_every=3)
    env = environment(None)
    acknowledged = 0
    for round_number in range(5):
        daemon = Process(config, tmp_path / "daemon.log", env)
        events = [{"type": "state"}] * 5 if round_number else SITS + [{"type": "start_hand"}]
        daemon.send(*events)
        daemon.wait_acks(len(events))
        acknowledged = max([acknowledged] + [ack["seq"] for ack in daemon.acks])
        daemon.proc.send_signal(signal.SIGKILL)
        daemon.finish()
        with Journal.open_readonly(tmp_path / "state") as journal:
            assert journal.verify(log=False).ok
            assert journal.last_seq >= acknowledged
    log = (tmp_path / "daemon.log").read_text()
    assert log.count("unclean shutdown detected") == 4
    assert "Traceback" not in log
    result = subprocess.run(
        [sys.executable, "-m", "controller", "state", "--state-dir", str(tmp_path / "state")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    state = json.loads(result.stdout)
    assert state["last_seq"] >= acknowledged and state["state"]["hand"] == 1


def test_no_hardware_section_refuses_to_start(tmp_path: Path) -> None:
    config = tmp_path / "replay-only.yaml"
    config.write_text("table: {id: T1, seats: 6}\ngame: {big_blind: 10}\n")
    result = subprocess.run(
        [sys.executable, "-m", "controller", "run", "--config", str(config)],
        capture_output=True,
        text=True,
        env=environment(None),
        cwd=ROOT,
        timeout=WAIT,
    )
    assert result.returncode == 1
    assert "no hardware: section" in result.stderr and "Traceback" not in result.stderr
