"""The RFID chip tray reader: its serial protocol and its driver.

Protocol (kind ``T``; shared frames in ``messages.py``, layout in ``docs/protocols.md``):

====  ==============  ========  ===================================================
type  name            dir       payload
====  ==============  ========  ===================================================
0x20  COUNTS          dev→host  0..21 entries of chip value (u32 BE, > 0, strictly
                                ascending) and count (u16 BE); acknowledged. Sent
                                on change and every second; a newer reading
                                replaces an unacknowledged older one.
0x21  REQUEST_COUNTS  host→dev  empty; acknowledged; the tray sends COUNTS now
====  ==============  ========  ===================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from .errors import BadPayload
from .events import EventSink, TrayCounts
from .frames import MAX_PAYLOAD
from .messages import Codec, Message, expect_size
from .serial_device import SerialDevice
from .settings import SerialDeviceSettings

ENTRY_SIZE = 6
MAX_DENOMINATIONS = MAX_PAYLOAD // ENTRY_SIZE
MAX_VALUE = 0xFFFFFFFF
MAX_COUNT = 0xFFFF


@dataclass(frozen=True)
class CountsMessage(Message):
    """A tray reading: chip value -> count."""

    TYPE: ClassVar[int] = 0x20
    counts: dict[int, int] = field(default_factory=dict)

    def payload(self) -> bytes:
        if len(self.counts) > MAX_DENOMINATIONS:
            raise ValueError(f"at most {MAX_DENOMINATIONS} chip values fit in one reading")
        out = bytearray()
        for value, count in sorted(self.counts.items()):
            out += value.to_bytes(4, "big") + count.to_bytes(2, "big")
        return bytes(out)

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        if len(payload) % ENTRY_SIZE:
            raise BadPayload(f"COUNTS payload of {len(payload)} bytes is not whole entries")
        counts: dict[int, int] = {}
        previous = 0
        for offset in range(0, len(payload), ENTRY_SIZE):
            value = int.from_bytes(payload[offset : offset + 4])
            if value <= previous:
                raise BadPayload("COUNTS chip values must be above 0 and ascending")
            counts[value] = int.from_bytes(payload[offset + 4 : offset + 6])
            previous = value
        return cls(counts)


@dataclass(frozen=True, slots=True)
class RequestCounts(Message):
    """The host asks for a reading now."""

    TYPE: ClassVar[int] = 0x21

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        expect_size("REQUEST_COUNTS", payload, 0)
        return cls()


TRAY = Codec.build(
    name="tray", kind="T", host_bound=(CountsMessage,), device_bound=(RequestCounts,)
)


class SerialChipTray(SerialDevice):
    """The tray reader on a serial port: puts ``TrayCounts`` on the queue when the
    counts change, and the first reading after every handshake."""

    device = "tray"

    def __init__(
        self,
        settings: SerialDeviceSettings,
        events: EventSink,
        *,
        port: str | None = None,
        **link_options: Any,
    ) -> None:
        self._events = events
        self._counts: dict[int, int] | None = None
        self._report_next = True
        super().__init__(
            settings,
            events,
            codec=TRAY,
            on_message=self._on_message,
            on_session=self._on_session,
            port=port,
            **link_options,
        )
        self._start()

    @property
    def counts(self) -> dict[int, int] | None:
        """The latest reading, or None before the first."""
        return None if self._counts is None else dict(self._counts)

    def request_counts(self) -> None:
        """Ask the tray for a fresh reading (reported even if unchanged)."""
        self._report_next = True
        self._link.send("request", RequestCounts(), sticky=False)

    def _on_session(self) -> None:
        self.request_counts()

    def _on_message(self, message: Message) -> None:
        if not isinstance(message, CountsMessage):
            return
        if self._report_next or message.counts != self._counts:
            self._report_next = False
            self._counts = dict(message.counts)
            self._events.put(TrayCounts(counts=message.counts))
