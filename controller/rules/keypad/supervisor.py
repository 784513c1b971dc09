"""FUNC 0: supervisor functions behind a PIN.

``FUNC 0``, supervisor id ``ENTER``, PIN ``ENTER``, then one function:

====  ==========================================================  ===================
key   then                                                        event (``by``: the
                                                                  supervisor)
====  ==========================================================  ===================
1     ``ENTER`` to confirm: void the hand in progress             ``misdeal``
2     ``ENTER`` to confirm: take back the last action (R12)       ``undo``
3     seat ``ENTER``, ``1`` kill / ``2`` keep (B11)               ``dealt_in_error``
4     chip value ``ENTER`` count ``ENTER`` ... ``ENTER`` alone    ``tray_fill``
5     the same, chips sent back to the cage                       ``tray_credit``
6     ``ENTER`` to confirm: acknowledge the tray difference       ``tray_ack``
7     from seat ``ENTER``, to seat ``ENTER``, amount ``ENTER``,    ``transfer``
      reason ``1`` wrong payout / ``2`` chips misplaced /
      ``3`` other, ``ENTER`` to confirm (between hands only)
8     the float counted: chip value ``ENTER`` count ``ENTER`` ...  ``shift`` open
      ``ENTER`` alone; the witness's id ``ENTER`` and PIN
      ``ENTER`` (between hands only)
9     the same, at the shift's close                              ``shift`` close
0     a tournament table only (T1): ``1`` start, ``2`` pause,     ``tournament``
      ``3`` resume the level clock, or ``4`` level ``ENTER``:
      set the level (from the next hand)
====  ==========================================================  ===================

A PIN opens the menu for one function; ``CLEAR`` leaves it. The menu is longer than the
display: it shows two lines at a time, and ``NEXT`` turns the page (any function's key
works on any page).

The core never sees a PIN file. At the ``ENTER`` that ends a PIN, the verdict is the
key event's ``pin_ok`` when the shell recorded one, otherwise the verifier the shell
injected into the ``Table`` (``Table.pin_verifier(supervisor_id, pin) -> bool``); with
neither, the PIN is refused as unavailable. ``MAX_PIN_TRIES`` wrong PINs in a row lock
the supervisor menu for ``LOCKOUT_MS`` of table time (time comes from ``tick`` events);
each wrong PIN and the lock-out are effects the shell logs.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.rules import effects, ops
from controller.rules.events import (
    DealtInError,
    Misdeal,
    Shift,
    Tournament,
    Transfer,
    TrayAck,
    TrayCredit,
    TrayFill,
    Undo,
)
from controller.rules.keypad.base import HIDDEN_DIGIT, Press, Step, field_entry
from controller.rules.records import Entry
from controller.rules.seating import occupied
from controller.rules.state import TableState
from controller.rules.text import msg, refuse

MAX_PIN_TRIES = 3
LOCKOUT_MS = 5 * 60 * 1000

FUNCTIONS = {
    "1": "void",
    "2": "undo",
    "3": "b11",
    "4": "fill",
    "5": "credit",
    "6": "ack",
    "7": "transfer",
    "8": "shift_open",
    "9": "shift_close",
}
#: A tournament table's own function (``0``), and what its next key does to the clock.
TOURNAMENT_FUNCTIONS = {**FUNCTIONS, "0": "tournament"}
TOURNAMENT_ACTIONS = {"1": "start", "2": "pause", "3": "resume", "4": "level"}
#: The shift functions and the ``shift`` event's action each keys.
SHIFT_FUNCTIONS = {"shift_open": "open", "shift_close": "close"}
TRANSFER_REASONS = {"1": "wrong_payout", "2": "chips_misplaced", "3": "other"}
CONFIRMED = {"void": Misdeal, "undo": Undo, "ack": TrayAck}


@dataclass(frozen=True, slots=True)
class SupervisorSignedIn(effects.Effect):
    """A supervisor's PIN was taken: the menu is open for one function."""

    supervisor: str


@dataclass(frozen=True, slots=True)
class PinRejected(effects.Effect):
    """A wrong supervisor PIN, and how many in a row so far."""

    supervisor: str
    failures: int


@dataclass(frozen=True, slots=True)
class SupervisorLocked(effects.Effect):
    """Too many wrong PINs: the supervisor menu is locked until ``until_ms``."""

    supervisor: str
    until_ms: int  # table time (TableState.elapsed_ms) when the lock ends


def locked_ms(state: TableState) -> int:
    """How long the supervisor menu stays locked (0: it is not)."""
    until = state.keypad.get("locked_until_ms")
    return max(int(until) - state.elapsed_ms, 0) if until is not None else 0


