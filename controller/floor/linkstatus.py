"""The floor link's status: `LinkStatus`, the immutable snapshot `Publisher.status()`
returns, and the bookkeeping that replaces it (a mixin of `Publisher`).

Each change makes a new snapshot, wakes the waiters (`wait_for`, `wait_drained`) and
is handed to `on_status` under the lock, so callbacks arrive in the order of changes.
The unsent count, the alarm and the overflow are refreshed from the outbox by the
publisher's thread (`_refresh_counts`). The overflow outlives the alarm: it clears by
itself only once the whole backlog has been sent (the daemon's journal system log
records when it was raised and when it cleared, so it is never forgotten).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from controller.floor import outbox
from controller.floor.host import PublisherHost
from controller.journal.clock import wall_ns_now

log = logging.getLogger("controller.floor.publisher")

_LARGE_BACKLOG = 500  # above this, unsent rows are counted at most every 0.2 s


@dataclass(frozen=True)
class LinkStatus:
    """The floor link as the dealer display and the daemon see it."""

    link: Literal["up", "down"]
    since_ns: int  # wall time of the last up/down change
    since_monotonic: float  # the same moment on the monotonic clock, for durations
    unsent: int  # outbox rows not yet acknowledged by the broker
    capacity: int  # outbox_max_messages
    alarm: bool  # unsent rows at or above the alarm threshold
    overflowed: bool  # unsent rows reached the capacity; until the whole backlog is sent
    last_error: str | None  # the latest connection or refusal problem, None when healthy
    sent: int  # rows acknowledged since start()

    def outbox_alarm(self) -> str | None:
        """The outbox as the floor's link status says it: `full`, `filling` or None."""
        return "full" if self.overflowed else "filling" if self.alarm else None

    def indicator(self) -> str:
        """A short text for the dealer display."""
        if self.overflowed:
            return "FLOOR OUTBOX FULL"
        if self.alarm:
            return f"FLOOR OUTBOX {100 * self.unsent // max(1, self.capacity)}%"
        if self.link == "down":
            return f"LINK DOWN {self.unsent} QUEUED" if self.unsent else "LINK DOWN"
        if self.last_error:
            return "LINK ERROR"
        return "LINK OK"


class StatusKeeper(PublisherHost):
    """Replaces `Publisher`'s status snapshot."""

    def _update_status(self, change: Callable[[LinkStatus], LinkStatus]) -> None:
        with self._changed:
            new = change(self._status)
            if new != self._status:
                if new.outbox_alarm() != self._status.outbox_alarm():
                    self._status_due = True  # the floor hears of the outbox too
                self._status = new
                self._changed.notify_all()
                if self._on_status is not None:  # under the lock: in the order of changes
                    try:
                        self._on_status(new)
                    except Exception:
                        log.exception("floor link status callback failed")

    def _set_link(self, link: Literal["up", "down"], error: str | None) -> None:
        stamp_ns, now = wall_ns_now(), time.monotonic()

        def change(s: LinkStatus) -> LinkStatus:
            if s.link == link:
                return replace(s, last_error=error)
            return replace(s, link=link, since_ns=stamp_ns, since_monotonic=now, last_error=error)

        self._update_status(change)

    def _note_error(self, error: str, level: int = logging.WARNING) -> None:
        if self._status.last_error != error:
            log.log(level, "floor link %s: %s", self.topics.table_id, error)
        self._update_status(lambda s: replace(s, last_error=error))

    def _refresh_counts(self, now: float) -> None:
        if not self._count_due:
            return
        if self._status.unsent > _LARGE_BACKLOG and now - self._counted_at < 0.2:
            return
        self._count_due = False
        self._counted_at = now
        unsent = outbox.count_unsent(self._require_conn(), self._watermark)
        settings = self._settings
        alarm = unsent >= settings.alarm_threshold
        full = unsent >= settings.outbox_max_messages
        before = self._status
        if alarm and not before.alarm:
            log.error(
                "floor outbox alarm: %d unsent messages (alarm at %d, capacity %d)",
                unsent,
                settings.alarm_threshold,
                settings.outbox_max_messages,
            )
        elif before.alarm and not alarm:
            log.info("floor outbox alarm cleared: %d unsent messages", unsent)
        if full and not before.overflowed:
            log.error(
                "floor outbox full: %d unsent messages; the table plays on, nothing "
                "unsent is deleted, the outbox grows past its bound",
                unsent,
            )
        elif before.overflowed and unsent == 0:
            log.warning("floor outbox full cleared: the whole backlog has been sent")
        self._update_status(
            lambda s: replace(
                s, unsent=unsent, alarm=alarm, overflowed=full or (s.overflowed and unsent > 0)
            )
        )
