"""A pseudo-terminal pair published at a stable path, like ``/dev/serial/by-id/...``.

The simulated device holds the master end; the driver opens the slave end through a
symlink with ``serial.Serial(path)``, exactly as it opens a USB serial adapter.
``unplug`` removes the symlink and closes the pair (the driver's reads fail as with a
pulled USB cable); ``plug`` makes a new pair and points the symlink at it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tty
from pathlib import Path


class PtyPort:
    """The device end of a simulated serial cable. Used by one thread only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._master: int | None = None
        self._slave: int | None = None

    @property
    def plugged(self) -> bool:
        return self._master is not None

    @property
    def fd(self) -> int | None:
        """The master end, for ``select``; None while unplugged."""
        return self._master

    def plug(self) -> None:
        if self._master is not None:
            return
        master, slave = os.openpty()
        # Raw from the start: no echo, no line editing, no CR/LF translation. The device
        # keeps its own slave descriptor open so the master never reads EIO between two
        # openings by the driver.
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        staged = self.path.with_name(self.path.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            staged.unlink()
        staged.symlink_to(os.ttyname(slave))
        staged.replace(self.path)

    def unplug(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None

    def read(self) -> bytes:
        """What the driver wrote, or b"" when there is nothing (or no cable)."""
        if self._master is None:
            return b""
        try:
            return os.read(self._master, 4096)
        except BlockingIOError:
            return b""
        except OSError as error:
            if error.errno == errno.EIO:
                return b""
            raise

    def write(self, data: bytes) -> int:
        """Send towards the driver. Bytes that do not fit (nobody reading) are lost,
        as on a real UART."""
        if self._master is None:
            return 0
        try:
            return os.write(self._master, data)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError as error:
            if error.errno == errno.EIO:
                return 0
            raise
