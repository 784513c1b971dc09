"""The shift's meters (``controller.rules.ops`` has the theory of operation): the
ledger's totals, the state's ``meters`` since the last shift open, and each seat's
and each dealer's part of the shift.

Kept apart from ``ops`` so that the modules where chips leave the table (``seating``,
``hand``) can credit the seat (``seat_cashed_out``) without importing the rules of
tips, dealers and shifts.
"""

from __future__ import annotations

from controller.rules.records import MeterValues, SeatPart, ShiftRecord
from controller.rules.state import SHIFT_METERS, TableState

#: The state's ``meters`` (docs/replay.md, the state's fields), in order.
METERS = SHIFT_METERS
#: What each dealer's part of the shift counts (the meters, and the time signed in).
DEALER_FIELDS = (*METERS, "ms")
#: What each seat's part of the shift counts.
SEAT_FIELDS = ("buy_ins", "cash_outs", "time_fees", "tips", "hands")


def totals(state: TableState) -> dict[str, int]:
    """The ledger's running totals since the journal began, by meter."""
    return {
        "hands": state.hand_number,
        "rake": state.rake_total,
        "jackpot": state.jackpot_total,
        "time_fees": state.time_fees_total,
        "tips": state.tips_total,
        "buy_ins": state.bought_in,
        "cash_outs": state.cashed_out,
    }


def ledger(state: TableState) -> tuple[int, ...]:
    return (
        state.hand_number,
        state.rake_total,
        state.jackpot_total,
        state.time_fees_total,
        state.tips_total,
        state.bought_in,
        state.cashed_out,
    )


def current(state: TableState) -> MeterValues:
    """The state's ``meters`` (docs/replay.md): the totals since the shift began (the
    last close; the journal's start when none)."""
    base = state.shift["base"]
    return {name: value - int(base.get(name, 0)) for name, value in totals(state).items()}


def dealer_part(shift: ShiftRecord, dealer: str) -> MeterValues:
    """The dealer's part of the shift (``DEALER_FIELDS``)."""
    part = shift["dealers"].get(dealer)
    if part is None:
        part = shift["dealers"][dealer] = dict.fromkeys(DEALER_FIELDS, 0)
    return part


def seat_part(state: TableState, seat: int) -> SeatPart:
    """The seat's part of the shift, its player among the seat's ``players``."""
    parts = state.shift["seats"]
    part = parts.get(str(seat))
    if part is None:
        part = parts[str(seat)] = {
            "buy_ins": 0,
            "cash_outs": 0,
            "time_fees": 0,
            "tips": 0,
            "hands": 0,
            "players": [],
        }
    s = state.seats.get(seat)
    if s is not None and s.player not in part["players"]:
        part["players"].append(s.player)
    return part


def seat_cashed_out(state: TableState, seat: int, amount: int) -> None:
    """A seat's chips left the table with its player (added to ``cashed_out`` by the
    caller): the seat's part of the shift."""
    seat_part(state, seat)["cash_outs"] += amount
