"""How long to wait before trying again, after failures in a row: the one back-off.

A serial link reopening its port (``serial_link``) and the floor publisher reconnecting
to its broker or holding back after a refused message (``controller.floor.publisher``)
wait ``first`` seconds after the first failure and twice as long after each further
one, never more than ``maximum``. The publisher adds its own jitter.
"""

from __future__ import annotations

#: Doublings beyond this change nothing for any sane ``maximum`` (2**16 x ``first``) and
#: keep the power small after a long outage.
MAX_DOUBLINGS = 16


def backoff_s(failures: int, first: float, maximum: float) -> float:
    """Seconds to wait after ``failures`` failures in a row (1 or more)."""
    return min(maximum, first * 2 ** min(max(failures - 1, 0), MAX_DOUBLINGS))
