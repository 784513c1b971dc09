"""Busting out (B12) and play stopping (docs/rules.md "Play stopped"): the one place
that decides both, for every way a stack can empty (a hand lost, a time fee, a tip, a
transfer).

- A seat is busted when its stack cannot cover a smallest chip: nothing left, or an
  odd remainder below the chip (R7: it does not play). A busted seat is treated as
  sitting out (``Seat.away``): it collects markers, and chips bought bring it back as
  a returning player (``seating.do_chips``).
- Play stops only when fewer than two players are seated (players leave), between
  hands as well as at the end of one. A busted player still holds the seat: back
  before the next hand (a rebuy), play goes on as if nothing stopped it (heads-up the
  big blind alternates, B3; an away player's markers stay). Until then the next hand
  is refused for want of two players with chips (``positions``).
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.rules import effects
from controller.rules.settings import RuleSettings
from controller.rules.state import TableState, earlier_release


def cannot_play(stack: int, chip: int) -> bool:
    """R7, B12: a stack that cannot cover the smallest chip (its remainder does not play)."""
    return stack < chip


def bust(state: TableState, settings: RuleSettings, seat: int) -> list[effects.Effect]:
    """The seat sits out as busted if its stack cannot cover a smallest chip (and it is
    not already away)."""
    s = state.seats[seat]
    if s.away or not cannot_play(s.stack, settings.game.smallest_chip):
        return []
    s.away = True
    return [effects.SeatChanged(seat, "busted")]


def stop_play_if_alone(state: TableState) -> None:
    """Play stops the moment fewer than two players are seated (a player leaving counts
    from the moment of the ``leave``); the next hand starts a new game (B13). A player
    away or busted still holds the seat."""
    if sum(1 for s in state.seats.values() if not s.pending_leave) < 2:
        state.game_on = False


def chips_left(
    state: TableState, settings: RuleSettings, seats: Iterable[int], *, fee: bool = False
) -> list[effects.Effect]:
    """Chips left the stacks of ``seats`` between hands (a time fee, a tip, a transfer):
    each busted one sits out, and play stops only if fewer than two are seated."""
    out = [change for seat in seats for change in bust(state, settings, seat)]
    stop_play_if_alone(state)
    if out and not fee and earlier_release(state):
        # as the release before issue 31 played a tip's or a transfer's bust: play
        # stopped once fewer than two seats could play (the next hand a new game)
        chip = settings.game.smallest_chip
        if (
            sum(1 for s in state.seats.values() if not s.away and not cannot_play(s.stack, chip))
            < 2
        ):
            state.game_on = False
    return out
