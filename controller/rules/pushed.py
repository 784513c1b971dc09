"""Chips pushed (R14, R15, R16): what a pile of chips put in by a seat amounts to.

The dealer keys the chips a player put in, one value per chip, and what the player
declared (``raise``, ``call``, or nothing). The reading, for the seat's total bet on
the street ``to`` (``owed`` = what calling costs, ``unit`` = the size of a full raise:
the round's last full bet or raise in no/pot limit, the street's bet in fixed limit):

- declared ``call``: a call (or a check, facing no bet); chips beyond the call go back,
  an under-call is brought to size (R16).
- one chip, nothing declared, facing a bet: a call whatever its value (R15).
- several chips, nothing declared, facing a bet: chips up to the call are a call (an
  under-call is brought to size, R16); beyond it, an increase of half a ``unit`` or more
  counts as a declared raise (R14), less is a call with the excess given back, unless
  the chips are every chip the seat has: then it is all in (a short all-in, R7).
- a raise (declared, or by R14) or a bet facing no bet: to the chips' total, brought up
  to the minimum (R16), held to the pot-limit maximum; when the seat cannot raise, a
  declared raise is refused and an undeclared pile is a call.
- every chip the seat has (and more than the call): all-in.

Every chip must be a multiple of the smallest chip, and the chips cannot exceed the
seat's stack. The result is an ``Act`` the engine then checks like any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from controller.rules import betting, effects
from controller.rules.events import Act, Push
from controller.rules.settings import GameSettings
from controller.rules.state import Hand, Seat
from controller.rules.text import refuse


@dataclass(frozen=True, slots=True)
class ChipsRead(effects.Effect):
    """How pushed chips were read: the action, the total, and the rule that decided."""

    seat: int
    chips: int
    action: str
    to: int | None
    rule: str | None  # R14 | R15 | R16, or None when the chips were exact


def read(
    hand: Hand, seats: Mapping[int, Seat], event: Push, game: GameSettings
) -> tuple[Act, str | None]:
    """The action ``event``'s chips amount to, and the rule that made it so."""
    s = seats[event.seat]
    put, stack = _put(s, event, game.smallest_chip)
    owed = max(hand.current_bet - s.bet, 0)
    call = Act(by=event.by, seat=event.seat, action="call")
    short = "R16" if put < min(owed, stack) else None
    if event.declared == "call":
        return call, short
    if owed and event.declared is None:
        read_as = _undeclared(hand, event, game, put, owed, stack, short)
        if read_as is not None:
            return read_as
    return _raise(hand, seats, event, game, put, owed, stack)


def _put(s: Seat, event: Push, chip: int) -> tuple[int, int]:
    """The chips pushed and the seat's playable stack, once the chips are checked:
    each a multiple of the smallest chip, all of them at most the stack."""
    for value in event.chips:
        if value % chip:
            raise refuse("bad_amount", "refuse.chip_units", amount=chip)
    put = sum(event.chips)
    stack = betting.playable(s.stack, chip)
    if put > stack:
        raise refuse("bad_amount", "refuse.seat_has_only", seat=event.seat, amount=stack)
    return put, stack


def _undeclared(
    hand: Hand,
    event: Push,
    game: GameSettings,
    put: int,
    owed: int,
    stack: int,
    short: str | None,
) -> tuple[Act, str | None] | None:
    """Chips pushed facing a bet without a word: a call when one chip (R15), when no
    more than owed (all in when that is the stack), or when the raise part is under
    half a raise (R14); None when they are a raise."""
    call = Act(by=event.by, seat=event.seat, action="call")
    if len(event.chips) == 1:
        return call, ("R15" if put > owed else short)
    if put <= owed:
        all_in = Act(by=event.by, seat=event.seat, action="all_in")
        return (all_in if put == stack else call), short
    unit = betting.bet_size(game, hand) if game.structure == "fixed_limit" else hand.min_increment
    if 2 * (put - owed) < unit and put < stack:  # every chip is all in (R7)
        return call, "R14"
    return None


def _raise(
    hand: Hand,
    seats: Mapping[int, Seat],
    event: Push,
    game: GameSettings,
    put: int,
    owed: int,
    stack: int,
) -> tuple[Act, str | None]:
    """Chips that raise (or bet): to what, within the raise allowed; a call when no
    raise is allowed and none was declared."""
    seat, s = event.seat, seats[event.seat]
    legal = betting.legal_for(hand, seats, seat, game)
    if legal.min_raise_to is None or legal.max_raise_to is None:
        if event.declared == "raise" or not owed:
            raise refuse("raise_not_allowed", "refuse.no_raise", reason=legal.no_raise_reason or "")
        return Act(by=event.by, seat=seat, action="call"), "R14"
    total = s.bet + put
    to = min(max(total, legal.min_raise_to), legal.max_raise_to)
    rule = "R14" if owed and event.declared is None else ("R16" if to > total else None)
    if to >= s.bet + stack:
        return Act(by=event.by, seat=seat, action="all_in"), rule
    return Act(by=event.by, seat=seat, action="raise", to=to), rule
