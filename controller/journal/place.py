"""Where the journal is: the state directory it was opened in must stay that directory.

A state directory renamed (``mv state state.old``), replaced (a copy put in its place)
or deleted under a running daemon would let it go on acknowledging events into a
journal the next start does not read, while a second start on the configured path
builds another. So the writer remembers the directory it locked (its device and inode,
through the lock's own descriptor) and the database file in it, and before and after
each append (and at each watchdog ping of the daemon) checks that the configured path
still names them: two ``stat`` calls, a few microseconds against the append's fsync.
A difference is :class:`~controller.journal.errors.StateDirectoryMoved`, a sticky
storage fault whose message names where the journal went (read back from the lock's
descriptor, ``/proc/self/fd``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from controller.journal.errors import StateDirectoryMoved
from controller.journal.schema import DB_NAME


@dataclass(frozen=True)
class Place:
    """The state directory and database a writer opened, as the kernel knows them."""

    directory: Path
    dir_fd: int  # the writer's lock on the directory (open as long as the journal)
    identity: tuple[int, int]  # (st_dev, st_ino) of the directory
    database: tuple[int, int]  # ... and of journal.sqlite3 in it

    @classmethod
    def of(cls, directory: Path, dir_fd: int) -> Place:
        held = os.fstat(dir_fd)
        database = os.stat(DB_NAME, dir_fd=dir_fd)
        return cls(
            directory,
            dir_fd,
            (held.st_dev, held.st_ino),
            (database.st_dev, database.st_ino),
        )

    def problem(self) -> StateDirectoryMoved | None:
        """Why the configured path no longer names the journal opened, or None."""
        try:
            now = os.stat(self.directory)
        except FileNotFoundError:
            return self._gone(f"the state directory {self.directory} was renamed or deleted")
        except OSError:
            return None  # cannot be looked at: the write itself will say why
        if (now.st_dev, now.st_ino) != self.identity:
            return self._gone(f"the state directory {self.directory} was replaced")
        try:
            database = os.stat(DB_NAME, dir_fd=self.dir_fd)
        except FileNotFoundError:
            return StateDirectoryMoved(
                self.directory, f"{self.directory / DB_NAME} was renamed or deleted", None
            )
        except OSError:
            return None
        if (database.st_dev, database.st_ino) != self.database:
            return StateDirectoryMoved(
                self.directory, f"{self.directory / DB_NAME} was replaced", None
            )
        return None

    def _gone(self, what: str) -> StateDirectoryMoved:
        """The directory is no longer at its path: where the one opened is now."""
        try:
            now_at: str | None = os.readlink(f"/proc/self/fd/{self.dir_fd}")
        except OSError:
            now_at = None
        if now_at is not None and now_at.endswith(" (deleted)"):
            now_at = None
        return StateDirectoryMoved(self.directory, what, now_at)
