"""Device faults: one stable code per fault, the dealer's words for it, and its detail.

A driver says what went wrong in a technician's terms ("keypad is missing: nothing at
/dev/serial/by-id/usb-...": a path, an errno, a driver message). The dealer needs short
words that say what to do, and the floor system a code it can count and route. This
module is the one source of both:

==================  =========  ==========================================
code                device     dealer display (``controller.rules.text``)
==================  =========  ==========================================
``keypad_lost``     keypad     KEYPAD LOST: CALL TECH
``tray_lost``       tray       CHIP TRAY LOST: CALL TECH
``display_lost``    display    DISPLAY LOST: CALL TECH
``puck_lost``       puck       BUTTON SENSOR LOST: CALL TECH
``lights_lost``     lights     SEAT LIGHTS LOST: CALL TECH
``puck_two_seats``  puck       BUTTON SEEN AT SEATS 2 5: CALL TECH
``device_lost``     (other)    DEVICE LOST: CALL TECH
``pin_lockout``     keypad     PIN LOCKED OUT: CALL TECH
==================  =========  ==========================================

``pin_lockout`` is not a device that failed: the supervisor menu locked a second time
in a row by wrong PINs (``docs/supervisor.md``), raised to the floor only (the dealer
sees the lock-out's own notice) and cleared by the next right PIN.

The driver's text is the fault's *detail*: the daemon's log and the journal's system
log keep it, the floor message carries it in its own field, the dealer never sees it.
A device has at most one fault at a time: a driver that reports the same device again
with other words (an unplugged keypad is first "lost", then "missing") changes only
the detail in the log, not the fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.rules.text import Message, msg


@dataclass(frozen=True, kw_only=True)
class FaultKind:
    """One kind of device fault: its stable code, the device, the dealer's words."""

    code: str
    device: str
    words: str  # the text catalogue key

    def message(self, seats: tuple[int, ...] = ()) -> Message:
        if self.code == PUCK_TWO_SEATS:
            return msg(self.words, seats=" ".join(str(seat) for seat in seats))
        return msg(self.words)


PUCK_TWO_SEATS: Final = "puck_two_seats"
PIN_LOCKOUT: Final = "pin_lockout"

KINDS: Final[dict[str, FaultKind]] = {
    kind.code: kind
    for kind in (
        FaultKind(code="keypad_lost", device="keypad", words="fault.keypad_lost"),
        FaultKind(code="tray_lost", device="tray", words="fault.tray_lost"),
        FaultKind(code="display_lost", device="display", words="fault.display_lost"),
        FaultKind(code="puck_lost", device="puck", words="fault.puck_lost"),
        FaultKind(code="lights_lost", device="lights", words="fault.lights_lost"),
        FaultKind(code=PUCK_TWO_SEATS, device="puck", words="fault.puck_two_seats"),
        FaultKind(code="device_lost", device="other", words="fault.device_lost"),
        FaultKind(code=PIN_LOCKOUT, device="keypad", words="fault.pin_lockout"),
    )
}

#: Every fault code, as the floor schema lists them (docs/floor.schema.json).
CODES: Final = tuple(KINDS)


def lost(device: str) -> str:
    """The code of a device that stopped working (missing, unplugged, not answering,
    the wrong device on its port): ``<device>_lost``; ``device_lost`` for a device
    this module does not know (a driver added later), never an exception."""
    code = f"{device}_lost"
    return code if code in KINDS else "device_lost"


def words(code: str, seats: tuple[int, ...] = ()) -> Message:
    """The dealer's words for a fault code (an unknown code: the generic words)."""
    kind = KINDS.get(code)
    return (kind or KINDS["device_lost"]).message(seats)
