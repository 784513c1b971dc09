"""A simulated clock and dealer display: remembers what it was told to show."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..display import DISPLAY, ClockMessage, LampTestMessage, TextMessage
from ..messages import Message
from .device import SimSerialDevice


@dataclass(frozen=True, slots=True)
class Shown:
    """What the display shows."""

    clock_ms: int | None = None
    warning: bool = False
    line1: str = ""
    line2: str = ""


class SimDisplay(SimSerialDevice):
    def __init__(self, path: Path, *, firmware: str = "sim-display-1.0") -> None:
        self.shown = Shown()
        self.history: list[Message] = []
        self.lamp_tests: list[int] = []
        super().__init__(codec=DISPLAY, path=path, firmware=firmware)

    def wait_shown(self, timeout: float = 10.0, **expected: object) -> bool:
        """Block until every given field of ``shown`` has the given value."""
        return self.wait_until(
            lambda: all(getattr(self.shown, name) == value for name, value in expected.items()),
            timeout,
        )

    def on_message(self, message: Message) -> None:
        self.history.append(message)
        shown = self.shown
        if isinstance(message, ClockMessage):
            self.shown = Shown(
                clock_ms=message.ms, warning=message.warning, line1=shown.line1, line2=shown.line2
            )
        elif isinstance(message, TextMessage):
            self.shown = Shown(
                clock_ms=shown.clock_ms,
                warning=shown.warning,
                line1=message.line1,
                line2=message.line2,
            )
        elif isinstance(message, LampTestMessage):
            self.lamp_tests.append(message.ms)

    def on_unplug(self) -> None:
        self.shown = Shown()
