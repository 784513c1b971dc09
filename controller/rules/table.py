"""The rules engine: one table, events in, effects out.

``Table.check(event)`` says whether an event is allowed (raising ``Refusal``) and
changes nothing; ``Table.apply(event)`` checks, then carries it out and returns its
effects. Handlers come in pairs, a check and a deed, listed in ``_HANDLERS``; a deed
runs only after its check passed, so a refused event leaves the table as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from controller.rules import (
    betting,
    clock,
    effects,
    hand,
    keypad,
    out_of_turn,
    pushed,
    seating,
    transfer,
    tray_ledger,
)
from controller.rules.errors import Refusal
from controller.rules.events import (
    Act,
    Award,
    CallClock,
    Chips,
    DealtInError,
    Event,
    Key,
    Leave,
    Misdeal,
    MoveSeat,
    Puck,
    Push,
    Sit,
    SitIn,
    SitOut,
    StartHand,
    StateQuery,
    Straddle,
    Tick,
    TimeFee,
    Transfer,
    Tray,
    TrayAck,
    TrayCredit,
    TrayFill,
    Undo,
)
from controller.rules.keypad.pages import pot_name
from controller.rules.positions import HandPlan, plan_hand, plan_to_dict, ring
from controller.rules.settings import RuleSettings
from controller.rules.state import FIRST_ROUNDS, STREETS, Clock, Hand, TableState
from controller.rules.text import phrase, refuse

Effects = list[effects.Effect]


#: The shell's supervisor PIN check: (supervisor id, PIN typed) -> right or wrong.
PinVerifier = Callable[[str, str], bool]
#: A shell rule on starting a hand (the puck check): raises ``Refusal`` to hold it.
StartGuard = Callable[[TableState, HandPlan], None]


class Table:
    def __init__(
        self, settings: RuleSettings, state: TableState | None = None, *,
        pin_verifier: PinVerifier | None = None, start_guard: StartGuard | None = None,
    ) -> None:
        self.settings = settings
        self.state = state if state is not None else TableState()
        self.pin_verifier = pin_verifier  # injected by the shell (controller.supervisor_pins)
        self.start_guard = start_guard  # injected by the shell (controller.puck)
        self._plan: HandPlan | None = None
        # what the last check found out (an action's kind and total, an award's pots),
        # keyed by its event, so that the deed right after it need not work it out again
        self._found: tuple[Event, Any] | None = None

    # -- public interface ---------------------------------------------------------

    def check(self, event: Event) -> None:
        checker, _ = _HANDLERS[type(event)]
        checker(self, event)

    def apply(self, event: Event) -> Effects:
        checker, deed = _HANDLERS[type(event)]
        checker(self, event)
        moves_tray = type(event) in _TRAY_EVENTS
        tray_before = tray_ledger.signature(self.state) if moves_tray else None
        out = deed(self, event)
        if self.settings.game.out_of_turn == "record":
            out += self._settle_out_of_turn()
        if self.settings.clock.shot_clock:
            out += self._shot_clock()
        if moves_tray and tray_ledger.signature(self.state) != tray_before:
            self.state.tray_since_ms = self.state.elapsed_ms
        return out

    def refused(self, event: Event | None, message: str | None) -> None:
        """What a refused event leaves behind, wherever a refusal is folded (replay, the
        daemon, recovery): its words for the display and, after a refused ``ENTER``,
        an entry without the digits keyed for it (the prompt stays). ``event`` is None
        when the line could not be read as an event."""
        self.state.last_refusal = message
        if isinstance(event, Key):
            keypad.after_refusal(self, event)

    def legal(self) -> betting.Legal | None:
        h = self.state.hand
        if h is None or h.to_act is None:
            return None
        legal = betting.legal_for(h, self.state.seats, h.to_act, self.settings.game)
        if legal.min_raise_to is not None and out_of_turn.held_to_check(h, h.to_act):
            legal = replace(legal, min_raise_to=None, max_raise_to=None,
                            no_raise_reason=phrase("reason.held_to_check"))
        return legal

    # -- hand flow ----------------------------------------------------------------

    def _check_start(self, event: StartHand) -> None:
        if self.state.phase != "idle":
            raise refuse("hand_in_progress", "refuse.hand_in_play", hand=self.state.hand_number)
        self._plan = plan_hand(self.state, self.settings)
        if self.start_guard is not None:
            self.start_guard(self.state, self._plan)

    def _start(self, event: StartHand) -> Effects:
        plan = self._plan or plan_hand(self.state, self.settings)
        self._plan = None
        self.state.undo = None
        before = self.state.to_dict()
        before.pop("before_hand", None)
        out = hand.begin(self.state, self.settings, plan)
        if self.state.hand is not None:
            self.state.before_hand = before
        return out

    def _in_betting(self) -> Hand:
        h = self.state.hand
        if h is None or self.state.phase not in STREETS or h.to_act is None:
            raise refuse("no_action", "refuse.no_one_to_act")
        return h

    def _check_act(self, event: Act) -> None:
        self._found = None
        h = self._in_betting()
        seating.seat_in_range(self.settings, event.seat)
        if event.seat != h.to_act:
            if self.settings.game.out_of_turn == "record":  # R10
                out_of_turn.check_record(self.state, self.settings, event)
                return
            raise refuse("not_your_turn", "refuse.not_your_turn", seat=event.seat, to_act=h.to_act)
        kind, total = betting.check_action(h, self.state.seats, event.seat, event.action,
                                           event.to, self.settings.game)
        out_of_turn.check_held(h, event.seat, kind)
        self._found = (event, (kind, total))

    def _act(self, event: Act) -> Effects:
        h = self.state.hand
        if h is not None and event.seat != h.to_act:
            return out_of_turn.record(self.state, self.settings, event)
        return self._do_action(event.seat, event.action, event.to, self._found_for(event))

    def _settle_out_of_turn(self) -> Effects:
        """R10: the action reached a seat that acted out of turn: bind it or void it."""
        out: Effects = []
        while (entry := out_of_turn.due(self.state)) is not None:
            h = self.state.hand
            assert h is not None
            act = Act(seat=entry["seat"], action=entry["action"], to=entry["to"])
            binding = out_of_turn.is_binding(h, entry)
            if binding:
                try:
                    self._check_act(act)
                except Refusal:
                    binding = False
            out.append(out_of_turn.settle(self.state, entry, binding))
            if binding:
                out += self._do_action(act.seat, act.action, act.to)
        return out

    def _check_push(self, event: Push) -> None:
        h = self._in_betting()
        seating.seat_in_range(self.settings, event.seat)
        if event.seat not in self.state.seats:
            raise refuse("not_your_turn", "refuse.not_your_turn", seat=event.seat, to_act=h.to_act)
        act, _ = pushed.read(h, self.state.seats, event, self.settings.game)
        self._check_act(act)

    def _push(self, event: Push) -> Effects:
        """R14-R16: read the chips as an action, then act."""
        h = self.state.hand
        assert h is not None
        act, rule = pushed.read(h, self.state.seats, event, self.settings.game)
        read = pushed.ChipsRead(event.seat, sum(event.chips), act.action, act.to, rule)
        return [read] + self._act(act)

    def _do_action(
        self, seat: int, action: str, to: int | None, decided: tuple[str, int] | None = None
    ) -> Effects:
        h = self.state.hand
        assert h is not None
        seats = self.state.seats
        if decided is None:
            decided = betting.check_action(h, seats, seat, action, to, self.settings.game)
        kind, total = decided
        clock = self.state.clock
        undo: list[Any] = [
            seat, list(betting.action_fields(seats[seat])),
            list(betting.hand_action_fields(h)),
            [clock.seat, clock.remaining_ms, clock.warning] if clock is not None else None,
            len(h.log),
        ]
        betting.apply_action(h, seats, seat, kind, total, self.settings.game)
        h.log.append({"street": h.street, "seat": seat, "action": kind, "to": total})
        if self.state.clock is not None and self.state.clock.seat == seat:
            self.state.clock = None
        out: Effects = [effects.Acted(seat, kind, total)]
        street = h.street
        out += hand.after_action(self.state, self.settings, seat)
        if self.state.hand is h and h.street == street and h.to_act is not None:
            self.state.undo = undo
        else:
            self.state.undo = None
        return out

    def _found_for(self, event: Event) -> Any:
        """What the check of this very event found, if it ran just before (by apply)."""
        found, self._found = self._found, None
        return found[1] if found is not None and found[0] is event else None

    def _check_award(self, event: Award) -> None:
        self._found = None
        h = self.state.hand
        if h is None or self.state.phase != "showdown":
            raise refuse("not_showdown", "refuse.not_showdown")
        if not event.ranking:
            raise refuse("bad_ranking", "refuse.ranking_empty")
        seen: set[int] = set()
        for group in event.ranking:
            for seat in group:
                if seat in seen:
                    raise refuse("bad_ranking", "refuse.ranked_twice", seat=seat)
                seen.add(seat)
                s = self.state.seats.get(seat)
                if seat not in h.dealt or s is None or not s.live:
                    raise refuse("bad_ranking", "refuse.not_in_hand", seat=seat)
        pots = hand.current_pots(self.state)
        for index, pot in enumerate(pots):
            if not hand.winners_of(pot, [list(g) for g in event.ranking]):
                seats = " ".join(str(s) for s in pot.eligible)
                raise refuse("bad_ranking", "refuse.pot_unranked", name=pot_name(index),
                             seats=seats)
        self._found = (event, pots)

    def _award(self, event: Award) -> Effects:
        self.state.undo = None
        return hand.pay(self.state, self.settings, [list(g) for g in event.ranking],
                        self._found_for(event))

    def _check_misdeal(self, event: Misdeal) -> None:
        if self.state.hand is None or self.state.before_hand is None:
            raise refuse("no_hand", "refuse.no_hand_to_void")

    def _misdeal(self, event: Misdeal) -> Effects:
        """Every chip of the hand back where it was; the next hand deals the voided
        hand's plan again (same button, blinds and seats: a player who sat down
        meanwhile waits). Seats not dealt in keep what happened to them meanwhile
        (chips bought, a time fee paid, a departure, a seat change)."""
        current = self.state
        assert current.before_hand is not None and current.hand is not None
        dealt = set(current.hand.dealt)
        restored = TableState.from_dict(current.before_hand)
        restored.hand_number = current.hand_number
        restored.puck, restored.tray, restored.keypad = current.puck, current.tray, current.keypad
        restored.elapsed_ms, restored.tray_read = current.elapsed_ms, current.tray_read
        restored.tray_since_ms = current.tray_since_ms
        restored.tray_moves, restored.tray_acks = current.tray_moves, current.tray_acks
        restored.bought_in, restored.cashed_out = current.bought_in, current.cashed_out
        restored.time_fees_total = current.time_fees_total
        restored.payouts = current.payouts  # none: the voided hand paid nothing
        seats = {}
        for number, seat in current.seats.items():
            old = restored.seats.get(number)
            if number not in dealt or old is None:
                if old is not None and old.player == seat.player:
                    # the voided hand's plan gave these; the replayed hand decides again
                    seat.missed_small, seat.missed_big = old.missed_small, old.missed_big
                    seat.wait_hands = old.wait_hands
                    seat.absent_hands = old.absent_hands
                seats[number] = seat
                continue
            old.pending_chips = seat.pending_chips
            old.pending_sit_out, old.pending_leave = seat.pending_sit_out, seat.pending_leave
            old.pending_move, old.pending_move_entry = seat.pending_move, seat.pending_move_entry
            seats[number] = old
        restored.seats = seats
        # B7: the re-deal keeps the voided hand's plan; a plan depends only on the table
        # before the hand, so it is made again from there
        voided = TableState.from_dict(current.before_hand)
        try:
            restored.redeal = plan_to_dict(plan_hand(voided, self.settings), voided)
        except Refusal:  # not expected: the same table was planned when the hand began
            restored.redeal = None
        self.state = restored
        self.state.undo = None
        out: Effects = [effects.HandEnded(current.hand_number, voided=True)]
        return out + hand.settle_between_hands(self.state, self.settings)

    def _check_undo(self, event: Undo) -> None:
        if self.state.undo is None or self.state.hand is None:
            raise refuse("nothing_to_undo", "refuse.nothing_to_undo")
        old_hand = self.state.undo[2]
        out_of_turn.check_undo(
            self.state.hand, old_hand[betting.HAND_ACTION_FIELDS.index("out_of_turn")]
        )

    def _undo_last(self, event: Undo) -> Effects:
        """R12: take back the last action while no later action exists."""
        assert self.state.undo is not None
        seat, old_seat, old_hand, old_clock, log_length = self.state.undo
        # only what the action changed: chips bought or a sit-out meanwhile stay
        current = self.state.seats[seat]
        for name, value in zip(betting.ACTION_FIELDS, old_seat, strict=True):
            setattr(current, name, value)
        h = self.state.hand
        assert h is not None
        for name, value in zip(betting.HAND_ACTION_FIELDS, old_hand, strict=True):
            setattr(h, name, value)
        del h.log[log_length:]
        self.state.clock = Clock(*old_clock) if old_clock is not None else None
        self.state.undo = None
        return [effects.Corrected("undo", seat)]

    # -- seats --------------------------------------------------------------------

    def _leave(self, event: Leave) -> Effects:
        """A departure folds the seat if it is still in the hand; its chips stay in."""
        out = seating.do_leave(self.state, self.settings, event)
        h = self.state.hand
        s = self.state.seats.get(event.seat)
        if h is None or s is None or not s.live:
            return out
        s.folded = s.acted = True
        h.log.append({"street": h.street, "seat": event.seat, "action": "fold", "to": s.bet})
        out.append(effects.Acted(event.seat, "fold", s.bet))
        self.state.undo = None
        if self.state.clock is not None and self.state.clock.seat == event.seat:
            self.state.clock = None
        live = [x for x in h.dealt if self.state.seats[x].live]
        if self.state.phase == "showdown":
            if len(live) == 1:
                out += hand.pay(self.state, self.settings, [live])
            else:
                h.showdown_order = [x for x in (h.showdown_order or []) if x != event.seat]
            return out
        if h.to_act == event.seat or len(live) == 1:
            return out + hand.after_action(self.state, self.settings, event.seat)
        if h.to_act is not None and not betting.needs_to_act(h, self.state.seats, h.to_act):
            return out + hand.after_action(self.state, self.settings, h.to_act)
        return out


    def _check_straddle(self, event: Straddle) -> None:
        game = self.settings.game
        h = self.state.hand
        if not game.straddle or (game.structure == "fixed_limit" and not game.straddle_in_limit):
            raise refuse("no_straddle", "refuse.no_straddle")
        if h is None or h.street not in FIRST_ROUNDS or h.log or h.straddle is not None:
            raise refuse("no_straddle", "refuse.straddle_first")
        if self.state.positions.heads_up:
            raise refuse("no_straddle", "refuse.no_straddle_heads_up")
        if event.seat != h.to_act:
            raise refuse("no_straddle", "refuse.straddle_seat", seat=h.to_act)
        s = self.state.seats[event.seat]
        if s.bet + betting.playable(s.stack, game.smallest_chip) < 2 * game.big_blind:
            raise refuse("no_straddle", "refuse.straddle_needs", amount=2 * game.big_blind)

    def _straddle(self, event: Straddle) -> Effects:
        game = self.settings.game
        h = self.state.hand
        assert h is not None
        s = self.state.seats[event.seat]
        amount = 2 * game.big_blind
        s.stack -= amount - s.bet
        s.bet = amount
        if betting.playable(s.stack, game.smallest_chip) == 0:
            s.all_in = True
        h.straddle = event.seat
        h.current_bet = amount
        h.min_increment = amount
        h.raise_level = amount
        h.bets = 2
        h.posts.append({"seat": event.seat, "kind": "straddle", "live": amount, "dead": 0})
        h.to_act = betting.next_to_act(h, self.state.seats, event.seat, self.settings.seats)
        return [effects.Posted(event.seat, "straddle", amount, 0)]

    def _check_time_fee(self, event: TimeFee) -> None:
        if self.settings.fees.mode != "time":
            raise refuse("no_time_fee", "refuse.no_time_fee")
        s = seating.occupied(self.state, self.settings, event.seat)
        if s.in_hand:
            raise refuse("in_hand", "refuse.time_between_hands", seat=event.seat)
        seating.check_amount(self.settings, event.amount)
        if event.amount > s.stack:
            raise refuse("bad_amount", "refuse.seat_has_only", seat=event.seat, amount=s.stack)

    def _time_fee(self, event: TimeFee) -> Effects:
        self.state.seats[event.seat].stack -= event.amount
        self.state.time_fees_total += event.amount
        return [effects.FeesTaken(0, 0)]

    def _check_dealt_in_error(self, event: DealtInError) -> None:
        h = self.state.hand
        if h is None or self.state.phase not in STREETS:
            raise refuse("no_hand", "refuse.no_hand")
        s = seating.occupied(self.state, self.settings, event.seat)
        if s.in_hand:
            raise refuse("bad_correction", "refuse.dealt_in_already", seat=event.seat)
        if event.ruling == "keep" and (h.street not in FIRST_ROUNDS or s.away):
            raise refuse("bad_correction", "refuse.keep_preflop")
        if event.ruling == "keep" and betting.playable(s.stack, self.settings.game.smallest_chip) == 0:
            raise refuse("bad_correction", "refuse.no_chips_to_play", seat=event.seat)

    def _dealt_in_error(self, event: DealtInError) -> Effects:
        """B11: kill the seat's hand, or keep it and carry the debt to the next hand."""
        h = self.state.hand
        assert h is not None
        if event.ruling == "keep":
            s = self.state.seats[event.seat]
            hand.deal_in(s, h.number)
            s.owes_post = True
            button = hand.button_seat(self.state)
            members = set(h.dealt) | {event.seat}
            h.dealt = [x for x in ring(button, self.settings.seats) if x in members]
        self.state.undo = None
        return [effects.Corrected(f"dealt_in_{event.ruling}", event.seat)]

    # -- clock, devices, queries ----------------------------------------------------

    def _check_call_clock(self, event: CallClock) -> None:
        self._in_betting()
        if self.state.clock is not None:
            raise refuse("clock_running", "refuse.clock_running", seat=self.state.clock.seat)

    def _call_clock(self, event: CallClock) -> Effects:
        h = self.state.hand
        assert h is not None and h.to_act is not None
        return clock.start(self.state, self.settings.clock, h.to_act)

    def _tick(self, event: Tick) -> Effects:
        self.state.elapsed_ms += event.ms
        out, expired = clock.run_down(self.state, self.settings.clock, event.ms)
        c = self.state.clock
        if expired and c is not None:
            seat = c.seat
            legal = self.legal()
            action = "fold"
            if (self.settings.clock.on_expiry == "check_or_fold" and legal is not None
                    and legal.check):
                action = "check"
            self.state.clock = None
            out.append(effects.ClockExpired(seat, action))
            if self.state.hand is not None and self.state.hand.to_act == seat:
                out += self._do_action(seat, action, None)
        return out

    def _shot_clock(self) -> Effects:
        h = self.state.hand
        to_act = h.to_act if h is not None else None
        if to_act is None:
            self.state.clock = None
            return []
        if self.state.clock is None or self.state.clock.seat != to_act:
            return clock.start(self.state, self.settings.clock, to_act)
        return []

    def _check_puck(self, event: Puck) -> None:
        if event.seat is not None:
            seating.seat_in_range(self.settings, event.seat)

    def _puck(self, event: Puck) -> Effects:
        self.state.puck = event.seat
        return []

    def _tray(self, event: Tray) -> Effects:
        self.state.tray = dict(event.counts)
        self.state.tray_read = True
        return []

    def _check_tray_move(self, event: TrayFill | TrayCredit) -> None:
        chip = self.settings.game.smallest_chip
        if event.amount % chip or any(value % chip for value, _ in event.counts):
            raise refuse("bad_amount", "refuse.tray_units", amount=chip)

    def _tray_move(self, event: TrayFill | TrayCredit) -> Effects:
        return tray_ledger.record_move(self.state, event)

    def _tray_ack(self, event: TrayAck) -> Effects:
        return tray_ledger.record_ack(self.state, event)

    def _check_key(self, event: Key) -> None:
        keypad.check(self, event)

    def _key(self, event: Key) -> Effects:
        return keypad.press(self, event)


