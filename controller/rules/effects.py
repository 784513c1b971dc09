"""What an accepted event did, for the shell to show, log and publish.

The state says where things are; effects say what just happened (a pot paid, the
clock expiring), which a state diff cannot always tell.
"""

from __future__ import annotations

from typing import Literal

from controller.rules.frozen_record import frozen_record
from controller.rules.records import ActionKind, PostKind

# Every effect is ``@dataclass(frozen=True)`` with __eq__, __hash__ and __repr__ shared
# rather than compiled per class (``frozen_record``: a faster start).


@frozen_record
class Effect:
    """What an accepted event did; each kind below says what."""


@frozen_record
class HandStarted(Effect):
    """A hand began: its number, the button, the blinds' seats and the seats dealt in."""

    hand: int
    button: int
    small_blind: int | None
    big_blind: int
    dealt: tuple[int, ...]


@frozen_record
class Posted(Effect):
    """A seat posted a blind or a straddle (``kind``): ``live`` counts toward its
    bet, ``dead`` goes to the pot only."""

    seat: int
    kind: PostKind
    live: int
    dead: int


@frozen_record
class Acted(Effect):
    """A seat acted (a player leaving mid-hand folds): the action and its bet after it."""

    seat: int
    action: ActionKind
    total: int  # the seat's bet on this street after the action
    # a bet or raise: whether it was a full one (True) or a short all-in that does not
    # by itself reopen the betting for seats that already acted (False); None otherwise
    full_raise: bool | None = None


@frozen_record
class StreetDealt(Effect):
    """A betting round ended and the next street (``flop``, ``turn`` ...) is dealt."""

    street: str


@frozen_record
class UncalledReturned(Effect):
    """The part of a bet nobody called went back to its seat."""

    seat: int
    amount: int


@frozen_record
class PotAwarded(Effect):
    """A pot paid (``index``: its place, the main pot first): (seat, chips) shares."""

    index: int
    amount: int
    shares: tuple[tuple[int, int], ...]


@frozen_record
class FeesTaken(Effect):
    """The house's fees taken: rake and jackpot from the pots (both 0 for a time fee)."""

    rake: int
    jackpot: int


@frozen_record
class HandEnded(Effect):
    """A hand ended; ``voided``: by a misdeal, every chip back where it was."""

    hand: int
    voided: bool = False


@frozen_record
class ClockStarted(Effect):
    """The action clock started on a seat."""

    seat: int
    remaining_ms: int


@frozen_record
class PlayStopped(Effect):
    """The causes that stop play changed (``controller.rules.stopped``): those present
    now, none when play goes on."""

    causes: tuple[str, ...]


@frozen_record
class ClockWarning(Effect):
    """The action clock passed its warning point."""

    seat: int
    remaining_ms: int


@frozen_record
class ClockExpired(Effect):
    """The action clock ran out on a seat, which folded or checked (P6)."""

    seat: int
    action: Literal["fold", "check"]  # P6: what the expiry did


@frozen_record
class SeatChanged(Effect):
    """A seat's occupant or standing changed (``change`` says how)."""

    seat: int
    change: str  # sat | left | sat_out | sat_in | moved | chips | busted | freed


@frozen_record
class Corrected(Effect):
    """A supervisor's correction of the hand (``undo``, ``dealt_in_kill`` or
    ``dealt_in_keep``), naming the seat it concerns."""

    kind: str
    seat: int | None


@frozen_record
class Transferred(Effect):
    """A supervisor moved chips between two seats' stacks (``transfer``)."""

    from_seat: int
    to_seat: int
    amount: int
    reason: str
    by: str | None
