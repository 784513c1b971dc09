"""The action clock (P6) as pure state: time arrives as ``tick`` events.

Called on the seat to act, it counts down from ``clock.seconds``; past the warning
point it says so; at zero the seat's hand is folded (or checked, by
``clock.on_expiry: check_or_fold``, when it faces no bet). In shot-clock mode every
decision is timed and a player may spend a time-bank extension when it runs out.
"""

from __future__ import annotations

from typing import Literal

from controller.rules import betting, effects
from controller.rules.settings import ClockSettings, RuleSettings
from controller.rules.state import Clock, TableState


def start(state: TableState, settings: ClockSettings, seat: int) -> list[effects.Effect]:
    remaining = settings.seconds * 1000
    state.clock = Clock(seat=seat, remaining_ms=remaining, warning=is_warning(settings, remaining))
    return [effects.ClockStarted(seat, remaining)]


def is_warning(settings: ClockSettings, remaining_ms: int) -> bool:
    return remaining_ms <= settings.warning * 1000


def run_down(
    state: TableState, settings: ClockSettings, ms: int
) -> tuple[list[effects.Effect], bool]:
    """Count the running clock down by ``ms``; True when it has expired."""
    clock = state.clock
    if clock is None:
        return [], False
    out: list[effects.Effect] = []
    clock.remaining_ms = max(clock.remaining_ms - ms, 0)
    if clock.remaining_ms == 0 and settings.shot_clock:
        seat = state.seats.get(clock.seat)
        if seat is not None and seat.time_banks > 0:
            seat.time_banks -= 1
            clock.remaining_ms = settings.time_bank_seconds * 1000
            out.append(effects.ClockStarted(clock.seat, clock.remaining_ms))
    warning = is_warning(settings, clock.remaining_ms)
    if warning and not clock.warning:
        out.append(effects.ClockWarning(clock.seat, clock.remaining_ms))
    clock.warning = warning
    return out, clock.remaining_ms == 0


def expire(state: TableState, settings: RuleSettings) -> effects.ClockExpired:
    """P6: the clock ran out: the seat's hand is folded, or checked when
    ``clock.on_expiry`` is ``check_or_fold`` and the seat to act may check. The caller
    carries the action out if that seat is still to act, the clock standing at zero
    meanwhile (so the action's undo record shows it: ``undo.check``), else stops it."""
    assert state.clock is not None
    seat = state.clock.seat
    h = state.hand
    may_check = (
        settings.clock.on_expiry == "check_or_fold"
        and h is not None
        and h.to_act is not None
        and betting.legal_for(h, state.seats, h.to_act, settings.game).check
    )
    action: Literal["fold", "check"] = "check" if may_check else "fold"
    return effects.ClockExpired(seat, action)
