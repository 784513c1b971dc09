"""The folded state of the table: seats, positions, the hand in progress.

These are plain mutable records owned by one ``Table``. The engine changes them only
after an event has passed every check, so a refused event leaves them untouched.
``to_dict``/``from_dict`` give a lossless JSON form for journal snapshots.
"""

from __future__ import annotations

import copy
import operator
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import (
    Any,
    Literal,
    NamedTuple,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

from controller.rules.records import (
    HandStreet,
    KeypadState,
    LastTip,
    LogEntry,
    OutOfTurnEntry,
    PaidTo,
    Phase,
    PlanRecord,
    PostRecord,
    ShiftRecord,
    ShiftReport,
    ShiftStart,
    Street,
    TrayAckRecord,
    TrayMove,
)

# The hand's phases in order: ``idle`` between hands, the betting rounds of the game's
# form (``game.form``), then the showdown waiting for the dealer's ranking. The one
# table of what follows what.
ROUNDS: dict[str, tuple[Street, ...]] = {
    "flop": ("preflop", "flop", "turn", "river"),  # hold'em, Omaha
    "draw": ("predraw", "draw1"),  # five-card draw, single-draw lowball
    "triple_draw": ("predraw", "draw1", "draw2", "draw3"),  # triple-draw lowball
}
NEXT_PHASE: dict[str, dict[HandStreet, HandStreet]] = {
    form: dict(zip(rounds, (*rounds[1:], cast(HandStreet, "showdown")), strict=True))
    for form, rounds in ROUNDS.items()
}
#: Every betting round of every form: the phases in which a seat may be to act.
STREETS = frozenset(street for rounds in ROUNDS.values() for street in rounds)
#: The first betting round of each form (blinds, straddle, B11 keep ruling).
FIRST_ROUNDS = frozenset(rounds[0] for rounds in ROUNDS.values())


#: Fixed limit: the rounds played at the small bet, the first half of each form's rounds
#: (hold'em: preflop and flop; draw: predraw; triple draw: predraw and draw1).
SMALL_BET_ROUNDS: dict[str, frozenset[str]] = {
    form: frozenset(rounds[: len(rounds) // 2]) for form, rounds in ROUNDS.items()
}


@dataclass
class Seat:
    """A seated player: the stack, the part in the hand in progress, and what the seat owes
    across hands."""

    player: str
    stack: int
    # -- the seat's part in the hand in progress --
    in_hand: bool = False
    folded: bool = False
    all_in: bool = False
    bet: int = 0  # live chips put in on this street
    gathered: int = 0  # live chips put in on earlier streets of this hand
    acted: bool = False  # has acted since the round (re)started for it
    acted_at: int = 0  # the street's highest bet when it last acted
    checked: bool = False  # R1: checked this street
    # -- across hands --
    away: bool = False  # sitting out, or busted (B12)
    missed_small: bool = False
    missed_big: bool = False
    entry: str = "wait"  # how a new or returning player wants to come in
    fresh: bool = True  # never dealt in since sitting down (a new player, B5)
    wait_hands: int = 0  # B14: hands still to wait after a seat change
    home_seat: int | None = None  # B14: the seat before this hand's seat changes began
    home_wait: int = 0  # B14: the hands still to wait then
    owes_post: bool = False  # B11 keep: must post what it owed at the next hand
    last_bb_hand: int = 0  # the hand number this seat last posted the big blind
    last_dealt_hand: int = 0  # the hand number this seat was last dealt in
    absent_hands: int = 0  # hands started while sitting out (max_absent_hands)
    pending_chips: int = 0
    pending_sit_out: bool = False
    pending_leave: bool = False
    pending_move: int | None = None
    pending_move_entry: str = "wait"
    time_banks: int = 0

    @property
    def live(self) -> bool:
        """Still contesting the pot: dealt in and not folded."""
        return self.in_hand and not self.folded

    @property
    def can_act(self) -> bool:
        """Dealt in, not folded, not all-in: may still be asked to act."""
        return self.in_hand and not self.folded and not self.all_in

    @property
    def owes(self) -> bool:
        return self.missed_small or self.missed_big or self.owes_post


@dataclass
class Clock:
    """The action clock: the seat it runs for, the time left, whether the warning was given."""

    seat: int
    remaining_ms: int
    warning: bool = False


@dataclass
class Hand:
    """The hand in progress: its street, the betting round's figures, who acts, and what was
    recorded in it."""

    number: int
    street: HandStreet = "preflop"  # a round of ROUNDS[game.form], or "showdown"
    dealt: list[int] = field(default_factory=list)  # dealing order (P1)
    current_bet: int = 0
    min_increment: int = 0  # no/pot limit: the largest full bet or raise this round
    raise_level: int = 0  # fixed limit: the bet level of the last full bet or raise
    bets: int = 0  # fixed limit: bets and raises this round (the big blind is the bet)
    raises: int = 0  # full raises this round (R2's optional cap)
    capped: bool = False
    to_act: int | None = None
    street_aggressor: int | None = None
    dead_money: int = 0
    saw_flop: bool = False  # reached the second betting round (the flop, draw1)
    straddle: int | None = None
    kill: int | None = None  # lowball seat change (entry: kill): the killer, stakes doubled
    showdown_order: list[int] | None = None
    posts: list[PostRecord] = field(default_factory=list)
    log: list[LogEntry] = field(default_factory=list)
    # R10 (out_of_turn: record): actions keyed out of turn, pending until the seat's
    # turn; replaced, never mutated in place (the undo copy shares the list)
    out_of_turn: list[OutOfTurnEntry] = field(default_factory=list)


# What an action changes (and an undo puts back): these fields of the seat and of the
# hand, besides the hand's log. ``out_of_turn`` is replaced, never changed in place, when
# an action settles an out-of-turn entry (R10).
ACTION_FIELDS = ("stack", "bet", "folded", "all_in", "acted", "acted_at", "checked")
HAND_ACTION_FIELDS = (
    "current_bet",
    "min_increment",
    "raise_level",
    "bets",
    "raises",
    "capped",
    "to_act",
    "street_aggressor",
    "out_of_turn",
)
#: The values of ``ACTION_FIELDS`` of a seat, in that order.
SeatBefore = tuple[int, int, bool, bool, bool, int, bool]
#: The values of ``HAND_ACTION_FIELDS`` of a hand, in that order.
HandBefore = tuple[int, int, int, int, int, bool, int | None, int | None, list[OutOfTurnEntry]]


@dataclass
class UndoRecord:
    """R12: what the last action changed, to take it back while no later action exists.
    Part of the state so that it survives a snapshot."""

    seat: int
    seat_before: SeatBefore
    hand_before: HandBefore
    clock: Clock | None  # the action clock as it was (a copy)
    log_length: int  # the hand log's length before the action

    @classmethod
    def from_dict(cls, data: dict[str, Any] | list[Any]) -> UndoRecord:
        if isinstance(data, list):  # written before the record was typed: positional
            seat, seat_before, hand_before, clock, log_length = data
            if len(hand_before) == len(HAND_ACTION_FIELDS) + 1:
                hand_before = hand_before[:7] + hand_before[8:]  # the retired last_aggressor
            return cls(
                seat,
                cast(SeatBefore, tuple(seat_before)),
                cast(HandBefore, tuple(hand_before)),
                Clock(*clock) if clock is not None else None,
                log_length,
            )
        clock_data = data["clock"]
        return cls(
            seat=data["seat"],
            seat_before=cast(SeatBefore, tuple(data["seat_before"])),
            hand_before=cast(HandBefore, tuple(data["hand_before"])),
            clock=Clock(**clock_data) if clock_data is not None else None,
            log_length=data["log_length"],
        )


@dataclass
class Positions:
    """Where the button and blinds were last hand (the basis of the next hand)."""

    button: int | None = None
    small_blind: int | None = None  # the seat that posted the small blind; None if dead
    sb_position: int | None = None  # the small-blind position even when dead
    big_blind: int | None = None
    hand: int = 0  # the number of the hand these positions belong to
    heads_up: bool = False
    dealt: list[int] = field(default_factory=list)


def new_shift(
    number: int = 0, base: dict[str, int] | None = None, start: ShiftStart | None = None
) -> ShiftRecord:
    """A shift's record (``TableState.shift``, ``controller.rules.meters``) before
    anything happened in it: shift 0 is the time before the first open; a close starts
    the next shift (``base``: the ledger's totals then, ``start``: when)."""
    shift: ShiftRecord = {
        "number": number,
        "open": None,
        "close": None,
        "base": dict(base or {}),
        "seats": {},
        "dealers": {},
    }
    if start is not None:
        shift["start"] = start
    return shift


def _rolled_over(shift: ShiftRecord, shifts: list[ShiftReport]) -> ShiftRecord:
    """A shift record as this version keeps it: one written closed, before a close
    started the next shift, becomes that next shift, its meters from the close (the
    closed shift's base plus its report's meters, the ledger at the close)."""
    closed = shift.get("close")
    if closed is None:
        return shift
    report = next((r for r in reversed(shifts) if r.get("shift") == shift["number"]), None)
    table = report["table"] if report is not None else {}
    base = shift.get("base") or {}
    at_close = {name: int(base.get(name, 0)) + int(table.get(name, 0)) for name in SHIFT_METERS}
    start: ShiftStart = {"hand": int(closed["hand"]), "at_ms": int(closed["at_ms"])}
    return new_shift(int(shift["number"]) + 1, at_close, start)


#: The meters a shift's report holds (``controller.rules.meters.METERS``).
SHIFT_METERS = ("hands", "rake", "jackpot", "time_fees", "tips", "buy_ins", "cash_outs")


#: The rules this release folds events under. A journal's events recorded by an
#: earlier release are folded as that release played them, and this release's rules
#: take over at the first event it records, which carries a snapshot
#: (``controller.daemon.recorder``). ``EARLIER_EDITION`` (a state without the field, a
#: fold with no snapshot): before issue 31, which changed what some events do (a tip's
#: or a transfer's bust, the big-tip confirmation, an undo after a leave, a wrong
#: witness PIN, the tip shortcut). ``ISSUE_31_EDITION``: 0.3.0, before the tournament
#: rulings of docs/rules.md T3 and T4 (a player away who owes nothing folded at the
#: deal; a player with no chips out at the hand's end, rebuys or not).
RULES_EDITION = 3
TOURNAMENT_RULINGS_EDITION = 3
ISSUE_31_EDITION = 2
EARLIER_EDITION = 1


def earlier_release(state: TableState) -> bool:
    """Whether the events are folded as the release before issue 31 played them."""
    return state.rules_edition < ISSUE_31_EDITION


def older_edition(state: TableState) -> bool:
    """Whether the events are folded as an earlier release played them (the recorder
    and recovery: this release's first event records a snapshot that says so)."""
    return state.rules_edition < RULES_EDITION


def tournament_as_0_3(state: TableState) -> bool:
    """Whether a tournament table's events are folded as 0.3.0 played them: a player
    away folded at his turn even when he owes nothing, and a player with no chips
    kept in his seat while rebuys are allowed (``controller.rules.tournament``)."""
    return state.rules_edition < TOURNAMENT_RULINGS_EDITION


@dataclass
class TableState:
    """The whole table: seats, positions, the hand and the clock, the game's travel, fees and
    the money ledger."""

    hand_number: int = 0
    phase: Phase = "idle"
    seats: dict[int, Seat] = field(default_factory=dict)
    positions: Positions = field(default_factory=Positions)
    hand: Hand | None = None
    clock: Clock | None = None
    game_on: bool = False
    # B13: blinds' travel since the game started
    passed: list[int] = field(default_factory=list)
    bb_travel: int = 0
    fees: dict[str, int] = field(default_factory=lambda: {"rake": 0, "jackpot": 0})
    # money ledger, for audits and the conservation property
    bought_in: int = 0
    cashed_out: int = 0
    rake_total: int = 0
    jackpot_total: int = 0
    time_fees_total: int = 0
    # devices as the rules see them
    puck: int | None = None
    tray: dict[int, int] = field(default_factory=dict)
    # misdeal restores these
    before_hand: Snapshot | None = None
    # after a misdeal: the voided hand's plan, which the next hand deals again (B7)
    redeal: PlanRecord | None = None
    keypad: KeypadState = field(default_factory=lambda: KeypadState())
    # R12: the last action's undo record while it may still be taken back
    undo: UndoRecord | None = None
    # table time, the sum of every tick (keypad lock-out, tray stability)
    elapsed_ms: int = 0
    # the chip tray's ledger (controller.rules.tray_ledger; reconciled by controller.tray)
    tray_read: bool = False  # a tray reading has arrived
    tray_since_ms: int = 0  # elapsed_ms when the reading or the ledger last changed
    tray_moves: list[TrayMove] = field(default_factory=list)  # fills and credits
    tray_acks: list[TrayAckRecord] = field(default_factory=list)
    # the last hand's payouts, [pot index, seat, chips] in pot order, until the next hand
    # is dealt (the dealer display pages them, controller.rules.keypad.pages)
    payouts: list[list[int]] = field(default_factory=list)
    # the one player every pot of the last hand went to, at the seat paid (None: a pot
    # was split, or several seats won), until the next hand or a transfer
    paid_to: PaidTo | None = None
    # play stopped by the table: the causes present (controller.rules.stopped)
    play_stopped: list[str] = field(default_factory=list)
    # casino operations (controller.rules.ops, .meters): the signed-in dealer, since
    # when (table time) and whether the push reminder was given; tips; the shift's
    # record (its counts, the ledger at its open, each seat's and dealer's part) and
    # the last closed shifts' reports
    dealer: str | None = None
    hand_dealer: str | None = None  # who dealt the hand in progress (or the last hand)
    dealer_since_ms: int = 0
    push_due: bool = False
    tips_total: int = 0
    last_tip: LastTip | None = None  # the last tip, while it may be put right
    shift: ShiftRecord = field(default_factory=lambda: new_shift())
    shifts: list[ShiftReport] = field(default_factory=list)
    # the rules the events are folded under (``RULES_EDITION``; ``EARLIER_EDITION``:
    # as the release that recorded them played them, ``earlier_release``)
    rules_edition: int = RULES_EDITION
    # a tournament table's record (controller.rules.tournament); None at a cash table
    tournament: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return _json_form(_plain(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableState:
        data = _current(data, "last_refusal")
        data.setdefault("rules_edition", EARLIER_EDITION)  # written by an earlier release
        keypad = data.get("keypad") or {}
        if "dealer" in keypad:  # written when the keypad kept the signed-in dealer
            data["keypad"] = {k: v for k, v in keypad.items() if k != "dealer"}
            data.setdefault("dealer", keypad["dealer"])
        seats = {
            int(k): Seat(**_current(v, "stack_at_start")) for k, v in data.pop("seats").items()
        }
        positions = Positions(**data.pop("positions"))
        hand_data = data.pop("hand")
        hand = (
            Hand(**_current(hand_data, "last_aggressor", "preflop_opener"))
            if hand_data is not None
            else None
        )
        clock_data = data.pop("clock")
        clock = Clock(**clock_data) if clock_data is not None else None
        tray = {int(k): v for k, v in data.pop("tray").items()}
        undo_data = data.pop("undo", None)
        data["undo"] = UndoRecord.from_dict(undo_data) if undo_data is not None else None
        before_data = data.pop("before_hand", None)
        data["before_hand"] = Snapshot.from_dict(before_data) if before_data is not None else None
        if "shift" in data:
            data["shift"] = _rolled_over(data["shift"], data.get("shifts") or [])
        return cls(seats=seats, positions=positions, hand=hand, clock=clock, tray=tray, **data)


#: What a misdeal takes from the table as it is, not from the snapshot before the hand
#: (``controller.rules.misdeal``): the devices, the ledger and table time, the tray's
#: ledger, play stopped, and casino operations (the voided hand still counts).
KEPT_THROUGH_A_VOID = (
    "hand_number",
    "puck",
    "tray",
    "keypad",
    "elapsed_ms",
    "tray_read",
    "tray_since_ms",
    "tray_moves",
    "tray_acks",
    "bought_in",
    "cashed_out",
    "time_fees_total",
    "payouts",
    "paid_to",
    "play_stopped",
    "dealer",
    "dealer_since_ms",
    "hand_dealer",
    "push_due",
    "tips_total",
    "last_tip",
    "shift",
    "shifts",
    "tournament",
    "rules_edition",
)
#: The containers among them, which a snapshot does not copy, as nothing reads them
#: there (the shift's record alone is most of a snapshot's cost). ``tray`` stays: every
#: version's ``TableState.from_dict`` needs it, and a release rolled back reads the
#: snapshots this one wrote.
LEFT_OUT_OF_A_SNAPSHOT = frozenset(
    {"keypad", "tray_moves", "tray_acks", "payouts", "play_stopped", "shift", "shifts"}
)


class Snapshot:
    """The table as it was before the hand in progress (``TableState.before_hand``),
    which a misdeal restores; its JSON form is ``TableState.to_dict`` of that moment
    without its own ``before_hand`` and without the fields a misdeal takes from the
    table as it is (``LEFT_OUT_OF_A_SNAPSHOT``: ``from_dict`` gives them their
    defaults).

    Every hand takes one and few hands are voided, so it is taken the quick way: each
    record's field values (``_Fields``), no dict per record; the JSON form is made only
    when asked for (a misdeal, a journal snapshot in the middle of a hand). One loaded
    from a journal snapshot keeps the JSON form it was loaded from."""

    __slots__ = ("_kept",)

    def __init__(self, kept: _Fields | dict[str, object]) -> None:
        """Made by ``of`` or ``from_dict``."""
        self._kept = kept

    @classmethod
    def of(cls, state: TableState) -> Snapshot:
        shape = _SHAPES.get(TableState) or _shape(TableState)
        values = (  # a field left out is None, which ``to_dict`` drops
            None if name in LEFT_OUT_OF_A_SNAPSHOT else value
            for name, value in zip(shape.names, shape.values(state), strict=True)
        )
        return cls(_record(TableState, values, shape.nested))

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Snapshot:
        return cls(_plain(data))  # a copy: the caller's dict may change

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, a new copy each time."""
        if type(self._kept) is not _Fields:
            return _plain(self._kept)
        data = _json_form(_plain(self._kept))
        data.pop("before_hand", None)
        for name in LEFT_OUT_OF_A_SNAPSHOT:
            del data[name]
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Snapshot):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # compared by content, like a dict

    def __repr__(self) -> str:
        return f"Snapshot({self.to_dict()!r})"


def _json_form(data: dict[str, Any]) -> dict[str, Any]:
    """A state's fields as plain values (``_plain``) in its JSON form: seat numbers as
    text keys."""
    data["seats"] = {str(k): v for k, v in data["seats"].items()}
    data["tray"] = {str(k): v for k, v in data["tray"].items()}
    return data


_V = TypeVar("_V")


def _current(data: Mapping[str, _V], *retired: str) -> dict[str, _V]:
    """A copy of a record's fields without those earlier versions wrote and nothing
    reads any more (``retired``), so that their snapshots still load."""
    data = dict(data)
    for name in retired:
        data.pop(name, None)
    return data


_ATOMS = (int, str, bool, float, type(None))
_ATOM_TYPES = frozenset(_ATOMS)
#: A record's field values, in field order.
FieldValues = Callable[[object], tuple[object, ...]]


class _Shape(NamedTuple):
    names: tuple[str, ...]  # the record's fields, in order
    values: FieldValues  # a getter of their values
    nested: tuple[int, ...]  # the places of the fields whose type is not a plain value


_SHAPES: dict[type, _Shape] = {}


def _shape(kind: type) -> _Shape:
    """A record's field names, a getter of their values, and the fields that may hold
    more than a plain value (by their types, read once, which mypy holds the code to:
    ``int | None`` and a ``Literal`` of words are plain)."""
    names = tuple(f.name for f in fields(kind))
    hints = get_type_hints(kind)
    nested = tuple(at for at, name in enumerate(names) if not _is_plain(hints[name]))
    shape = _SHAPES[kind] = _Shape(names, _field_values(names), nested)
    return shape


def _is_plain(hint: object) -> bool:
    """Whether a field of type ``hint`` only ever holds a plain value (``_ATOMS``)."""
    if hint in _ATOM_TYPES:
        return True
    origin = get_origin(hint)
    if origin is Literal:
        return _ATOM_TYPES.issuperset(map(type, get_args(hint)))
    if origin is Union or origin is types.UnionType:
        return all(_is_plain(arg) for arg in get_args(hint))
    return False


class _Fields:
    """A record as a ``Snapshot`` keeps it: its class and its field values (those that
    are records or containers frozen in turn, ``_freeze``)."""

    __slots__ = ("kind", "values")

    def __init__(self, kind: type, values: tuple[object, ...]) -> None:
        self.kind = kind
        self.values = values


def _freeze(value: object) -> object:
    """A copy of ``value`` that later changes to it cannot reach, taken as quickly as
    may be: records become their field values (``_Fields``), which ``_plain`` makes
    into dicts only when the JSON form is asked for."""
    kind = type(value)
    if kind in _ATOM_TYPES:
        return value
    if type(value) is list:  # (not ``kind``: this narrows the type for mypy)
        if _ATOM_TYPES.issuperset(map(type, value)):
            return value.copy()
        return [_freeze(item) for item in value]
    if type(value) is dict:
        if _ATOM_TYPES.issuperset(map(type, value.values())):
            return value.copy()
        return {key: _freeze(item) for key, item in value.items()}
    shape = _SHAPES.get(kind)
    if shape is None and is_dataclass(value):
        shape = _shape(kind)
    if shape is None:
        return _plain(value)  # a tuple, or what is not a record: copied as it is
    values = shape.values(value)
    if not shape.nested:
        return _Fields(kind, values)
    return _record(kind, values, shape.nested)


def _record(kind: type, values: Iterable[object], nested: tuple[int, ...]) -> _Fields:
    """A record as a snapshot keeps it: its field values, those at the places ``nested``
    frozen in turn (``_freeze``)."""
    frozen = list(values)
    for at in nested:
        if type(frozen[at]) not in _ATOM_TYPES:  # a None where a record may be
            frozen[at] = _freeze(frozen[at])
    return _Fields(kind, tuple(frozen))


def _field_values(names: tuple[str, ...]) -> FieldValues:
    """The values of the fields ``names`` of a record, read at C speed
    (``operator.attrgetter``, which gives a bare value for a single name)."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        get_one = operator.attrgetter(names[0])
        return lambda value: (get_one(value),)
    return lambda value: ()


def _plain(value: Any) -> Any:
    """What ``dataclasses.asdict`` gives for these records, several times faster: the
    journal takes snapshots of the table, and a misdeal restores one. A record's
    fields are read at C speed (``_field_values``)."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list:
        if _ATOM_TYPES.issuperset(map(type, value)):
            return value.copy()
        return [_plain(item) for item in value]
    if kind is dict:
        if _ATOM_TYPES.issuperset(map(type, value.values())):
            return value.copy()
        return {key: _plain(item) for key, item in value.items()}
    if kind is tuple:
        return tuple(_plain(item) for item in value)
    if kind is _Fields:  # a record as a snapshot keeps it
        return _fields_dict(_SHAPES[value.kind], value.values)
    if kind is Snapshot:
        return value.to_dict()
    shape = _SHAPES.get(kind)
    if shape is None and is_dataclass(value):
        shape = _shape(kind)
    if shape is not None:
        # The fields, in order, read through the getter and never through the
        # record's __dict__: asking CPython (3.11+) for an instance's __dict__ turns
        # its attributes into a real dict for good, and every later attribute access
        # on it (each seat's, at every action) gets slower.
        return _fields_dict(shape, shape.values(value))
    return copy.deepcopy(value)


def _fields_dict(shape: _Shape, values: tuple[object, ...]) -> dict[str, object]:
    """A record's fields as a dict of plain values, from their values in order."""
    plain = dict(zip(shape.names, values, strict=True))
    for at in shape.nested:
        item = values[at]
        if type(item) not in _ATOM_TYPES:  # a None where a record may be
            plain[shape.names[at]] = _plain(item)
    return plain
