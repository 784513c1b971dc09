"""What an accepted event did, for the shell to show, log and publish.

The state says where things are; effects say what just happened (a pot paid, the
clock expiring), which a state diff cannot always tell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controller.rules.records import ActionKind, PostKind


@dataclass(frozen=True)
class Effect:
    pass


@dataclass(frozen=True)
class HandStarted(Effect):
    hand: int
    button: int
    small_blind: int | None
    big_blind: int
    dealt: tuple[int, ...]


@dataclass(frozen=True)
class Posted(Effect):
    seat: int
    kind: PostKind
    live: int
    dead: int


@dataclass(frozen=True)
class Acted(Effect):
    seat: int
    action: ActionKind
    total: int  # the seat's bet on this street after the action
    # a bet or raise: whether it was a full one (True) or a short all-in that does not
    # by itself reopen the betting for seats that already acted (False); None otherwise
    full_raise: bool | None = None


@dataclass(frozen=True)
class StreetDealt(Effect):
    street: str


@dataclass(frozen=True)
class UncalledReturned(Effect):
    seat: int
    amount: int


@dataclass(frozen=True)
class PotAwarded(Effect):
    index: int
    amount: int
    shares: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class FeesTaken(Effect):
    rake: int
    jackpot: int


@dataclass(frozen=True)
class HandEnded(Effect):
    hand: int
    voided: bool = False


@dataclass(frozen=True)
class ClockStarted(Effect):
    seat: int
    remaining_ms: int


@dataclass(frozen=True)
class ClockWarning(Effect):
    seat: int
    remaining_ms: int


@dataclass(frozen=True)
class ClockExpired(Effect):
    seat: int
    action: Literal["fold", "check"]  # P6: what the expiry did


@dataclass(frozen=True)
class SeatChanged(Effect):
    seat: int
    change: str  # sat | left | sat_out | sat_in | moved | chips | busted | freed


@dataclass(frozen=True)
class Corrected(Effect):
    kind: str
    seat: int | None


@dataclass(frozen=True)
class Transferred(Effect):
    """A supervisor moved chips between two seats' stacks (``transfer``)."""

    from_seat: int
    to_seat: int
    amount: int
    reason: str
    by: str | None
