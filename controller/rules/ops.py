"""Casino operations: dealers' tips, dealers signing in, shifts and their meters.

- ``tip`` (seat, amount): chips leave a seat's stack for the dealer's toke box. Between
  hands only; a positive multiple of the smallest chip, at most the stack. Not the
  tray's: the tray report lists tips beside the rake, never as a difference.
- ``dealer`` (id): a dealer signs in; every later hand is dealt by that id until the
  next sign-in (an id of None signs the dealer out). Accepted at any time: the hand in
  progress keeps the dealer it was dealt by (``TableState.hand_dealer``), and its money
  (rake, jackpot drop, time fees, chips bought or taken away during it) is that
  dealer's; between hands the money is the signed-in dealer's. With
  ``dealer.push_minutes`` set, the push reminder falls due that long (table time,
  ``tick`` events) after the sign-in: a ``PushDue`` effect once, and a line on the
  display between hands.
- ``shift`` (action, counts, by, witness): the chip float counted by two people at a
  shift's open or close. ``close`` ends the shift: its report is kept
  (``TableState.shifts``, the last ``KEPT_SHIFTS``) and made an effect (``ShiftClosed``)
  that the floor link sends as one message, and the next shift's meters start at once;
  ``open`` records the opening count of the shift in progress, and what its meters
  held by then (what happened between the close and the open is in that shift, and its
  report says so: ``before_open``).

Meters. The table's ledger totals (``bought_in``, ``cashed_out``, ``rake_total``,
``jackpot_total``, ``time_fees_total``, ``tips_total``, ``hand_number``) run from the
journal's start; the shift keeps their values when it began (``base``: at the last
close, nothing before the first), and the state's ``meters`` are the differences. Every
chip that enters or leaves the players' stacks, other than from one player to another
(pots, ``transfer``), is in exactly one of them, in exactly one shift.
The shift also keeps each seat's and each dealer's part (``account``, called by
``Table.apply`` after every event but keys, whose own events are accounted, with what
the event set off: an out-of-turn action it made binding; and
``seat_cashed_out`` where a seat's chips leave the table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.rules import bust, effects, meters, seating
from controller.rules.errors import Refusal
from controller.rules.events import (
    Chips,
    Dealer,
    Event,
    Shift,
    Sit,
    StartHand,
    Tick,
    TimeFee,
    Tip,
    TipCorrection,
)
from controller.rules.meters import METERS
from controller.rules.records import LastTip, ShiftCount, ShiftRecord, ShiftReport, ShiftStart
from controller.rules.settings import RuleSettings
from controller.rules.state import TableState, new_shift
from controller.rules.text import Message, msg, refuse
from controller.rules.tray_ledger import totals as tray_totals

#: Closed shifts whose reports the state keeps (``tablectl meters --shift N``).
KEPT_SHIFTS = 10


@dataclass(frozen=True, slots=True)
class Tipped(effects.Effect):
    """A seat tipped the dealer (``dealer``: who was signed in, None when nobody)."""

    seat: int
    amount: int
    dealer: str | None


@dataclass(frozen=True, slots=True)
class TipCorrected(effects.Effect):
    """A supervisor (``by``) put the last tip right: seat ``seat``'s tip to ``dealer``
    was ``was`` and is ``amount``; the difference went back to the stack."""

    seat: int
    amount: int
    was: int
    dealer: str | None
    by: str | None


@dataclass(frozen=True, slots=True)
class DealerChanged(effects.Effect):
    """A dealer signed in (``dealer``), or out (None); ``before``: who was in."""

    dealer: str | None
    before: str | None


@dataclass(frozen=True, slots=True)
class PushDue(effects.Effect):
    """The signed-in dealer's push is due: ``minutes`` at the table."""

    dealer: str
    minutes: int


@dataclass(frozen=True, slots=True)
class ShiftOpened(effects.Effect):
    """A shift opened: its number and the float counted."""

    shift: int
    float_value: int
    by: str
    witness: str


@dataclass(frozen=True, slots=True)
class ShiftClosed(effects.Effect):
    """A shift closed: its report (``report``), as ``tablectl meters`` prints it."""

    shift: int
    report: ShiftReport


# -- tips ---------------------------------------------------------------------------------


def tip_out_of_phase() -> Refusal:
    return refuse("hand_in_progress", "refuse.tip_between_hands")


