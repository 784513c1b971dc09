"""The floor system's side, in miniature: subscribe, parse, drop duplicates.

`floor watch`, the tests and the benchmark consume the floor feed through this module;
it is also the reference for a back-office consumer. The de-duplication key is
`(table_id, msg_seq)`: a message sent twice (a link lost before the PUBACK came back,
a publisher restarted) arrives twice with the same key.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from controller.floor import security
from controller.floor.settings import TlsSettings
from controller.journal.clock import wall_ns_now
from controller.lines import decode_document
from controller.rules import BadEvent

log = logging.getLogger(__name__)


class FloorLinkError(RuntimeError):
    """The broker could not be reached, or refused this client."""


@dataclass(frozen=True)
class FloorMessage:
    """One message from the broker: its topic, whether it is a retained copy, the parsed object
    and the raw bytes."""

    topic: str
    retain: bool  # a stored (retained) copy delivered on subscription, not a live one
    payload: Mapping[str, Any] | None  # the parsed JSON object, None when not one
    raw: bytes
    received_ns: int


class Deduplicator:
    """Remembers the last `per_table` keys of each table; `first_time` says whether a
    message is new. The key is `(table_id, msg_seq)`, for live and retained copies
    alike (a reconnect brings the retained state again, with the `msg_seq` already
    seen). A message without `msg_seq` (the link status) is new unless it is the very
    same bytes as the last one of its table and kind (the retained status again).

    A table whose journal was replaced (new storage, a salvage) numbers its messages
    from 1 again (docs/floor.md): after a `status`, a `msg_seq` of 1, or one more than
    `NEW_STREAM_GAP` below the highest seen, starts a new stream: what was seen of the
    table is forgotten, and `stream(table_id)` counts up. (A table sends again at most
    its publishing window, 16 messages, below what a consumer has seen.)

    At most `max_tables` tables are remembered: when a message of one more arrives,
    the table silent the longest is forgotten (`forget`) and `forgotten` names it (a
    broker publishing under ever new table ids cannot grow the memory without end; a
    forgotten table that speaks again is new, and its next retained copies are shown
    once more)."""

    NEW_STREAM_GAP = 64
    MAX_TABLES = 1000

    def __init__(self, per_table: int = 100_000, max_tables: int = MAX_TABLES) -> None:
        if max_tables < 1:
            raise ValueError(f"max_tables must be at least 1 (got {max_tables})")
        self._per_table = per_table
        self._max_tables = max_tables
        self._heard: OrderedDict[str, None] = OrderedDict()  # least recently heard first
        self.forgotten: list[str] = []  # tables forgotten to keep the bound, oldest first
        self._seen: dict[str, tuple[set[int], deque[int]]] = {}
        self._last_plain: dict[tuple[str, str], bytes] = {}
        self._highest: dict[str, int] = {}
        self._after_status: set[str] = set()
        self._streams: dict[str, int] = {}

    def stream(self, table_id: str) -> int:
        """How many times the table's numbering started again (0: never)."""
        return self._streams.get(table_id, 0)

    @property
    def max_tables(self) -> int:
        return self._max_tables

    def tables(self) -> int:
        """How many tables are remembered now."""
        return len(self._heard)

    def forget(self, table_id: str) -> None:
        """Drop all that is remembered of one table."""
        self._heard.pop(table_id, None)
        self._seen.pop(table_id, None)
        self._highest.pop(table_id, None)
        self._after_status.discard(table_id)
        self._streams.pop(table_id, None)
        for key in [k for k in self._last_plain if k[0] == table_id]:
            del self._last_plain[key]

    def _heard_from(self, table_id: str) -> None:
        if table_id in self._heard:
            self._heard.move_to_end(table_id)
            return
        self._heard[table_id] = None
        while len(self._heard) > self._max_tables:
            oldest = next(iter(self._heard))
            self.forget(oldest)
            self.forgotten.append(oldest)
            del self.forgotten[: -self._max_tables]  # the list is bounded too

    def first_time(self, payload: Mapping[str, Any] | None, raw: bytes | None = None) -> bool:
        if payload is None:
            return True
        table, msg_seq = payload.get("table_id"), payload.get("msg_seq")
        if not isinstance(table, str):
            return True
        self._heard_from(table)
        if not isinstance(msg_seq, int):
            if payload.get("kind") == "status":
                self._after_status.add(table)
            if raw is None:
                return True
            key = (table, str(payload.get("kind")))
            if self._last_plain.get(key) == raw:
                return False
            self._last_plain[key] = raw
            return True
        highest = self._highest.get(table, 0)
        if table in self._after_status:
            self._after_status.discard(table)
            if highest > 1 and (msg_seq == 1 or msg_seq < highest - self.NEW_STREAM_GAP):
                self._seen.pop(table, None)
                self._streams[table] = self.stream(table) + 1
                highest = 0
        self._highest[table] = max(highest, msg_seq)
        seen, order = self._seen.setdefault(table, (set(), deque()))
        if msg_seq in seen:
            return False
        seen.add(msg_seq)
        order.append(msg_seq)
        if len(order) > self._per_table:
            seen.discard(order.popleft())
        return True


