"""Whether the journal's state directory can be used, said in one line with what to fix.

An unusable ``journal.state_dir`` (a NUL byte in its name, a path that is a file, a
folder on a read-only filesystem or one this user may not write, a parent that cannot
be made) must stop the daemon with one line that says what to do, never a traceback
(issue 13 item 11). ``check-config`` reports the same findings before a start:
``problem`` for the daemon and durable replay, ``findings`` for check-config (where
the folder may legitimately not exist yet, or belong to the service user).
"""

from __future__ import annotations

import os
from pathlib import Path

FIX = "or set journal.state_dir to a folder the service may write"


def text_problem(text: str) -> str | None:
    """What is wrong with the path as written (the configuration reader's check)."""
    if "\0" in text:
        return "holds a NUL byte: write the folder's path without it"
    if any(ord(char) < 32 for char in text):
        return "holds a control character: write the folder's path without it"
    return None


def problem(path: str | os.PathLike[str]) -> str | None:
    """The one line that says why ``path`` cannot hold the journal (and what to do),
    or None when it can (it exists as a writable folder, or can be made)."""
    errors, warnings = findings(path)
    found = errors or warnings
    return found[0] if found else None


def findings(path: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """``(errors, warnings)`` about ``path``: errors where it can never work as it is
    (a NUL byte, a file in the way, a read-only filesystem); warnings where it depends
    on who runs it (a folder this user may not write or make)."""
    text = os.fspath(path)
    wrong = text_problem(text)
    if wrong is not None:
        return [f"the state directory {text!r} {wrong}"], []
    target = Path(text)
    existing = target
    try:
        while not existing.exists():
            if existing.parent == existing:
                break
            if existing.is_symlink():  # a dangling link: nothing can be made through it
                return [
                    f"{existing} is a broken symbolic link, so the state directory "
                    f"{target} cannot be made: remove the link {FIX}"
                ], []
            existing = existing.parent
        is_dir = existing.is_dir()
    except OSError as error:
        return [
            f"the state directory {target} cannot be looked at ({error.strerror}): "
            f"check the path and its folders' permissions {FIX}"
        ], []
    if not is_dir:
        return [
            f"{existing} is a file, not a folder, so the state directory {target} "
            f"cannot be {'used' if existing == target else 'made'}: move the file "
            f"away {FIX}"
        ], []
    try:
        read_only = bool(os.statvfs(existing).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    if read_only:
        return [
            f"the state directory {target} is on a read-only filesystem ({existing}): "
            f"remount it read-write (sudo mount -o remount,rw {_mount_point(existing)}) "
            f"{FIX}"
        ], []
    if not os.access(existing, os.W_OK | os.X_OK):
        user = _user()
        if existing == target:
            return [], [
                f"the state directory {target} is not writable by user {user}: "
                f"sudo chown -R {user}: {target} {FIX}"
            ]
        return [], [
            f"the state directory {target} does not exist and user {user} may not "
            f"make it in {existing}: sudo install -d -o {user} -g {user} -m 0750 "
            f"{target} {FIX}"
        ]
    return [], []


def _mount_point(path: Path) -> Path:
    path = path.resolve()
    while not os.path.ismount(path) and path.parent != path:
        path = path.parent
    return path


def _user() -> str:
    import getpass  # only to word a finding (it loads termios)

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.geteuid())


BENCH_MARK = "BENCH-GAME"
"""The file ``tablectl bench`` leaves in its state folder: the journal there is a
bench's game, which ``tablectl run`` must not continue (its devices' readings, a tray
alarm, would go into the bench's game)."""


def mark_bench(path: str | os.PathLike[str]) -> None:
    """Mark ``path`` (an existing folder) as holding a bench's game."""
    mark = Path(path) / BENCH_MARK
    if not mark.exists():
        mark.write_text(
            "This folder holds the game of `tablectl bench`: `tablectl run` refuses it.\n"
        )


def bench_refusal(path: str | os.PathLike[str]) -> str | None:
    """Why the daemon (``tablectl run``) may not use ``path``: it holds a bench's game;
    None when it may."""
    if not (Path(path) / BENCH_MARK).exists():
        return None
    return (
        f"the state directory {os.fspath(path)} holds the game of `tablectl bench` "
        f"({BENCH_MARK} there says so): the daemon would write into it. Play it with "
        "`tablectl bench`, or give the daemon a folder of its own (journal.state_dir)"
    )
