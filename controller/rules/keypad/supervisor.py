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
      ``ENTER`` (between hands only; a wrong witness
      PIN asks for it again, the count kept)
9     the same, at the shift's close                              ``shift`` close
0     the last tip as it should have been ``ENTER`` (``ENTER``     ``tip_correction``
      alone: no tip at all), ``ENTER`` to confirm (between hands,
      before the next hand starts)
      (a tournament table: ``0`` opens the level clock's     ``tournament``
      functions instead: ``1`` start, ``2`` pause, ``3`` resume,
      each ``ENTER`` to confirm; ``4`` level ``ENTER`` (from
      the next hand), ``5`` the
      tip correction above)
====  ==========================================================  ===================

A PIN opens the menu for one function; ``CLEAR`` leaves it (while the witness types a
PIN, it drops only the digits typed). The menu is longer than the
display: it shows two lines at a time, and ``NEXT`` turns the page (any function's key
works on any page).

The core never sees a PIN file. At the ``ENTER`` that ends a PIN, the verdict is the
key event's ``pin_ok`` when the shell recorded one, otherwise the verifier the shell
injected into the ``Table`` (``Table.pin_verifier(supervisor_id, pin) -> bool``); with
neither, the PIN is refused as unavailable. ``MAX_PIN_TRIES`` wrong PINs in a row lock
the supervisor menu for a time of table time (time comes from ``tick`` events) that
doubles with each lock-out since the last right PIN (``lockout_ms``: 5 minutes, 10, 20,
... at most ``MAX_LOCKOUT_MS``, a day); the count (``lockouts``) is in the keypad's state,
journalled and snapshotted, so a restart keeps it. Each wrong PIN and each lock-out are
effects the shell logs; from the ``FLOOR_LOCKOUT``-th lock-out in a row the shell also
tells the floor (``docs/supervisor.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.rules import effects, ops
from controller.rules.events import (
    DealtInError,
    Misdeal,
    Shift,
    TipCorrection,
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
from controller.rules.state import TableState, earlier_release, tournament_as_0_3
from controller.rules.text import msg, refuse

MAX_PIN_TRIES = 3
#: The first lock-out; each one after it, until a right PIN, lasts twice the one before.
LOCKOUT_MS = 5 * 60 * 1000
#: The longest lock-out (reached at the tenth in a row).
MAX_LOCKOUT_MS = 24 * 60 * 60 * 1000
#: From this lock-out in a row on, the floor is told.
FLOOR_LOCKOUT = 2

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
    "0": "tip_fix",
}
#: A tournament table's ``0``: the level clock's functions, and the tip correction.
TOURNAMENT_FUNCTIONS = {**FUNCTIONS, "0": "tournament"}
TOURNAMENT_ACTIONS = {"1": "start", "2": "pause", "3": "resume", "4": "level", "5": "tip_fix"}
#: The shift functions and the ``shift`` event's action each keys.
SHIFT_FUNCTIONS = {"shift_open": "open", "shift_close": "close"}
TRANSFER_REASONS = {"1": "wrong_payout", "2": "chips_misplaced", "3": "other"}
CONFIRMED = {"void": Misdeal, "undo": Undo, "ack": TrayAck}


@dataclass(frozen=True, slots=True)
class SupervisorSignedIn(effects.Effect):
    """A supervisor's PIN was taken: the menu is open for one function."""

    supervisor: str
    lockouts: int = 0  # the lock-outs in a row this right PIN ended

    @property
    def floor(self) -> bool:
        """Whether the floor was told of the lock-outs (and is now told they ended)."""
        return self.lockouts >= FLOOR_LOCKOUT


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
    lockout: int = 1  # the how-manyth lock-out since the last right PIN
    duration_ms: int = LOCKOUT_MS

    @property
    def floor(self) -> bool:
        """Whether the floor is told (the ``FLOOR_LOCKOUT``-th lock-out in a row on)."""
        return self.lockout >= FLOOR_LOCKOUT


def lockout_ms(lockout: int) -> int:
    """How long the ``lockout``-th lock-out in a row lasts (1: the first): doubling from
    ``LOCKOUT_MS``, at most ``MAX_LOCKOUT_MS``."""
    return min(LOCKOUT_MS << min(max(lockout, 1) - 1, 16), MAX_LOCKOUT_MS)


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
        return _menu(p, e, sid)
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
    if str(step).startswith("tip_fix_"):
        return _tip_fix(p, e, sid)
    if str(step).startswith("tourney"):
        return _tournament(p, e, sid)
    if step in ("witness", "witness_pin"):
        return _witness(p, e, sid)
    return _tray_move(p, e, sid)


def _menu(p: Press, e: Entry, sid: str) -> Step:
    """The menu: ``NEXT`` turns its page; a function's key opens the function (a
    tournament table's ``0``: the level clock's functions)."""
    table = p.table
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
        return p.stay(field_entry("supervisor", "xfer_from", "seat", supervisor=sid, func=function))
    if function == "tip_fix":
        ops.tip_to_correct(table.state)
        return p.stay(field_entry("supervisor", "tip_fix_amount", "amount", supervisor=sid))
    if function in SHIFT_FUNCTIONS:
        ops.check_shift_now(table.state, SHIFT_FUNCTIONS[function])
    return p.stay(
        field_entry("supervisor", "value", "amount", supervisor=sid, func=function, counts=[])
    )


def _tournament(p: Press, e: Entry, sid: str) -> Step:
    """``FUNC 0`` id PIN ``0``: the level clock (T1); each step checked as keyed, start,
    pause and resume confirmed with ``ENTER`` (a supervisor used to a cash table's ``0``,
    the tip correction, keys an amount next: its first digit must not act on the clock;
    as 0.3.0 played its journals, they took effect at once)."""
    if e["step"] == "tourney_confirm":
        p.confirm()
        return p.done(Tournament(by=sid, action=e["func"]))
    if e["step"] == "tourney":
        action = p.choice(TOURNAMENT_ACTIONS, "choice.tournament")
        if action == "tip_fix":  # the tip correction, whose key 0 the level clock took
            ops.tip_to_correct(p.table.state)
            return p.stay(field_entry("supervisor", "tip_fix_amount", "amount", supervisor=sid))
        if action == "level":
            return p.stay(field_entry("supervisor", "tourney_level", "code", supervisor=sid))
        event = Tournament(by=sid, action=action)
        p.table.check(event)
        if tournament_as_0_3(p.table.state):
            return p.done(event)
        return p.stay(
            {"mode": "supervisor", "step": "tourney_confirm", "func": action, "supervisor": sid}
        )
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


def _tip_fix(p: Press, e: Entry, sid: str) -> Step:
    """FUNC 0 0: the last tip as it should have been (``ENTER`` alone: none), checked as
    keyed, then confirmed."""
    if e["step"] == "tip_fix_amount":
        amount = p.number(e, empty_ok=True) or 0
        p.table.check(TipCorrection(by=sid, amount=amount))
        return p.stay(
            {"mode": "supervisor", "step": "tip_fix_confirm", "supervisor": sid, "amount": amount}
        )
    p.confirm()
    amount = int(e["amount"])
    return p.done(
        TipCorrection(by=sid, amount=amount), notice=msg("notice.tip_fixed", amount=amount)
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
        if earlier_release(p.table.state):  # the release before issue 31 ended the count
            return _wrong_pin(p, witness)
        return _wrong_witness_pin(p, e, witness)
    p.pad.pop("pin_failures", None)
    action = SHIFT_FUNCTIONS[str(e["func"])]
    counts = tuple(sorted((int(value), int(count)) for value, count in e["counts"]))
    return p.done(
        Shift(by=sid, action=action, counts=counts, witness=witness),
        notice=msg(f"notice.shift_{action}", supervisor=sid, witness=witness),
    )


def clear(p: Press, e: Entry) -> Step:
    """``CLEAR`` while the witness types the PIN drops only the digits typed (the count
    keyed stays); anywhere else it leaves the menu."""
    if e.get("step") == "witness_pin" and e.get("digits") and not earlier_release(p.table.state):
        return p.stay({**e, "digits": ""})
    return p.done()


def _wrong_witness_pin(p: Press, e: Entry, witness: str) -> Step:
    """A wrong witness PIN counts as any wrong PIN, and asks for the PIN again with the
    count keyed kept (the lock-out, at the last try, ends the count)."""
    step = _wrong_pin(p, witness)
    if "locked_until_ms" in step.keypad:
        return step
    tries = MAX_PIN_TRIES - int(step.keypad.get("pin_failures", 0))
    step.keypad = {**step.keypad, "entry": {**e, "digits": "", "tries": tries}}
    step.keypad.pop("notice", None)  # the prompt says it (keypad.prompt)
    return step


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
        lockouts = int(p.pad.pop("lockouts", 0))
        p.pad.pop("pin_failures", None)  # counted from nought again, and the lock-outs
        step = p.stay({"mode": "supervisor", "step": "menu", "supervisor": sid})
        step.effects.append(SupervisorSignedIn(sid, lockouts))
        return step
    return _wrong_pin(p, sid)


def _wrong_pin(p: Press, sid: str) -> Step:
    """A wrong PIN: counted; ``MAX_PIN_TRIES`` in a row lock the menu, each lock-out
    since the last right PIN twice as long as the one before."""
    failures = int(p.pad.get("pin_failures", 0)) + 1
    if failures >= MAX_PIN_TRIES:
        lockout = int(p.pad.get("lockouts", 0)) + 1
        duration = lockout_ms(lockout)
        until = p.table.state.elapsed_ms + duration
        return p.done(
            notice=msg("notice.locked", seconds=duration // 1000),
            extra=[SupervisorLocked(sid, until, lockout, duration)],
            pin_failures=None,
            locked_until_ms=until,
            lockouts=lockout,
        )
    tries = MAX_PIN_TRIES - failures
    notice = msg("notice.wrong_pin_last") if tries == 1 else msg("notice.wrong_pin", tries=tries)
    return p.done(notice=notice, extra=[PinRejected(sid, failures)], pin_failures=failures)
