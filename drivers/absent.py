"""Stand-ins for devices the table does not have (``enabled: false``, no pins).

They accept every call, report nothing and never fault, so the controller needs no
special case for a table without, say, a chip tray.
"""

from __future__ import annotations

import threading

from .interfaces import Pattern
from .serial_link import LinkCounters


class AbsentPuck:
    seat: int | None = None
    fault_seats: tuple[int, ...] = ()

    def close(self) -> None:
        pass


class AbsentDoor:
    status: str | None = None

    def close(self) -> None:
        pass


class AbsentLights:
    seats: tuple[int, ...] = ()

    def show(self, seat: int, pattern: Pattern) -> None:
        pass

    def pattern(self, seat: int) -> Pattern:
        return Pattern.OFF

    def lamp_test(self) -> threading.Event:
        done = threading.Event()
        done.set()
        return done

    def close(self) -> None:
        pass


class AbsentSerialDevice:
    connected = False
    fault: str | None = None

    @property
    def counters(self) -> LinkCounters:
        return LinkCounters()

    def close(self) -> None:
        pass


class AbsentKeypad(AbsentSerialDevice):
    pass


class AbsentTray(AbsentSerialDevice):
    counts: dict[int, int] | None = None

    def request_counts(self) -> None:
        pass


class AbsentDisplay(AbsentSerialDevice):
    def show_clock(self, ms: int | None, warning: bool = False) -> None:
        pass

    def show_text(self, line1: str, line2: str = "") -> None:
        pass

    def lamp_test(self, ms: int = 2000) -> None:
        pass
