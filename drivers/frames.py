"""Framing shared by the three serial protocols (see ``docs/protocols.md``).

Theory of operation
-------------------
A frame on the wire::

    A5 5A  LEN  ~LEN  SEQ  TYPE  PAYLOAD (LEN bytes)  CRC_HI CRC_LO

``LEN`` is the payload length (0..MAX_PAYLOAD), ``~LEN`` its complement (a cheap header
check, so a stray sync pair in noise is rejected at once instead of making the decoder
wait for a long frame that never comes). The CRC is CRC-16/CCITT-FALSE
(``binascii.crc_hqx`` with initial value 0xFFFF) over LEN..PAYLOAD, big-endian.

The decoder scans for the sync pair. A candidate that fails the header check or the CRC
is dropped by skipping only its first byte and scanning again, so a good frame that
starts inside a bad candidate (a torn frame followed by a good one) is still found.
After a silence (``flush``), whatever is buffered can never complete: good frames still
inside it are decoded and the rest is counted as torn or garbage.

The decoder never raises on input bytes; every drop is counted in ``DecoderCounters``
and reported to an optional ``on_drop(reason, count)`` callback.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable
from dataclasses import dataclass

SYNC = b"\xa5\x5a"
HEADER_SIZE = 6  # sync (2), LEN, ~LEN, SEQ, TYPE
CRC_SIZE = 2
OVERHEAD = HEADER_SIZE + CRC_SIZE
MAX_PAYLOAD = 128
CRC_INIT = 0xFFFF

DropCallback = Callable[[str, int], None]


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF (check value 0x29B1)."""
    return binascii.crc_hqx(data, CRC_INIT)


@dataclass(frozen=True, slots=True)
class Frame:
    """One intact frame: its sequence number, type and payload."""

    seq: int
    type: int
    payload: bytes


def encode_frame(seq: int, frame_type: int, payload: bytes = b"") -> bytes:
    """The bytes of one frame. Raises ValueError for out-of-range fields."""
    size = len(payload)
    if size > MAX_PAYLOAD:
        raise ValueError(f"payload of {size} bytes is over the {MAX_PAYLOAD}-byte limit")
    if not 0 <= seq <= 0xFF or not 0 <= frame_type <= 0xFF:
        raise ValueError(f"seq {seq} and type {frame_type} must each fit in one byte")
    body = bytes((size, size ^ 0xFF, seq, frame_type)) + payload
    return SYNC + body + crc16(body).to_bytes(2, "big")


@dataclass(slots=True)
class DecoderCounters:
    """What a decoder has seen. ``dropped`` is every candidate frame it threw away."""

    frames: int = 0
    bad_header: int = 0
    bad_crc: int = 0
    torn: int = 0
    garbage_bytes: int = 0

    @property
    def dropped(self) -> int:
        return self.bad_header + self.bad_crc + self.torn


class FrameDecoder:
    """Bytes in, intact frames out; resynchronises after anything else."""

    def __init__(self, on_drop: DropCallback | None = None) -> None:
        self._buffer = bytearray()
        self._on_drop = on_drop
        self.counters = DecoderCounters()

    @property
    def pending(self) -> int:
        """Bytes held while waiting for the rest of a frame."""
        return len(self._buffer)

    def reset(self) -> None:
        """Forget buffered bytes (a new session on a reopened port); keep the counters."""
        self._buffer.clear()

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame]:
        """Add received bytes; return the frames they complete, in order."""
        self._buffer += data
        return self._scan()

    def flush(self) -> list[Frame]:
        """The line went quiet: nothing buffered will be completed. Return the intact
        frames still inside the buffer and drop the rest."""
        frames: list[Frame] = []
        buffer = self._buffer
        while buffer:
            frames += self._scan()
            if not buffer:
                break
            if buffer.startswith(SYNC):
                self._drop("torn", 1)
                self._skip(1, garbage=False)
            else:
                self._skip(len(buffer), garbage=True)
        return frames

    def _drop(self, reason: str, count: int) -> None:
        if reason == "torn":
            self.counters.torn += count
        elif reason == "bad_header":
            self.counters.bad_header += count
        elif reason == "bad_crc":
            self.counters.bad_crc += count
        else:
            self.counters.garbage_bytes += count
        if self._on_drop is not None:
            self._on_drop(reason, count)

    def _skip(self, count: int, *, garbage: bool) -> None:
        if garbage and count:
            self._drop("garbage_bytes", count)
        del self._buffer[:count]

    def _scan(self) -> list[Frame]:
        frames: list[Frame] = []
        buffer = self._buffer
        while True:
            start = buffer.find(SYNC)
            if start < 0:
                # Keep a trailing first sync byte: its partner may be on its way.
                keep = 1 if buffer and buffer[-1] == SYNC[0] else 0
                self._skip(len(buffer) - keep, garbage=True)
                return frames
            if start:
                self._skip(start, garbage=True)
            if len(buffer) < 4:
                return frames
            size = buffer[2]
            if buffer[3] != size ^ 0xFF or size > MAX_PAYLOAD:
                self._drop("bad_header", 1)
                self._skip(1, garbage=False)
                continue
            end = size + OVERHEAD
            if len(buffer) < end:
                return frames
            crc = crc16(buffer[2 : end - CRC_SIZE])
            if crc != (buffer[end - 2] << 8 | buffer[end - 1]):
                self._drop("bad_crc", 1)
                self._skip(1, garbage=False)
                continue
            frames.append(Frame(buffer[4], buffer[5], bytes(buffer[HEADER_SIZE : end - CRC_SIZE])))
            self.counters.frames += 1
            del buffer[:end]
