"""Waiting on a condition in tests: poll until it holds, never sleep for luck."""

from __future__ import annotations

import time
from collections.abc import Callable


def eventually(condition: Callable[[], bool], timeout: float, poll: float = 0.005) -> bool:
    """Poll ``condition`` until it holds (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)
    return True
