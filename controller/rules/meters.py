"""The shift's meters (``controller.rules.ops`` has the theory of operation): the
ledger's totals, the state's ``meters`` since the last shift open, and each seat's
and each dealer's part of the shift.

Kept apart from ``ops`` so that the modules where chips leave the table (``seating``,
``hand``) can credit the seat (``seat_cashed_out``) without importing the rules of
tips, dealers and shifts.
"""

from __future__ import annotations

from typing import Any

from controller.rules.state import TableState

#: The state's ``meters`` (docs/replay.md, the state's fields), in order.
METERS = ("hands", "rake", "jackpot", "time_fees", "tips", "buy_ins", "cash_outs")
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


def current(state: TableState) -> dict[str, int]:
    """The state's ``meters`` (docs/replay.md): the totals since the last shift open."""
    base = state.shift.get("base") or {}
    return {name: value - int(base.get(name, 0)) for name, value in totals(state).items()}


def part_of(shift: dict[str, Any], group: str, key: str, names: tuple[str, ...]) -> dict[str, Any]:
    parts = shift.setdefault(group, {})
    part = parts.get(key)
    if part is None:
        part = parts[key] = dict.fromkeys(names, 0)
    return part


def seat_part(state: TableState, seat: int) -> dict[str, Any]:
    """The seat's part of the shift, its player among the seat's ``players``."""
    part = part_of(state.shift, "seats", str(seat), SEAT_FIELDS)
    s = state.seats.get(seat)
    players = part.setdefault("players", [])
    if s is not None and s.player not in players:
        players.append(s.player)
    return part


def seat_cashed_out(state: TableState, seat: int, amount: int) -> None:
    """A seat's chips left the table with its player (added to ``cashed_out`` by the
    caller): the seat's part of the shift."""
    seat_part(state, seat)["cash_outs"] += amount