def start(p: Press) -> Step:
    left = locked_ms(p.table.state)
    if left:
        raise refuse("locked", "keypad.locked", seconds=-(-left // 1000))
    p.pad.pop("locked_until_ms", None)
    return p.stay(field_entry("supervisor", "id", "code"))


def supervisor(p: Press, e: Entry) -> Step:
    step = e["step"]
    if step == "id":
        supervisor_id = p.text(e)
        return p.stay(field_entry("supervisor", "pin", "code", supervisor=supervisor_id))
    if step == "pin":
        return _pin(p, e)
    sid = str(e["supervisor"])
    table = p.table
    if step == "menu":
        if p.key == "NEXT":  # the menu's next page (keypad.prompt.SUPERVISOR_PAGES)
            return p.stay({**e, "page": e.get("page", 0) + 1})
        if table.base_settings.tournament is not None:
            function = p.choice(TOURNAMENT_FUNCTIONS, "choice.supervisor_tournament", paged=True)
        else:
            function = p.choice(FUNCTIONS, "choice.supervisor", paged=True)
        if function == "tournament":
            return p.stay({"mode": "supervisor", "step": "tourney", "supervisor": sid})
        if function in CONFIRMED:
            table.check(CONFIRMED[function]())
            return p.stay(
                {"mode": "supervisor", "step": "confirm", "func": function, "supervisor": sid}
            )
        if function == "b11":
            return p.stay(field_entry("supervisor", "b11_seat", "seat", supervisor=sid))
        if function == "transfer":
            if table.state.hand is not None:
                raise refuse("hand_in_progress", "refuse.transfer_between_hands")
            return p.stay(
                field_entry("supervisor", "xfer_from", "seat", supervisor=sid, func=function)
            )
        if function in SHIFT_FUNCTIONS:
            ops.check_shift_now(table.state, SHIFT_FUNCTIONS[function])
        return p.stay(
            field_entry("supervisor", "value", "amount", supervisor=sid, func=function, counts=[])
        )
    if step == "confirm":
        p.confirm()
        func = str(e["func"])
        notice = msg("notice.tray_ack", supervisor=sid) if func == "ack" else None
        return p.done(CONFIRMED[func](by=sid), notice=notice)
    if step == "b11_seat":
        seat = p.number(e)
        assert seat is not None
        table.check(DealtInError(seat=seat, ruling="kill"))
        return p.stay({"mode": "supervisor", "step": "b11_ruling", "seat": seat, "supervisor": sid})
    if step == "b11_ruling":
        ruling = p.choice({"1": "kill", "2": "keep"}, "choice.kill_keep")
        return p.done(DealtInError(by=sid, seat=int(e["seat"]), ruling=ruling))
    if str(step).startswith("xfer_"):
        return _transfer(p, e, sid)
    if str(step).startswith("tourney"):
        return _tournament(p, e, sid)
    if step in ("witness", "witness_pin"):
        return _witness(p, e, sid)
    return _tray_move(p, e, sid)


def _tournament(p: Press, e: Entry, sid: str) -> Step:
    """``FUNC 0`` id PIN ``0``: the level clock (T1); each step checked as keyed."""
    if e["step"] == "tourney":
        action = p.choice(TOURNAMENT_ACTIONS, "choice.tournament")
        if action == "level":
            return p.stay(field_entry("supervisor", "tourney_level", "code", supervisor=sid))
        event = Tournament(by=sid, action=action)
        p.table.check(event)
        return p.done(event)
    level = p.number(e)
    event = Tournament(by=sid, action="level", level=level)
    p.table.check(event)
    return p.done(event)


def _transfer(p: Press, e: Entry, sid: str) -> Step:
    """FUNC 0 7: each step checked as it is keyed, so a refusal comes where the slip is."""
    step = e["step"]
    table = p.table
    if step == "xfer_from":
        seat = p.number(e)
        assert seat is not None
        occupied(table.state, table.settings, seat)
        return p.stay(
            field_entry(
                "supervisor", "xfer_to", "seat", supervisor=sid, func="transfer", seat_from=seat
            )
        )
    seat_from = int(e["seat_from"])
    if step == "xfer_to":
        seat_to = p.number(e)
        assert seat_to is not None
        occupied(table.state, table.settings, seat_to)
        if seat_to == seat_from:
            raise refuse("bad_transfer", "refuse.transfer_same_seat", seat=seat_from)
        return p.stay(
            field_entry(
                "supervisor",
                "xfer_amount",
                "amount",
                supervisor=sid,
                func="transfer",
                seat_from=seat_from,
                seat_to=seat_to,
            )
        )
    seat_to = int(e["seat_to"])
    if step == "xfer_amount":
        amount = p.number(e)
        assert amount is not None
        table.check(Transfer(from_seat=seat_from, to_seat=seat_to, amount=amount, reason="other"))
        return p.stay(
            {
                "mode": "supervisor",
                "step": "xfer_reason",
                "supervisor": sid,
                "func": "transfer",
                "seat_from": seat_from,
                "seat_to": seat_to,
                "amount": amount,
            }
        )
    if step == "xfer_reason":
        reason = p.choice(TRANSFER_REASONS, "choice.transfer_reason")
        return p.stay({**e, "step": "xfer_confirm", "reason": reason})
    p.confirm()
    amount = int(e["amount"])
    return p.done(
        Transfer(
            by=sid, from_seat=seat_from, to_seat=seat_to, amount=amount, reason=str(e["reason"])
        ),
        notice=msg("notice.transferred", amount=amount, seat_from=seat_from, seat_to=seat_to),
    )


def _tray_move(p: Press, e: Entry, sid: str) -> Step:
    counts = {int(value): int(count) for value, count in e["counts"]}
    if e["step"] == "value":
        value = p.number(e, empty_ok=True)
        if value is None:
            if not counts:
                raise refuse("bad_key", "keypad.fill_needs_chips")
            if e["func"] in SHIFT_FUNCTIONS:  # the float is counted: now the witness
                return p.stay({**e, "step": "witness", "field": "code", "digits": ""})
            kind = TrayFill if e["func"] == "fill" else TrayCredit
            pairs = tuple(sorted(counts.items()))
            amount = sum(v * c for v, c in pairs)
            return p.done(kind(by=sid, amount=amount, counts=pairs))
        chip = p.table.settings.game.smallest_chip
        if value % chip:
            raise refuse("bad_amount", "refuse.tray_units", amount=chip)
        return p.stay({**e, "step": "count", "value": value, "digits": ""})
    count = p.number(e)
    assert count is not None
    value = int(e["value"])
    counts[value] = counts.get(value, 0) + count
    entry: Entry = {
        **e,
        "step": "value",
        "digits": "",
        "counts": sorted([v, c] for v, c in counts.items()),
    }
    entry.pop("value")
    return p.stay(entry)


def _witness(p: Press, e: Entry, sid: str) -> Step:
    """A shift's second counter: a different supervisor's id, then that one's PIN."""
    if e["step"] == "witness":
        witness = p.text(e)
        if witness == sid:
            raise refuse("bad_shift", "refuse.shift_two_people")
        return p.stay({**e, "step": "witness_pin", "witness": witness, "digits": ""})
    witness = str(e["witness"])
    if not _pin_verdict(p, witness, p.text(e)):
        return _wrong_pin(p, witness)
    p.pad.pop("pin_failures", None)
    action = SHIFT_FUNCTIONS[str(e["func"])]
    counts = tuple(sorted((int(value), int(count)) for value, count in e["counts"]))
    return p.done(
        Shift(by=sid, action=action, counts=counts, witness=witness),
        notice=msg(f"notice.shift_{action}", supervisor=sid, witness=witness),
    )


def _pin_verdict(p: Press, sid: str, pin: str) -> bool:
    """The shell's verdict recorded with the ``ENTER`` (``pin_ok``), else the injected
    verifier's; refused as unavailable with neither."""
    verdict = p.pin_ok
    if verdict is None:
        verifier = p.table.pin_verifier
        # hidden digits without the shell's verdict: the shell had no PIN file either
        if verifier is None or HIDDEN_DIGIT in pin:
            raise refuse("pin_unavailable", "keypad.pin_unavailable")
        verdict = bool(verifier(sid, pin))
    return verdict


def _pin(p: Press, e: Entry) -> Step:
    sid = str(e["supervisor"])
    if _pin_verdict(p, sid, p.text(e)):
        p.pad.pop("pin_failures", None)
        step = p.stay({"mode": "supervisor", "step": "menu", "supervisor": sid})
        step.effects.append(SupervisorSignedIn(sid))
        return step
    return _wrong_pin(p, sid)


def _wrong_pin(p: Press, sid: str) -> Step:
    """A wrong PIN: counted; ``MAX_PIN_TRIES`` in a row lock the menu."""
    failures = int(p.pad.get("pin_failures", 0)) + 1
    if failures >= MAX_PIN_TRIES:
        until = p.table.state.elapsed_ms + LOCKOUT_MS
        return p.done(
            notice=msg("notice.locked", seconds=LOCKOUT_MS // 1000),
            extra=[SupervisorLocked(sid, until)],
            pin_failures=None,
            locked_until_ms=until,
        )
    tries = MAX_PIN_TRIES - failures
    notice = msg("notice.wrong_pin_last") if tries == 1 else msg("notice.wrong_pin", tries=tries)
    return p.done(notice=notice, extra=[PinRejected(sid, failures)], pin_failures=failures)
