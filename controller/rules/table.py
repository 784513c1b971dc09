"""The rules engine: one table, events in, effects out.

``Table.check(event)`` says whether an event is allowed (raising ``Refusal``) and
changes nothing; ``Table.apply(event)`` checks, then carries it out and returns its
effects.

Theory of operation. This module dispatches; the rules live in the modules named for
them (``betting``, ``hand``, ``seating``, ``leave``, ``straddle``, ``misdeal``,
``undo``, ``dealt_in_error``, ``clock``, ``stopped``, ``fees``, ``out_of_turn``,
``keypad`` ...).
An event is checked in two steps:

1. ``ACCEPTS``, the one table of which events each stage of the hand accepts (between
   hands, the first betting round, a later round, the showdown; the phase order itself
   is ``state.ROUNDS``). An event the stage does not accept is refused with its
   ``OUT_OF_PHASE`` refusal.
2. The event's own check, from ``_HANDLERS``, which pairs every event type with a check
   and a deed. A deed runs only after its check passed, so a refused event leaves the
   table as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal, NamedTuple, TypeVar

from controller.rules import (
    betting,
    bust,
    clock,
    dealt_in_error,
    effects,
    fees,
    hand,
    leave,
    misdeal,
    ops,
    out_of_turn,
    pushed,
    seating,
    stopped,
    straddle,
    tournament,
    transfer,
    tray_ledger,
    undo,
)
from controller.rules.errors import Refusal
from controller.rules.events import (
    Act,
    Award,
    CallClock,
    Chips,
    Dealer,
    DealtInError,
    Event,
    Key,
    Leave,
    Misdeal,
    MoveSeat,
    Puck,
    Push,
    Shift,
    Sit,
    SitIn,
    SitOut,
    StartHand,
    StateQuery,
    Straddle,
    Tick,
    TimeFee,
    Tip,
    TipCorrection,
    Tournament,
    Transfer,
    Tray,
    TrayAck,
    TrayCredit,
    TrayFill,
    Undo,
)
from controller.rules.positions import HandPlan, plan_hand
from controller.rules.pots import Pot
from controller.rules.records import ActionKind, Phase
from controller.rules.settings import RuleSettings
from controller.rules.state import (
    FIRST_ROUNDS,
    STREETS,
    Hand,
    Snapshot,
    TableState,
    tournament_as_0_3,
)
from controller.rules.text import phrase, refuse

Effects = list[effects.Effect]


#: The shell's supervisor PIN check: (supervisor id, PIN typed) -> right or wrong.
PinVerifier = Callable[[str, str], bool]
#: A shell rule on starting a hand (the puck check): raises ``Refusal`` to hold it.
StartGuard = Callable[[TableState, HandPlan], None]


class Found(NamedTuple):
    """What an event's check worked out that its deed needs again: a hand's plan, an
    action's kind and total (``betting.check_action``), an award's pots. ``Table.check``
    returns it (None when the check found nothing to keep) and ``Table.apply`` hands it
    to the deed: the table keeps nothing between the two. (A named tuple: a check makes
    one for nearly every action, and it is the cheapest immutable record to make.)"""

    plan: HandPlan | None = None
    action: tuple[ActionKind, int] | None = None
    pots: tuple[Pot, ...] | None = None


class Table:
    #: the settings the rules play by now; ``base_settings``: as configured
    settings: RuleSettings
    base_settings: RuleSettings
    _level: int | None  # a tournament table: the level ``settings`` has the stakes of

    def __init__(
        self,
        settings: RuleSettings,
        state: TableState | None = None,
        *,
        pin_verifier: PinVerifier | None = None,
        start_guard: StartGuard | None = None,
    ) -> None:
        self.state = state if state is not None else TableState()
        self.reconfigure(settings)
        self.pin_verifier = pin_verifier  # injected by the shell (controller.supervisor_pins)
        self.start_guard = start_guard  # injected by the shell (controller.puck)

    # -- the settings the rules play by --------------------------------------------

    def reconfigure(self, settings: RuleSettings) -> None:
        """New settings from the configuration (between hands, or as the journal
        recorded them): ``base_settings``, and ``settings`` at the level played now."""
        self.base_settings = self.settings = settings
        self._level = None
        self._sync_level()

    def _sync_level(self) -> None:
        """A tournament table's ``settings``: the configured ones with ``game`` at the
        stakes of the level the rules play at now (``tournament.rules_level``: a hand
        keeps its own, between hands the level in force). Made again only when that
        level changes; a plain attribute, so a cash table's rules read it at no cost."""
        base = self.base_settings
        if base.tournament is None:
            return
        level = tournament.rules_level(self.state, base.tournament)
        if level != self._level:
            self._level = level
            self.settings = tournament.for_rules(base, level)

    # -- public interface ---------------------------------------------------------

    def check(self, event: Event) -> Found | None:
        """Refuse ``event`` (``Refusal``), or return what its check found out for its
        deed (``Found``; None for most events). Changes nothing."""
        kind = type(event)
        if kind not in _ACCEPTED_IN[self.state.phase]:
            raise OUT_OF_PHASE[kind](self)
        return _HANDLERS[kind][0](self, event)

    def apply(self, event: Event) -> Effects:
        kind = type(event)
        if kind not in _ACCEPTED_IN[self.state.phase]:
            raise OUT_OF_PHASE[kind](self)
        checker, deed = _HANDLERS[kind]
        found = checker(self, event)
        moves_tray = kind in _TRAY_EVENTS
        tray_before = tray_ledger.signature(self.state) if moves_tray else None
        accounted = kind is not Key  # a key's own event was accounted when applied
        ledger_before = ops.before(self.state, event) if accounted else None
        out = deed(self, event) if found is None else deed(self, event, found)
        if self.settings.game.out_of_turn == "record":
            out += self._settle_out_of_turn()
        if self.base_settings.tournament is not None:
            out += self._tournament_steps(out)
        if accounted:
            # after R10's binding action too: it may end the hand and take its fees
            out += ops.account(self.state, self.settings, event, ledger_before)
        if self.settings.clock.shot_clock:
            out += self._shot_clock()
        if moves_tray and tray_ledger.signature(self.state) != tray_before:
            self.state.tray_since_ms = self.state.elapsed_ms
        self._sync_level()
        return out

    def _tournament_steps(self, out: Effects) -> Effects:
        """T3: a seat away folds at the deal when it owes nothing, else at its turn (its
        hand is dead); T4: at a hand's end the players with no chips are out (as 0.3.0
        played it, ``tournament_as_0_3``: those who kept their seat through the rebuys
        also when the level clock leaves them between hands)."""
        more: Effects = []
        as_0_3 = tournament_as_0_3(self.state)
        started = next((e for e in out if isinstance(e, effects.HandStarted)), None)
        if started is not None and not as_0_3:
            more += self._fold_away_owing_nothing(out, started)
        while (h := self.state.hand) is not None and h.to_act is not None:
            seat = self.state.seats.get(h.to_act)
            if seat is None or not seat.away:
                break
            more += hand.act(self.state, self.settings, h.to_act, "fold", None)
            self.state.undo = None  # the rule's fold, as a leave's: nothing to take back
        for effect in (*out, *more):
            ended = isinstance(effect, effects.HandEnded) and not effect.voided
            between = (
                as_0_3 and isinstance(effect, effects.LevelChanged) and self.state.hand is None
            )
            if ended or between:
                number = effect.hand if isinstance(effect, effects.HandEnded) else None
                more += tournament.eliminate(
                    self.state, self.settings, number or self.state.hand_number
                )
                bust.stop_play_if_alone(self.state)
        return more

    def _fold_away_owing_nothing(self, out: Effects, started: effects.HandStarted) -> Effects:
        """T3: at the deal, each seat away that posted nothing (no blind, no ante) folds:
        the rule's fold, like a leave's."""
        posted = {e.seat for e in out if isinstance(e, effects.Posted)}
        more: Effects = []
        for number in started.dealt:
            seat = self.state.seats[number]
            if seat.away and number not in posted:
                more += leave.fold(self.state, self.settings, number)
        return more

    def refused(self, event: Event | None) -> None:
        """What a refused event leaves behind, wherever a refusal is folded (replay, the
        daemon, recovery): after a refused ``ENTER``, an entry without the digits keyed
        for it (the prompt stays). ``event`` is None when the line could not be read as
        an event."""
        if isinstance(event, Key):
            from controller.rules import keypad  # loaded with the first key (_check_key)

            keypad.after_refusal(self, event)

    def legal(self) -> betting.Legal | None:
        h = self.state.hand
        if h is None or h.to_act is None:
            return None
        legal = betting.legal_for(h, self.state.seats, h.to_act, self.settings.game)
        if legal.min_raise_to is not None and out_of_turn.held_to_check(h, h.to_act):
            legal = replace(
                legal,
                min_raise_to=None,
                max_raise_to=None,
                no_raise_reason=phrase("reason.held_to_check"),
            )
        return legal

    # -- hand flow ----------------------------------------------------------------

    def _check_start(self, event: StartHand) -> Found:
        stopped.check_start(self.state)
        tournament.check_start(self.state, self.settings)
        plan = plan_hand(self.state, self.settings)
        if self.start_guard is not None:
            self.start_guard(self.state, plan)
        return Found(plan=plan)

    def _start(self, event: StartHand, found: Found | None = None) -> Effects:
        plan = found.plan if found is not None and found.plan is not None else None
        if plan is None:
            plan = plan_hand(self.state, self.settings)
        self.state.undo = None
        out: Effects = tournament.begin_hand(self.state, self.settings)
        if out:  # T7: a stack coloured up may now play
            plan = plan_hand(self.state, self.settings)
        tournament.note_stacks(self.state, self.settings)
        before = Snapshot.of(self.state)
        out += hand.begin(self.state, self.settings, plan)
        if self.state.hand is not None:
            self.state.before_hand = before
        return out

    def _to_act(self) -> Hand:
        """The hand, with a seat to act (the phase table let only a betting round in)."""
        h = self.state.hand
        if h is None or h.to_act is None:
            raise _no_action(self)
        return h

    def _check_act(self, event: Act) -> Found | None:
        h = self._to_act()
        seating.seat_in_range(self.settings, event.seat)
        if event.seat != h.to_act:
            if self.settings.game.out_of_turn == "record":  # R10
                out_of_turn.check_record(self.state, self.settings, event)
                return None
            raise refuse("not_your_turn", "refuse.not_your_turn", seat=event.seat, to_act=h.to_act)
        kind, total = betting.check_action(
            h, self.state.seats, event.seat, event.action, event.to, self.settings.game
        )
        out_of_turn.check_held(h, event.seat, kind)
        return Found(action=(kind, total))

    def _act(self, event: Act, found: Found | None = None) -> Effects:
        h = self.state.hand
        if h is not None and event.seat != h.to_act:
            out = out_of_turn.record(self.state, self.settings, event)
            lost = out_of_turn.right_to_act_lost(self.state, self.settings)
            if lost is not None:  # R11
                out += [lost, *hand.act(self.state, self.settings, lost.seat, lost.action, None)]
            return out
        decided = found.action if found is not None else None
        return hand.act(self.state, self.settings, event.seat, event.action, event.to, decided)

    def _settle_out_of_turn(self) -> Effects:
        """R10: the action reached a seat that acted out of turn: bind it or void it."""
        out: Effects = []
        while (entry := out_of_turn.due(self.state)) is not None:
            h = self.state.hand
            assert h is not None
            act = Act(seat=entry["seat"], action=entry["action"], to=entry["to"])
            binding = out_of_turn.is_binding(h, entry)
            found = None
            if binding:
                try:
                    found = self._check_act(act)
                except Refusal:
                    binding = False
            out.append(out_of_turn.settle(self.state, entry, binding))
            if binding:
                decided = found.action if found is not None else None
                out += hand.act(self.state, self.settings, act.seat, act.action, act.to, decided)
        return out

    def _check_push(self, event: Push) -> None:
        h = self._to_act()
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

    def _check_award(self, event: Award) -> Found:
        h = self.state.hand
        assert h is not None  # the phase table lets an award in only at the showdown
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
            if not hand.winners_of(pot, event.ranking):
                seats = " ".join(str(s) for s in pot.eligible)
                from controller.rules.keypad.pages import pot_name  # see _check_key

                raise refuse(
                    "bad_ranking", "refuse.pot_unranked", name=pot_name(index), seats=seats
                )
        return Found(pots=tuple(pots))

    def _award(self, event: Award, found: Found | None = None) -> Effects:
        self.state.undo = None
        pots = list(found.pots) if found is not None and found.pots is not None else None
        return hand.pay(self.state, self.settings, event.ranking, pots)

    def _misdeal(self, event: Misdeal) -> Effects:
        self.state, out = misdeal.void(self.state, self.settings)
        return out

    # -- clock, devices, queries ----------------------------------------------------

    def _check_call_clock(self, event: CallClock) -> None:
        self._to_act()
        if self.state.clock is not None:
            raise refuse("clock_running", "refuse.clock_running", seat=self.state.clock.seat)

    def _call_clock(self, event: CallClock) -> Effects:
        h = self.state.hand
        assert h is not None and h.to_act is not None
        return clock.start(self.state, self.settings.clock, h.to_act)

    def _tick(self, event: Tick) -> Effects:
        self.state.elapsed_ms += event.ms
        levels = tournament.run_clock(self.state, self.settings, event.ms)  # T1: never stopped
        if self.state.play_stopped:  # the clock stands still (controller.rules.stopped)
            return levels
        return levels + self._run_action_clock(event)

    def _run_action_clock(self, event: Tick) -> Effects:
        out, expired = clock.run_down(self.state, self.settings.clock, event.ms)
        if expired and self.state.clock is not None:
            expiry = clock.expire(self.state, self.settings)
            out.append(expiry)
            h = self.state.hand
            if h is not None and h.to_act == expiry.seat:
                out += hand.act(self.state, self.settings, expiry.seat, expiry.action, None)
            else:
                self.state.clock = None
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
        # The keypad grammar is loaded with the first key, not with the table: replay
        # of a file without keys starts that much sooner (the daemon loads it anyway).
        from controller.rules import keypad

        keypad.check(self, event)

    def _key(self, event: Key) -> Effects:
        from controller.rules import keypad  # see _check_key

        return keypad.press(self, event)