class Subscriber:
    """A paho client on its own network thread, subscribed at QoS 1 to one filter.

    `on_link(up)`, if given, hears each subscription made (after every reconnect,
    paho reconnecting by itself) and each loss of the broker.

    `persistent=True` keeps the session on the broker (messages published while this
    consumer is away wait for it), as a back-office consumer should; it then needs a
    stable `client_id`. Retained messages come with a new subscription only: on a
    reconnect into a kept session, a retained copy of a later message would otherwise
    overtake the messages queued while the consumer was away.
    """

    def __init__(
        self,
        host: str,
        port: int,
        topic_filter: str,
        on_message: Callable[[FloorMessage], None],
        *,
        client_id: str | None = None,
        persistent: bool = False,
        tls: TlsSettings | None = None,
        username: str | None = None,
        password_file: Path | None = None,
        on_link: Callable[[bool], None] | None = None,
    ) -> None:
        if persistent and client_id is None:
            raise ValueError("a persistent subscriber needs a client_id")
        self._host, self._port, self._filter = host, port, topic_filter
        self._handler = on_message
        self._persistent = persistent
        self._client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id or f"floor-watch-{uuid.uuid4().hex[:12]}",
            protocol=mqtt.MQTTv5,
        )
        security.configure(
            self._client, tls=tls, username=username, password_file=password_file, logger=log
        )
        self._client.reconnect_delay_set(1, 2)
        self._client.on_connect = self._on_connect
        self._client.on_subscribe = self._on_subscribe
        self._client.on_message = self._on_message
        self._client.on_disconnect = self._on_disconnect
        self._on_link = on_link
        self._ready = threading.Event()
        self._error: str | None = None

    def start(self, timeout: float = 10.0) -> None:
        """Connect and subscribe; FloorLinkError when that fails within `timeout`."""
        properties = Properties(PacketTypes.CONNECT)
        if self._persistent:
            properties.SessionExpiryInterval = 24 * 3600
        try:
            self._client.connect(
                self._host,
                self._port,
                30,
                clean_start=not self._persistent,
                properties=properties,
            )
        except (OSError, ValueError) as exc:
            raise FloorLinkError(f"cannot connect to {self._host}:{self._port}: {exc}") from None
        self._client.loop_start()
        if not self._ready.wait(timeout) or self._error:
            self.stop()
            raise FloorLinkError(self._error or f"no subscription within {timeout} s")

    def stop(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: Any,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        if reason.is_failure:
            self._error = f"refused by the broker: {reason}"
            self._ready.set()
            client.disconnect()
            return
        client.subscribe(
            self._filter,
            options=SubscribeOptions(qos=1, retainHandling=SubscribeOptions.RETAIN_SEND_IF_NEW_SUB),
        )

    def _on_subscribe(
        self,
        client: mqtt.Client,
        userdata: Any,
        mid: int,
        reasons: list[ReasonCode],
        properties: Properties | None,
    ) -> None:
        failed = [str(r) for r in reasons if r.is_failure]
        if failed:
            self._error = f"subscription to {self._filter} refused: {', '.join(failed)}"
        elif self._on_link is not None:
            self._on_link(True)
        self._ready.set()

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: Any,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        if self._on_link is not None:
            self._on_link(False)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            document = decode_document(message.payload)
        except BadEvent:  # a hostile or broken payload: kept raw, never fatal
            document = None
        self._handler(
            FloorMessage(
                topic=message.topic,
                retain=bool(message.retain),
                payload=document if isinstance(document, dict) else None,
                raw=bytes(message.payload),
                received_ns=wall_ns_now(),
            )
        )


class Collector:
    """An `on_message` handler that keeps every message and lets a thread wait for a
    condition on them (tests, the benchmark, scripts)."""

    def __init__(self) -> None:
        self._messages: list[FloorMessage] = []
        self._changed = threading.Condition()

    def __call__(self, message: FloorMessage) -> None:
        with self._changed:
            self._messages.append(message)
            self._changed.notify_all()

    @property
    def messages(self) -> list[FloorMessage]:
        with self._changed:
            return list(self._messages)

    def wait_for(self, predicate: Callable[[list[FloorMessage]], bool], timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self._messages), timeout)
