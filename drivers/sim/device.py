"""The device side of the serial protocols, as a small program on a thread.

``SimSerialDevice`` plays what a device's microcontroller does: it answers HELLO with
IDENT, acknowledges what needs it, sends its own acknowledged frames and repeats them
until acknowledged. Subclasses add the device's behaviour (keys, counts, display).

Everything that touches the pty happens on the device's thread; the public methods
post requests to it. Scripting hooks for tests and bench mode:

- ``unplug()`` / ``replug()``: the cable (and the device's power) goes away and comes
  back at the same path; the device restarts with a new boot id.
- ``restart()``: the device resets but the cable stays (it must ask for a handshake).
- ``send_garbage(data)`` / ``send_raw(data)``: bytes on the wire as they are.
- ``drop_outgoing(n)``, ``corrupt_outgoing(n)``, ``drop_incoming(n)``: lose or damage
  the next ``n`` frames in either direction.
- ``mute(True)``: stop answering altogether (a hung microcontroller).
- ``identify_as(kind=..., major=...)``: answer the handshake as another device kind or
  protocol version.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from drivers.closing import Closing

from ..errors import ProtocolError
from ..frames import DecoderCounters, Frame, FrameDecoder
from ..messages import PROTOCOL_MAJOR, PROTOCOL_MINOR, Ack, Codec, Hello, Ident, Message
from .pty_port import PtyPort

logger = logging.getLogger(__name__)

DEVICE_ACK_TIMEOUT = 0.1


@dataclass(slots=True)
class _Outgoing:
    """A frame the simulated device sent and still waits to see acknowledged."""

    seq: int
    frame: bytes
    sent_at: float


class SimSerialDevice(Closing):
    """A simulated serial device speaking ``codec`` on a pty published at ``path``."""

    def __init__(
        self,
        *,
        codec: Codec,
        path: Path,
        firmware: str = "sim-1.0",
        ack_timeout: float = DEVICE_ACK_TIMEOUT,
    ) -> None:
        self.codec = codec
        self.name = codec.name
        self.firmware = firmware
        self._ack_timeout = ack_timeout
        self._port = PtyPort(path)
        self._decoder = FrameDecoder()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._requests: deque[Callable[[], None]] = deque()
        self._stop = threading.Event()
        self._session = threading.Event()
        self._changed = threading.Condition()
        self._seq = 0
        self._boot_id = int.from_bytes(os.urandom(2))
        self._outgoing: dict[str, _Outgoing] = {}
        self._kind = codec.kind
        self._major = PROTOCOL_MAJOR
        self._drop_out = 0
        self._corrupt_out = 0
        self._drop_in = 0
        self._drop_in_only: type[Message] | None = None
        self._muted = False
        self.handshakes = 0
        self.unknown_frames = 0
        self._port.plug()
        self._thread = threading.Thread(target=self._run, name=f"sim-{self.name}", daemon=True)
        self._thread.start()

    # -- scripting (any thread) ---------------------------------------------------------

    @property
    def path(self) -> str:
        """Where the driver opens this device (a symlink to the current pty)."""
        return str(self._port.path)

    @property
    def in_session(self) -> bool:
        return self._session.is_set()

    def wait_session(self, timeout: float = 10.0) -> bool:
        """Block until the driver has shaken hands with this device."""
        return self._session.wait(timeout)

    @property
    def counters(self) -> DecoderCounters:
        """What this device's decoder has seen of the driver's bytes."""
        return self._decoder.counters

    def unplug(self, timeout: float = 10.0) -> None:
        self._call(self._do_unplug, timeout)

    def replug(self, timeout: float = 10.0) -> None:
        self._call(self._do_replug, timeout)

    def restart(self, timeout: float = 10.0) -> None:
        """Reset the microcontroller without pulling the cable (a brown-out): it
        forgets its session and must be asked for a new one."""
        self._call(self._do_restart, timeout)

    @property
    def plugged(self) -> bool:
        return self._port.plugged

    def send_garbage(self, data: bytes) -> None:
        """Put ``data`` on the wire as is (noise, torn frames, anything)."""
        self._post(lambda: self._write(data))

    send_raw = send_garbage

    def drop_outgoing(self, count: int = 1) -> None:
        """Lose the next ``count`` frames this device sends (ACKs included)."""
        self._call(lambda: self._set("_drop_out", count))

    def corrupt_outgoing(self, count: int = 1) -> None:
        """Damage one bit in each of the next ``count`` frames this device sends."""
        self._call(lambda: self._set("_corrupt_out", count))

    def drop_incoming(self, count: int = 1, *, only: type[Message] | None = None) -> None:
        """Ignore the next ``count`` intact frames from the driver (of type ``only``,
        if given), as if lost."""

        def change() -> None:
            self._drop_in = count
            self._drop_in_only = only

        self._call(change)

    def mute(self, muted: bool = True) -> None:
        """Stop (or resume) answering anything."""
        self._call(lambda: self._set("_muted", muted))

    def identify_as(self, *, kind: str | None = None, major: int | None = None) -> None:
        """Answer handshakes as another device kind or protocol major version."""

        def change() -> None:
            self._kind = ord(kind) if kind is not None else self.codec.kind
            self._major = major if major is not None else PROTOCOL_MAJOR

        self._call(change)

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
        """Block until ``predicate()`` holds (checked whenever the device state changes)."""
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    def close(self) -> None:
        self._stop.set()
        self._wake()
        if self._thread.is_alive():
            self._thread.join(10.0)
        self._port.unplug()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    # -- for subclasses (device thread) ---------------------------------------------

    def on_session(self) -> None:
        """A session started: the host shook hands."""

    def on_message(self, message: Message) -> None:
        """A message from the host arrived (already acknowledged if it needs it)."""

    def on_acked(self, slot: str) -> None:
        """The host acknowledged the frame last sent from ``slot``."""

    def on_unplug(self) -> None:
        """Power went away: forget what a microcontroller would forget."""

    def on_tick(self, now: float) -> float | None:
        """Called on every loop turn; returns when it next wants to be called."""
        return None

    def send_acked(self, slot: str, message: Message) -> None:
        """Send ``message`` as the latest of ``slot`` and repeat it until acknowledged.
        Held back until the host has shaken hands."""
        seq = self._next_seq()
        pending = _Outgoing(seq, message.encode(seq), 0.0)
        self._outgoing[slot] = pending
        if self._session.is_set():
            pending.sent_at = time.monotonic()
            self._write_frame(pending.frame)

    def slot_busy(self, slot: str) -> bool:
        return slot in self._outgoing

    def notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def _post(self, request: Callable[[], None]) -> None:
        self._requests.append(request)
        self._wake()

    def _call(self, request: Callable[[], None], timeout: float = 10.0) -> None:
        done = threading.Event()

        def run() -> None:
            try:
                request()
            finally:
                done.set()

        self._post(run)
        if threading.current_thread() is not self._thread and not done.wait(timeout):
            raise TimeoutError(f"simulated {self.name} did not answer a request")

    # -- the device thread ------------------------------------------------------------

    def _set(self, name: str, value: object) -> None:
        setattr(self, name, value)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFF
        return self._seq

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._turn()
            except Exception:  # keep the simulated device alive whatever happens
                logger.exception("simulated %s failed", self.name)

    def _turn(self) -> None:
        # Sleep until something is due (a resend, the subclass's next tick), bytes
        # arrive, or a request is posted: an idle device does not wake at all.
        now = time.monotonic()
        dues = [self.on_tick(now)]
        if self._session.is_set():
            dues += [pending.sent_at + self._ack_timeout for pending in self._outgoing.values()]
        deadline = min((due for due in dues if due is not None), default=None)
        fds = [self._wake_r]
        master = self._port.fd
        if master is not None:
            fds.append(master)
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        readable, _, _ = select.select(fds, [], [], timeout)
        if self._wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 4096)
        while self._requests:
            self._requests.popleft()()
        if master is not None and master in readable and self._port.fd == master:
            data = self._port.read()
            if data:
                for frame in self._decoder.feed(data):
                    self._receive(frame)
        self._retransmit(time.monotonic())

    def _retransmit(self, now: float) -> None:
        if not self._session.is_set() or self._muted:
            return
        for pending in self._outgoing.values():
            if now - pending.sent_at >= self._ack_timeout:
                pending.sent_at = now
                self._write_frame(pending.frame)

    def _receive(self, frame: Frame) -> None:
        try:
            received = self.codec.parse(frame, at_host=False)
        except ProtocolError:
            self.unknown_frames += 1
            return
        if self._muted:
            return
        message = received.message
        if self._drop_in and (self._drop_in_only is None or type(message) is self._drop_in_only):
            self._drop_in -= 1
            return
        if isinstance(message, Hello):
            self._answer_hello(received.seq, message)
        elif not self._session.is_set():
            self._send_ident(received.seq)  # "I need a handshake"
        elif isinstance(message, Ack):
            for slot, pending in list(self._outgoing.items()):
                if pending.seq == received.seq:
                    del self._outgoing[slot]
                    self.on_acked(slot)
                    break
        else:
            self.on_message(message)
            if message.ACKED:  # after acting on it: an ACK means "done"
                self._write_frame(Ack().encode(received.seq))
        self.notify()

    def _answer_hello(self, seq: int, hello: Hello) -> None:
        if hello.major != self._major or self._kind != self.codec.kind:
            self._send_ident(seq)
            self._session.clear()
            return
        # Counted before the reply goes out: the driver may connect (and a test read the
        # count) as soon as it has the reply.
        self.handshakes += 1
        self._send_ident(seq)
        self._session.set()
        now = time.monotonic()
        for pending in self._outgoing.values():
            pending.sent_at = now
            self._write_frame(pending.frame)
        self.on_session()

    def _send_ident(self, seq: int) -> None:
        ident = Ident(self._kind, self._major, PROTOCOL_MINOR, self._boot_id, self.firmware)
        self._write_frame(ident.encode(seq))

    def _write_frame(self, frame: bytes) -> None:
        if self._drop_out:
            self._drop_out -= 1
            return
        if self._corrupt_out:
            self._corrupt_out -= 1
            frame = frame[:-1] + bytes((frame[-1] ^ 0x01,))
        self._write(frame)

    def _write(self, data: bytes) -> None:
        while data:
            written = self._port.write(data)
            if written <= 0:
                return  # nobody is reading: lost, as on a real line
            data = data[written:]

    def _do_unplug(self) -> None:
        self._port.unplug()
        self._session.clear()
        self._outgoing.clear()
        self._decoder.reset()
        self.on_unplug()
        self.notify()

    def _do_restart(self) -> None:
        self._session.clear()
        self._outgoing.clear()
        self._decoder.reset()
        self.on_unplug()
        self._boot_id = (self._boot_id + 1) & 0xFFFF
        self._seq = 0
        self.notify()

    def _do_replug(self) -> None:
        if self._port.plugged:
            return
        self._boot_id = (self._boot_id + 1) & 0xFFFF
        self._seq = 0
        self._port.plug()
        self.notify()
