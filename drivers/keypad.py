"""The dealer keypad: its serial protocol and its driver.

Protocol (kind ``K``; shared frames in ``messages.py``, layout in ``docs/protocols.md``):

====  =====  ========  ===========================================================
type  name   dir       payload
====  =====  ========  ===========================================================
0x10  KEY    dev→host  one key code (``KEY_CODES``); acknowledged, sent one at a
                       time: the next key waits for the previous key's ACK
====  =====  ========  ===========================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Self

from .errors import BadPayload
from .events import KEYS, EventSink, KeyPressed
from .messages import Codec, Message, expect_size
from .serial_device import SerialDevice
from .settings import SerialDeviceSettings

#: Key name -> the byte the keypad sends. Digits are their ASCII characters.
KEY_CODES: Mapping[str, int] = MappingProxyType(
    {
        **{str(digit): 0x30 + digit for digit in range(10)},
        "FOLD": ord("F"),
        "CHECK": ord("C"),
        "BET": ord("B"),
        "ALLIN": ord("A"),
        "ENTER": ord("E"),
        "CLEAR": ord("X"),
        "CLOCK": ord("T"),
        "NEXT": ord("N"),
        "FUNC": ord("U"),
    }
)
KEY_NAMES: Mapping[int, str] = MappingProxyType({code: key for key, code in KEY_CODES.items()})
assert set(KEY_CODES) == set(KEYS)


@dataclass(frozen=True, slots=True)
class KeyMessage(Message):
    """One key press."""

    TYPE: ClassVar[int] = 0x10
    key: str

    def payload(self) -> bytes:
        return bytes((KEY_CODES[self.key],))

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        expect_size("KEY", payload, 1)
        key = KEY_NAMES.get(payload[0])
        if key is None:
            raise BadPayload(f"KEY code 0x{payload[0]:02X} is not a key")
        return cls(key)


KEYPAD = Codec.build(name="keypad", kind="K", host_bound=(KeyMessage,), device_bound=())


class SerialKeypad(SerialDevice):
    """The keypad on a serial port: puts ``KeyPressed`` on the queue, in order, once."""

    device = "keypad"

    def __init__(
        self,
        settings: SerialDeviceSettings,
        events: EventSink,
        *,
        port: str | None = None,
        **link_options: Any,
    ) -> None:
        self._events = events
        super().__init__(
            settings,
            events,
            codec=KEYPAD,
            on_message=self._on_message,
            port=port,
            **link_options,
        )
        self._start()

    def _on_message(self, message: Message) -> None:
        if isinstance(message, KeyMessage):
            self._events.put(KeyPressed(key=message.key))
