"""Telling a storage problem (full, read-only, not writable) from a damaged journal.

A full card or a filesystem the kernel remounted read-only after I/O errors makes
SQLite fail with "disk I/O error", "database or disk is full" or "unable to open
database file", exactly where a damaged file would. Calling that corruption sends the
technician to the salvage, which needs space and write access too and cannot help. So
every failure to open, start or salvage a journal is first checked against the
filesystem holding the state directory (``statvfs``: read-only flag, free space;
``access``: write permission) and the error's own errno or SQLite error name; only
what is none of these stays a corruption verdict.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from controller.journal.errors import (
    JournalCorrupt,
    JournalError,
    StorageFault,
    StorageFull,
    StorageNotWritable,
    StorageReadOnly,
)

LOW_SPACE_BYTES = 512 * 1024
"""Below this much free space an I/O failure is taken for a full filesystem: a journal
append, its WAL growth and the ack mark need a few pages, the salvage a copy."""

_SQLITE_FULL = frozenset({"SQLITE_FULL"})
_SQLITE_IO = ("SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM")


def _existing(directory: Path) -> Path:
    path = directory
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def _free_bytes(path: Path) -> tuple[int, bool] | None:
    try:
        info = os.statvfs(path)
    except OSError:
        return None
    return info.f_bavail * info.f_frsize, bool(info.f_flag & os.ST_RDONLY)


def _io_kind(error: BaseException) -> bool:
    """Could this failure come from the storage rather than from the file's content?"""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, OSError):
            return True
        if isinstance(cause, sqlite3.Error):
            name = str(getattr(cause, "sqlite_errorname", "") or "")
            text = str(cause).lower()
            return (
                name.startswith(_SQLITE_IO)
                or name in _SQLITE_FULL
                or any(
                    words in text
                    for words in (
                        "disk i/o",
                        "disk is full",
                        "unable to open",
                        "readonly",
                        "read-only",
                    )
                )
            )
        cause = cause.__cause__ or cause.__context__
    return False


def storage_fault(directory: Path, error: BaseException, doing: str) -> StorageFault | None:
    """The storage problem behind ``error`` (raised while ``doing``), or None."""
    if isinstance(error, StorageFault):
        return error
    if isinstance(error, JournalError) and not isinstance(error, JournalCorrupt):
        return None  # busy, not found, foreign, torn...: what the journal found, not I/O
    if not _io_kind(error):
        return None
    where = _existing(directory)
    number = _errno(error)
    space = _free_bytes(where)
    if number == errno.EROFS or (space is not None and space[1]):
        return StorageReadOnly(directory, doing)
    if (
        number in (errno.ENOSPC, errno.EDQUOT)
        or _sqlite_name(error) in _SQLITE_FULL
        or (space is not None and space[0] < LOW_SPACE_BYTES)
    ):
        return StorageFull(directory, doing, space[0] if space is not None else None)
    if number in (errno.EACCES, errno.EPERM) or not os.access(where, os.W_OK | os.X_OK):
        return StorageNotWritable(directory, doing)
    return None


def _errno(error: BaseException) -> int | None:
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, OSError) and cause.errno is not None:
            return cause.errno
        cause = cause.__cause__ or cause.__context__
    return None


def _sqlite_name(error: BaseException) -> str:
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, sqlite3.Error):
            return str(getattr(cause, "sqlite_errorname", "") or "")
        cause = cause.__cause__ or cause.__context__
    return ""


def as_storage_fault(directory: Path, error: BaseException, doing: str) -> BaseException:
    """``error`` as a storage fault when it is one; otherwise ``error`` itself, with an
    OSError that is no storage problem made a :class:`JournalError` (never a traceback)."""
    found = storage_fault(directory, error, doing)
    if found is not None:
        return found
    if isinstance(error, OSError) and not isinstance(error, JournalError):
        return JournalError(
            f"{doing} in {directory} failed: {error.strerror or error}"
            f"{': ' + str(error.filename) if error.filename else ''}"
        )
    return error


@contextmanager
def storage_faults(directory: Path, doing: str) -> Iterator[None]:
    """What the block raises (an OSError, an SQLite error, a corrupt journal) raised
    again as :func:`as_storage_fault` says: a storage fault, a :class:`JournalError`,
    or the error itself."""
    try:
        yield
    except (OSError, sqlite3.Error, JournalCorrupt) as error:
        converted = as_storage_fault(directory, error, doing)
        if converted is error:
            raise
        raise converted from error
