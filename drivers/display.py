"""The action-clock and dealer text display: its serial protocol and its driver.

Protocol (kind ``D``; shared frames in ``messages.py``, layout in ``docs/protocols.md``):

====  =========  ========  ==========================================================
type  name       dir       payload
====  =========  ========  ==========================================================
0x30  CLOCK      host→dev  flags (bit 0: digits shown, bit 1: warning), then the
                           milliseconds left (u32 BE; 0 when not shown); acknowledged
0x31  TEXT       host→dev  length of line 1 (u8), line 1, line 2; printable ASCII,
                           at most 40 characters a line; acknowledged
0x32  LAMP_TEST  host→dev  how long to light every segment and pixel, ms (u16 BE);
                           acknowledged
====  =========  ========  ==========================================================

Every update is acknowledged and repeated until it is; a newer update replaces an
unacknowledged older one of the same type. The display applies frames as states, so a
repeated frame does no harm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Self

from .errors import BadPayload
from .events import EventSink
from .messages import Codec, Message, ascii_text, expect_size
from .serial_device import SerialDevice
from .settings import SerialDeviceSettings

MAX_LINE = 40
MAX_CLOCK_MS = 0xFFFFFFFF
FLAG_SHOWN = 0x01
FLAG_WARNING = 0x02
DEFAULT_LAMP_TEST_MS = 2000


@dataclass(frozen=True, slots=True)
class ClockMessage(Message):
    """The countdown digits: ``ms`` left, or None for blank digits."""

    TYPE: ClassVar[int] = 0x30
    ms: int | None
    warning: bool = False

    def payload(self) -> bytes:
        flags = (FLAG_SHOWN if self.ms is not None else 0) | (FLAG_WARNING if self.warning else 0)
        return bytes((flags,)) + (self.ms or 0).to_bytes(4, "big")

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        expect_size("CLOCK", payload, 5)
        flags = payload[0]
        if flags & ~(FLAG_SHOWN | FLAG_WARNING):
            raise BadPayload(f"CLOCK flags 0x{flags:02X} has unknown bits")
        ms = int.from_bytes(payload[1:5])
        if not flags & FLAG_SHOWN:
            if ms:
                raise BadPayload("CLOCK with blank digits must carry 0 ms")
            return cls(None, bool(flags & FLAG_WARNING))
        return cls(ms, bool(flags & FLAG_WARNING))


@dataclass(frozen=True, slots=True)
class TextMessage(Message):
    """The dealer display's two text lines."""

    TYPE: ClassVar[int] = 0x31
    line1: str
    line2: str

    def payload(self) -> bytes:
        first = self.line1.encode("ascii")
        return bytes((len(first),)) + first + self.line2.encode("ascii")

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        if not payload:
            raise BadPayload("TEXT payload is empty")
        size = payload[0]
        if size > MAX_LINE or len(payload) - 1 - size > MAX_LINE or len(payload) - 1 < size:
            raise BadPayload(f"TEXT lines must be 0 to {MAX_LINE} characters")
        return cls(
            ascii_text("TEXT line 1", payload[1 : 1 + size]),
            ascii_text("TEXT line 2", payload[1 + size :]),
        )


@dataclass(frozen=True, slots=True)
class LampTestMessage(Message):
    """Light every segment and pixel for ``ms``."""

    TYPE: ClassVar[int] = 0x32
    ms: int = DEFAULT_LAMP_TEST_MS

    def payload(self) -> bytes:
        return self.ms.to_bytes(2, "big")

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        expect_size("LAMP_TEST", payload, 2)
        return cls(int.from_bytes(payload))


DISPLAY = Codec.build(
    name="display",
    kind="D",
    host_bound=(),
    device_bound=(ClockMessage, TextMessage, LampTestMessage),
)


def display_line(text: str) -> str:
    """What the display can show of ``text``: printable ASCII, at most 40 characters."""
    cleaned = "".join(ch if " " <= ch <= "~" else "?" for ch in text)
    return cleaned[:MAX_LINE]


class SerialClockDisplay(SerialDevice):
    """The clock and dealer display on a serial port.

    The show methods only record what should be shown and return at once; the link
    delivers the latest state, repeats it until acknowledged, and shows it again after
    the display comes back.
    """

    device = "display"

    def __init__(
        self,
        settings: SerialDeviceSettings,
        events: EventSink,
        *,
        port: str | None = None,
        **link_options: Any,
    ) -> None:
        super().__init__(
            settings,
            events,
            codec=DISPLAY,
            on_message=lambda message: None,  # the display sends nothing of its own
            port=port,
            **link_options,
        )
        self._start()

    def show_clock(self, ms: int | None, warning: bool = False) -> None:
        """Show ``ms`` on the countdown digits (rounded up to whole seconds by the
        display), or blank them with None; ``warning`` turns on the warning colour."""
        if ms is not None:
            ms = min(max(ms, 0), MAX_CLOCK_MS)
        self._link.send("clock", ClockMessage(ms, warning))

    def show_text(self, line1: str, line2: str = "") -> None:
        """Show two text lines (non-ASCII shown as ``?``, cut at 40 characters)."""
        self._link.send("text", TextMessage(display_line(line1), display_line(line2)))

    def lamp_test(self, ms: int = DEFAULT_LAMP_TEST_MS) -> None:
        """Light every segment and pixel for ``ms`` (at most 65535)."""
        self._link.send("lamp_test", LampTestMessage(min(max(ms, 0), 0xFFFF)), sticky=False)

    def delivered(self) -> bool:
        """Whether the display has acknowledged the latest clock and text."""
        return not (self._link.pending("clock") or self._link.pending("text"))
