"""The state as the replay contract prints it (docs/replay.md, "The state"), and the dealer
display's lines."""

from __future__ import annotations

from typing import Any

from controller.rules import antes, meters, ops, out_of_turn, stopped, tournament, tray_ledger
from controller.rules import hand as hand_flow
from controller.rules.betting import playable
from controller.rules.errors import Refusal
from controller.rules.positions import plan_hand
from controller.rules.table import Table
from controller.rules.text import Message, Phrase, msg, render, round_word, to_json


def seat_status(table: Table, number: int, next_dealt: set[int] | None) -> str:
    s = table.state.seats[number]
    if table.state.hand is not None:
        if s.in_hand:
            if s.folded:
                return "folded"
            return "all_in" if s.all_in else "playing"
        return "sitting_out" if s.away else "waiting"
    if s.away:
        return "sitting_out"
    if next_dealt is not None:
        return "playing" if number in next_dealt else "waiting"
    chip = table.settings.game.smallest_chip
    return "playing" if playable(s.stack, chip) > 0 and not s.fresh else "waiting"


def next_hand_seats(table: Table) -> set[int] | None:
    """Seats the next hand would deal in: none when fewer than two players could play
    (a lone player waits for a second one); None when the hand is held for another
    reason (the puck), which says nothing about the seats."""
    try:
        return set(plan_hand(table.state, table.settings).dealt)
    except Refusal as refusal:
        return set() if refusal.code == "not_enough_players" else None


def state_view(table: Table, *, since_ms: int = 0) -> dict[str, Any]:
    """The state (docs/replay.md). ``since_ms``: the time since the last ``tick`` that
    the shell has not told the rules yet, for the display's lines only (a tournament's
    level clock counting down between ticks, ``tournament.display_lines``); every
    other field is the rules' own."""
    from controller.rules import keypad  # loaded when needed (Table._check_key says why)

    state = table.state
    h = state.hand
    pos = state.positions
    # between hands after a misdeal the last hand is the voided one: its positions (the
    # re-deal's plan) are the ones to show; ``positions`` went back to the hand before
    voided = state.redeal if h is None and state.redeal is not None else None
    button, small_blind, big_blind = (
        (voided["button"], voided["small_blind"], voided["big_blind"])
        if voided is not None
        else (pos.button, pos.small_blind, pos.big_blind)
    )
    next_dealt = next_hand_seats(table) if h is None else None
    seats = {}
    for number in sorted(state.seats):
        s = state.seats[number]
        missed = [name for name, flag in (("small", s.missed_small), ("big", s.missed_big)) if flag]
        seats[str(number)] = {
            "player": s.player,
            "stack": s.stack,
            "bet": s.bet,
            "status": seat_status(table, number, next_dealt),
            "missed": missed,
        }
    current = hand_flow.current_pots(state)
    pots = [{"amount": p.amount, "eligible": list(p.eligible)} for p in current]
    bets = sum(s.bet for s in state.seats.values())
    legal = table.legal()
    clock = state.clock
    return {
        "hand": state.hand_number,
        "phase": state.phase,
        "button": button,
        "small_blind": small_blind,
        "big_blind": big_blind,
        "to_act": h.to_act if h is not None else None,
        "legal": legal.as_dict() if legal is not None else None,
        "pot_total": sum(p.amount for p in current) + bets,
        "pots": pots,
        "seats": seats,
        # in this order, also when loaded from a snapshot (whose keys are sorted)
        "fees": {"rake": state.fees["rake"], "jackpot": state.fees["jackpot"]},
        "showdown_order": list(h.showdown_order) if h is not None and h.showdown_order else None,
        "clock": (
            {"seat": clock.seat, "remaining_ms": clock.remaining_ms, "warning": clock.warning}
            if clock is not None
            else None
        ),
        "play_stopped": list(state.play_stopped),
        "display": display_lines(table, since_ms=since_ms),
        "display_text": [to_json(m) for m in display_messages(table, since_ms)],
        "keypad": keypad.view(table),
        "out_of_turn": out_of_turn.public(h),
        "tray": tray_ledger.view(state),
        "puck": state.puck,
        "dealt": list(h.dealt) if h is not None else [],
        "straddle": h.straddle if h is not None else None,
        "antes": {str(seat): amount for seat, amount in antes.posted(h).items()},
        "dealer": state.dealer,
        "hand_dealer": state.hand_dealer,
        "meters": tournament.meters_view(state, table.base_settings, meters.current(state)),
        "shift": ops.shift_view(state),
        "tournament": tournament.view(state, table.base_settings),
    }