def _nothing(table: Table, event: Event) -> None:
    return None


def _no_effects(table: Table, event: Event) -> Effects:
    return []


#: An event's check: refuses it, or returns what the deed needs of what it found.
Checker = Callable[[Table, Any], Found | None]
#: An event's deed: ``(table, event)``, and ``(table, event, found)`` when its check
#: returned a ``Found``.
Deed = Callable[..., Effects]
_E = TypeVar("_E", bound=Event)


def _rule(
    check: Callable[[TableState, RuleSettings, _E], None],
    deed: Callable[[TableState, RuleSettings, _E], Effects],
) -> tuple[Checker, Deed]:
    return (
        lambda t, e: check(t.state, t.settings, e),
        lambda t, e: deed(t.state, t.settings, e),
    )


# -- which events each stage of the hand accepts ------------------------------------

Stage = Literal["idle", "first_round", "later_round", "showdown"]
_STAGES: dict[Phase, Stage] = {
    "idle": "idle",
    "showdown": "showdown",
    **{street: "first_round" if street in FIRST_ROUNDS else "later_round" for street in STREETS},
}

#: Accepted at every stage (their own checks may still refuse them).
_ANYTIME: frozenset[type[Event]] = frozenset(
    {
        Sit,
        Leave,
        SitOut,
        SitIn,
        MoveSeat,
        Chips,
        TimeFee,
        Tick,
        Puck,
        Tray,
        TrayFill,
        TrayCredit,
        TrayAck,
        Key,
        StateQuery,
        *stopped.READINGS,  # the events that stop play or let it go on (Device, Door)
        Dealer,
        Tournament,
    }
)
#: Accepted in every betting round (a seat is to act).
_BETTING: frozenset[type[Event]] = frozenset({Act, Push, CallClock, DealtInError})

