"""What an accepted event did, for the shell to show, log and publish.

The state says where things are; effects say what just happened (a pot paid, the
clock expiring), which a state diff cannot always tell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controller.rules.records import ActionKind, PostKind


@dataclass(frozen=True, slots=True)
class Effect:
    """What an accepted event did; each kind below says what."""


@dataclass(frozen=True, slots=True)
class HandStarted(Effect):
    """A hand began: its number, the button, the blinds' seats and the seats dealt in."""

    hand: int
    button: int
    small_blind: int | None
    big_blind: int
    dealt: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Posted(Effect):
    """A seat posted a blind or a straddle (``kind``): ``live`` counts toward its
    bet, ``dead`` goes to the pot only."""

    seat: int
    kind: PostKind
    live: int
    dead: int


@dataclass(frozen=True, slots=True)
class Acted(Effect):
    """A seat acted (a player leaving mid-hand folds): the action and its bet after it."""

    seat: int
    action: ActionKind
    total: int  # the seat's bet on this street after the action
    # a bet or raise: whether it was a full one (True) or a short all-in that does not
    # by itself reopen the betting for seats that already acted (False); None otherwise
    full_raise: bool | None = None


@dataclass(frozen=True, slots=True)
class StreetDealt(Effect):
    """A betting round ended and the next street (``flop``, ``turn`` ...) is dealt."""

    street: str


@dataclass(frozen=True, slots=True)
class UncalledReturned(Effect):
    """The part of a bet nobody called went back to its seat."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class PotAwarded(Effect):
    """A pot paid (``index``: its place, the main pot first): (seat, chips) shares."""

    index: int
    amount: int
    shares: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class FeesTaken(Effect):
    """The house's fees taken: rake and jackpot from the pots (both 0 for a time fee)."""

    rake: int
    jackpot: int


@dataclass(frozen=True, slots=True)
class HandEnded(Effect):
    """A hand ended; ``voided``: by a misdeal, every chip back where it was."""

    hand: int
    voided: bool = False


@dataclass(frozen=True, slots=True)
class ClockStarted(Effect):
    """The action clock started on a seat."""

    seat: int
    remaining_ms: int


@dataclass(frozen=True, slots=True)
class PlayStopped(Effect):
    """The causes that stop play changed (``controller.rules.stopped``): those present
    now, none when play goes on."""

    causes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ClockWarning(Effect):
    """The action clock passed its warning point."""

    seat: int
    remaining_ms: int


@dataclass(frozen=True, slots=True)
class ClockExpired(Effect):
    """The action clock ran out on a seat, which folded or checked (P6)."""

    seat: int
    action: Literal["fold", "check"]  # P6: what the expiry did


@dataclass(frozen=True, slots=True)
class SeatChanged(Effect):
    """A seat's occupant or standing changed (``change`` says how)."""

    seat: int
    change: str  # sat | left | sat_out | sat_in | moved | chips | busted | freed


@dataclass(frozen=True, slots=True)
class Corrected(Effect):
    """A supervisor's correction of the hand (``undo``, ``dealt_in_kill`` or
    ``dealt_in_keep``), naming the seat it concerns."""

    kind: str
    seat: int | None


@dataclass(frozen=True, slots=True)
class Transferred(Effect):
    """A supervisor moved chips between two seats' stacks (``transfer``)."""

    from_seat: int
    to_seat: int
    amount: int
    reason: str
    by: str | None


@dataclass(frozen=True, slots=True)
class LevelChanged(Effect):
    """A tournament's level clock changed (T1): started, paused, resumed, a level set
    by hand (``why``: the event's action), or run out into the next level (``clock``)
    or a break (``break``). The stakes are the level's in force for the next hand."""

    level: int
    on_break: bool
    paused: bool
    small_blind: int
    big_blind: int
    ante: int
    why: str


@dataclass(frozen=True, slots=True)
class Eliminated(Effect):
    """A player went out of a tournament at the end of ``hand`` (T4): out of the seat,
    with the stack at the hand's start and, at a single table, the place."""

    seat: int
    player: str
    hand: int
    stack_at_start: int
    place: int | None


@dataclass(frozen=True, slots=True)
class ColouredUp(Effect):
    """T7's ruling: a stack's remainder below a new level's smallest chip was rounded up
    to one such chip; ``chips`` added."""

    seat: int
    chips: int
