"""Input events of the replay contract, as frozen dataclasses that validate their shape.

``parse_event`` turns one JSON object into an event or raises ``BadEvent``. Checks that
need the table (seat in range, whose turn) belong to the engine, not here.

Free text is bounded: ``by`` is an id (``is_id``: at most ``MAX_ID_CHARS`` characters,
no space or control character), a player's name at most ``MAX_NAME_CHARS`` printable
characters. An event read back from the journal (``recorded=True``) is taken as it was
recorded, so a journal written before these bounds still folds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import cast

from controller.rules.errors import BadEvent
from controller.rules.limits import MAX_AMOUNT, MAX_ID_CHARS, MAX_NAME_CHARS
from controller.rules.records import ACTIONS, Action

ENTRIES = ("wait", "post")
#: a seat change may also kill the pot (lowball, ``game.seat_change_kill``)
MOVE_ENTRIES = (*ENTRIES, "kill")


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """An input event: who entered it (``by``, a dealer or supervisor id) when known;
    each type below adds its own fields."""

    by: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Sit(Event):
    """A new player takes an empty seat with ``chips``; ``entry``: ``wait`` for the big
    blind or ``post`` to play the next hand."""

    seat: int
    player: str
    chips: int
    entry: str = "wait"
    from_table: str | None = None  # a tournament: a player moved from another table (T5)


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(Event):
    """The player leaves the table."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SitOut(Event):
    """The player steps away and keeps the seat."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SitIn(Event):
    """The player comes back (``entry`` as for ``Sit``)."""

    seat: int
    entry: str | None = None  # None: the house default (wait, or post under post_only)


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveSeat(Event):
    """A seat change to an empty seat (``entry`` as for ``Sit``)."""

    from_seat: int
    to_seat: int
    entry: str = "wait"


@dataclass(frozen=True, slots=True, kw_only=True)
class Chips(Event):
    """Chips bought: between hands they play at once, during a hand from the next."""

    seat: int
    amount: int
    entry: str | None = None  # a busted seat's return (B12); None: the house default


@dataclass(frozen=True, slots=True, kw_only=True)
class StartHand(Event):
    """The next hand: button, blinds and dealt-in seats are decided, blinds posted."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Act(Event):
    """The seat to act acts; ``to``: its total bet on this street after a bet or raise."""

    seat: int
    action: Action
    to: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Award(Event):
    """The showdown result: seats best first, ties grouped; each pot goes to its best
    eligible group, and a seat left out has forfeited (P5)."""

    ranking: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Misdeal(Event):
    """The hand in progress is void: every chip goes back where it was before it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Key(Event):
    """One dealer-keypad key. ``pin_ok`` (project field) is the shell's verdict on the
    supervisor PIN that this ``ENTER`` completes, journalled so that replay does not
    depend on the PIN file of the day; without it the injected verifier decides."""

    key: str
    pin_ok: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CallClock(Event):
    """The clock is called on the seat to act."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Tick(Event):
    """``ms`` milliseconds of time have passed (the core never reads a clock)."""

    ms: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Puck(Event):
    """The button-puck sensor reading: the seat the puck is on, None when lifted."""

    seat: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Tray(Event):
    """A chip-tray reading: (chip value, count) pairs, by value."""

    counts: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class StateQuery(Event):
    """Print the state (replay adds it to the output line)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Straddle(Event):
    """B15: the player left of the big blind posts a live straddle (project event)."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeFee(Event):
    """Time-fee mode: the dealer collected a seat's time fee (project event)."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DealtInError(Event):
    """B11: a seat owing blinds got cards by mistake (project event).

    ``ruling`` is ``kill`` (its hand is dead) or ``keep`` (it plays this hand and
    posts its debt next hand).
    """

    seat: int
    ruling: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Undo(Event):
    """R12: the supervisor takes back the last action while no later action exists."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Push(Event):
    """R14-R16: the chips a seat pushed in, one value per chip, and what it declared
    (``raise``, ``call`` or None); the engine reads it as a call, bet or raise
    (project event, ``controller.rules.pushed``)."""

    seat: int
    chips: tuple[int, ...]
    declared: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TrayFill(Event):
    """Chips brought to the tray from the cage (project event). ``counts`` maps chip
    value to count; ``amount`` is the total (given, or the value of ``counts``)."""

    amount: int
    counts: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TrayCredit(Event):
    """Chips taken from the tray back to the cage (project event); as ``TrayFill``."""

    amount: int
    counts: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TrayAck(Event):
    """A supervisor acknowledges the tray's present difference (project event)."""


