"""One hand from the blinds to the paid pots (P1-P5), on top of the betting round.

The phase order lives in ``state.ROUNDS`` (per ``game.form``): preflop → flop → turn →
river, predraw → draw1, or predraw → draw1 → draw2 → draw3; then showdown, then idle
once the pots are paid. A street ends when nobody needs to act;
when at most one seat can still bet, the remaining streets run out with no betting.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules import antes, betting, bust, effects, meters, seating, undo
from controller.rules.fees import hand_fees
from controller.rules.positions import HandPlan
from controller.rules.pots import Pot, build_pots, clockwise_from, split, take_fees
from controller.rules.records import Action, ActionKind, PostRecord
from controller.rules.settings import RuleSettings
from controller.rules.state import NEXT_PHASE, ROUNDS, Hand, Seat, TableState, tournament_as_0_3


def current_pots(state: TableState) -> list[Pot]:
    hand = state.hand
    if hand is None:
        return []
    seats = state.seats
    contributions: dict[int, int] = {}
    live: list[int] = []
    all_in: list[int] = []
    for number in hand.dealt:  # one pass over the seats dealt in
        s = seats[number]
        contributions[number] = s.gathered
        if s.live:
            live.append(number)
            if s.all_in:
                all_in.append(number)
    for post in hand.posts:  # A1: each player's ante is part of what he put in
        if post["kind"] == "ante":
            contributions[post["seat"]] += post["dead"]
    return build_pots(contributions, live, all_in, hand.dead_money)


def clear_hand(seat: Seat) -> None:
    """The seat's part in a hand, as it is between hands: the one list of those fields
    and their values (``state.Seat``, "the seat's part in the hand in progress")."""
    seat.in_hand = seat.folded = seat.all_in = seat.acted = seat.checked = False
    seat.bet = seat.gathered = seat.acted_at = 0


def deal_in(seat: Seat, number: int) -> None:
    """Deal the seat into hand ``number`` with a clean part in it: no longer a new player
    (B5), no wait left (B14). Every seat is dealt in here, whether by the hand's plan or
    by the floor's B11 keep ruling."""
    clear_hand(seat)
    seat.in_hand, seat.fresh, seat.wait_hands = True, False, 0
    seat.last_dealt_hand = number


def button_seat(state: TableState) -> int:
    """The seat the hand in progress counts clockwise from (the first to act after the
    first round, the showdown order, odd chips, the dealing order): the button, or,
    where none is recorded, the last seat dealt in, which orders the seats the same
    way (the dealing order starts left of the button, P1)."""
    hand = state.hand
    assert hand is not None
    return state.positions.button or hand.dealt[-1]


def begin(state: TableState, settings: RuleSettings, plan: HandPlan) -> list[effects.Effect]:
    """Deal the planned hand: positions, posts, and the first seat to act."""
    game = settings.game
    state.hand_number += 1
    first_round = ROUNDS[game.form][0]
    hand = Hand(number=state.hand_number, street=first_round, dealt=list(plan.dealt))
    # B13: everyone seated when a game starts is in it; a re-deal's newcomers are not
    game_starts = plan.first_of_game and state.redeal is None
    _open_hand(state, hand, plan)
    _mark_seats(state, plan, game_starts)
    out: list[effects.Effect] = [
        effects.HandStarted(hand.number, plan.button, plan.small_blind, plan.big_blind, plan.dealt)
    ]
    out += _post(state, settings, hand, plan)
    out += _open_betting(state, settings, hand, plan)
    return out


def _open_hand(state: TableState, hand: Hand, plan: HandPlan) -> None:
    """The table's record of the hand: phase, fees and payouts afresh, the positions."""
    state.hand = hand
    state.redeal = None
    state.phase = hand.street
    state.game_on = True
    state.fees = {"rake": 0, "jackpot": 0}
    state.payouts = []
    state.paid_to = None
    state.passed = list(plan.passed)
    state.bb_travel = plan.bb_travel
    pos = state.positions
    pos.button, pos.small_blind, pos.big_blind = plan.button, plan.small_blind, plan.big_blind
    pos.sb_position, pos.heads_up, pos.dealt = plan.sb_position, plan.heads_up, list(plan.dealt)
    pos.hand = hand.number


