"""The publisher's window: outbox rows in flight to the broker, and which are sent.

A mixin of `Publisher` (`publisher.py`), run on the publisher's thread only, so nothing
here takes a lock. Rows are published in id order, at most `window` unacknowledged at
a time (fewer if the broker's Receive Maximum says so). paho's `on_publish` callback
notes each PUBACK; `_collect_acks` marks sent only the contiguous prefix of
acknowledged rows, so the outbox stays "everything up to the watermark is sent,
everything after is not". A row the broker refuses (MQTT 5 reason code) stays unsent:
the window is rewound to it and held back, as after a failed connection. A row paho
cannot publish at all (a bad topic) is kept, marked `UNSENDABLE`, and skipped.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from controller.floor import outbox
from controller.floor.host import PublisherHost
from controller.floor.messages import with_msg_seq
from drivers.backoff import backoff_s

UNSENDABLE = -1  # `sent` of a row paho cannot publish at all (a bad topic): kept, logged


class InFlightWindow(PublisherHost):
    """`Publisher`'s rows in flight and its watermark."""

    def _on_publish(
        self,
        client: mqtt.Client,
        userdata: Any,
        mid: int,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        if mid not in self._inflight:
            if reason.is_failure:  # the status message; Mosquitto then drops the link
                self._refused = f"broker refused {self.topics.status}: {reason}"
            return
        if reason.is_failure:
            self._rejected[mid] = str(reason)
        else:
            self._acked.add(mid)

    def _rewind(self) -> None:
        """Forget everything in flight; publish again from the first unsent row."""
        self._require_client().drop_out_messages()
        self._inflight.clear()
        self._acked.clear()
        self._rejected.clear()
        self._cursor = self._watermark
        self._more = True

    def _watch_database(self) -> None:
        version = self._require_conn().execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._data_version = version
            self._more = True
            self._count_due = True

    def _collect_acks(self) -> None:
        """Mark the acknowledged prefix of the window sent; handle a refused message."""
        done: list[int] = []
        for mid in self._inflight:
            if mid not in self._acked:
                break
            done.append(mid)
        if done:
            through = self._inflight[done[-1]][0]
            marked = outbox.mark_sent(self._require_conn(), self._watermark, through)
            for mid in done:  # forgotten only once the marks are committed
                del self._inflight[mid]
                self._acked.discard(mid)
            self._watermark = through
            self._count_due = True
            self._failures = 0
            # Acknowledged messages: whatever went wrong before has been overcome.
            self._update_status(lambda s: replace(s, sent=s.sent + marked, last_error=None))
        if self._inflight:
            mid, (row_id, topic) = next(iter(self._inflight.items()))
            if mid in self._rejected:
                reason = self._rejected.pop(mid)
                self._note_error(
                    f"broker refused message {row_id} on {topic}: {reason}", logging.ERROR
                )
                # Mosquitto also drops the link after a refusal; a broker that does not
                # gets the same treatment from us: back off, then retry from this row.
                self._rewind()
                self._failures += 1
                # one doubling longer than a failed connection after as many failures
                hold = backoff_s(self._failures + 1, *self._backoff)
                self._hold_until = time.monotonic() + hold

    def _room(self) -> int:
        window = min(self._window, self._receive_max or self._window)
        return window - len(self._inflight)

    def _fill_window(self) -> None:
        room = self._room()
        if room <= 0 or not self._more or time.monotonic() < self._hold_until:
            return
        client = self._require_client()
        rows = outbox.unsent_after(self._require_conn(), self._cursor, room)
        self._more = len(rows) == room
        for row in rows:
            try:
                info = client.publish(
                    row.topic, with_msg_seq(row.payload, row.id), qos=row.qos, retain=row.retain
                )
            except ValueError as exc:  # a row no broker could take: keep it, skip it
                self._skip_unsendable(row, exc)
                continue
            self._inflight[info.mid] = (row.id, row.topic)
            if row.qos == 0:
                self._acked.add(info.mid)  # no PUBACK will come
            self._cursor = row.id

    def _skip_unsendable(self, row: outbox.OutboxRow, exc: ValueError) -> None:
        self._note_error(
            f"outbox row {row.id} cannot be published ({exc}); kept with sent = {UNSENDABLE}",
            logging.ERROR,
        )
        self._require_conn().execute(
            "UPDATE outbox SET sent = ? WHERE id = ?", (UNSENDABLE, row.id)
        )
        self._cursor = row.id
