"""Floor messages of the casino's operations (``controller.rules.ops``): a tip, a
dealer signing in or out, the push reminder, a shift opened or closed with its report.

Read from the rules' effects of the event (``result["effects"]``), so the same whatever
the input path (keypad, console, replay). Each goes to the ``hands`` topic, where the
hands and the money between them are: ``tip``, ``tip_correction``, ``dealer``, ``shift``
(docs/floor.md).
Pure, and it never raises on odd shapes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from controller.rules.ops import (
    DealerChanged,
    PushDue,
    ShiftClosed,
    ShiftOpened,
    TipCorrected,
    Tipped,
)

#: The kinds of message this module makes, and what a ``dealer`` message says changed.
KINDS = ("tip", "tip_correction", "dealer", "shift")
DEALER_CHANGES = ("in", "out", "push_due")


def _seat(after: Mapping[str, Any], seat: int) -> Mapping[str, Any]:
    seats = after.get("seats")
    found = seats.get(str(seat)) if isinstance(seats, Mapping) else None
    return found if isinstance(found, Mapping) else {}


def operation_messages(
    effects: Iterable[Any], after: Mapping[str, Any], by: str | None
) -> list[tuple[str, dict[str, Any]]]:
    """(kind, body) of each operation the event made, in the order made."""
    out: list[tuple[str, dict[str, Any]]] = []
    hand = after.get("hand")
    for effect in effects:
        if isinstance(effect, Tipped):
            seat = _seat(after, effect.seat)
            out.append(
                (
                    "tip",
                    {
                        "hand": hand,
                        "seat": effect.seat,
                        "amount": effect.amount,
                        "dealer": effect.dealer,
                        "player": seat.get("player"),
                        "stack": seat.get("stack"),
                        "by": by,
                    },
                )
            )
        elif isinstance(effect, TipCorrected):
            seat = _seat(after, effect.seat)
            body = {"hand": hand, "seat": effect.seat, "amount": effect.amount, "was": effect.was}
            extra = {"dealer": effect.dealer, "player": seat.get("player")}
            out.append(("tip_correction", {**body, **extra, "stack": seat.get("stack"), "by": by}))
        elif isinstance(effect, DealerChanged):
            change = "in" if effect.dealer is not None else "out"
            body = {
                "hand": hand,
                "change": change,
                "dealer": effect.dealer,
                "before": effect.before,
            }
            out.append(("dealer", {**body, "by": by}))
        elif isinstance(effect, PushDue):
            body = {"hand": hand, "change": "push_due", "dealer": effect.dealer}
            out.append(("dealer", {**body, "minutes": effect.minutes}))
        elif isinstance(effect, ShiftOpened):
            body = {"hand": hand, "action": "open", "shift": effect.shift, "by": effect.by}
            out.append(("shift", {**body, "witness": effect.witness, "float": effect.float_value}))
        elif isinstance(effect, ShiftClosed):
            close: Mapping[str, Any] = effect.report.get("close") or {}
            body = {"hand": hand, "action": "close", "shift": effect.shift, "by": close.get("by")}
            out.append(
                (
                    "shift",
                    {
                        **body,
                        "witness": close.get("witness"),
                        "float": close.get("float"),
                        "report": effect.report,
                    },
                )
            )
    return out