#: The devices a ``device`` event names, and what happened to one.
DEVICES = ("keypad", "display", "tray", "puck", "lights")
DEVICE_STATUSES = ("lost", "back")


@dataclass(frozen=True, slots=True, kw_only=True)
class Device(Event):
    """A device was lost (``status`` ``lost``) or works again (``back``); the daemon
    journals one at each change. A lost keypad or display stops play
    (``controller.rules.stopped``)."""

    device: str
    status: str


#: What a ``door`` event says of the controller's compartment door.
DOOR_STATUSES = ("open", "closed")


@dataclass(frozen=True, slots=True, kw_only=True)
class Door(Event):
    """The controller's locked compartment door was opened (``status`` ``open``) or
    closed (``closed``): the door switch, an optional GPIO input; the daemon journals
    one at each change. An open door stops play (``controller.rules.stopped``)."""

    status: str


#: Why a supervisor moves chips between seats (``transfer``).
TRANSFER_REASONS = ("wrong_payout", "chips_misplaced", "other")


@dataclass(frozen=True, slots=True, kw_only=True)
class Transfer(Event):
    """A supervisor's correction between hands: ``amount`` chips move from one seat's
    stack to another's (a pot paid to the wrong player, say), for one of
    ``TRANSFER_REASONS`` (docs/replay.md; ``controller.rules.transfer``)."""

    from_seat: int
    to_seat: int
    amount: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Tip(Event):
    """A player tips the dealer: ``amount`` chips leave the seat's stack for the
    dealer's toke box, between hands (``controller.rules.ops``)."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TipCorrection(Event):
    """A supervisor puts the last tip right, between hands and before the next hand
    starts: it becomes ``amount`` (less than it was, 0 for none), the rest goes back from
    the toke box to the seat's stack (``controller.rules.ops``)."""

    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Dealer(Event):
    """A dealer signs in at the table (``dealer_id``; None signs the dealer out): every
    later hand is dealt by that id until the next sign-in (``controller.rules.ops``)."""

    dealer_id: str | None


#: What a ``shift`` event does: ``open`` starts new meters, ``close`` ends them.
SHIFT_ACTIONS = ("open", "close")


@dataclass(frozen=True, slots=True, kw_only=True)
class Shift(Event):
    """The table's inventory (the chip float) counted at a shift's open or close by two
    people, ``by`` and ``witness`` (``controller.rules.ops``)."""

    action: str
    counts: tuple[tuple[int, int], ...]
    witness: str


#: What a ``tournament`` event does to the level clock (docs/rulebook.md T1).
TOURNAMENT_ACTIONS = ("start", "pause", "resume", "level")


@dataclass(frozen=True, slots=True, kw_only=True)
class Tournament(Event):
    """A supervisor starts, pauses or resumes a tournament table's level clock, or sets
    its level (``controller.rules.tournament``); ``level``: the level to start at or to
    set (from the next hand)."""

    action: str
    level: int | None = None


