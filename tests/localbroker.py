"""A private Mosquitto on 127.0.0.1, for the tests and ``bench/floor.py`` (test-only:
not part of the firmware).

It runs the real broker (Debian package `mosquitto`) from a configuration written into
a work directory, with persistence on (a restart keeps sessions and queued messages,
as a casino's broker would) and no limit on messages queued for a client that is away.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

HOST = "127.0.0.1"


class BrokerError(RuntimeError):
    """The local broker could not be found, started or stopped."""


def find_mosquitto() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return "/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


class LocalBroker:
    """`listener_options`: extra lines for the listener (TLS files, password file, ACL,
    `allow_anonymous false`); `allow_anonymous true` is the default."""

    def __init__(
        self, workdir: Path, *, port: int | None = None, listener_options: str = ""
    ) -> None:
        binary = find_mosquitto()
        if binary is None:
            raise BrokerError("mosquitto not found: apt-get install mosquitto")
        self.binary = binary
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.host = HOST
        self.port = port or free_port()
        self.log_path = self.workdir / "mosquitto.log"
        self.config_path = self.workdir / "mosquitto.conf"
        options = listener_options.strip()
        if "allow_anonymous" not in options:
            options += "\nallow_anonymous true"
        self.config_path.write_text(
            f"per_listener_settings true\n"
            f"user {getpass.getuser()}\n"
            f"persistence true\n"
            f"persistence_location {self.workdir}/\n"
            f"max_queued_messages 0\n"
            f"sys_interval 1\n"
            f"log_dest file {self.log_path}\n"
            f"log_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
            f"listener {self.port} {self.host}\n"
            f"{options.strip()}\n"
        )
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout: float = 10.0) -> None:
        if self.running:
            return
        self._process = subprocess.Popen(
            [self.binary, "-c", str(self.config_path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise BrokerError(
                    f"mosquitto exited with {self._process.returncode}:\n{self.log_tail()}"
                )
            with (
                contextlib.suppress(OSError),
                socket.create_connection((self.host, self.port), timeout=0.2),
            ):
                return
            time.sleep(0.01)
        self.kill()
        raise BrokerError(f"mosquitto not listening on {self.port} after {timeout} s")

    def stop(self, timeout: float = 10.0) -> None:
        """An orderly stop (SIGTERM): mosquitto saves its persistence file."""
        self._end(signal.SIGTERM, timeout)

    def kill(self) -> None:
        self._end(signal.SIGKILL, 10.0)

    def restart(self) -> None:
        self.stop()
        self.start()

    def _end(self, how: signal.Signals, timeout: float) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(how)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise BrokerError(f"mosquitto did not stop within {timeout} s") from None

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def __enter__(self) -> LocalBroker:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