#: The stage of the hand -> the events it accepts (h11's transition table, for a table).
ACCEPTS: dict[Stage, frozenset[type[Event]]] = {
    "idle": _ANYTIME | {StartHand, Transfer, Tip, TipCorrection, Shift},
    "first_round": _ANYTIME | _BETTING | {Straddle, Misdeal, Undo},
    "later_round": _ANYTIME | _BETTING | {Misdeal, Undo},
    "showdown": _ANYTIME | {Award, Misdeal, Undo},
}

#: The same, by phase (one look-up per event).
_ACCEPTED_IN: dict[Phase, frozenset[type[Event]]] = {
    phase: ACCEPTS[stage] for phase, stage in _STAGES.items()
}


def _no_action(table: Table) -> Refusal:
    return refuse("no_action", "refuse.no_one_to_act")


def _no_hand(table: Table) -> Refusal:
    return refuse("no_hand", "refuse.no_hand")


#: An event's refusal at a stage that does not accept it.
OUT_OF_PHASE: dict[type[Event], Callable[[Table], Refusal]] = {
    StartHand: lambda t: refuse(
        "hand_in_progress", "refuse.hand_in_play", hand=t.state.hand_number
    ),
    Transfer: lambda t: transfer.out_of_phase(),
    Tip: lambda t: ops.tip_out_of_phase(),
    TipCorrection: lambda t: ops.tip_out_of_phase(),
    Shift: lambda t: ops.shift_out_of_phase(),
    Act: _no_action,
    Push: _no_action,
    CallClock: _no_action,
    DealtInError: _no_hand,
    Straddle: lambda t: straddle.out_of_phase(t.settings),
    Misdeal: lambda t: misdeal.out_of_phase(),
    Undo: lambda t: undo.out_of_phase(),
    Award: lambda t: refuse("not_showdown", "refuse.not_showdown"),
}

