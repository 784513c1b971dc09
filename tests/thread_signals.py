"""A signal for one thread of another process, as the kernel may choose it.

The kernel gives a signal sent to a process to any one of its threads that does not
block it (the main thread first, unless it already has one pending). Python runs the
handler in the main thread only, once that thread runs again; a test that wants the
rarer choice makes it with ``tgkill``."""

from __future__ import annotations

import ctypes
from pathlib import Path


def other_threads(pid: int) -> list[int]:
    """The thread ids of ``pid`` other than its main thread's."""
    return sorted(
        int(task.name) for task in Path(f"/proc/{pid}/task").iterdir() if task.name != str(pid)
    )


def signal_thread(pid: int, tid: int, number: int) -> None:
    """``number`` for thread ``tid`` of process ``pid`` alone."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.tgkill(pid, tid, number) != 0:
        raise OSError(ctypes.get_errno(), f"tgkill({pid}, {tid}, {number}) failed")