def _mark_seats(state: TableState, plan: HandPlan, game_starts: bool) -> None:
    """Missed blinds, posts settled, hands away and waited, and the seats dealt in."""
    for number, kind in plan.missed:
        if kind == "big":
            state.seats[number].missed_big = True
        else:
            state.seats[number].missed_small = True
    for number, seat in state.seats.items():
        seat.home_seat = None  # B14: seat changes from now on count from here
        if game_starts:
            seat.fresh = False
        if seat.away:
            seat.absent_hands += 1  # house limit max_absent_hands: hands started while away
        elif number not in plan.dealt and seat.wait_hands:
            seat.wait_hands -= 1
    for number in plan.settled:
        s = state.seats[number]
        s.missed_big = s.missed_small = s.owes_post = False
    for number in plan.dealt:
        deal_in(state.seats[number], state.hand_number)
    state.seats[plan.big_blind].last_bb_hand = state.hand_number


def _post(
    state: TableState, settings: RuleSettings, hand: Hand, plan: HandPlan
) -> list[effects.Effect]:
    """The antes (A1), the blinds and posts as planned, then the big blind's ante (A2)."""
    game = settings.game
    chip = game.smallest_chip
    anted = antes.post_each(hand, state.seats, plan.dealt, game)
    anted_out = {e.seat for e in anted if state.seats[e.seat].all_in}
    out: list[effects.Effect] = list(anted)
    for post in plan.posts:
        s = state.seats[post.seat]
        live = min(post.live, betting.playable(s.stack, chip))
        s.stack -= live
        s.bet += live
        dead = min(post.dead, betting.playable(s.stack, chip))
        s.stack -= dead
        hand.dead_money += dead
        if not (live or dead) and post.seat in anted_out:
            continue  # A1: all-in for its ante, the seat posts nothing more
        if betting.playable(s.stack, chip) == 0:
            s.all_in = True
        record: PostRecord = {"seat": post.seat, "kind": post.kind, "live": live, "dead": dead}
        hand.posts.append(record)
        out.append(effects.Posted(post.seat, post.kind, live, dead))
    out += antes.post_big_blind(hand, state.seats, plan.big_blind, game)
    return out


def _open_betting(
    state: TableState, settings: RuleSettings, hand: Hand, plan: HandPlan
) -> list[effects.Effect]:
    """The first round's bet and limits, and the first seat to act."""
    game = settings.game
    # B1: the call and the minimum raise come from the full big blind, even when short
    hand.current_bet = max([game.big_blind] + [state.seats[s].bet for s in plan.dealt])
    hand.min_increment = game.big_blind
    hand.raise_level = game.big_blind
    hand.bets = 1
    last = plan.big_blind
    if plan.kill is not None:
        # a full kill: the kill blind is the bet, the limits double, the killer acts last
        hand.kill = last = plan.kill
        hand.min_increment = hand.raise_level = 2 * game.big_blind
    hand.to_act = betting.next_to_act(hand, state.seats, last, settings.seats)
    if hand.to_act is None:
        return end_round(state, settings)
    return []


