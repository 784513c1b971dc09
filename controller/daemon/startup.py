"""Start-up progress for systemd: more time while recovery advances, never while stuck.

``TimeoutStartSec=`` bounds the time from start to ``READY=1``. Recovery of a large
journal on a slow SD card may need longer, so each start-up step (opening the journal,
the integrity check, the fold) and every ``every`` seconds of fold progress ask systemd
for ``budget`` more seconds (``EXTEND_TIMEOUT_USEC=``, sd_notify(3)) and say what is
being done (``STATUS=``). The time is granted from the moment it is asked: a step that
hangs stops asking and is killed ``budget`` seconds later, as systemd intends; one that
advances is never killed for being long.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: Seconds granted by each extension: the longest a step may go without progress.
STEP_BUDGET_SECONDS = 30.0
#: Seconds of fold progress between two extensions.
EXTEND_EVERY_SECONDS = 2.0


class StartProgress:
    """Reports start-up steps and fold progress through ``extend`` and ``status``."""

    def __init__(
        self,
        extend: Callable[[float], bool],
        status: Callable[[str], bool],
        *,
        budget: float = STEP_BUDGET_SECONDS,
        every: float = EXTEND_EVERY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._extend = extend
        self._status = status
        self._budget = budget
        self._every = every
        self._clock = clock
        self._asked_at = clock()
        self.extensions = 0

    def step(self, what: str) -> None:
        """A start-up step begins: more time, and what it is in ``systemctl status``."""
        self._status(f"starting: {what}")
        self._ask()

    def record(self, record: Any, *_: Any) -> None:
        """``fold``'s ``on_record``: one more record replayed."""
        if self._clock() - self._asked_at >= self._every:
            self._status(f"starting: recovering, seq {record.seq}")
            self._ask()

    def _ask(self) -> None:
        self._extend(self._budget)
        self._asked_at = self._clock()
        self.extensions += 1