def display_lines(table: Table, language: str = "en", *, since_ms: int = 0) -> list[str]:
    """What the dealer display says happens next, in ``language`` (controller.rules.text)."""
    return [render(m, language) for m in display_messages(table, since_ms)]


def display_messages(table: Table, since_ms: int = 0) -> list[Message]:
    """The dealer display's lines as messages: an unfinished keypad entry's prompt; else
    what happens next, under the last key's notice if there is one (``since_ms``: see
    ``state_view``)."""
    from controller.rules import keypad  # see state_view

    prompt = keypad.prompt(table)
    if prompt is not None:
        return prompt
    if table.state.play_stopped:  # what the dealer must know first (rules.stopped)
        return [stopped.display_words(table.state.play_stopped), _next_lines(table, since_ms)[0]]
    lines = _next_lines(table, since_ms)
    notice = keypad.notice(table.state)
    if notice is not None:  # until the next key: the situation's first line under it
        return [notice, lines[0]]
    push = ops.push_notice(table.state)
    if push is None:
        return lines
    if table.state.payouts:  # a payout page: its pot, count and NEXT stay in sight
        return [msg("display.pay_push_due", situation=Phrase(lines[0])), lines[1]]
    return [push, lines[0]]


def _next_lines(table: Table, since_ms: int = 0) -> list[Message]:
    from controller.rules.keypad import pages  # see state_view

    state = table.state
    page = pages.lines(table)  # a page NEXT turned to; the payouts between hands
    if page is not None:
        return tournament.over_payouts(page, state, table.base_settings, since_ms)
    h = state.hand
    levels = tournament.display_lines(state, table.base_settings, since_ms)
    if levels is not None:  # a tournament table between hands (T1)
        return levels
    if h is None:
        game = table.settings.game
        if game.ante:  # what the dealer collects at the deal, with the blinds (A1, A2)
            return [msg("display.ready"), msg(f"display.ante_{game.ante_form}", amount=game.ante)]
        return [msg("display.ready")]
    more = pages.side_pots(table)
    if state.phase == "showdown":
        order = " ".join(str(s) for s in h.showdown_order or [])
        return [
            msg("display.showdown"),
            msg("display.show_order_pots" if more else "display.show_order", seats=order),
        ]
    if h.to_act is None:
        return [msg("display.hand", hand=h.number)]
    legal = table.legal()
    assert legal is not None
    if legal.check:
        second = msg("display.check")
    else:
        seat = state.seats[h.to_act]
        all_in = legal.call >= playable(seat.stack, table.settings.game.smallest_chip)
        second = msg("display.call_all_in" if all_in else "display.call", amount=legal.call)
    if more:
        second = msg("display.more_pots", situation=Phrase(second))
    word = round_word(state.phase)
    if word is not None:  # a draw game: name the round, nothing on the table shows it
        return [msg("display.round_to_act", round=word, seat=h.to_act), second]
    away = tournament.away_in_hand(state, table.base_settings)
    if away:  # T3: dealt in, playing, but no one there: his hand is folded at his turn
        return [msg("display.to_act_away", seat=h.to_act, seats=away), second]
    return [msg("display.to_act", seat=h.to_act), second]
