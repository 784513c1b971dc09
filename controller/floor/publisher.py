"""The publisher thread: outbox rows to the broker, in order, marked sent on PUBACK.

Theory of operation. One thread owns everything here: its own SQLite connection to the
journal database, one paho client (MQTT 5, client id = the table id, persistent
session, last will on the status topic) and the select() loop that drives it (paho's
external-loop API: `socket()`, `loop_read()`, `loop_write()`, `loop_misc()`). So paho's
callbacks run on this thread, and no lock guards the in-flight bookkeeping.

- **Order.** Rows are published in id order with at most `window` unacknowledged at a
  time. Rows are marked sent only as a contiguous prefix of PUBACKed rows: the outbox
  is "everything up to the watermark is sent, everything after is not".
- **Reconnect.** After every (re)connect, paho's own pending messages are dropped and
  publishing restarts at the first row not yet acknowledged. The outbox is the only
  queue; a row in flight when the link died is sent again (consumers drop the
  duplicate by `(table_id, msg_seq)`). Failed attempts back off exponentially with
  jitter, so forty tables do not reconnect in step.
- **Refusals.** MQTT 5 lets the broker refuse one message (PUBACK reason "not
  authorized" when the ACL forbids the topic). The row stays unsent, the error is
  shown in the status, and publishing restarts from it after a back-off: a
  misconfigured ACL stalls the feed visibly instead of losing messages.
- **Alarm and overflow.** `alarm` is raised while unsent rows reach
  `outbox_alarm_percent` of `outbox_max_messages`. When unsent rows alone reach
  `outbox_max_messages` the outbox is full: the table keeps playing, the journal keeps
  inserting rows, nothing unsent is deleted (the database grows past the bound
  instead), and `overflowed` is set and stays set, below the alarm threshold too,
  until the whole backlog has been sent (the daemon's journal system log records
  both changes, so a full outbox is never forgotten once it drains).
  The bound itself is kept by deleting the oldest *sent* rows.
- **Status.** `status()` returns an immutable `LinkStatus` snapshot, safe from any
  thread, for the dealer display's link indicator. `on_status`, if given, is called
  with every new snapshot as it replaces the old one (on the thread that changed it,
  usually the publisher's; it must only hand the news on, as the daemon does by
  queueing it for its loop). `LinkStatus` and the bookkeeping that replaces it are
  in `linkstatus.py`; the window of rows in flight (order, acknowledgements,
  refusals) is in `inflight.py`.
- **Held.** A table whose start-up checks failed (its journal damaged, its software
  modified) starts the publisher with `held=True`: it connects and sends its link
  status, with the fault, and nothing else. It never opens the outbox (a journal that
  failed its check is evidence, and what it holds is not to be believed), and
  `enqueue` keeps nothing (the status carries the device faults).
"""

from __future__ import annotations

import contextlib
import logging
import random
import select
import socket
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from controller.floor import outbox, security
from controller.floor.clock import Stamp
from controller.floor.inflight import InFlightWindow
from controller.floor.linkstatus import LinkStatus, StatusKeeper
from controller.floor.messages import OutboxMessage, status_payload
from controller.floor.settings import FloorSettings
from controller.journal.clock import wall_ns_now
from drivers.backoff import backoff_s

log = logging.getLogger(__name__)

SESSION_EXPIRY_S = 24 * 3600  # the broker keeps the table's session a day
STABLE_AFTER_S = 10.0  # a link up this long resets the back-off


