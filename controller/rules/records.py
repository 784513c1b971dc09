"""The words and the records of the rules core, typed so that mypy checks them.

The records here are plain dicts at run time (``TypedDict``): they go into snapshots
and the journal as JSON just as they are, and an action's record costs no more to
write than a dict. The records with behaviour of their own are dataclasses in
``state`` (``Seat``, ``Hand``, ``UndoRecord`` ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, cast, get_args

from controller.rules.errors import BadEvent

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
#: penalty, the straddle, the lowball kill, a player's ante (A1: all of it dead, part of
#: what the player put in for the pots) and the big blind's ante (A2: dead money).
PostKind = Literal[
    "small_blind",
    "big_blind",
    "entry",
    "return",
    "owed",
    "penalty",
    "straddle",
    "kill",
    "ante",
    "big_blind_ante",
]

#: An out-of-turn record (R10): waiting for the seat's turn, then carried out or void.
OutOfTurnStatus = Literal["pending", "bound", "void"]


class LogEntry(TypedDict):
    """One action of the hand log (``Hand.log``)."""

    street: HandStreet
    seat: int
    action: ActionKind
    to: int  # the seat's bet on this street after it


class PaidTo(TypedDict):
    """The one player the last hand's pots were all paid to, and the seat they were
    paid at (``TableState.paid_to``: the tip shortcut's seat, ``keypad.tips``)."""

    seat: int
    player: str | None  # None once that player left the seat or moved


class LastTip(TypedDict):
    """The last tip (``TableState.last_tip``), which a supervisor may put right before
    the next hand starts: the seat and its player, the amount as it stands, the
    dealer it went to, the hand number and the shift then, and whether it busted the
    seat."""

    seat: int
    player: str | None  # None once that player left the seat or moved
    amount: int
    dealer: str | None
    hand: int
    shift: int
    busted: bool
    counted: bool  # made after the shift's opening count (else in its ``before_open``)


class PostRecord(TypedDict):
    """One post of the hand (``Hand.posts``): its live part counts toward the bet."""

    seat: int
    kind: PostKind
    live: int
    dead: int


class PlanRecord(TypedDict):
    """A voided hand's plan, which the next hand deals again (``TableState.redeal``,
    B7): ``positions.HandPlan`` as JSON values, with the players it deals in."""

    button: int
    small_blind: int | None
    sb_position: int
    big_blind: int
    dealt: list[int]
    posts: list[PostRecord]
    missed: list[list[int | str]]  # [seat, "small" or "big"]
    settled: list[int]
    heads_up: bool
    first_of_game: bool
    passed: list[int]
    bb_travel: int
    kill: NotRequired[int | None]  # (not in the snapshots of earlier versions)
    players: dict[str, str]  # seat number -> player


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


#: The kind of number an entry is typing.
FieldKind = Literal["seat", "amount", "code"]

#: The keypad's entries (``Entry.mode``): which key sequence is being keyed. Each has
#: its row in ``controller.rules.keypad.modes.MODES`` (tests/test_keypad.py checks).
EntryMode = Literal[
    "seat",  # a seat number typed before an action key (``5 CHECK``)
    "bet",  # BET amount ENTER
    "func",  # FUNC, waiting for the menu's digit
    "sit",  # FUNC 1
    "sit_out",  # FUNC 2
    "sit_in",  # FUNC 3
    "leave",  # FUNC 4
    "chips",  # FUNC 5
    "move",  # FUNC 6
    "sign_in",  # FUNC 8
    "award",  # FUNC 7 at the showdown (or a seat number)
    "tip",  # FUNC 7 between hands
    "push",  # FUNC 9
    "supervisor",  # FUNC 0
]
ENTRY_MODES: tuple[EntryMode, ...] = get_args(EntryMode)
#: Where an entry stands in its sequence (``Entry.step``).
EntryStep = Literal[
    "seat",
    "chips",
    "player",
    "amount",
    "entry",
    "confirm",
    "from",
    "to",
    "id",
    "pin",
    "menu",
    "b11_seat",
    "b11_ruling",
    "xfer_from",
    "xfer_to",
    "xfer_amount",
    "xfer_reason",
    "xfer_confirm",
    "value",
    "count",
    "witness",
    "witness_pin",
    "tourney",
    "tourney_level",
    "tourney_confirm",
    "tip_fix_amount",
    "tip_fix_confirm",
    "big_tip_confirm",
]
#: The hand, phase and seat to act an entry or a page was keyed in, as the journal and
#: the snapshots hold it (``keypad.base.Situation`` names the three).
Context = list[int | str | None]


class Entry(TypedDict, total=False):
    """The keypad's unfinished entry (``controller.rules.keypad``): which sequence
    (``mode``) and where in it (``step``); the number being typed (``field``,
    ``digits``); for entries tied to the betting, the hand, phase and seat to act when
    it began (``ctx``); and what the earlier steps collected."""

    mode: EntryMode
    step: EntryStep
    field: FieldKind
    digits: str
    ctx: Context
    seat: int
    chips: int | list[int]  # a seat's buy-in (sit), or the chips pushed, one by one (push)
    player: str
    amount: int
    seat_from: int
    seat_to: int
    supervisor: str
    witness: str  # a shift's second counter (FUNC 0 8, 9)
    tries: int  # the witness's PIN tries left after a wrong one (FUNC 0 8, 9)
    func: str
    counts: list[list[int]]  # tray fill or credit: [chip value, count] pairs
    value: int
    reason: str
    pot: int  # award: the pot being keyed
    winners: list[list[int]]  # award: the winners of each pot closed so far
    current: list[int]  # award: the winners keyed for this pot
    page: int  # the supervisor menu's page NEXT turned to
    held: bool  # a key meant for something else was refused in it (keypad.grammar.holds)


def entry_mode(entry: Mapping[str, object]) -> EntryMode:
    """The mode of a keypad entry read from a snapshot (or any state not folded by
    this firmware); ``BadEvent`` naming it when it is none of ``ENTRY_MODES``."""
    mode = entry.get("mode")
    if mode not in ENTRY_MODES:
        raise BadEvent(
            f"the keypad entry's mode {mode!r} is unknown (a damaged snapshot, or one "
            f"written by another firmware?); the modes are {', '.join(ENTRY_MODES)}"
        )
    return cast(EntryMode, mode)


class Page(TypedDict):
    """The payout or pot page ``NEXT`` turned to (``keypad.pages``), while the hand,
    phase and seat to act it was keyed in (``ctx``) last."""

    ctx: Context
    index: int


class KeypadState(TypedDict, total=False):
    """``TableState.keypad``: journalled and snapshotted with the rest of the state."""

    entry: Entry
    pin_failures: int  # wrong supervisor PINs in a row (FUNC 0)
    locked_until_ms: int  # table time when the supervisor menu unlocks
    lockouts: int  # supervisor menu lock-outs since the last right PIN (each twice as long)
    notice: list[object]  # a one-line message left by the last key (text.to_json)
    page: Page  # the payout or pot page NEXT turned to, until the next accepted key


class TrayMove(TypedDict):
    """A fill or credit of the chip tray (``TableState.tray_moves``)."""

    kind: Literal["fill", "credit"]
    amount: int
    counts: dict[str, int] | None  # chip value (as text) -> count, when keyed
    by: str | None
    hand: int  # the hand number when it was recorded
    at_ms: int  # table time when it was recorded


class TrayAckRecord(TypedDict):
    """A supervisor's acknowledgement of the tray (``TableState.tray_acks``): what the
    tray and the ledger said at that moment."""

    by: str | None
    hand: int
    at_ms: int
    read: bool
    counted: int
    sold: int
    fills: int
    credits: int


# -- the shift (controller.rules.ops, .meters) ------------------------------------------

#: A meter's value by name (``meters.METERS``): the ledger's totals, the meters since a
#: shift began, a dealer's part of the shift (with ``ms``, the time signed in).
MeterValues = dict[str, int]


class ShiftCount(TypedDict):
    """The float counted at a shift's open or close by two people, and when: the hand
    number and table time, and the tray's fills and credits so far (``tray_ledger``)."""

    by: str | None
    witness: str
    counts: dict[str, int]  # chip value (as text) -> count
    float: int  # the value counted
    hand: int
    at_ms: int
    fills: int
    credits: int


class ShiftStart(TypedDict):
    """When a shift's meters began: the previous shift's close (hand and table time)."""

    hand: int
    at_ms: int


class SeatPart(TypedDict):
    """A seat's part of a shift (``meters.SEAT_FIELDS``) and the players who sat there."""

    buy_ins: int
    cash_outs: int
    time_fees: int
    tips: int
    hands: int
    players: list[str]


class ShiftRecord(TypedDict):
    """``TableState.shift``: the shift in progress. Its meters are the ledger's totals
    less ``base`` (the totals when it began); ``open`` and ``close`` the counts. A
    ``close`` ends the shift and starts the next (``start``: when); its ``open`` then
    records the opening count and what the meters held by then (``before_open``).
    Shift 0 is the time before the first open, which makes it shift 1."""

    number: int
    open: ShiftCount | None
    close: ShiftCount | None
    base: MeterValues
    seats: dict[str, SeatPart]  # by seat number (as text)
    dealers: dict[str, MeterValues]  # by dealer id: ``meters.DEALER_FIELDS``
    start: NotRequired[ShiftStart]  # absent: from the journal's start (or, written
    # before shifts rolled over at their close, from the open)
    before_open: NotRequired[MeterValues]


class ShiftReport(TypedDict):
    """A shift's report (``ops.shift_report``; ``TableState.shifts`` keeps the closed
    ones): what ``tablectl meters --json`` prints and the floor's ``shift`` message
    carries. ``table`` is the meters with the table time (``ms``) and hands per hour,
    each dealer's part with its hands per hour; ``float`` the float check."""

    shift: int
    start: NotRequired[ShiftStart | None]  # absent from reports written before 0.3
    open: ShiftCount | None
    close: ShiftCount | None
    before_open: NotRequired[MeterValues | None]  # absent as ``start``
    table: dict[str, Any]
    seats: dict[str, SeatPart]
    dealers: dict[str, dict[str, Any]]
    float: dict[str, Any]
