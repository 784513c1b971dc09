"""One serial device's link: open by path, handshake, frames in and out, and start
again with backoff when anything goes wrong.

Theory of operation
-------------------
Each serial device runs one ``SerialLink`` thread, which alone touches the port::

    closed --open ok--> handshaking --IDENT ok--> in session
      ^                      |                        |
      |  backoff 0.05 s,     | no IDENT after         | I/O error, no ACK after
      |  doubling to 2 s     | retries / wrong kind   | retries, port vanished
      +----------------------+------------------------+   (DeviceFault on the way)

- **Handshake**: HELLO is sent every ``ack_timeout`` until IDENT answers. IDENT must
  name the expected device kind and protocol major version; otherwise the link faults
  with a message saying which. A later IDENT with a new boot id means the device
  restarted: the link shakes hands again without a fault (one with the same boot id
  answers a HELLO sent twice, and is ignored).
- **Output** is a set of named *slots* holding the latest message to deliver (the
  clock digits, the text lines, a counts request). Setting a slot replaces what it held;
  the link sends the newest content with a fresh sequence number and sends it again
  every ``ack_timeout`` until acknowledged. After ``retries`` unanswered tries the
  link faults and reopens. *Sticky* slots are sent again after every handshake, so a
  display that was unplugged shows the current state when it returns.
- **Input**: every acknowledged frame type is acknowledged, and a frame repeating the
  previous sequence number of its type (its ACK was lost) is not delivered twice. The
  device's ``boot_id`` in IDENT tells whether sequence numbers carry over.
- **Keep-alive**: when the device has said nothing for ``ping_interval``
  (``keepalive_ms``), PING.
- **Sleeping**: the thread blocks in the port's read. While a frame is in progress, a
  handshake or an acknowledgement is awaited, it reads in slices of ``SILENCE`` (the
  end of a torn frame, the resend times); otherwise it sleeps until the keep-alive is
  due, so an idle link wakes once per ``ping_interval``, not 20 times a second. A
  ``send`` from another thread cuts the read short (``cancel_read``), and an unplugged
  device ends it at once with an error, so neither waits for the keep-alive.
- Faults go on the event queue as ``DeviceFault`` (once per distinct message), and
  ``DeviceCleared`` follows the next successful handshake. Bad input is counted and
  logged through a ``DropLog``; nothing a device sends can raise out of the link.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import termios
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import serial

from .backoff import backoff_s
from .closing import Closing
from .droplog import DropLog
from .errors import BadPayload, LinkError, UnknownFrameType
from .events import DeviceCleared, DeviceFault, DeviceName, EventSink
from .frames import Frame, FrameDecoder
from .messages import PROTOCOL_MAJOR, Ack, Codec, Hello, Ident, Message, Ping

logger = logging.getLogger(__name__)

FIRST_BACKOFF = 0.05
MAX_BACKOFF = 2.0
SILENCE = 0.05  # a pause this long ends any frame in progress (USB latency timers: 16 ms)
WRITE_TIMEOUT = 1.0
KEEPALIVE = 5.0  # seconds of silence from the device before a PING (``keepalive_ms``)
DROP_LOG_SLICE = 1.0  # longest sleep while a dropped-input summary waits to be logged


def backoff_delays(first: float = FIRST_BACKOFF, maximum: float = MAX_BACKOFF) -> Iterator[float]:
    """The waits between tries to reopen a port: doubling from ``first`` to ``maximum``."""
    return (backoff_s(failures, first, maximum) for failures in itertools.count(1))


class SerialPort(Protocol):
    """The part of ``serial.Serial`` the link uses."""

    @property
    def in_waiting(self) -> int: ...

    @property
    def timeout(self) -> float | None: ...

    @timeout.setter
    def timeout(self, value: float | None) -> None: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def cancel_read(self) -> None: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...


PortOpener = Callable[..., SerialPort]


@dataclass(frozen=True, slots=True)
class LinkCounters:
    """A snapshot of what one link has seen and done since it started."""

    frames: int = 0  # intact frames received
    bad_header: int = 0  # candidates dropped: LEN check failed
    bad_crc: int = 0  # candidates dropped: CRC mismatch
    torn: int = 0  # candidates cut short by a silence
    garbage_bytes: int = 0  # bytes outside any frame
    unknown: int = 0  # intact frames of a type this protocol lacks
    bad_payload: int = 0  # intact frames of a known type with a malformed payload
    duplicates: int = 0  # repeated frames (lost ACK) not delivered twice
    retransmits: int = 0  # frames this end sent again for want of an ACK
    sessions: int = 0  # successful handshakes
    faults: int = 0  # DeviceFault events raised
    wakeups: int = 0  # reads the link thread returned from (data, timeout or a send)

    @property
    def dropped(self) -> int:
        """Every frame or candidate frame thrown away."""
        return self.bad_header + self.bad_crc + self.torn + self.unknown + self.bad_payload


class _Slot:
    __slots__ = ("message", "sticky", "version", "sent_version", "acked", "seq", "sent_at", "tries")

    def __init__(self, message: Message, sticky: bool) -> None:
        self.message = message
        self.sticky = sticky
        self.version = 0
        self.sent_version: int | None = None
        self.acked = False
        self.seq = -1
        self.sent_at = 0.0
        self.tries = 0

    @property
    def awaiting_ack(self) -> bool:
        return self.sent_version == self.version and not self.acked


# What a port that goes away raises: pyserial's own error, the OS's, and termios.error
# (not an OSError) when the device vanishes between opening the port and setting it up.
PORT_ERRORS: tuple[type[Exception], ...] = (serial.SerialException, OSError, termios.error)
OPEN_ERRORS: tuple[type[Exception], ...] = (*PORT_ERRORS, ValueError)  # ValueError: bad settings


def _open_failure(device: str, path: str, error: Exception) -> str:
    code = getattr(error, "errno", None)
    if code == errno.ENOENT:
        return f"{device} is missing: nothing at {path} (unplugged or wrong port setting)"
    if code in (errno.EACCES, errno.EPERM):
        return f"{device} port {path} cannot be opened: permission denied (dialout group?)"
    return f"{device} port {path} cannot be opened: {error}"


class SerialLink(Closing):
    """Runs one serial device on its own thread; see the module documentation."""

    def __init__(
        self,
        *,
        device: DeviceName,
        codec: Codec,
        port: str,
        baud: int,
        events: EventSink,
        on_message: Callable[[Message], None],
        on_session: Callable[[], None] | None = None,
        ack_timeout: float = 0.25,
        retries: int = 4,
        ping_interval: float = KEEPALIVE,
        max_backoff: float = MAX_BACKOFF,
        opener: PortOpener | None = None,
        drop_log: DropLog | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.device = device
        self.codec = codec
        self.port = port
        self.baud = baud
        self._events = events
        self._on_message = on_message
        self._on_session = on_session
        self._ack_timeout = ack_timeout
        self._retries = retries
        self._ping_interval = ping_interval
        self._max_backoff = max_backoff
        self._opener: PortOpener = opener or serial.Serial
        self._drop_log = drop_log or DropLog(device)
        self._clock = clock

        self._decoder = FrameDecoder(on_drop=self._on_drop)
        self._lock = threading.Lock()  # guards _slots and _port
        self._slots: dict[str, _Slot] = {}
        self._port: SerialPort | None = None
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"{device}-link", daemon=True)

        # Link-thread state.
        self._seq = 0
        self._handshaking = True
        self._hello_sent_at = 0.0
        self._hello_tries = 0
        self._last_heard = 0.0
        self._boot_id: int | None = None
        self._last_accepted: dict[int, int] = {}
        self._fault_message: str | None = None
        self._counts: dict[str, int] = dict.fromkeys(
            (
                "unknown",
                "bad_payload",
                "duplicates",
                "retransmits",
                "sessions",
                "faults",
                "wakeups",
            ),
            0,
        )
        self.firmware: str | None = None

    # -- the controller's side ------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the thread and close the port. Safe to call twice."""
        self._stop.set()
        self._wake()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    @property
    def connected(self) -> bool:
        """True between a successful handshake and the next fault."""
        return self._connected.is_set()

    def wait_connected(self, timeout: float | None = None) -> bool:
        return self._connected.wait(timeout)

    @property
    def fault(self) -> str | None:
        """The fault in force, or None."""
        return self._fault_message

    @property
    def counters(self) -> LinkCounters:
        decoded = self._decoder.counters
        return LinkCounters(
            frames=decoded.frames,
            bad_header=decoded.bad_header,
            bad_crc=decoded.bad_crc,
            torn=decoded.torn,
            garbage_bytes=decoded.garbage_bytes,
            **self._counts,
        )

    def send(self, slot: str, message: Message, *, sticky: bool = True) -> None:
        """Deliver ``message`` as the latest content of ``slot`` (from any thread)."""
        with self._lock:
            current = self._slots.get(slot)
            if current is None:
                self._slots[slot] = _Slot(message, sticky)
            else:
                current.message = message
                current.sticky = sticky
                current.version += 1
                current.acked = False
        self._wake()

    @property
    def idle(self) -> bool:
        """In session with nothing waiting for an acknowledgement."""
        if not self._connected.is_set():
            return False
        with self._lock:
            return all(
                slot.acked and slot.sent_version == slot.version for slot in self._slots.values()
            )

    def pending(self, slot: str) -> bool:
        """Whether ``slot`` holds content not yet acknowledged."""
        with self._lock:
            current = self._slots.get(slot)
            return current is not None and not (
                current.acked and current.sent_version == current.version
            )

    def _wake(self) -> None:
        with self._lock:
            port = self._port
            if port is None:
                return
            # The port may be closing; the thread notices that by itself.
            with contextlib.suppress(OSError, TypeError, AttributeError, ValueError):
                port.cancel_read()

    # -- the link thread ----------------------------------------------------------------

    def _run(self) -> None:
        delays = backoff_delays(maximum=self._max_backoff)
        while not self._stop.is_set():
            try:
                port = self._opener(
                    self.port,
                    baudrate=self.baud,
                    timeout=SILENCE,
                    write_timeout=WRITE_TIMEOUT,
                    exclusive=True,
                )
            except OPEN_ERRORS as error:
                self._raise_fault(_open_failure(self.device, self.port, error))
            else:
                with self._lock:
                    self._port = port
                sessions_before = self._counts["sessions"]
                try:
                    self._session(port)
                except PORT_ERRORS as error:
                    self._raise_fault(
                        f"{self.device} on {self.port} was lost (unplugged?): {error}"
                    )
                except LinkError as error:
                    self._raise_fault(str(error))
                except Exception as error:  # a bug here must not end the device for good
                    logger.exception("%s: link failed", self.device)
                    self._raise_fault(f"{self.device} link failed: {error!r}")
                finally:
                    with self._lock:
                        self._port = None
                    self._connected.clear()
                    with contextlib.suppress(Exception):  # a dead port may fail to close
                        port.close()
                if self._counts["sessions"] > sessions_before:
                    # It worked a moment ago: try again soon.
                    delays = backoff_delays(maximum=self._max_backoff)
            if self._stop.wait(next(delays)):
                break

    def _session(self, port: SerialPort) -> None:
        port.reset_input_buffer()
        self._decoder.reset()
        now = self._clock()
        self._last_heard = now
        last_rx = now
        self._start_handshake(port, now)
        while not self._stop.is_set():
            wait = self._read_timeout(now)
            if port.timeout != wait:
                port.timeout = wait
            data = port.read(1)
            now = self._clock()
            self._counts["wakeups"] += 1
            if data:
                waiting = port.in_waiting
                if waiting:
                    data += port.read(waiting)
                last_rx = now
                for frame in self._decoder.feed(data):
                    self._receive(port, frame, now)
            elif self._decoder.pending and now - last_rx >= SILENCE:
                for frame in self._decoder.flush():
                    self._receive(port, frame, now)
            self._service(port, self._clock())
            self._drop_log.tick()

    def _read_timeout(self, now: float) -> float:
        """How long the next read may block (see "Sleeping" in the module docstring)."""
        if self._handshaking or self._decoder.pending or self._busy():
            return SILENCE
        wait = max(0.0, self._last_heard + self._ping_interval - now)
        if self._drop_log.pending:
            wait = min(wait, DROP_LOG_SLICE)
        return wait

    def _busy(self) -> bool:
        """Something to send, or sent and not yet acknowledged."""
        with self._lock:
            return any(
                slot.sent_version != slot.version or slot.awaiting_ack
                for slot in self._slots.values()
            )

    def _next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFF
        return self._seq

    def _start_handshake(self, port: SerialPort, now: float) -> None:
        self._handshaking = True
        self._connected.clear()
        self._hello_tries = 0
        self._send_hello(port, now)

    def _send_hello(self, port: SerialPort, now: float) -> None:
        self._hello_sent_at = now
        port.write(Hello().encode(self._next_seq()))

    def _receive(self, port: SerialPort, frame: Frame, now: float) -> None:
        try:
            received = self.codec.parse(frame, at_host=True)
        except UnknownFrameType as error:
            self._counts["unknown"] += 1
            self._drop_log.note("unknown", detail=str(error))
            return
        except BadPayload as error:
            self._counts["bad_payload"] += 1
            self._drop_log.note("bad_payload", detail=str(error))
            return
        self._last_heard = now
        message = received.message
        if isinstance(message, Ident):
            self._on_ident(port, message, now)
            return
        if self._handshaking:
            return  # left over from before the handshake; the device sends it again
        if isinstance(message, Ack):
            self._on_ack(received.seq)
            return
        if not message.ACKED:
            self._deliver(message)
            return
        if self._last_accepted.get(message.TYPE) == received.seq:
            self._counts["duplicates"] += 1  # its ACK was lost: acknowledge it again
        else:
            self._last_accepted[message.TYPE] = received.seq
            self._deliver(message)
        port.write(Ack().encode(received.seq))  # after delivery: an ACK means "done"

    def _deliver(self, message: Message) -> None:
        try:
            self._on_message(message)
        except Exception:
            logger.exception("%s: handling %r failed", self.device, message)

    def _on_ident(self, port: SerialPort, ident: Ident, now: float) -> None:
        if not self._handshaking:
            if ident.boot_id != self._boot_id:
                # The device restarted and wants a session: shake hands again.
                self._start_handshake(port, now)
            # Otherwise it answers a HELLO that was sent twice: nothing new.
            return
        if ident.kind != self.codec.kind:
            what = chr(ident.kind) if 0x20 < ident.kind < 0x7F else f"0x{ident.kind:02X}"
            raise LinkError(
                f"{self.port} answers as device kind {what!r}, not a {self.device} "
                f"(kind {chr(self.codec.kind)!r}): check the {self.device} port setting"
            )
        if ident.major != PROTOCOL_MAJOR:
            raise LinkError(
                f"{self.device} at {self.port} speaks protocol {ident.major}.{ident.minor}, "
                f"this controller speaks {PROTOCOL_MAJOR}.x: update the firmware or the controller"
            )
        if ident.boot_id != self._boot_id:
            self._last_accepted.clear()
            self._boot_id = ident.boot_id
        self.firmware = ident.firmware
        self._handshaking = False
        with self._lock:
            for slot in self._slots.values():
                slot.sent_version = None  # send everything again
                slot.acked = False
        self._counts["sessions"] += 1
        self._connected.set()
        if self._fault_message is not None:
            self._fault_message = None
            logger.warning("%s: back on %s (firmware %s)", self.device, self.port, ident.firmware)
            self._events.put(DeviceCleared(device=self.device))
        if self._on_session is not None:
            try:
                self._on_session()
            except Exception:
                logger.exception("%s: session start handler failed", self.device)

    def _on_ack(self, seq: int) -> None:
        with self._lock:
            for name, slot in list(self._slots.items()):
                if slot.seq == seq and slot.awaiting_ack:
                    slot.acked = True
                    if not slot.sticky:
                        del self._slots[name]
                    return

    def _service(self, port: SerialPort, now: float) -> None:
        if self._handshaking:
            if now - self._hello_sent_at >= self._ack_timeout:
                if self._hello_tries >= self._retries:
                    raise LinkError(
                        f"{self.device} at {self.port} does not answer "
                        f"(no reply to {self._retries + 1} handshakes)"
                    )
                self._hello_tries += 1
                self._counts["retransmits"] += 1
                self._send_hello(port, now)
            return
        writes: list[bytes] = []
        with self._lock:
            awaiting = False
            for name, slot in self._slots.items():
                if slot.sent_version != slot.version:
                    slot.seq = self._next_seq()
                    slot.sent_version = slot.version
                    slot.acked = False
                    slot.sent_at = now
                    slot.tries = 0
                    writes.append(slot.message.encode(slot.seq))
                elif slot.awaiting_ack and now - slot.sent_at >= self._ack_timeout:
                    if slot.tries >= self._retries:
                        raise LinkError(
                            f"{self.device} at {self.port} stopped answering "
                            f"({name}: no acknowledgement after {self._retries + 1} tries)"
                        )
                    slot.tries += 1
                    slot.sent_at = now
                    self._counts["retransmits"] += 1
                    writes.append(slot.message.encode(slot.seq))
                awaiting = awaiting or slot.awaiting_ack
            if not awaiting and now - self._last_heard >= self._ping_interval:
                ping = _Slot(Ping(), sticky=False)
                ping.seq = self._next_seq()
                ping.sent_version = 0
                ping.sent_at = now
                self._slots["ping"] = ping
                writes.append(ping.message.encode(ping.seq))
        for data in writes:
            port.write(data)

    def _on_drop(self, reason: str, count: int) -> None:
        self._drop_log.note(reason, count)

    def _raise_fault(self, message: str) -> None:
        self._connected.clear()
        if message == self._fault_message:
            return
        self._fault_message = message
        self._counts["faults"] += 1
        logger.error("%s", message)
        self._events.put(DeviceFault(device=self.device, message=message))