class Publisher(StatusKeeper, InFlightWindow):
    """Sends one table's outbox to the floor broker. `start()`, `notify()` after each
    journal commit, `status()` from anywhere, `stop()` at shutdown."""

    def __init__(
        self,
        settings: FloorSettings,
        *,
        table_id: str,
        db_path: Path,
        window: int = 16,
        backoff_min: float = 0.5,
        backoff_max: float = 30.0,
        connect_timeout: float = 5.0,
        poll_interval: float = 0.5,
        housekeeping_interval: float = 10.0,
        on_status: Callable[[LinkStatus], None] | None = None,
        held: bool = False,
    ) -> None:
        if window < 1:
            raise ValueError(f"window must be at least 1 (got {window})")
        self._settings = settings
        self.topics = settings.topics_for(table_id)
        self._db_path = Path(db_path)
        self._window = window
        self._backoff = (backoff_min, backoff_max)
        self._connect_timeout = connect_timeout
        self._poll_interval = poll_interval
        self._housekeeping_interval = housekeeping_interval
        self._on_status = on_status
        #: The release and its digest, named in every status (the daemon sets it).
        self.software: dict[str, str] | None = None
        self.held = held  # the status only: the outbox stays shut (module docstring)

        now = time.monotonic()
        self._status = LinkStatus(
            link="down",
            since_ns=wall_ns_now(),
            since_monotonic=now,
            unsent=0,
            capacity=settings.outbox_max_messages,
            alarm=False,
            overflowed=False,
            last_error=None,
            sent=0,
        )
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)

        # Owned by the publisher thread once started.
        self._client: mqtt.Client | None = None
        self._conn: sqlite3.Connection | None = None
        self._connected = False
        self._failures = 0
        self._next_attempt = 0.0
        self._attempt_started = 0.0
        self._refused: str | None = None
        self._up_since = 0.0
        self._receive_max: int | None = None
        self._inflight: OrderedDict[int, tuple[int, str]] = OrderedDict()  # mid -> row
        self._acked: set[int] = set()
        self._rejected: dict[int, str] = {}
        self._watermark = 0  # every row up to this id is sent
        self._cursor = 0  # the last row id published on this connection
        self._more = True  # the outbox may hold rows after the cursor
        self._hold_until = 0.0
        self._count_due = True
        self._counted_at = 0.0
        self._data_version: int | None = None
        self._housekept_at = 0.0
        self._fault: str | None = None  # the table's sticky fault, said in every status
        self._device_faults: dict[str, str] = {}  # device -> code, in every status
        self._tray_discrepancy: int | None = None  # while the tray alarm is raised
        self._puck_warning: dict[str, Any] | None = None  # controller.puck.floor_view
        self._status_due = False
        # the retained status says a backlog (unsent > 0): it must say 0 once that is
        # sent, or a board that starts later shows `SENDING BACKLOG` for ever
        self._backlog_said = False

    # -- the daemon's side -------------------------------------------------------------

    def start(self) -> None:
        """Check the credentials and TLS files, open the outbox, start the thread.

        Raises FloorConfigError for unusable settings (missing password file, bad
        certificate) and sqlite3.Error when the database cannot be opened: the daemon
        shows these as a link fault and plays on.
        """
        if self._thread is not None or self._stopping.is_set():
            raise RuntimeError("a publisher starts once: make a new one to start again")
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=self.topics.table_id, protocol=mqtt.MQTTv5
        )
        security.configure(
            client,
            tls=self._settings.tls,
            username=self._settings.username,
            password_file=self._settings.password_file,
            logger=log,
        )
        client.connect_timeout = self._connect_timeout
        client.max_inflight_messages_set(0)  # the window below is the bound
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        if not self.held:
            conn = outbox.connect(self._db_path)
            conn.close()  # the schema exists; the thread opens its own connection
        self._client = client
        self._thread = threading.Thread(
            target=self._run, name=f"floor-publisher-{self.topics.table_id}", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Publish `down` (reason `stopped`), disconnect cleanly, end the thread.
        Unsent rows stay in the outbox for the next start."""
        thread = self._thread
        if thread is None:
            return
        self._stopping.set()
        self.notify()
        thread.join(timeout)
        if thread.is_alive():
            log.warning("floor publisher did not stop within %.1f s", timeout)
            return
        self._thread = None
        self._wake_r.close()
        self._wake_w.close()

    def enqueue_claimed(
        self, journal: Any, messages: Iterable[OutboxMessage], *, about: str
    ) -> list[int]:
        """Queue rows that belong to no journaled event (a device fault raised or
        cleared: `fault_message`; the state re-published at start-up: `state_message`)
        through the journal (`Journal.queue_floor`): committed durably in their own
        transaction with the system log entry whose hash covers them, under the last
        seq (retention prunes them with the events around them), then sent in turn.
        Safe from any thread, before or after `start()`. Held: nothing is kept."""
        if self.held:
            return []
        ids = list(journal.queue_floor(messages, about=about))
        self.notify()
        return ids

    def enqueue(self, messages: Iterable[OutboxMessage], *, seq: int) -> list[int]:
        """Queue rows in an outbox without a journal (tests, tools): committed durably in
        their own transaction under `seq`, then sent in turn. Nothing covers them: in
        a journal's outbox they break its check, so the daemon uses `enqueue_claimed`.
        Held: nothing is kept."""
        if self.held:
            return []
        with contextlib.closing(outbox.connect(self._db_path)) as conn:
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("BEGIN IMMEDIATE")
            try:
                ids = outbox.enqueue(conn, messages, seq=seq)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        self.notify()
        return ids

    def set_fault(self, code: str | None) -> None:
        """The table's sticky fault (play locked; None: none): said in the retained
        status at once and in every status after it, the last will included. Safe
        from any thread."""
        self._fault = code
        self._status_due = True
        self.notify()

    def set_device_faults(self, faults: dict[str, str]) -> None:
        """The device faults in force (device -> code, `controller.device_faults`):
        said in the retained status at once and in every status after it, so that a
        floor board started later sees them. Safe from any thread."""
        self._device_faults = dict(faults)
        self._status_due = True
        self.notify()

    def set_tray_discrepancy(self, difference: int | None) -> None:
        """The chip tray's difference while its alarm is raised (None: no alarm), said
        in the retained status like the device faults. Safe from any thread."""
        if difference != self._tray_discrepancy:
            self._tray_discrepancy = difference
            self._status_due = True
            self.notify()

    def set_puck_warning(self, warning: dict[str, Any] | None) -> None:
        """The button puck's warning while it shows (``controller.puck.floor_view``;
        None: none), said in the retained status like the tray's. Safe from any
        thread."""
        if warning != self._puck_warning:
            self._puck_warning = warning
            self._status_due = True
            self.notify()

    def _status_now(self, link: str, reason: str | None, *, backlog: bool = True) -> str:
        """The status as it stands; `backlog`: with the unsent count (the link coming
        up or going down), else null (the same link, the faults changed)."""
        return status_payload(
            self.topics,
            link=link,
            reason=reason,
            unsent=self._status.unsent if backlog else None,
            stamp=Stamp.now(),
            fault=self._fault,
            device_faults=self._device_faults,
            tray_discrepancy=self._tray_discrepancy,
            outbox=self._status.outbox_alarm(),
            puck=self._puck_warning,
            software=self.software,
        )

    def notify(self) -> None:
        """New rows were committed: look now rather than at the next poll."""
        with contextlib.suppress(OSError):
            self._wake_w.send(b"\0")

    def status(self) -> LinkStatus:
        return self._status

    def wait_for(self, predicate: Callable[[LinkStatus], bool], timeout: float) -> bool:
        """Wait until `predicate(status)` holds; False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self._status), timeout)

    def wait_drained(self, timeout: float) -> bool:
        """Wait until the outbox holds no unsent row (checked on the database itself,
        so rows committed just before the call count); False on timeout."""
        self.notify()
        deadline = time.monotonic() + timeout
        with contextlib.closing(sqlite3.connect(self._db_path, timeout=10)) as conn:
            while True:
                if outbox.count_unsent(conn) == 0:
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                with self._changed:
                    self._changed.wait(min(left, 0.1))

    def prune_sent(self, keep: int) -> int:
        """Housekeeping: delete sent rows but the newest `keep`; how many went."""
        with contextlib.closing(outbox.connect(self._db_path)) as conn:
            return outbox.prune_sent(conn, keep)

    # -- the thread --------------------------------------------------------------------

    def _run(self) -> None:
        try:
            if not self.held:
                self._conn = outbox.connect(self._db_path)
                self._watermark = outbox.sent_through(self._conn)
                self._cursor = self._watermark
            while not self._stopping.is_set():
                try:
                    self._step()
                except sqlite3.Error as exc:  # a locked or failing database: retry
                    self._note_error(f"outbox: {exc}", logging.ERROR)
                    self._stopping.wait(self._backoff[0])
                except Exception as exc:  # never a silent crash: log, show, retry
                    log.exception("floor publisher step failed")
                    self._note_error(f"publisher: {exc!r}", logging.ERROR)
                    self._stopping.wait(self._backoff[1])
            self._shutdown()
        except Exception as exc:
            log.exception("floor publisher stopped")
            self._note_error(f"publisher stopped: {exc!r}", logging.ERROR)
        finally:
            if self._client is not None and self._client.socket() is not None:
                with contextlib.suppress(Exception):
                    self._client.disconnect()
            if self._conn is not None:
                self._conn.close()
            self._set_link("down", self._status.last_error)

    def _step(self) -> None:
        client = self._require_client()
        now = time.monotonic()
        if client.socket() is None:
            if now >= self._next_attempt:
                self._connect()
        elif not self._connected and now - self._attempt_started > 2 * self._connect_timeout:
            self._refused = "no CONNACK from the broker"
            client.disconnect()
        elif self._connected and now - self._up_since > STABLE_AFTER_S:
            self._failures = 0  # the link has held: the next outage backs off from the start
        if not self.held:
            self._watch_database()
            self._collect_acks()
        drained = self._backlog_said and self._status.unsent == 0
        if self._connected and (self._status_due or drained):
            self._status_due = self._backlog_said = False
            client.publish(
                self.topics.status,
                self._status_now("up", None, backlog=drained),
                qos=1,
                retain=True,
            )
        if not self.held:
            if self._connected:
                self._fill_window()
            self._refresh_counts(now)
            self._housekeeping(now)
        self._wait(self._wait_timeout(now))

    def _require_client(self) -> mqtt.Client:
        assert self._client is not None, "start() creates the client"
        return self._client

    def _require_conn(self) -> sqlite3.Connection:
        assert self._conn is not None, "the thread opens the connection"
        return self._conn

    def _connect(self) -> None:
        client = self._require_client()
        settings = self._settings
        client.will_set(
            self.topics.status,
            status_payload(
                self.topics,
                link="down",
                reason="connection lost",
                unsent=None,
                stamp=Stamp.now(),
                will=True,
                fault=self._fault,
                software=self.software,
            ),
            qos=1,
            retain=True,
        )
        properties = Properties(PacketTypes.CONNECT)
        properties.SessionExpiryInterval = SESSION_EXPIRY_S
        self._attempt_started = time.monotonic()
        try:
            client.connect(
                settings.host,
                settings.broker_port,
                settings.keepalive,
                clean_start=False,
                properties=properties,
            )
        except (OSError, ValueError) as exc:  # refused, unreachable, TLS, DNS
            self._attempt_failed(f"cannot connect to {settings.host}:{settings.broker_port}: {exc}")

    def _attempt_failed(self, reason: str) -> None:
        self._failures += 1
        delay = backoff_s(self._failures, *self._backoff) * random.uniform(0.5, 1.0)
        self._next_attempt = time.monotonic() + delay
        self._note_error(reason)

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: Any,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        if reason.is_failure:
            self._refused = f"refused by the broker: {reason}"
            return  # paho closes the socket and calls _on_disconnect
        self._connected = True
        self._up_since = time.monotonic()
        self._receive_max = getattr(properties, "ReceiveMaximum", None)
        self._rewind()
        self._status_due = False
        self._backlog_said = self._status.unsent > 0
        client.publish(
            self.topics.status,
            self._status_now("up", None, backlog=not self.held),
            qos=1,
            retain=True,
        )
        log.info(
            "floor link %s up: %s:%d",
            self.topics.table_id,
            self._settings.host,
            self._settings.broker_port,
        )
        self._set_link("up", None)

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: Any,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        was_up, self._connected = self._connected, False
        if self._stopping.is_set():
            return
        why = self._refused or f"connection lost: {reason}"
        self._refused = None
        self._attempt_failed(why)
        if was_up:
            self._set_link("down", why)

    def _housekeeping(self, now: float) -> None:
        if now - self._housekept_at < self._housekeeping_interval:
            return
        self._housekept_at = now
        deleted = outbox.enforce_bound(self._require_conn(), self._settings.outbox_max_messages)
        if deleted:
            log.info("floor outbox at its bound: deleted the %d oldest sent messages", deleted)

    def _wait_timeout(self, now: float) -> float:
        timeout = self._poll_interval
        if self._client is not None and self._client.socket() is None:
            timeout = min(timeout, max(0.0, self._next_attempt - now))
        elif self._connected and self._more and not self.held and self._room() > 0:
            timeout = max(0.0, self._hold_until - now)
        return timeout

    def _wait(self, timeout: float) -> None:
        """One select() over the wake-up socket and the MQTT socket, then paho's I/O."""
        client = self._require_client()
        sock = client.socket()
        readable: list[Any] = [self._wake_r]
        writable: list[Any] = []
        pending = False
        if sock is not None:
            readable.append(sock)
            if client.want_write():
                writable.append(sock)
            pending_bytes = getattr(sock, "pending", None)
            pending = bool(pending_bytes and pending_bytes())  # TLS bytes already read
        try:
            ready_r, ready_w, _ = select.select(readable, writable, [], 0.0 if pending else timeout)
        except (OSError, ValueError):  # the socket closed under us
            ready_r, ready_w = [], []
        if self._wake_r in ready_r:
            with contextlib.suppress(BlockingIOError):
                while self._wake_r.recv(4096):
                    pass
            self._more = True
            self._count_due = True
        if sock is None:
            return
        if (sock in ready_r or pending) and client.socket() is sock:
            client.loop_read()
        if sock in ready_w and client.socket() is sock:
            client.loop_write()
        if client.socket() is sock:
            client.loop_misc()

    def _shutdown(self) -> None:
        """Say `down` ourselves and disconnect cleanly (the broker then drops the will);
        wait briefly for PUBACKs in flight so fewer rows are sent twice."""
        client = self._require_client()
        if not self._connected:
            return
        info = client.publish(
            self.topics.status,
            self._status_now("down", "stopped"),
            qos=1,
            retain=True,
        )
        deadline = time.monotonic() + 2.0
        while (
            (self._inflight or not info.is_published())
            and self._connected
            and time.monotonic() < deadline
        ):
            self._wait(0.05)
            self._collect_acks()
        client.disconnect()
        self._connected = False
