"""The systemd notify protocol (sd_notify(3)), written directly.

A notification is one datagram of ``KEY=VALUE`` lines sent to the ``AF_UNIX``
socket named by ``$NOTIFY_SOCKET``: a path, or an abstract socket when it starts
with ``@``. With ``Type=notify`` systemd waits for ``READY=1`` before it counts the
service as started; with ``WatchdogSec=`` it restarts the service when no
``WATCHDOG=1`` arrives in time. Without ``$NOTIFY_SOCKET`` (bench, tests, a
technician's shell) every call is a no-op that returns False.

Send failures return False rather than raise: the table must keep running if the
notify socket goes away; a missed watchdog ping is systemd's to act on.
"""

from __future__ import annotations

import os
import socket


def notify(*assignments: str) -> bool:
    """Send ``KEY=VALUE`` assignments in one datagram; True when it was sent."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall("\n".join(assignments).encode("utf-8"))
    except OSError:
        return False
    return True


def _one_line(text: str) -> str:
    return " ".join(text.split())


def ready(status: str | None = None) -> bool:
    """Startup finished (integrity checked, state recovered, outputs re-driven)."""
    return notify("READY=1", *([f"STATUS={_one_line(status)}"] if status else []))


def status(text: str) -> bool:
    """A one-line status shown by ``systemctl status``."""
    return notify(f"STATUS={_one_line(text)}")


def watchdog() -> bool:
    """The main loop is healthy; send at :func:`watchdog_interval`."""
    return notify("WATCHDOG=1")


def stopping(status: str | None = None) -> bool:
    """Orderly shutdown has begun."""
    return notify("STOPPING=1", *([f"STATUS={_one_line(status)}"] if status else []))


def extend_timeout(seconds: float) -> bool:
    """Ask for more start-up (or stop) time, e.g. during a long recovery."""
    return notify(f"EXTEND_TIMEOUT_USEC={max(0, int(seconds * 1_000_000))}")


def watchdog_interval() -> float | None:
    """Seconds between watchdog pings (half of ``$WATCHDOG_USEC``), or None if not asked.

    Like sd_watchdog_enabled(3), ignores a ``$WATCHDOG_USEC`` meant for another
    process (``$WATCHDOG_PID`` set to a different pid).
    """
    usec = os.environ.get("WATCHDOG_USEC")
    if not usec:
        return None
    pid = os.environ.get("WATCHDOG_PID")
    if pid and pid != str(os.getpid()):
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    if value <= 0:
        return None
    return value / 2 / 1_000_000
