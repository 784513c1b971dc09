"""A noisy serial line, for fuzzing the decoders: good frames mixed with garbage,
torn frames, damaged frames, frames of unknown types and malformed payloads.

``noisy_stream`` builds one such byte stream from a ``random.Random`` and says what a
correct receiver must make of it: the good messages in order, and how many unknown and
malformed frames it must count. It avoids the one thing no CRC can promise: noise that
happens to form a valid frame overlapping a good one (about one torn frame in 65,536
followed by the right bytes); such a stream is built again.

``decode_stream`` runs bytes through the receive path a driver uses (``FrameDecoder``
and the protocol's ``Codec``), in chunks, and returns what came out.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..display import MAX_LINE, ClockMessage, LampTestMessage, TextMessage
from ..errors import BadPayload, UnknownFrameType
from ..events import KEYS
from ..frames import CRC_SIZE, MAX_PAYLOAD, OVERHEAD, SYNC, FrameDecoder, crc16, encode_frame
from ..keypad import KeyMessage
from ..messages import Ack, Codec, Hello, Ident, Message, Ping
from ..tray import MAX_DENOMINATIONS, CountsMessage, RequestCounts

PRINTABLE = "".join(chr(code) for code in range(0x20, 0x7F))

MessageMaker = Callable[[random.Random], Message]


def _text(rng: random.Random) -> str:
    return "".join(rng.choices(PRINTABLE, k=rng.randint(0, MAX_LINE)))


def _counts(rng: random.Random) -> dict[int, int]:
    values = rng.sample(range(1, 1_000_000), rng.randint(0, MAX_DENOMINATIONS))
    return {value: rng.randint(0, 0xFFFF) for value in values}


MAKERS: dict[type[Message], MessageMaker] = {
    Hello: lambda rng: Hello(rng.randint(0, 255), rng.randint(0, 255)),
    Ident: lambda rng: Ident(
        rng.choice(b"KTD"), 1, rng.randint(0, 9), rng.randint(0, 0xFFFF), _text(rng)[:32]
    ),
    Ping: lambda rng: Ping(),
    Ack: lambda rng: Ack(),
    KeyMessage: lambda rng: KeyMessage(rng.choice(KEYS)),
    CountsMessage: lambda rng: CountsMessage(_counts(rng)),
    RequestCounts: lambda rng: RequestCounts(),
    ClockMessage: lambda rng: ClockMessage(
        rng.choice([None, rng.randint(0, 0xFFFFFFFF)]), rng.random() < 0.5
    ),
    TextMessage: lambda rng: TextMessage(_text(rng), _text(rng)),
    LampTestMessage: lambda rng: LampTestMessage(rng.randint(0, 0xFFFF)),
}

#: Payloads each message type must refuse (``BadPayload``).
BAD_PAYLOADS: dict[type[Message], Callable[[random.Random], bytes]] = {
    Hello: lambda rng: rng.randbytes(rng.choice([0, 1, 3])),
    Ident: lambda rng: rng.randbytes(rng.randint(0, 4)),
    Ping: lambda rng: rng.randbytes(rng.randint(1, 4)),
    Ack: lambda rng: rng.randbytes(rng.randint(1, 4)),
    KeyMessage: lambda rng: bytes((rng.choice([0x00, 0x7F, 0xFF, 0x47]),)),
    CountsMessage: lambda rng: rng.randbytes(rng.choice([1, 5, 7])),
    RequestCounts: lambda rng: rng.randbytes(rng.randint(1, 4)),
    ClockMessage: lambda rng: bytes((0x04 | rng.randint(0, 3),)) + rng.randbytes(4),
    TextMessage: lambda rng: bytes((41,)) + b"A" * 41,
    LampTestMessage: lambda rng: rng.randbytes(rng.choice([0, 1, 3])),
}


@dataclass
class NoisyStream:
    """A byte stream and what a correct receiver makes of it."""

    data: bytes = b""
    good: list[tuple[int, Message]] = field(default_factory=list)
    unknown: int = 0
    bad_payload: int = 0
    damaged: int = 0  # broken frames that keep their sync pair: each costs a drop
    starts: set[int] = field(default_factory=set)  # where intended frames begin


def _noise(rng: random.Random) -> bytes:
    kind = rng.random()
    if kind < 0.5:
        return rng.randbytes(rng.randint(1, 40))
    if kind < 0.8:  # sync pairs followed by junk: false starts
        return SYNC + rng.randbytes(rng.randint(0, 10))
    # A plausible header with a good ~LEN that leads nowhere.
    size = rng.randint(0, MAX_PAYLOAD)
    return SYNC + bytes((size, size ^ 0xFF)) + rng.randbytes(rng.randint(0, 6))


def noisy_stream(
    codec: Codec, rng: random.Random, *, frames: int, at_host: bool, noise: float = 0.5
) -> NoisyStream:
    """``frames`` good frames of ``codec`` (to the host, or to the device), with about
    ``noise`` chunks of trouble per good frame placed before each."""
    table = codec.host_bound if at_host else codec.device_bound
    classes = list(table.values())
    other = codec.device_bound if at_host else codec.host_bound
    unknown_types = [t for t in range(256) if t not in table]
    wrong_way = [t for t in other if t not in table] or unknown_types
    out = bytearray()
    stream = NoisyStream()
    for _ in range(frames):
        while True:
            piece = _piece(rng, classes, unknown_types, wrong_way, noise)
            start = len(out)
            out += piece.data
            if not any(_accidental_frames(out, start, {start + at for at in piece.starts})):
                break
            del out[start:]  # noise made a valid frame by chance: roll again
        stream.good += piece.good
        stream.unknown += piece.unknown
        stream.bad_payload += piece.bad_payload
        stream.damaged += piece.damaged
        stream.starts.update(start + at for at in piece.starts)
    stream.data = bytes(out)
    return stream


def _piece(
    rng: random.Random,
    classes: list[type[Message]],
    unknown_types: list[int],
    wrong_way: list[int],
    noise: float,
) -> NoisyStream:
    """Some trouble, then one good frame."""
    out = bytearray()
    piece = NoisyStream()
    while rng.random() < noise:
        trouble = rng.random()
        seq = rng.getrandbits(8)
        if trouble < 0.35:
            out += _noise(rng)
        elif trouble < 0.75:
            frame = MAKERS[rng.choice(classes)](rng).encode(seq)
            if rng.random() < 0.5:  # torn
                cut = rng.randint(1, len(frame) - 1)
                piece.damaged += cut >= 2
                out += frame[:cut]
            else:  # one bit flipped, or one byte lost
                position = rng.randrange(len(frame))
                if rng.random() < 0.5:
                    flipped = frame[position] ^ (1 << rng.randrange(8))
                    frame = frame[:position] + bytes((flipped,)) + frame[position + 1 :]
                else:
                    frame = frame[:position] + frame[position + 1 :]
                piece.damaged += position >= 2
                out += frame
        elif trouble < 0.9:
            frame_type = rng.choice(wrong_way if rng.random() < 0.3 else unknown_types)
            piece.starts.add(len(out))
            out += encode_frame(seq, frame_type, rng.randbytes(rng.randint(0, 20)))
            piece.unknown += 1
        else:
            cls = rng.choice(classes)
            piece.starts.add(len(out))
            out += encode_frame(seq, cls.TYPE, BAD_PAYLOADS[cls](rng))
            piece.bad_payload += 1
    seq = rng.getrandbits(8)
    message = MAKERS[rng.choice(classes)](rng)
    piece.starts.add(len(out))
    out += message.encode(seq)
    piece.good.append((seq, message))
    piece.data = bytes(out)
    return piece


def _accidental_frames(data: bytearray, start: int, meant: set[int]) -> Iterator[int]:
    """Offsets of valid frames nobody meant to put there, among those that end after
    ``start`` (the bytes just added); ``meant`` are the intended frames there."""
    position = data.find(SYNC, max(0, start - MAX_PAYLOAD - OVERHEAD))
    while position >= 0:
        if position not in meant and position + 4 <= len(data):
            size = data[position + 2]
            end = position + size + OVERHEAD
            if (
                end > start
                and data[position + 3] == size ^ 0xFF
                and size <= MAX_PAYLOAD
                and end <= len(data)
                and crc16(data[position + 2 : end - CRC_SIZE])
                == int.from_bytes(data[end - 2 : end])
            ):
                yield position
        position = data.find(SYNC, position + 1)


@dataclass
class Decoded:
    """What the receive path made of a stream."""

    messages: list[tuple[int, Message]]
    unknown: int
    bad_payload: int
    decoder: FrameDecoder


def decode_stream(
    codec: Codec, data: bytes, *, at_host: bool, chunks: list[int] | None = None
) -> Decoded:
    """Run ``data`` through a ``FrameDecoder`` in chunks of the given sizes (the rest
    at once), flush it as a silence would, and parse every frame with ``codec``."""
    decoder = FrameDecoder()
    result = Decoded([], 0, 0, decoder)
    offset = 0
    pieces: list[bytes] = []
    for size in chunks or ():
        pieces.append(data[offset : offset + size])
        offset += size
    pieces.append(data[offset:])
    frames = []
    for piece in pieces:
        frames += decoder.feed(piece)
    frames += decoder.flush()
    for frame in frames:
        try:
            received = codec.parse(frame, at_host=at_host)
        except UnknownFrameType:
            result.unknown += 1
        except BadPayload:
            result.bad_payload += 1
        else:
            result.messages.append((received.seq, received.message))
    return result
