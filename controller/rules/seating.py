"""Players coming, going, stepping away, buying chips and changing seats.

Between hands these take effect at once; during a hand a departure folds the seat,
and sit-outs, purchases and seat moves wait for the hand to end (docs/replay.md, "Players and seats").
Every ``check_*`` refuses without changing anything; the matching ``do_*`` assumes
its check passed.
"""

from __future__ import annotations

from dataclasses import replace

from controller.rules import bust, effects, meters, tournament
from controller.rules.events import Chips, Leave, MoveSeat, Sit, SitIn, SitOut
from controller.rules.limits import MAX_AMOUNT
from controller.rules.positions import hands_until_big_blind
from controller.rules.settings import RuleSettings
from controller.rules.state import Seat, TableState
from controller.rules.text import refuse


def seat_in_range(settings: RuleSettings, seat: int) -> None:
    if not 1 <= seat <= settings.seats:
        raise refuse("bad_seat", "refuse.no_seat", seat=seat, last=settings.seats)


def occupied(state: TableState, settings: RuleSettings, seat: int) -> Seat:
    seat_in_range(settings, seat)
    s = state.seats.get(seat)
    if s is None or s.pending_leave:
        raise refuse("empty_seat", "refuse.empty_seat", seat=seat)
    return s


def check_amount(settings: RuleSettings, amount: int) -> None:
    chip = settings.game.smallest_chip
    if amount % chip:
        raise refuse("bad_amount", "refuse.chip_units", amount=chip)


def check_sit(state: TableState, settings: RuleSettings, event: Sit) -> None:
    seat_in_range(settings, event.seat)
    if event.seat in state.seats:
        raise refuse("seat_taken", "refuse.seat_taken", seat=event.seat)
    for number, s in state.seats.items():
        if s.player == event.player and not s.pending_leave:
            raise refuse(
                "already_seated", "refuse.already_seated", player=event.player, seat=number
            )
    check_amount(settings, event.chips)
    tournament.check_sit(state, settings, event)  # T5: a stack brought
    game = settings.game
    if game.min_buy_in is not None and event.chips < game.min_buy_in:
        raise refuse("bad_amount", "refuse.min_buy_in", amount=game.min_buy_in)
    if game.max_buy_in is not None and event.chips > game.max_buy_in:
        raise refuse("bad_amount", "refuse.max_buy_in", amount=game.max_buy_in)


def do_sit(state: TableState, settings: RuleSettings, event: Sit) -> list[effects.Effect]:
    state.seats[event.seat] = Seat(
        player=event.player,
        stack=event.chips,
        entry=event.entry,
        time_banks=settings.clock.time_banks,
    )
    state.bought_in += event.chips
    tournament.note_sit(state, settings, event)
    return [effects.SeatChanged(event.seat, "sat")]


def check_leave(state: TableState, settings: RuleSettings, event: Leave) -> None:
    occupied(state, settings, event.seat)


def do_leave(state: TableState, settings: RuleSettings, event: Leave) -> list[effects.Effect]:
    s = state.seats[event.seat]
    if s.in_hand:
        s.pending_leave = True
        return [effects.SeatChanged(event.seat, "leaving")]
    state.cashed_out += s.stack + s.pending_chips
    meters.seat_cashed_out(state, event.seat, s.stack + s.pending_chips)
    del state.seats[event.seat]
    player_gone(state, event.seat)
    bust.stop_play_if_alone(state)
    return [effects.SeatChanged(event.seat, "left")]


def player_gone(state: TableState, seat: int) -> None:
    """The player in ``seat`` left it (a leave, a move): the tip shortcut and a tip's
    correction no longer take that seat, whoever sits there next, even under the same
    name (two players seated with no card between the same two hands are named alike)."""
    if state.paid_to is not None and state.paid_to["seat"] == seat:
        state.paid_to = {**state.paid_to, "player": None}
    if state.last_tip is not None and state.last_tip["seat"] == seat:
        state.last_tip = {**state.last_tip, "player": None}


def check_sit_out(state: TableState, settings: RuleSettings, event: SitOut) -> None:
    s = occupied(state, settings, event.seat)
    if s.away or s.pending_sit_out:
        raise refuse("already_out", "refuse.already_out", seat=event.seat)


def do_sit_out(state: TableState, settings: RuleSettings, event: SitOut) -> list[effects.Effect]:
    s = state.seats[event.seat]
    if s.in_hand:
        s.pending_sit_out = True
    else:
        s.away = True
    return [effects.SeatChanged(event.seat, "sat_out")]


def sit_in_entry(settings: RuleSettings, entry: str | None) -> str:
    if entry is None:
        return "post" if settings.game.missed_blind_return == "post_only" else "wait"
    return entry


def check_sit_in(state: TableState, settings: RuleSettings, event: SitIn) -> None:
    s = occupied(state, settings, event.seat)
    if not s.away and not s.pending_sit_out:
        raise refuse("not_out", "refuse.not_out", seat=event.seat)
    if s.stack + s.pending_chips < settings.game.smallest_chip:
        raise refuse("no_chips", "refuse.needs_chips", seat=event.seat)
    entry = sit_in_entry(settings, event.entry)
    if entry == "wait" and s.owes and settings.game.missed_blind_return == "post_only":
        raise refuse("must_post", "refuse.must_post", seat=event.seat)


def do_sit_in(state: TableState, settings: RuleSettings, event: SitIn) -> list[effects.Effect]:
    s = state.seats[event.seat]
    s.pending_sit_out = False
    come_back(settings, s, event.entry)
    return [effects.SeatChanged(event.seat, "sat_in")]


