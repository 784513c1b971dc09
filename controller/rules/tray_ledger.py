"""The chip tray's ledger as the rules core keeps it: readings, fills, credits and
acknowledgements, with the table time at which any of them last changed.

The core does not know the opening float (that is the daemon's `tray:` configuration),
so it does not judge the tray: ``controller.tray`` reconciles this ledger against the
float. What the core guarantees is that everything the reconciliation needs is folded
from journalled events, so a replay gives the same tray report.

Chips sold at the table are ``TableState.bought_in`` (``sit`` chips and ``chips``
events). Fills and credits are the project events ``tray_fill`` and ``tray_credit``; a
``tray_ack`` records what the supervisor saw when acknowledging a difference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

from controller.rules import effects
from controller.rules.events import TrayAck, TrayCredit, TrayFill
from controller.rules.records import TrayAckRecord, TrayMove
from controller.rules.state import TableState


@dataclass(frozen=True, slots=True)
class TrayMoved(effects.Effect):
    """Chips moved into the tray (a fill) or out of it (a credit)."""

    kind: Literal["fill", "credit"]
    amount: int


@dataclass(frozen=True, slots=True)
class TrayAcknowledged(effects.Effect):
    """A supervisor acknowledged the tray's difference."""

    by: str | None


def signature(state: TableState) -> tuple[bool, dict[int, int], int, int, int]:
    """Everything whose change restarts the wait for a stable tray."""
    return (
        state.tray_read,
        dict(state.tray),
        state.bought_in,  # dicts compare by content
        len(state.tray_moves),
        len(state.tray_acks),
    )


def totals(state: TableState) -> tuple[int, int]:
    """(fills, credits) so far."""
    fills = sum(m["amount"] for m in state.tray_moves if m["kind"] == "fill")
    credits = sum(m["amount"] for m in state.tray_moves if m["kind"] == "credit")
    return fills, credits


def record_move(state: TableState, event: TrayFill | TrayCredit) -> list[effects.Effect]:
    kind: Literal["fill", "credit"] = "fill" if isinstance(event, TrayFill) else "credit"
    move: TrayMove = {
        "kind": kind,
        "amount": event.amount,
        "counts": {str(value): count for value, count in event.counts} or None,
        "by": event.by,
        "hand": state.hand_number,
        "at_ms": state.elapsed_ms,
    }
    state.tray_moves = [*state.tray_moves, move]
    return [TrayMoved(kind, event.amount)]


def record_ack(state: TableState, event: TrayAck) -> list[effects.Effect]:
    fills, credits = totals(state)
    ack: TrayAckRecord = {
        "by": event.by,
        "hand": state.hand_number,
        "at_ms": state.elapsed_ms,
        "read": state.tray_read,
        "counted": sum(value * count for value, count in state.tray.items()),
        "sold": state.bought_in,
        "fills": fills,
        "credits": credits,
    }
    state.tray_acks = [*state.tray_acks, ack]
    return [TrayAcknowledged(event.by)]


class TrayView(TypedDict):
    """The ledger in the state view (docs/replay.md)."""

    read: bool
    counts: dict[str, int]
    unchanged_ms: int
    sold: int
    fills: int
    credits: int
    acks: int


def view(state: TableState) -> TrayView:
    """The ledger as the state view shows it."""
    fills, credits = totals(state)
    return {
        "read": state.tray_read,
        "counts": {str(value): count for value, count in sorted(state.tray.items())},
        "unchanged_ms": state.elapsed_ms - state.tray_since_ms,
        "sold": state.bought_in,
        "fills": fills,
        "credits": credits,
        "acks": len(state.tray_acks),
    }
