from __future__ import annotations

import pytest

from drivers.display import DISPLAY
from drivers.errors import BadPayload, UnknownFrameType
from drivers.frames import Frame
from drivers.keypad import KEYPAD, KeyMessage
from drivers.messages import PROTOCOL_MAJOR, Ack, Hello, Ident, Message, Ping
from drivers.tray import TRAY


@pytest.mark.parametrize(
    "message",
    [
        Hello(),
        Hello(3, 7),
        Ident(ord("K"), 1, 0, 0xBEEF, "fw 2.1"),
        Ident(ord("T"), 1, 2, 0),
        Ping(),
        Ack(),
    ],
)
def test_shared_messages_round_trip(message: Message) -> None:
    frame = Frame(9, message.TYPE, message.payload())
    at_host = isinstance(message, (Ident, Ack))
    received = KEYPAD.parse(frame, at_host=at_host)
    assert received.seq == 9 and received.message == message


@pytest.mark.parametrize(
    ("frame_type", "payload", "at_host", "error"),
    [
        (Hello.TYPE, b"\x01", False, "HELLO payload is 1 bytes, expected 2"),
        (Ident.TYPE, b"K\x01", True, "IDENT payload is 2 bytes, expected 5 to 37"),
        (Ident.TYPE, b"K\x01\x00\x00\x01\xff", True, "IDENT firmware holds bytes"),
        (Ping.TYPE, b"x", False, "PING payload is 1 bytes, expected 0"),
        (Ack.TYPE, b"x", True, "ACK payload is 1 bytes, expected 0"),
    ],
)
def test_shared_bad_payloads(frame_type: int, payload: bytes, at_host: bool, error: str) -> None:
    with pytest.raises(BadPayload, match=error):
        KEYPAD.parse(Frame(1, frame_type, payload), at_host=at_host)


def test_each_direction_has_its_own_types() -> None:
    key = KeyMessage("FOLD")
    assert KEYPAD.parse(Frame(1, key.TYPE, key.payload()), at_host=True).message == key
    with pytest.raises(UnknownFrameType, match="no frame type 0x10 to keypad"):
        KEYPAD.parse(Frame(1, key.TYPE, key.payload()), at_host=False)
    with pytest.raises(UnknownFrameType, match="no frame type 0x01 to host"):
        KEYPAD.parse(Frame(1, Hello.TYPE, Hello().payload()), at_host=True)


def test_unknown_type_is_a_protocol_error_and_a_value_error() -> None:
    with pytest.raises(ValueError):
        TRAY.parse(Frame(1, 0xEE, b""), at_host=True)


def test_kinds_and_version() -> None:
    assert (chr(KEYPAD.kind), chr(TRAY.kind), chr(DISPLAY.kind)) == ("K", "T", "D")
    assert PROTOCOL_MAJOR == 1
