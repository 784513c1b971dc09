"""What the controller loop shows and logs beside the state: the dealer display's
transient items (``Display``), the last thing shown (``LastShown``, read by
``tablectl bench``), and the one-line forms of an event and of the state for the log
and the systemd status."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller import puck as puck_check
from controller import tray as tray_check
from controller.daemon.recorder import Recorder
from controller.rules.text import Message, msg


@dataclass
class Display:
    """The transient things the dealer display shows beside the state."""

    refusal: Message | str | None = None  # a refusal's message, else English as it is
    expired: tuple[int, str] | None = None
    device_faults: dict[str, str] | None = None
    puck_fault_seats: tuple[int, ...] = ()
    # a power loss found at this start: the hand number it is said until, and its words
    power_lost: tuple[int, Message] | None = None


def power_lost(detail: dict[str, Any] | None, hand_number: int) -> tuple[int, Message] | None:
    """What the display says of a power loss found at start (``powerloss``: the hand
    in play then, or None between hands), and the hand number the table resumed at:
    it is said until the next hand starts."""
    if detail is None:
        return None
    hand = detail.get("hand")
    if isinstance(hand, int):
        return hand_number, msg("power.lost_in_hand", hand=hand)
    if hand_number == 0:
        return hand_number, msg("power.lost_before_play")
    return hand_number, msg("power.lost_after_hand", hand=hand_number)


def power_alert(display: Display, hand_number: int) -> Message | None:
    """The power loss's words while the table has not started a hand since."""
    lost = display.power_lost
    return lost[1] if lost is not None and lost[0] == hand_number else None


@dataclass(frozen=True)
class LastShown:
    """What the loop last showed, for a screen on another thread (``tablectl bench``).
    Every show replaces it whole and none is changed afterwards, so a reader takes
    ``Controller.last_shown`` once and needs no lock."""

    view: dict[str, Any] | None  # the state view; None while play is locked
    puck: puck_check.PuckCheck | None = None  # None without a puck sensor
    tray: tray_check.TrayStatus | None = None
    device_faults: dict[str, str] = field(default_factory=dict)
    fault: str | None = None  # the sticky fault's code while play is locked


def _brief(event: dict[str, Any], secret: bool) -> str:
    """One event for the log (PIN digits masked)."""
    kind = event.get("type")
    if kind == "key":
        key = str(event.get("key"))
        return f"key {'*' if secret and key.isdigit() else key}"
    fields = " ".join(f"{k}={v}" for k, v in event.items() if k not in ("type", "by"))
    return f"{kind} {fields}".strip()


def outcome_by(event: dict[str, Any], recorder: Recorder) -> str | None:
    by = event.get("by") or recorder.table.state.dealer
    return str(by) if by else None


def _status_line(view: dict[str, Any], faults: dict[str, str]) -> str:
    if view["phase"] == "idle":
        text = f"idle after hand {view['hand']}" if view["hand"] else "idle, no hand yet"
    else:
        text = f"hand {view['hand']} {view['phase']}"
        if view.get("to_act") is not None:
            text += f", seat {view['to_act']} to act"
    if faults:
        text += "; device fault: " + ", ".join(sorted(faults))
    return text
