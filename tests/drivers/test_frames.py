from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.frames import (
    MAX_PAYLOAD,
    SYNC,
    Frame,
    FrameDecoder,
    crc16,
    encode_frame,
)


def test_crc_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_frame_layout() -> None:
    frame = encode_frame(7, 0x20, b"\x01\x02")
    assert frame[:6] == bytes((0xA5, 0x5A, 2, 0xFD, 7, 0x20))
    assert frame[6:8] == b"\x01\x02"
    assert int.from_bytes(frame[8:]) == crc16(frame[2:8])


@pytest.mark.parametrize(
    ("seq", "frame_type", "payload"),
    [(256, 1, b""), (-1, 1, b""), (1, 256, b""), (1, 1, bytes(MAX_PAYLOAD + 1))],
)
def test_encode_refuses_what_does_not_fit(seq: int, frame_type: int, payload: bytes) -> None:
    with pytest.raises(ValueError):
        encode_frame(seq, frame_type, payload)


def test_decode_whole_and_byte_by_byte() -> None:
    frames = [encode_frame(n, n + 1, bytes(range(n))) for n in range(0, MAX_PAYLOAD + 1, 16)]
    stream = b"".join(frames)
    expected = [Frame(n, n + 1, bytes(range(n))) for n in range(0, MAX_PAYLOAD + 1, 16)]
    assert FrameDecoder().feed(stream) == expected
    decoder = FrameDecoder()
    out: list[Frame] = []
    for byte in stream:
        out += decoder.feed(bytes((byte,)))
    assert out == expected
    assert decoder.pending == 0
    assert decoder.counters.frames == len(expected) and decoder.counters.dropped == 0


def test_garbage_before_and_between_is_skipped_and_counted() -> None:
    good = encode_frame(1, 0x10, b"F")
    decoder = FrameDecoder()
    assert decoder.feed(b"\x00\xff" + good + b"junk" + good) == [Frame(1, 0x10, b"F")] * 2
    assert decoder.counters.garbage_bytes == 6
    assert decoder.counters.dropped == 0


def test_bad_header_is_dropped_at_once() -> None:
    good = encode_frame(2, 0x10, b"1")
    decoder = FrameDecoder()
    # A sync pair whose ~LEN does not match: dropped without waiting for a long frame.
    assert decoder.feed(SYNC + b"\x40\x00" + good) == [Frame(2, 0x10, b"1")]
    assert decoder.counters.bad_header == 1


def test_bad_crc_is_dropped_and_the_next_frame_found() -> None:
    good = encode_frame(3, 0x10, b"2")
    broken = bytearray(encode_frame(4, 0x10, b"3"))
    broken[-1] ^= 0xFF
    decoder = FrameDecoder()
    assert decoder.feed(bytes(broken) + good) == [Frame(3, 0x10, b"2")]
    assert decoder.counters.bad_crc == 1


def test_torn_frame_followed_by_a_good_one() -> None:
    torn = encode_frame(5, 0x31, b"\x05HELLOWORLD")[:9]
    good = encode_frame(6, 0x10, b"E")
    decoder = FrameDecoder()
    # The torn frame's length reaches past the good frame, so the CRC fails there and
    # the decoder backs up to find the good frame inside.
    assert decoder.feed(torn + good + bytes(20)) == [Frame(6, 0x10, b"E")]
    assert decoder.counters.bad_crc == 1


def test_silence_ends_a_torn_frame() -> None:
    long_frame = encode_frame(9, 0x31, bytes(100))
    good = encode_frame(10, 0x10, b"N")
    decoder = FrameDecoder()
    assert decoder.feed(long_frame[:20] + good) == []  # still waiting for 108 bytes
    assert decoder.flush() == [Frame(10, 0x10, b"N")]
    assert decoder.counters.torn == 1
    assert decoder.pending == 0


def test_flush_of_a_lone_sync_byte_is_garbage() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"\xa5") == []
    assert decoder.pending == 1  # may be the start of a sync pair
    assert decoder.flush() == []
    assert decoder.counters.garbage_bytes == 1 and decoder.counters.torn == 0


def test_drop_callback_sees_every_reason() -> None:
    seen: list[tuple[str, int]] = []
    decoder = FrameDecoder(on_drop=lambda reason, count: seen.append((reason, count)))
    broken = bytearray(encode_frame(1, 1))
    broken[-1] ^= 1
    decoder.feed(b"xy" + SYNC + b"\x01\x01" + bytes(broken) + encode_frame(2, 2)[:5])
    decoder.flush()
    reasons = {reason for reason, _ in seen}
    assert reasons == {"garbage_bytes", "bad_header", "bad_crc", "torn"}


def test_reset_forgets_the_buffer_not_the_counts() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"zz" + encode_frame(1, 1)[:4])
    decoder.reset()
    assert decoder.pending == 0
    assert decoder.counters.garbage_bytes == 2
    assert decoder.feed(encode_frame(2, 2)) == [Frame(2, 2, b"")]


@pytest.mark.slow  # a property test: out of the edit loop
@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=4000), cuts=st.lists(st.integers(1, 300), max_size=20))
def test_random_bytes_never_raise_and_only_valid_frames_come_out(
    data: bytes, cuts: list[int]
) -> None:
    decoder = FrameDecoder()
    frames: list[Frame] = []
    offset = 0
    for cut in cuts:
        frames += decoder.feed(data[offset : offset + cut])
        offset += cut
    frames += decoder.feed(data[offset:])
    frames += decoder.flush()
    assert decoder.pending == 0
    for frame in frames:
        assert encode_frame(frame.seq, frame.type, frame.payload) in data


@pytest.mark.slow  # a property test: out of the edit loop
@settings(max_examples=200, deadline=None)
@given(
    payloads=st.lists(st.binary(max_size=MAX_PAYLOAD), min_size=1, max_size=20),
    edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=10),
)
def test_mutated_streams_never_raise(payloads: list[bytes], edits: list[tuple[int, int]]) -> None:
    stream = bytearray(b"".join(encode_frame(n, n, p) for n, p in enumerate(payloads)))
    for position, value in edits:
        stream[position % len(stream)] = value
    decoder = FrameDecoder()
    frames = decoder.feed(bytes(stream)) + decoder.flush()
    for frame in frames:
        assert encode_frame(frame.seq, frame.type, frame.payload) in stream
    if not edits:
        assert [frame.payload for frame in frames] == payloads