def _int(obj: Mapping[str, object], name: str, *, minimum: int | None = None) -> int:
    if name not in obj:
        raise BadEvent(f"MISSING FIELD {name!r}")
    value = obj[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadEvent(f"FIELD {name!r} MUST BE A WHOLE NUMBER, GOT {value!r}")
    if minimum is not None and value < minimum:
        raise BadEvent(f"FIELD {name!r} MUST BE AT LEAST {minimum}, GOT {value}")
    return value


def _amount(obj: Mapping[str, object], name: str, *, minimum: int | None) -> int:
    """A whole number of chip units, at most ``MAX_AMOUNT``."""
    value = _int(obj, name, minimum=minimum)
    if value > MAX_AMOUNT:
        raise BadEvent(
            f"FIELD {name!r} MUST BE AT MOST {MAX_AMOUNT} (THE LARGEST AMOUNT), GOT {value}"
        )
    return value


def _opt_int(obj: Mapping[str, object], name: str) -> int | None:
    if obj.get(name) is None:
        return None
    return _int(obj, name)


def _str(obj: Mapping[str, object], name: str) -> str:
    value = obj.get(name)
    if not isinstance(value, str) or not value.strip():
        raise BadEvent(f"FIELD {name!r} MUST BE A NON-EMPTY TEXT")
    return value


def _choice(obj: Mapping[str, object], name: str, allowed: tuple[str, ...], default: str) -> str:
    if name not in obj and default not in allowed:  # a field without a default: say so
        raise BadEvent(f"MISSING FIELD {name!r} (ONE OF {', '.join(allowed)})")
    value = obj.get(name, default)
    if value not in allowed:
        raise BadEvent(f"FIELD {name!r} MUST BE ONE OF {', '.join(allowed)}, GOT {value!r}")
    return str(value)


def _ranking(obj: Mapping[str, object]) -> tuple[tuple[int, ...], ...]:
    raw = obj.get("ranking")
    if not isinstance(raw, list):
        raise BadEvent("FIELD 'ranking' MUST BE A LIST OF LISTS OF SEATS")
    groups = []
    for group in raw:
        if not isinstance(group, list) or not group:
            raise BadEvent("EACH RANKING GROUP MUST BE A NON-EMPTY LIST OF SEATS")
        for seat in group:
            if isinstance(seat, bool) or not isinstance(seat, int):
                raise BadEvent(f"RANKING SEAT {seat!r} IS NOT A SEAT NUMBER")
        groups.append(tuple(group))
    return tuple(groups)


def _counts(obj: Mapping[str, object]) -> tuple[tuple[int, int], ...]:
    raw = obj.get("counts")
    if not isinstance(raw, dict):
        raise BadEvent("FIELD 'counts' MUST MAP CHIP VALUES TO COUNTS")
    pairs = []
    for value, count in raw.items():
        try:
            chip = int(value)
        except (TypeError, ValueError):
            raise BadEvent(f"CHIP VALUE {value!r} IS NOT A WHOLE NUMBER") from None
        if chip <= 0 or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise BadEvent(f"BAD TRAY COUNT {value!r}: {count!r}")
        if chip > MAX_AMOUNT or count > MAX_AMOUNT:
            raise BadEvent(
                f"TRAY COUNT {value!r}: {count!r} IS OVER THE LARGEST AMOUNT ({MAX_AMOUNT})"
            )
        pairs.append((chip, count))
    return tuple(sorted(pairs))


def _chips(obj: Mapping[str, object]) -> tuple[int, ...]:
    raw = obj.get("chips")
    if not isinstance(raw, list) or not raw:
        raise BadEvent("FIELD 'chips' MUST BE A NON-EMPTY LIST OF CHIP VALUES")
    for chip in raw:
        if isinstance(chip, bool) or not isinstance(chip, int) or chip <= 0:
            raise BadEvent(f"CHIP VALUE {chip!r} IS NOT A POSITIVE WHOLE NUMBER")
    if sum(raw) > MAX_AMOUNT:
        raise BadEvent(f"CHIPS PUSHED OVER THE LARGEST AMOUNT ({MAX_AMOUNT})")
    return tuple(raw)


def _declared(obj: Mapping[str, object]) -> str | None:
    value = obj.get("declared")
    if value is not None and value not in ("raise", "call"):
        raise BadEvent(f"FIELD 'declared' MUST BE raise, call OR null, GOT {value!r}")
    return value


def _tray_move(
    kind: type[TrayFill] | type[TrayCredit], obj: Mapping[str, object], by: str | None
) -> Event:
    """``counts`` or ``amount`` (or both, when they agree)."""
    counts = _counts(obj) if "counts" in obj else ()
    value = sum(chip * count for chip, count in counts)
    if "amount" in obj:
        amount = _amount(obj, "amount", minimum=1)
        if counts and amount != value:
            raise BadEvent(f"AMOUNT {amount} IS NOT THE VALUE OF THE COUNTS ({value})")
    elif counts:
        amount = value
    else:
        raise BadEvent("GIVE 'counts' (CHIP VALUE: COUNT) OR 'amount'")
    if amount <= 0:
        raise BadEvent("A TRAY FILL OR CREDIT MUST MOVE SOME CHIPS")
    if amount > MAX_AMOUNT:
        raise BadEvent(f"A TRAY FILL OR CREDIT MOVES AT MOST {MAX_AMOUNT} (THE LARGEST AMOUNT)")
    return kind(by=by, amount=amount, counts=counts)


def _pin_ok(obj: Mapping[str, object]) -> bool | None:
    value = obj.get("pin_ok")
    if value is not None and not isinstance(value, bool):
        raise BadEvent("FIELD 'pin_ok' MUST BE true, false OR null")
    return value


def _by(obj: Mapping[str, object]) -> str | None:
    by = obj.get("by")
    if by is None:
        return None
    if not isinstance(by, str | int) or isinstance(by, bool):
        raise BadEvent("FIELD 'by' MUST BE A DEALER OR SUPERVISOR ID")
    return str(by)


def is_id(value: str) -> bool:
    """A dealer's or supervisor's id: 1 to ``MAX_ID_CHARS`` characters, none a space or
    a control character (no NUL, newline or direction mark in a log line or on the
    display)."""
    return 0 < len(value) <= MAX_ID_CHARS and all(
        c.isprintable() and not c.isspace() for c in value
    )


def _ids(event: Event) -> list[tuple[str, str]]:
    """The ids an event names besides ``by`` (a dealer signing in, a shift's witness)."""
    if isinstance(event, Dealer) and event.dealer_id is not None:
        return [("id", event.dealer_id)]
    if isinstance(event, Shift):
        return [("witness", event.witness)]
    return []


def _check_text(event: Event) -> None:
    """The free text of an event as it comes in: bounded, printable (the value itself is
    not echoed: it may be 60 KB or hold a NUL)."""
    if event.by is not None and not is_id(event.by):
        raise BadEvent(
            f"FIELD 'by' MUST BE A DEALER OR SUPERVISOR ID: 1 TO {MAX_ID_CHARS} "
            "CHARACTERS, NO SPACE OR CONTROL CHARACTER"
        )
    for name, value in _ids(event):
        if not is_id(value):
            raise BadEvent(
                f"FIELD {name!r} MUST BE A DEALER OR SUPERVISOR ID: 1 TO {MAX_ID_CHARS} "
                "CHARACTERS, NO SPACE OR CONTROL CHARACTER"
            )
    if isinstance(event, Sit) and (
        len(event.player) > MAX_NAME_CHARS or not event.player.isprintable()
    ):
        raise BadEvent(
            f"FIELD 'player' MUST BE A NAME OF AT MOST {MAX_NAME_CHARS} "
            "CHARACTERS, NO CONTROL CHARACTER"
        )


def _dealer_id(obj: Mapping[str, object]) -> str | None:
    if "id" not in obj:
        raise BadEvent("MISSING FIELD 'id' (THE DEALER'S ID, NULL TO SIGN OUT)")
    value = obj["id"]
    if value is None:
        return None
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise BadEvent("FIELD 'id' MUST BE A DEALER ID OR NULL")
    return str(value)


def _shift(obj: Mapping[str, object], by: str | None) -> Shift:
    if by is None:
        raise BadEvent("MISSING FIELD 'by' (WHO COUNTED THE FLOAT)")
    witness = obj.get("witness")
    if not isinstance(witness, str | int) or isinstance(witness, bool):
        raise BadEvent("MISSING FIELD 'witness' (THE SECOND PERSON WHO COUNTED)")
    return Shift(
        by=by,
        action=_choice(obj, "action", SHIFT_ACTIONS, ""),
        counts=_counts(obj),
        witness=str(witness),
    )


def _from_table(obj: Mapping[str, object]) -> str | None:
    value = obj.get("from_table")
    if value is None:
        return None
    if not isinstance(value, str | int) or isinstance(value, bool) or not is_id(str(value)):
        raise BadEvent(
            f"FIELD 'from_table' MUST BE A TABLE ID: 1 TO {MAX_ID_CHARS} CHARACTERS, "
            "NO SPACE OR CONTROL CHARACTER"
        )
    return str(value)


def _tip_correction(obj: Mapping[str, object], by: str | None) -> TipCorrection:
    if by is None:
        raise BadEvent("MISSING FIELD 'by' (THE SUPERVISOR WHO PUTS THE TIP RIGHT)")
    return TipCorrection(by=by, amount=_amount(obj, "amount", minimum=0))


def _puck_seat(obj: Mapping[str, object]) -> int | None:
    if "seat" not in obj:
        raise BadEvent("MISSING FIELD 'seat' (NULL WHEN THE PUCK IS LIFTED)")
    return _opt_int(obj, "seat")


_PARSERS: dict[str, Callable[[Mapping[str, object], str | None], Event]] = {
    "sit": lambda o, by: Sit(
        by=by,
        seat=_int(o, "seat"),
        player=_str(o, "player"),
        chips=_amount(o, "chips", minimum=0),
        entry=_choice(o, "entry", ENTRIES, "wait"),
        from_table=_from_table(o),
    ),
    "leave": lambda o, by: Leave(by=by, seat=_int(o, "seat")),
    "sit_out": lambda o, by: SitOut(by=by, seat=_int(o, "seat")),
    "sit_in": lambda o, by: SitIn(
        by=by,
        seat=_int(o, "seat"),
        entry=_choice(o, "entry", ENTRIES, "wait") if "entry" in o else None,
    ),
    "move_seat": lambda o, by: MoveSeat(
        by=by,
        from_seat=_int(o, "from"),
        to_seat=_int(o, "to"),
        entry=_choice(o, "entry", MOVE_ENTRIES, "wait"),
    ),
    "chips": lambda o, by: Chips(
        by=by,
        seat=_int(o, "seat"),
        amount=_amount(o, "amount", minimum=1),
        entry=_choice(o, "entry", ENTRIES, "wait") if "entry" in o else None,
    ),
    "start_hand": lambda o, by: StartHand(by=by),
    "act": lambda o, by: Act(
        by=by,
        seat=_int(o, "seat"),
        action=cast(Action, _choice(o, "action", ACTIONS, "")),
        to=_amount(o, "to", minimum=None) if o.get("to") is not None else None,
    ),
    "award": lambda o, by: Award(by=by, ranking=_ranking(o)),
    "misdeal": lambda o, by: Misdeal(by=by),
    "key": lambda o, by: Key(by=by, key=_str(o, "key").upper(), pin_ok=_pin_ok(o)),
    "call_clock": lambda o, by: CallClock(by=by),
    "tick": lambda o, by: Tick(by=by, ms=_int(o, "ms", minimum=0)),
    "puck": lambda o, by: Puck(by=by, seat=_puck_seat(o)),
    "tray": lambda o, by: Tray(by=by, counts=_counts(o)),
    "state": lambda o, by: StateQuery(by=by),
    "straddle": lambda o, by: Straddle(by=by, seat=_int(o, "seat")),
    "time_fee": lambda o, by: TimeFee(
        by=by, seat=_int(o, "seat"), amount=_amount(o, "amount", minimum=1)
    ),
    "dealt_in_error": lambda o, by: DealtInError(
        by=by, seat=_int(o, "seat"), ruling=_choice(o, "ruling", ("kill", "keep"), "")
    ),
    "undo": lambda o, by: Undo(by=by),
    "push": lambda o, by: Push(by=by, seat=_int(o, "seat"), chips=_chips(o), declared=_declared(o)),
    "tray_fill": lambda o, by: _tray_move(TrayFill, o, by),
    "tray_credit": lambda o, by: _tray_move(TrayCredit, o, by),
    "tray_ack": lambda o, by: TrayAck(by=by),
    "transfer": lambda o, by: Transfer(
        by=by,
        from_seat=_int(o, "from"),
        to_seat=_int(o, "to"),
        amount=_amount(o, "amount", minimum=1),
        reason=_choice(o, "reason", TRANSFER_REASONS, ""),
    ),
    "device": lambda o, by: Device(
        by=by,
        device=_choice(o, "device", DEVICES, ""),
        status=_choice(o, "status", DEVICE_STATUSES, ""),
    ),
    "door": lambda o, by: Door(by=by, status=_choice(o, "status", DOOR_STATUSES, "")),
    "tip": lambda o, by: Tip(by=by, seat=_int(o, "seat"), amount=_amount(o, "amount", minimum=1)),
    "dealer": lambda o, by: Dealer(by=by, dealer_id=_dealer_id(o)),
    "shift": _shift,
    "tournament": lambda o, by: Tournament(
        by=by,
        action=_choice(o, "action", TOURNAMENT_ACTIONS, ""),
        level=_int(o, "level", minimum=1) if o.get("level") is not None else None,
    ),
    "tip_correction": _tip_correction,
}

EVENT_TYPES = tuple(_PARSERS)
#: The events the keypad makes only behind a supervisor's PIN (``FUNC 0``,
#: ``controller.rules.keypad.supervisor``).
SUPERVISOR_EVENTS = (
    "misdeal",
    "undo",
    "dealt_in_error",
    "tray_fill",
    "tray_credit",
    "tray_ack",
    "transfer",
    "shift",
    "tournament",
    "tip_correction",
)
#: The events only a device (or the controller's own clock) sends.
DEVICE_EVENTS = ("tick", "puck", "tray", "device", "door")


def parse_event(obj: object, *, recorded: bool = False) -> Event:
    """One JSON value from an event file → an event, or ``BadEvent`` saying what is wrong.
    ``recorded``: read back from the journal, its free text taken as recorded."""
    if not isinstance(obj, dict):
        raise BadEvent("AN EVENT MUST BE A JSON OBJECT")
    kind = obj.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise BadEvent(f"UNKNOWN EVENT TYPE {kind!r}")
    event = parser(obj, _by(obj))
    if not recorded:
        _check_text(event)
    return event
