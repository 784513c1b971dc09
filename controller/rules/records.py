"""The words and the records of the rules core, typed so that mypy checks them.

The records here are plain dicts at run time (``TypedDict``): they go into snapshots
and the journal as JSON just as they are, and an action's record costs no more to
write than a dict. The records with behaviour of their own are dataclasses in
``state`` (``Seat``, ``Hand``, ``UndoRecord`` ...).
"""

from __future__ import annotations

from typing import Literal, TypedDict, get_args

#: The betting rounds of every game form (their order per form: ``state.ROUNDS``).
Street = Literal["preflop", "flop", "turn", "river", "predraw", "draw1", "draw2", "draw3"]
#: Where the hand is: between hands, a betting round, or the showdown.
Phase = Literal[Street, "idle", "showdown"]
#: A hand's street: a betting round, or the showdown waiting for the ranking.
HandStreet = Literal[Street, "showdown"]

#: What a dealer keys for the seat to act (the replay contract's ``act``).
Action = Literal["fold", "check", "call", "bet", "raise", "all_in"]
ACTIONS: tuple[Action, ...] = get_args(Action)
#: What an action amounts to once checked (``all_in`` is a call, a bet or a raise).
ActionKind = Literal["fold", "check", "call", "bet", "raise"]

#: A post of the hand: the blinds, a player's entry or return, a B11 debt, the B10a
#: penalty, the straddle.
PostKind = Literal[
    "small_blind", "big_blind", "entry", "return", "owed", "penalty", "straddle"
]

#: An out-of-turn record (R10): waiting for the seat's turn, then carried out or void.
OutOfTurnStatus = Literal["pending", "bound", "void"]


class LogEntry(TypedDict):
    """One action of the hand log (``Hand.log``)."""

    street: HandStreet
    seat: int
    action: ActionKind
    to: int  # the seat's bet on this street after it


class PostRecord(TypedDict):
    """One post of the hand (``Hand.posts``): its live part counts toward the bet."""

    seat: int
    kind: PostKind
    live: int
    dead: int


class OutOfTurnEntry(TypedDict):
    """R10: an action keyed out of turn (``Hand.out_of_turn``), with where the hand
    log stood and the wager the seat faced when it was keyed."""

    seat: int
    action: Action
    to: int | None
    street: HandStreet
    log_at: int
    facing: int
    status: OutOfTurnStatus
