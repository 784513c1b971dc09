"""Messages carried in frames, and the parts every serial protocol shares.

Each protocol (keypad, tray, display) is a ``Codec``: the device kind it identifies as,
and two tables from frame type to message class, one per direction. The shared types:

====  =========  ==========  =================================================
type  name       direction   meaning
====  =========  ==========  =================================================
0x01  HELLO      host→dev    start a session; payload: protocol major, minor
0x02  IDENT      dev→host    answer to HELLO: kind, major, minor, boot id, firmware
0x03  PING       host→dev    are you there? (acknowledged)
0x06  ACK        both        the frame with this SEQ arrived; empty payload
====  =========  ==========  =================================================

Device types start at 0x10 (keypad), 0x20 (tray), 0x30 (display).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar, Self

from .errors import BadPayload, UnknownFrameType
from .frames import Frame, encode_frame

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 0
MAX_FIRMWARE = 32


class Message:
    """A frame's meaning. Subclasses are frozen dataclasses with a ``TYPE``."""

    TYPE: ClassVar[int]
    #: The receiver answers with ACK, the sender sends again until it does.
    ACKED: ClassVar[bool] = True

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        """Parse a payload; raises ``BadPayload`` if it is malformed."""
        raise NotImplementedError

    def encode(self, seq: int) -> bytes:
        return encode_frame(seq, self.TYPE, self.payload())


def expect_size(name: str, payload: bytes, size: int) -> None:
    if len(payload) != size:
        raise BadPayload(f"{name} payload is {len(payload)} bytes, expected {size}")


def ascii_text(name: str, raw: bytes) -> str:
    if any(byte < 0x20 or byte > 0x7E for byte in raw):
        raise BadPayload(f"{name} holds bytes that are not printable ASCII")
    return raw.decode("ascii")


@dataclass(frozen=True, slots=True)
class Hello(Message):
    """The host opens a session and says which protocol version it speaks."""

    TYPE: ClassVar[int] = 0x01
    ACKED: ClassVar[bool] = False  # IDENT is the answer
    major: int = PROTOCOL_MAJOR
    minor: int = PROTOCOL_MINOR

    def payload(self) -> bytes:
        return bytes((self.major, self.minor))

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        expect_size("HELLO", payload, 2)
        return cls(payload[0], payload[1])


@dataclass(frozen=True, slots=True)
class Ident(Message):
    """The device says what it is. ``boot_id`` changes every time the device starts,
    so the host knows whether sequence numbers carried over from a lost session."""

    TYPE: ClassVar[int] = 0x02
    ACKED: ClassVar[bool] = False
    kind: int
    major: int
    minor: int
    boot_id: int
    firmware: str = ""

    def payload(self) -> bytes:
        return (
            bytes((self.kind, self.major, self.minor))
            + self.boot_id.to_bytes(2, "big")
            + self.firmware.encode("ascii")[:MAX_FIRMWARE]
        )

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        if not 5 <= len(payload) <= 5 + MAX_FIRMWARE:
            raise BadPayload(f"IDENT payload is {len(payload)} bytes, expected 5 to 37")
        firmware = ascii_text("IDENT firmware", payload[5:])
        return cls(payload[0], payload[1], payload[2], int.from_bytes(payload[3:5]), firmware)


@dataclass(frozen=True, slots=True)
class Ping(Message):
    """Keep-alive from the host; the device acknowledges it."""

    TYPE: ClassVar[int] = 0x03

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        expect_size("PING", payload, 0)
        return cls()


@dataclass(frozen=True, slots=True)
class Ack(Message):
    """Acknowledges the frame whose sequence number is this frame's SEQ."""

    TYPE: ClassVar[int] = 0x06
    ACKED: ClassVar[bool] = False

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        expect_size("ACK", payload, 0)
        return cls()


@dataclass(frozen=True, slots=True)
class Received:
    """A parsed frame: its sequence number and its message."""

    seq: int
    message: Message


def _table(classes: tuple[type[Message], ...]) -> Mapping[int, type[Message]]:
    table = {cls.TYPE: cls for cls in classes}
    if len(table) != len(classes):
        raise ValueError("two message classes share a frame type")
    return MappingProxyType(table)


@dataclass(frozen=True)
class Codec:
    """One device protocol: what the device calls itself and which messages go where."""

    name: str
    kind: int  # the IDENT kind byte, an ASCII letter
    host_bound: Mapping[int, type[Message]]
    device_bound: Mapping[int, type[Message]]

    @classmethod
    def build(
        cls,
        *,
        name: str,
        kind: str,
        host_bound: tuple[type[Message], ...],
        device_bound: tuple[type[Message], ...],
    ) -> Codec:
        return cls(
            name=name,
            kind=ord(kind),
            host_bound=_table((Ident, Ack, *host_bound)),
            device_bound=_table((Hello, Ping, Ack, *device_bound)),
        )

    def parse(self, frame: Frame, *, at_host: bool) -> Received:
        """The message in a frame received by the host (or by the device).

        Raises ``UnknownFrameType`` or ``BadPayload``; nothing else.
        """
        table = self.host_bound if at_host else self.device_bound
        cls = table.get(frame.type)
        if cls is None:
            side = "host" if at_host else self.name
            raise UnknownFrameType(
                f"{self.name} protocol: no frame type 0x{frame.type:02X} to {side}"
            )
        try:
            return Received(frame.seq, cls.from_payload(frame.payload))
        except BadPayload:
            raise
        except (ValueError, IndexError, UnicodeError) as error:  # defensive: never escape
            raise BadPayload(f"{self.name} protocol: bad {cls.__name__} payload: {error}") from None