def check_tip(state: TableState, settings: RuleSettings, event: Tip) -> None:
    s = seating.occupied(state, settings, event.seat)
    chip = settings.game.smallest_chip
    if event.amount <= 0 or event.amount % chip:
        raise refuse("bad_amount", "refuse.chip_units", amount=chip)
    if event.amount > s.stack:
        raise refuse("bad_amount", "refuse.seat_has_only", seat=event.seat, amount=s.stack)


def do_tip(state: TableState, settings: RuleSettings, event: Tip) -> list[effects.Effect]:
    s = state.seats[event.seat]
    s.stack -= event.amount
    state.tips_total += event.amount
    out: list[effects.Effect] = [Tipped(event.seat, event.amount, state.dealer)]
    busts = bust.chips_left(state, settings, [event.seat])
    state.last_tip = {
        "seat": event.seat,
        "player": s.player,
        "amount": event.amount,
        "dealer": state.dealer,
        "hand": state.hand_number,
        "shift": state.shift["number"],
        "busted": bool(busts),
        "counted": shift_is_open(state),
    }
    return out + busts


def tip_to_correct(state: TableState) -> LastTip:
    """The last tip, while a supervisor may put it right: between hands, before the next
    hand starts and the shift's close, its player still in the seat."""
    last = state.last_tip
    if state.hand is not None:
        raise tip_out_of_phase()
    if last is None or last["hand"] != state.hand_number:
        raise refuse("no_tip", "refuse.no_tip_to_correct")
    # a close since: its report holds the tip (shift 0 is shift 1 before its first open)
    if max(last["shift"], 1) != max(state.shift["number"], 1):
        raise refuse("no_tip", "refuse.tip_shift_closed", shift=max(last["shift"], 1))
    s = state.seats.get(last["seat"])
    if s is None or s.player != last["player"]:
        raise refuse("no_tip", "refuse.tip_player_gone", seat=last["seat"])
    return last


def check_tip_correction(state: TableState, settings: RuleSettings, event: TipCorrection) -> None:
    last = tip_to_correct(state)
    chip = settings.game.smallest_chip
    if event.amount % chip:
        raise refuse("bad_amount", "refuse.chip_units", amount=chip)
    if event.amount >= last["amount"]:
        raise refuse("bad_amount", "refuse.tip_correction_less", amount=last["amount"])


def do_tip_correction(
    state: TableState, settings: RuleSettings, event: TipCorrection
) -> list[effects.Effect]:
    """The difference goes back from the toke box to the stack; a seat the tip busted
    plays again once it can cover a smallest chip (no hand has started since)."""
    last = state.last_tip
    assert last is not None  # check_tip_correction
    back = last["amount"] - event.amount
    s = state.seats[last["seat"]]
    chip = settings.game.smallest_chip
    busted = last["busted"] and s.away and bust.cannot_play(s.stack, chip)
    s.stack += back
    if busted and not bust.cannot_play(s.stack, chip):
        seating.come_back(settings, s, s.entry)  # as it was: no hand started since
        busted = False
    state.tips_total -= back
    meters.seat_part(state, last["seat"])["tips"] -= back
    before_open = state.shift.get("before_open")
    if not last.get("counted", True) and before_open is not None:
        before_open["tips"] -= back  # the tip came before the opening count
    state.last_tip = {**last, "amount": event.amount, "busted": busted}
    return [TipCorrected(last["seat"], event.amount, last["amount"], last["dealer"], event.by)]


# -- dealers ------------------------------------------------------------------------------


def check_dealer(state: TableState, settings: RuleSettings, event: Dealer) -> None:
    return None


def do_dealer(state: TableState, settings: RuleSettings, event: Dealer) -> list[effects.Effect]:
    before = state.dealer
    state.dealer = event.dealer_id
    state.dealer_since_ms = state.elapsed_ms
    state.push_due = False
    return [DealerChanged(event.dealer_id, before)]


def push_left_ms(state: TableState, settings: RuleSettings) -> int | None:
    """Table time until the signed-in dealer's push reminder (0: due now); None when
    there is none to come (off, nobody signed in, or already given)."""
    minutes = settings.dealer.push_minutes
    if minutes is None or state.dealer is None or state.push_due:
        return None
    return max(minutes * 60_000 - (state.elapsed_ms - state.dealer_since_ms), 0)


def push_notice(state: TableState) -> Message | None:
    """The push reminder, on the display's first line between hands once it is due."""
    if state.hand is None and state.push_due and state.dealer is not None:
        return msg("display.push_due", dealer=state.dealer)
    return None


def _push_check(state: TableState, settings: RuleSettings) -> list[effects.Effect]:
    left = push_left_ms(state, settings)
    if left != 0 or state.dealer is None or settings.dealer.push_minutes is None:
        return []
    state.push_due = True
    return [PushDue(state.dealer, settings.dealer.push_minutes)]