def act(
    state: TableState,
    settings: RuleSettings,
    seat: int,
    action: Action,
    to: int | None,
    decided: tuple[ActionKind, int] | None = None,
) -> list[effects.Effect]:
    """Carry out the action of the seat to act (``decided``: what its check found it
    amounts to, when the caller has just checked it), then pass the action on. The
    action may be taken back (R12) while the street goes on with a seat to act."""
    h = state.hand
    assert h is not None
    seats = state.seats
    if decided is None:
        decided = betting.check_action(h, seats, seat, action, to, settings.game)
    kind, total = decided
    record = undo.remember(state, seat)
    full_bets = h.bets  # apply_action counts a bet or raise here only when full
    betting.apply_action(h, seats, seat, kind, total, settings.game)
    h.log.append({"street": h.street, "seat": seat, "action": kind, "to": total})
    if state.clock is not None and state.clock.seat == seat:
        state.clock = None
    full = h.bets > full_bets if kind in ("bet", "raise") else None
    out: list[effects.Effect] = [effects.Acted(seat, kind, total, full)]
    street = h.street
    out += after_action(state, settings, seat)
    if state.hand is h and h.street == street and h.to_act is not None:
        state.undo = record
    else:
        state.undo = None
    return out


def after_action(state: TableState, settings: RuleSettings, seat: int) -> list[effects.Effect]:
    """Pass the action on, or close the round (or the hand) when no one needs to act."""
    hand = state.hand
    assert hand is not None
    if betting.one_left(hand, state.seats):
        return end_round(state, settings)
    hand.to_act = betting.next_to_act(hand, state.seats, seat, settings.seats)
    if hand.to_act is None:
        return end_round(state, settings)
    return []


def end_round(state: TableState, settings: RuleSettings) -> list[effects.Effect]:
    hand = state.hand
    assert hand is not None
    seats = state.seats
    out: list[effects.Effect] = []
    returned = betting.return_uncalled(hand, seats)
    if returned:
        out.append(effects.UncalledReturned(*returned))
    betting.gather(hand, seats)
    hand.to_act = None
    live: list[int] = []
    can_bet = 0  # live seats not all-in
    for number in hand.dealt:
        s = seats[number]
        if s.live:
            live.append(number)
            if s.can_act:
                can_bet += 1
    if len(live) == 1:
        return out + pay(state, settings, [[live[0]]])
    aggressor = hand.street_aggressor  # of the round just closed: the last with betting
    next_phase = NEXT_PHASE[settings.game.form]
    while True:
        street = next_phase[hand.street]
        if street == "showdown":
            hand.street = "showdown"
            state.phase = "showdown"
            hand.showdown_order = showdown_order(state, settings)
            return out
        hand.street = street
        state.phase = street
        hand.saw_flop = True
        out.append(effects.StreetDealt(street))
        betting.start_round(hand, seats, settings.game)
        if can_bet < 2:
            # a run-out deals with no betting round: P5's "final round" stays the one
            # just closed, and its last aggressor shows first
            hand.street_aggressor = aggressor
            continue
        button = button_seat(state)
        hand.to_act = betting.next_to_act(hand, seats, button, settings.seats)
        if hand.to_act is not None:
            return out


def showdown_order(state: TableState, settings: RuleSettings) -> list[int]:
    """P5: the last aggressor of the final betting round first (else the first seat
    left of the button), then clockwise."""
    hand = state.hand
    assert hand is not None
    live = [s for s in hand.dealt if state.seats[s].live]
    button = button_seat(state)
    first = hand.street_aggressor if hand.street_aggressor in live else None
    if first is None:
        return clockwise_from(button, live, settings.seats)
    # clockwise_from lists ``first`` itself last: it shows first, the rest follow
    return [first] + [s for s in clockwise_from(first, live, settings.seats) if s != first]