def come_back(settings: RuleSettings, s: Seat, entry: str | None) -> None:
    """A seat away (sat out, or busted: B12) plays again: its absence ends, its markers
    stay, and it comes in as ``entry`` says (``sit_in_entry``)."""
    s.away = False
    s.absent_hands = 0
    s.entry = sit_in_entry(settings, entry)


def check_move(state: TableState, settings: RuleSettings, event: MoveSeat) -> None:
    s = occupied(state, settings, event.from_seat)
    seat_in_range(settings, event.to_seat)
    if event.to_seat in state.seats or any(
        o.pending_move == event.to_seat for o in state.seats.values()
    ):
        raise refuse("seat_taken", "refuse.seat_taken", seat=event.to_seat)
    if s.pending_move is not None:
        raise refuse("already_moving", "refuse.already_moving", seat=event.from_seat)
    if event.entry == "kill" and not settings.game.seat_change_kill:
        raise refuse("no_kill", "refuse.no_kill")
    if event.entry == "post" and not settings.game.seat_change_post:
        wait = move_wait(state, settings, event.from_seat, event.to_seat)
        if wait:  # B14, lowball (000 s.11 r.7): no post to skip the wait
            raise refuse("must_wait", "refuse.move_must_wait", seat=event.to_seat, count=wait)


def do_move(state: TableState, settings: RuleSettings, event: MoveSeat) -> list[effects.Effect]:
    s = state.seats[event.from_seat]
    if s.in_hand:
        s.pending_move = event.to_seat
        s.pending_move_entry = event.entry
        return [effects.SeatChanged(event.from_seat, "moving")]
    move_now(state, settings, event.from_seat, event.to_seat, event.entry)
    return [effects.SeatChanged(event.to_seat, "moved")]


def move_now(state: TableState, settings: RuleSettings, old: int, new: int, entry: str) -> None:
    """B14: keep chips and debts; moving away from the big blind waits the difference.

    Several moves between two hands count as one, from the seat the player had when
    they began (moving away and back costs nothing); a wait still owed from a move
    before an earlier hand carries over. B13: in a game's first orbit, a move to a seat
    no blind has passed yet adds no wait. A new player stays a new player.
    """
    s = state.seats.pop(old)
    player_gone(state, old)
    if s.home_seat is None:
        s.home_seat, s.home_wait = old, s.wait_hands
    before = hands_until_big_blind(state, settings, s.home_seat)
    after = hands_until_big_blind(state, settings, new)
    state.seats[new] = s
    s.entry = entry
    if not state.game_on or s.fresh:
        return
    wait = max(s.home_wait + after - before, 0)
    if state.bb_travel < settings.seats and new not in state.passed:
        # B13: the move itself is free, but a wait owed from an earlier move carries over
        wait = min(wait, s.home_wait)
    s.wait_hands = wait


def move_wait(state: TableState, settings: RuleSettings, old: int, new: int) -> int:
    """B14: the hands the player in ``old`` would wait after moving to ``new``: the
    move tried on a copy of the table (``move_now`` stays the one source). Changes
    nothing."""
    trial = replace(state, seats={**state.seats, old: replace(state.seats[old])})
    move_now(trial, settings, old, new, "wait")
    return trial.seats[new].wait_hands


def busted(settings: RuleSettings, s: Seat) -> bool:
    """B12: away because its stack cannot cover a smallest chip."""
    return s.away and bust.cannot_play(s.stack, settings.game.smallest_chip)


def check_stack_limit(seat: int, have: int, amount: int) -> None:
    """A seat holding ``have`` chips (pending ones included) may not take ``amount``
    more past ``MAX_AMOUNT``."""
    if have + amount > MAX_AMOUNT:
        raise refuse(
            "bad_amount",
            "refuse.stack_limit",
            amount=MAX_AMOUNT,
            seat=seat,
            value=max(MAX_AMOUNT - have, 0),
        )


def check_chips(state: TableState, settings: RuleSettings, event: Chips) -> None:
    """House limits on a later buy (ruling): the stack after it (chips pending from
    this hand included) may not pass ``max_buy_in``, nor stay below ``min_buy_in``."""
    s = occupied(state, settings, event.seat)
    check_amount(settings, event.amount)
    tournament.check_chips(state, settings, event)  # T6: a rebuy or the add-on only
    game = settings.game
    have = s.stack + s.pending_chips
    check_stack_limit(event.seat, have, event.amount)
    cap = game.max_buy_in
    if cap is not None and have + event.amount > cap:
        raise refuse(
            "bad_amount",
            "refuse.max_buy_in_add",
            amount=cap,
            seat=event.seat,
            value=max(cap - have, 0),
        )
    floor = game.min_buy_in
    if floor is not None and have + event.amount < floor:
        raise refuse(
            "bad_amount", "refuse.min_buy_in_add", amount=floor, seat=event.seat, value=floor - have
        )
    if s.in_hand or not busted(settings, s):
        return
    entry = sit_in_entry(settings, event.entry)
    if entry == "wait" and s.owes and game.missed_blind_return == "post_only":
        raise refuse("must_post", "refuse.must_post", seat=event.seat)


def do_chips(state: TableState, settings: RuleSettings, event: Chips) -> list[effects.Effect]:
    s = state.seats[event.seat]
    bought = tournament.check_chips(state, settings, event)
    if bought is not None:
        tournament.note_chips(state, settings, event, bought)
    state.bought_in += event.amount
    if s.in_hand:
        s.pending_chips += event.amount
        return [effects.SeatChanged(event.seat, "chips_pending")]
    was_busted = busted(settings, s)
    s.stack += event.amount
    if was_busted:
        come_back(settings, s, event.entry)  # B12: back as a returning player
    return [effects.SeatChanged(event.seat, "chips")]
