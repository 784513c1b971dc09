"""controller.notify against a real AF_UNIX datagram socket, as systemd would listen."""

from __future__ import annotations

import os
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller import notify


class Listener:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def receive(self) -> list[str]:
        data = self.sock.recv(4096)
        return data.decode("utf-8").split("\n")

    def nothing_waiting(self) -> bool:
        self.sock.setblocking(False)
        try:
            self.sock.recv(4096)
        except BlockingIOError:
            return True
        finally:
            self.sock.settimeout(2)
        return False


@pytest.fixture
def path_socket(monkeypatch: pytest.MonkeyPatch) -> Iterator[Listener]:
    # A short directory: AF_UNIX paths are limited to 107 bytes.
    with tempfile.TemporaryDirectory(prefix="notify-") as directory:
        address = str(Path(directory) / "notify.sock")
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.bind(address)
            sock.settimeout(2)
            monkeypatch.setenv("NOTIFY_SOCKET", address)
            yield Listener(sock)


@pytest.fixture
def abstract_socket(monkeypatch: pytest.MonkeyPatch) -> Iterator[Listener]:
    name = f"table-controller-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(2)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        yield Listener(sock)


def test_every_call_is_a_no_op_without_notify_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    assert notify.ready() is False
    assert notify.status("x") is False
    assert notify.watchdog() is False
    assert notify.stopping() is False
    assert notify.extend_timeout(5) is False
    assert notify.watchdog_interval() is None


def test_ready_reaches_a_path_socket(path_socket: Listener) -> None:
    assert notify.ready() is True
    assert path_socket.receive() == ["READY=1"]


def test_ready_with_status_is_one_datagram(path_socket: Listener) -> None:
    assert notify.ready("journal verified, 1234 events") is True
    assert path_socket.receive() == ["READY=1", "STATUS=journal verified, 1234 events"]
    assert path_socket.nothing_waiting()


def test_status_watchdog_stopping_and_extend_timeout(path_socket: Listener) -> None:
    notify.status("hand 12, seat 4 to act")
    assert path_socket.receive() == ["STATUS=hand 12, seat 4 to act"]
    notify.watchdog()
    assert path_socket.receive() == ["WATCHDOG=1"]
    notify.extend_timeout(2.5)
    assert path_socket.receive() == ["EXTEND_TIMEOUT_USEC=2500000"]
    notify.stopping("shutting down")
    assert path_socket.receive() == ["STOPPING=1", "STATUS=shutting down"]


def test_status_text_is_kept_on_one_line(path_socket: Listener) -> None:
    # A newline would start a new assignment in the protocol.
    notify.status("MEMORY FAULT\nREADY=1")
    assert path_socket.receive() == ["STATUS=MEMORY FAULT READY=1"]


def test_abstract_socket_named_with_at_sign(abstract_socket: Listener) -> None:
    assert notify.ready() is True
    assert abstract_socket.receive() == ["READY=1"]
    assert notify.watchdog() is True
    assert abstract_socket.receive() == ["WATCHDOG=1"]


def test_a_vanished_socket_returns_false_instead_of_raising(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "gone.sock"))
    assert notify.watchdog() is False


def test_watchdog_interval_is_half_of_watchdog_usec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert notify.watchdog_interval() == 5.0
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert notify.watchdog_interval() == 5.0


def test_watchdog_interval_ignores_another_process_and_bad_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))
    assert notify.watchdog_interval() is None
    monkeypatch.delenv("WATCHDOG_PID")
    for bad in ("", "0", "-5", "ten"):
        monkeypatch.setenv("WATCHDOG_USEC", bad)
        assert notify.watchdog_interval() is None