def _nothing(table: Table, event: Any) -> None:
    return None


def _no_effects(table: Table, event: Any) -> Effects:
    return []


def _seat_pair(
    check: Callable[[TableState, RuleSettings, Any], None],
    deed: Callable[[TableState, RuleSettings, Any], Effects],
) -> tuple[Callable[[Table, Any], None], Callable[[Table, Any], Effects]]:
    return (
        lambda t, e: check(t.state, t.settings, e),
        lambda t, e: deed(t.state, t.settings, e),
    )


# the events that can change what the tray should hold (tray_ledger.signature); keys
# reach the table as these events through the keypad grammar's own apply
_TRAY_EVENTS = frozenset({Tray, Sit, Chips, TrayFill, TrayCredit, TrayAck})

_HANDLERS: dict[type, tuple[Callable[[Table, Any], None], Callable[[Table, Any], Effects]]] = {
    Sit: _seat_pair(seating.check_sit, seating.do_sit),
    Leave: (lambda t, e: seating.check_leave(t.state, t.settings, e), lambda t, e: t._leave(e)),
    SitOut: _seat_pair(seating.check_sit_out, seating.do_sit_out),
    SitIn: _seat_pair(seating.check_sit_in, seating.do_sit_in),
    MoveSeat: _seat_pair(seating.check_move, seating.do_move),
    Chips: _seat_pair(seating.check_chips, seating.do_chips),
    StartHand: (Table._check_start, Table._start),
    Act: (Table._check_act, Table._act),
    Award: (Table._check_award, Table._award),
    Misdeal: (Table._check_misdeal, Table._misdeal),
    Undo: (Table._check_undo, Table._undo_last),
    Straddle: (Table._check_straddle, Table._straddle),
    TimeFee: (Table._check_time_fee, Table._time_fee),
    DealtInError: (Table._check_dealt_in_error, Table._dealt_in_error),
    CallClock: (Table._check_call_clock, Table._call_clock),
    Tick: (_nothing, Table._tick),
    Puck: (Table._check_puck, Table._puck),
    Tray: (_nothing, Table._tray),
    Key: (Table._check_key, Table._key),
    Push: (Table._check_push, Table._push),
    TrayFill: (Table._check_tray_move, Table._tray_move),
    TrayCredit: (Table._check_tray_move, Table._tray_move),
    TrayAck: (_nothing, Table._tray_ack),
    Transfer: _seat_pair(transfer.check, transfer.apply),
    StateQuery: (_nothing, _no_effects),
}