# -- shifts -------------------------------------------------------------------------------


def shift_out_of_phase() -> Refusal:
    return refuse("hand_in_progress", "refuse.shift_between_hands")


def shift_is_open(state: TableState) -> bool:
    """Whether the shift in progress had its opening count (a close starts the next
    shift, which is not open until its count)."""
    return state.shift["open"] is not None and state.shift["close"] is None


def shift_counting(state: TableState) -> bool:
    """Whether the shift in progress counts table time: from its first open on (a close
    starts the next shift at once); not before the journal's first open."""
    return state.shift["number"] > 0


def check_shift_now(state: TableState, action: str) -> None:
    """Whether a shift may open (none is open) or close (one is) now, between hands."""
    if state.hand is not None:
        raise shift_out_of_phase()
    if action == "open" and shift_is_open(state):
        raise refuse("bad_shift", "refuse.shift_is_open", shift=state.shift["number"])
    if action == "close" and not shift_is_open(state):
        raise refuse("bad_shift", "refuse.no_shift_open")


def check_shift(state: TableState, settings: RuleSettings, event: Shift) -> None:
    if event.by is None or event.by == event.witness:
        raise refuse("bad_shift", "refuse.shift_two_people")
    check_shift_now(state, event.action)
    chip = settings.game.smallest_chip
    if any(value % chip for value, _ in event.counts):
        raise refuse("bad_amount", "refuse.tray_units", amount=chip)


def _count_record(state: TableState, event: Shift) -> ShiftCount:
    fills, credits = tray_totals(state)
    return {
        "by": event.by,
        "witness": event.witness,
        "counts": {str(value): count for value, count in event.counts},
        "float": sum(value * count for value, count in event.counts),
        "hand": state.hand_number,
        "at_ms": state.elapsed_ms,
        "fills": fills,
        "credits": credits,
    }


def do_shift(state: TableState, settings: RuleSettings, event: Shift) -> list[effects.Effect]:
    """``open``: the opening count of the shift in progress (the first open makes the
    time since the journal began shift 1), with what its meters held by then. ``close``:
    the closing count; the report is kept and the next shift's meters start."""
    record = _count_record(state, event)
    assert event.by is not None  # check_shift
    shift = state.shift
    if event.action == "open":
        if shift["number"] == 0:
            shift["number"] = 1
            shift["start"] = {"hand": 0, "at_ms": 0}
        shift["open"] = record
        shift["before_open"] = meters.current(state)
        return [ShiftOpened(shift["number"], record["float"], event.by, event.witness)]
    shift["close"] = record
    report = shift_report(state)
    state.shifts = [*state.shifts, report][-KEPT_SHIFTS:]
    start: ShiftStart = {"hand": record["hand"], "at_ms": record["at_ms"]}
    state.shift = new_shift(shift["number"] + 1, meters.totals(state), start)
    return [ShiftClosed(shift["number"], report)]


def shift_report(state: TableState) -> ShiftReport:
    """The shift's report: the table's meters, each seat's and each dealer's part, hours
    and hands per hour (table time), what happened before the opening count
    (``before_open``: the meters then; None before it), and the float counted at open
    and close against the tray's fills and credits and the chips sold after the open.
    For the shift in progress the figures so far."""
    shift = state.shift
    opened, closed = shift["open"], shift["close"]
    end_ms = closed["at_ms"] if closed else state.elapsed_ms
    table: dict[str, Any] = {**meters.current(state), "ms": end_ms - _start_ms(shift)}
    table["hands_per_hour"] = per_hour(table["hands"], table["ms"])
    dealers = {
        dealer: {**part, "hands_per_hour": per_hour(part["hands"], part["ms"])}
        for dealer, part in sorted(shift["dealers"].items())
    }
    before_open = shift.get("before_open") if opened is not None else None
    sold = table["buy_ins"] - (before_open or {}).get("buy_ins", 0)
    return {
        "shift": shift["number"],
        "start": shift.get("start"),
        "open": opened,
        "close": closed,
        "before_open": before_open,
        "table": table,
        "seats": {k: v.copy() for k, v in sorted(shift["seats"].items(), key=_seat_order)},
        "dealers": dealers,
        "float": float_check(opened, closed, sold, state),
    }


def _start_ms(shift: ShiftRecord) -> int:
    """When the shift's meters began (table time): its start; for a shift written before
    shifts began at the previous close, its open (the journal's start before any)."""
    start = shift.get("start")
    if start is not None:
        return start["at_ms"]
    opened = shift["open"]
    return opened["at_ms"] if opened is not None else 0