# the events that can change what the tray should hold (tray_ledger.signature); keys
# reach the table as these events through the keypad grammar's own apply
_TRAY_EVENTS = frozenset({Tray, Sit, Chips, TrayFill, TrayCredit, TrayAck})

_HANDLERS: dict[type, tuple[Checker, Deed]] = {
    Sit: _rule(seating.check_sit, seating.do_sit),
    Leave: _rule(leave.check, leave.apply),
    SitOut: _rule(seating.check_sit_out, seating.do_sit_out),
    SitIn: _rule(seating.check_sit_in, seating.do_sit_in),
    MoveSeat: _rule(seating.check_move, seating.do_move),
    Chips: _rule(seating.check_chips, seating.do_chips),
    StartHand: (Table._check_start, Table._start),
    Act: (Table._check_act, Table._act),
    Award: (Table._check_award, Table._award),
    Misdeal: (lambda t, e: misdeal.check(t.state), Table._misdeal),
    Undo: (lambda t, e: undo.check(t.state), lambda t, e: undo.apply(t.state)),
    Straddle: _rule(straddle.check, straddle.apply),
    TimeFee: _rule(fees.check_time_fee, fees.take_time_fee),
    DealtInError: _rule(dealt_in_error.check, dealt_in_error.apply),
    CallClock: (Table._check_call_clock, Table._call_clock),
    Tick: (_nothing, Table._tick),
    Puck: (Table._check_puck, Table._puck),
    Tray: (_nothing, Table._tray),
    Key: (Table._check_key, Table._key),
    Push: (Table._check_push, Table._push),
    TrayFill: (Table._check_tray_move, Table._tray_move),
    TrayCredit: (Table._check_tray_move, Table._tray_move),
    TrayAck: (_nothing, Table._tray_ack),
    Transfer: _rule(transfer.check, transfer.apply),
    Tip: _rule(ops.check_tip, ops.do_tip),
    TipCorrection: _rule(ops.check_tip_correction, ops.do_tip_correction),
    Dealer: _rule(ops.check_dealer, ops.do_dealer),
    Shift: _rule(ops.check_shift, ops.do_shift),
    Tournament: _rule(tournament.check, tournament.apply),
    StateQuery: (_nothing, _no_effects),
    **{kind: (_nothing, lambda t, e: stopped.change(t.state, e)) for kind in stopped.READINGS},
}
