"""A network link that stalls: a TCP relay on 127.0.0.1 between one client and a server
(the floor tests' Mosquitto) that passes the client's first ``budget`` bytes, then holds
everything else the client sends; the server's answers always pass (test-only).

A client behind it can get no further than its budget, however fast it runs and however
late the test looks: a test that must catch the client mid-stream (a publisher killed
with rows still unsent) stops it at a set point instead of racing it.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from types import TracebackType

HOST = "127.0.0.1"
CHUNK = 65536


class StallingLink:
    """``with StallingLink(server_port, budget) as link``: clients connect to
    ``link.port``; ``link.passed`` is how many of the client's bytes went through."""

    def __init__(self, server_port: int, budget: int) -> None:
        self.server_port = server_port
        self.budget = budget
        self.passed = 0
        self._listener = socket.create_server((HOST, 0))
        self.port = int(self._listener.getsockname()[1])
        self._sockets: list[socket.socket] = [self._listener]
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._start(self._accept)

    def _start(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            server = socket.create_connection((HOST, self.server_port))
            with self._lock:
                self._sockets += [client, server]
            self._start(self._pump, client, server, True)
            self._start(self._pump, server, client, False)

    def _pump(self, source: socket.socket, sink: socket.socket, budgeted: bool) -> None:
        with contextlib.suppress(OSError):
            while True:
                want = CHUNK
                if budgeted:
                    with self._lock:
                        want = min(CHUNK, self.budget - self.passed)
                    if want <= 0:
                        return  # the rest is held: never read, never passed
                data = source.recv(want)
                if not data:
                    break
                sink.sendall(data)
                if budgeted:
                    with self._lock:
                        self.passed += len(data)
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)  # the peer went away: pass that on

    def close(self) -> None:
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        for thread in self._threads:
            thread.join(5.0)

    def __enter__(self) -> StallingLink:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