def pay(
    state: TableState,
    settings: RuleSettings,
    ranking: Sequence[Sequence[int]],
    pots: list[Pot] | None = None,
) -> list[effects.Effect]:
    """Take the house fees and pay every pot to its best eligible ranked group
    (``pots``: the current pots, when the caller has just built them)."""
    hand = state.hand
    assert hand is not None
    game = settings.game
    if pots is None:
        pots = current_pots(state)
    total = sum(p.amount for p in pots)
    rake, jackpot = hand_fees(settings.fees, total, hand.saw_flop, game.smallest_chip)
    pots = take_fees(pots, rake + jackpot)
    state.fees = {"rake": rake, "jackpot": jackpot}
    state.rake_total += rake
    state.jackpot_total += jackpot
    out: list[effects.Effect] = []
    if rake or jackpot:
        out.append(effects.FeesTaken(rake, jackpot))
    button = button_seat(state)
    state.payouts = []
    won: set[int] = set()
    for index, pot in enumerate(pots):
        winners = winners_of(pot, ranking)
        assert winners, "award() refuses rankings that leave a pot unwon"
        won.update(winners)
        shares = split(pot.amount, winners, button, settings.seats, game.smallest_chip)
        paid = tuple(sorted(shares.items()))
        for seat, amount in paid:
            state.seats[seat].stack += amount
            if amount:
                state.payouts.append([index, seat, amount])
        out.append(effects.PotAwarded(index, pot.amount, paid))
    state.paid_to = None
    if len(won) == 1:  # a split pot (even one a seat's share of was nothing) has no one winner
        (seat,) = won
        state.paid_to = {"seat": seat, "player": state.seats[seat].player}
    return out + finish(state, settings)


def winners_of(pot: Pot, ranking: Sequence[Sequence[int]]) -> list[int]:
    for group in ranking:
        winners = [s for s in group if s in pot.eligible]
        if winners:
            return winners
    return []


def finish(state: TableState, settings: RuleSettings, voided: bool = False) -> list[effects.Effect]:
    """Close the hand: clear it, then apply what waited for the hand to end."""
    hand = state.hand
    assert hand is not None
    state.hand = None
    state.phase = "idle"
    state.clock = None
    state.before_hand = None
    for seat in state.seats.values():
        clear_hand(seat)
    out: list[effects.Effect] = [effects.HandEnded(hand.number, voided)]
    out += settle_between_hands(state, settings)
    return out


def settle_between_hands(state: TableState, settings: RuleSettings) -> list[effects.Effect]:
    """Apply chips bought, sit-outs, departures and seat moves held during the hand;
    busted seats sit out and play stops when fewer than two players are seated (``bust``)."""
    out: list[effects.Effect] = []
    for number in sorted(state.seats):
        s = state.seats[number]
        if s.pending_leave:
            state.cashed_out += s.stack + s.pending_chips
            meters.seat_cashed_out(state, number, s.stack + s.pending_chips)
            del state.seats[number]
            seating.player_gone(state, number)
            out.append(effects.SeatChanged(number, "left"))
            continue
        if s.pending_chips:
            s.stack += s.pending_chips
            s.pending_chips = 0
            out.append(effects.SeatChanged(number, "chips"))
        if s.pending_sit_out:
            s.pending_sit_out = False
            s.away = True
            out.append(effects.SeatChanged(number, "sat_out"))
        out += bust.bust(state, settings, number)
    limit = _absent_limit(state, settings)
    for number in sorted(state.seats):
        s = state.seats[number]
        if s.away and limit is not None and s.absent_hands >= limit:
            state.cashed_out += s.stack + s.pending_chips
            meters.seat_cashed_out(state, number, s.stack + s.pending_chips)
            del state.seats[number]
            out.append(effects.SeatChanged(number, "freed"))
            continue
        target = s.pending_move
        if target is not None:
            s.pending_move = None
            if target not in state.seats:
                seating.move_now(state, settings, number, target, s.pending_move_entry)
                out.append(effects.SeatChanged(target, "moved"))
    bust.stop_play_if_alone(state)
    return out


def _absent_limit(state: TableState, settings: RuleSettings) -> int | None:
    """The house limit on hands away (``max_absent_hands``): none at a tournament table,
    where a player away is blinded off and keeps his seat (T3); a journal recorded by
    0.3.0 is folded as it played, with the limit."""
    if settings.tournament is not None and not tournament_as_0_3(state):
        return None
    return settings.game.max_absent_hands