def shift_view(state: TableState) -> dict[str, Any]:
    """The shift as the state view shows it: its number, whether it is open, and the
    push reminder."""
    return {
        "number": state.shift["number"],
        "open": shift_is_open(state),
        "push_due": state.push_due,
    }


def _seat_order(item: tuple[str, Any]) -> int:
    return int(item[0])


def per_hour(hands: int, ms: int) -> float | None:
    """Hands per hour over ``ms`` of table time, to one decimal (None: no time)."""
    return round(hands * 3_600_000 / ms, 1) if ms > 0 else None


def float_check(
    opened: ShiftCount | None, closed: ShiftCount | None, sold: int, state: TableState
) -> dict[str, Any]:
    """The float at open and close against the chips sold, fills and credits between:
    expected close = open - sold + fills - credits (as ``controller.tray``)."""
    if opened is None:
        return {"open": None, "close": None, "expected": None, "difference": None}
    fills_now, credits_now = tray_totals(state)
    fills = (closed["fills"] if closed else fills_now) - opened["fills"]
    credits = (closed["credits"] if closed else credits_now) - opened["credits"]
    expected = opened["float"] - sold + fills - credits
    counted = closed["float"] if closed else None
    return {
        "open": opened["float"],
        "sold": sold,
        "fills": fills,
        "credits": credits,
        "expected": expected,
        "close": counted,
        "difference": counted - expected if counted is not None else None,
    }


# -- each seat's and each dealer's part -------------------------------------------------

#: The events ``account`` looks at (a key's own events are accounted when applied).
SEAT_EVENTS = (Sit, Chips, TimeFee, Tip, StartHand)


#: What ``account`` compares the table with after an event: the ledger before it, and
#: the dealer its money is credited to.
Before = tuple[tuple[int, ...], str | None]


def credited_dealer(state: TableState, event: Event) -> str | None:
    """Whose part of the shift an event's money is: during a hand, the dealer who dealt
    it (``hand_dealer``: its rake, jackpot drop, time fees, chips bought or taken away
    in it), whoever signs in meanwhile; between hands, the dealer signed in; a tip's
    correction, the dealer the tip went to."""
    if type(event) is TipCorrection and state.last_tip is not None:
        return state.last_tip["dealer"]
    return state.hand_dealer if state.hand is not None else state.dealer


def before(state: TableState, event: Event) -> Before | None:
    """What ``account`` compares the ledger with after the event: None when no dealer
    is signed in nor dealt the hand in progress, as nothing is credited to a dealer
    then (a ``dealer`` event moves no chips)."""
    dealer = credited_dealer(state, event)
    if dealer is None and state.dealer is None:
        return None  # (a correction of a tip nobody got credits nobody either)
    return meters.ledger(state), dealer


def account(
    state: TableState, settings: RuleSettings, event: Event, was: Before | None
) -> list[effects.Effect]:
    """Credit the event to the seat and the dealer it concerns (``was``: ``before``'s
    ledger and dealer); the time signed in to the dealer signed in; the push reminder."""
    kind = type(event)
    if kind in SEAT_EVENTS:
        _seat_part(state, event)
    if was is not None:
        ledger_before, dealer = was
        now = meters.ledger(state)
        if dealer is not None and now != ledger_before:
            part = meters.dealer_part(state.shift, dealer)
            for name, after, earlier in zip(METERS, now, ledger_before, strict=True):
                part[name] += after - earlier
    if kind is Tick and state.dealer is not None:
        assert isinstance(event, Tick)
        meters.dealer_part(state.shift, state.dealer)["ms"] += event.ms
    if kind is Tick and settings.dealer.push_minutes is not None:
        return _push_check(state, settings)
    return []


def _seat_part(state: TableState, event: Event) -> None:
    if isinstance(event, StartHand):
        hand = state.hand
        if hand is not None:  # the hand's dealer, whoever signs in during it
            state.hand_dealer = state.dealer
        for seat in hand.dealt if hand is not None else []:
            meters.seat_part(state, seat)["hands"] += 1
        return
    assert isinstance(event, Sit | Chips | TimeFee | Tip)
    part = meters.seat_part(state, event.seat)
    if isinstance(event, Sit):
        part["buy_ins"] += event.chips
    elif isinstance(event, Chips):
        part["buy_ins"] += event.amount
    elif isinstance(event, TimeFee):
        part["time_fees"] += event.amount
    else:
        part["tips"] += event.amount
