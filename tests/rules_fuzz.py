"""Random tables and random event streams for the rules core's property tests.

The generator leans on the engine's own ``legal`` so that streams reach deep into
hands (side pots, run-outs, showdowns, several hands in a row), and mixes in junk:
wrong seats, wrong amounts, events out of place, unknown keys. It draws every choice
through a ``Chooser`` so the same code serves hypothesis (which shrinks) and a plain
seeded ``random.Random`` (for quick soak runs).
"""

from __future__ import annotations

import contextlib
import dataclasses
import pickle
import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from controller.rules import Refusal, Table, effects, parse_event, state_view
from controller.rules.betting import playable, pot_total
from controller.rules.events import DEVICE_STATUSES, DEVICES, DOOR_STATUSES, EVENT_TYPES
from controller.rules.keypad.base import KEYS as KEYPAD_KEYS
from controller.rules.settings import (
    ClockSettings,
    FeeSettings,
    GameSettings,
    Level,
    RuleSettings,
    TournamentSettings,
)
from controller.rules.state import FIRST_ROUNDS, Clock, TableState

T = TypeVar("T")

NAMES = ("ana", "luis", "marta", "ivan", "sofia", "jorge", "elena", "pablo", "rosa", "tomas")
#: A few digits, every named key of the keypad, and one it does not have.
KEYS = ("0", "1", "2", "5", "9", *(key for key in KEYPAD_KEYS if not key.isdigit()), "JUNK")


class Chooser(Protocol):
    def integer(self, low: int, high: int) -> int: ...

    def pick(self, options: Sequence[T]) -> T: ...


class RandomChooser:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def pick(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]


def random_settings(c: Chooser) -> RuleSettings:
    chip = c.pick((1, 1, 5))
    big = chip * c.pick((2, 2, 4, 10))
    structure = c.pick(("no_limit", "pot_limit", "fixed_limit"))
    small = big // 2 - (big // 2) % chip or chip
    fee_mode = c.pick(("none", "rake", "rake", "time"))
    game = GameSettings(
        structure=structure,
        big_blind=big,
        small_blind=small,
        smallest_chip=chip,
        button=c.pick(("dead", "moving")),
        straddle=c.pick((False, True)),
        straddle_in_limit=c.pick((False, True)),
        check_raise=c.pick((True, True, False)),
        max_raises_big_bet=c.pick((None, None, 1, 2)),
        limit_cap_raises=c.pick((3, 3, 4)),
        missed_small_blind=c.pick(("dead", "live")),
        missed_blind_return=c.pick(("post_or_wait", "post_only")),
        # draw games (docs/rulebook.md, last section): their rounds, caps and lowball knobs
        form=c.pick(("flop", "flop", "draw", "triple_draw")),
        seat_change_post=c.pick((True, True, False)),
        seat_change_kill=c.pick((False, True)),
        new_player_post_multiple=c.pick((1, 1, 2)),
        out_of_turn=c.pick(("reject", "record")),
        lose_right_to_act=c.pick((False, True)),
        # antes (A1, A2): none, a chip or two from each player, or the big blind's
        ante=chip * c.pick((0, 0, 1, 2)),
        ante_form=c.pick(("each", "big_blind")),
    )
    return RuleSettings(
        seats=c.integer(2, 10),
        game=game,
        clock=ClockSettings(
            seconds=c.pick((5, 60)),
            warning=c.pick((0, 2)),
            on_expiry=c.pick(("fold", "check_or_fold")),
            shot_clock=c.pick((False, False, True)),
            time_banks=c.pick((0, 1)),
            time_bank_seconds=3,
        ),
        fees=FeeSettings(
            mode=fee_mode,
            rake_percent=c.pick((5, 10)),
            rake_cap=chip * c.pick((1, 3, 100)),
            no_flop_no_drop=c.pick((True, False)),
            jackpot_drop=c.pick((0, chip)),
            jackpot_min_pot=c.pick((0, 20 * chip)),
        ),
    )


def _next_level(c: Chooser, before: Level) -> Level:
    """A level after ``before``: blinds up, the smallest chip the same or five times it
    (a colour-up, T7), an ante or none."""
    chip = before.smallest_chip * c.pick((1, 1, 5))
    big = -(-max(2 * before.big_blind, 2 * chip) // chip) * chip
    small = max(big // 2 - (big // 2) % chip, chip)
    return Level(
        minutes=1, small_blind=small, big_blind=big, ante=chip * c.pick((0, 1)), smallest_chip=chip
    )


def random_tournament(c: Chooser) -> RuleSettings:
    """A random table made a tournament table (T1-T8): the dead button, no fees, three
    one-minute levels going up (a colour-up now and then), a break or none, rebuys and
    an add-on or none; the first level's stakes are the table's."""
    rules = random_settings(c)
    game = rules.game
    first = Level(
        minutes=1,
        small_blind=game.sb_amount,
        big_blind=game.big_blind,
        ante=game.ante,
        smallest_chip=game.smallest_chip,
    )
    second = _next_level(c, first)
    levels = (first, second, _next_level(c, second))
    starting = 100 * game.big_blind
    rebuy_levels = c.pick((0, 1))
    breaks = c.pick(((), ((1, 1),)))
    add_on = starting if rebuy_levels and breaks and c.integer(0, 1) else 0
    tournament = TournamentSettings(
        starting_stack=starting,
        single_table=c.pick((True, False)),
        levels=levels,
        breaks=breaks,
        rebuy_levels=rebuy_levels,
        rebuy_chips=starting if rebuy_levels else 0,
        add_on_chips=add_on,
    )
    return dataclasses.replace(
        rules,
        game=dataclasses.replace(game, button="dead"),
        fees=FeeSettings(mode="none"),
        tournament=tournament,
    )


def tournament_event(c: Chooser, table: Table) -> dict[str, Any]:
    """The level clock's events and the time that moves it, mid-hand as much as between
    hands; a player stepping away (T3); a rebuy or add-on's amount (T6)."""
    config = table.base_settings.tournament
    assert config is not None
    taken = sorted(table.state.seats) or [1]
    return c.pick(
        (
            {
                "type": "tournament",
                "action": c.pick(("start", "start", "pause", "resume", "level")),
                "level": c.pick((None, 1, 2, 3, 4)),
            },
            {"type": "tick", "ms": c.pick((20_000, 45_000, 60_000, 90_000))},
            {"type": "sit_out", "seat": c.pick(taken)},
            {"type": "sit_in", "seat": c.pick(taken)},
            {
                "type": "chips",
                "seat": c.pick(taken),
                "amount": c.pick((config.rebuy_chips or 5, config.add_on_chips or 5)),
            },
        )
    )


def stack_amount(c: Chooser, settings: RuleSettings) -> int:
    chip = settings.game.smallest_chip
    big = settings.game.big_blind
    return c.pick(
        (
            chip,
            big // 2 or chip,
            big,
            3 * big,
            10 * big,
            50 * big,
            100 * big,
            c.integer(1, 60) * chip,
            c.integer(1, 30) * chip + 1,
        )
    )


def legal_action(c: Chooser, table: Table) -> dict[str, Any] | None:
    """A betting action for the seat to act, legal most of the time."""
    h = table.state.hand
    legal = table.legal()
    if h is None or h.to_act is None or legal is None:
        return None
    seat = h.to_act
    chip = table.settings.game.smallest_chip
    options: list[dict[str, Any]] = [
        {"action": "fold"},
        {"action": "call"},
        {"action": "call"},
        {"action": "all_in"},
    ]
    if legal.check:
        options += [{"action": "check"}, {"action": "check"}]
    low, high = legal.min_raise_to, legal.max_raise_to
    if low is not None and high is not None:
        middle = low + (c.integer(0, max((high - low) // chip, 0)) * chip)
        options += [
            {"action": "raise", "to": low},
            {"action": "bet", "to": high},
            {"action": "raise", "to": middle},
            {"action": "raise", "to": low},
        ]
    choice = dict(c.pick(options))
    return {"type": "act", "seat": seat, **choice}


def straddle_or_out_of_turn(c: Chooser, table: Table) -> dict[str, Any] | None:
    """A straddle by the seat left of the big blind before any action (B15), or an
    action keyed for a seat still to act that is not to act (R10)."""
    h = table.state.hand
    if h is None or h.to_act is None:
        return None
    if h.street in FIRST_ROUNDS and not h.log and h.straddle is None and c.integer(0, 1):
        return {"type": "straddle", "seat": h.to_act}
    others = [s for s in h.dealt if s != h.to_act and table.state.seats[s].can_act]
    if not others:
        return None
    seat = c.pick(others)
    game = table.settings.game
    to = h.current_bet + c.pick((game.big_blind, 2 * game.big_blind))
    action = c.pick(
        (
            {"action": "check"},
            {"action": "call"},
            {"action": "fold"},
            {"action": "raise", "to": to},
            {"action": "bet", "to": to},
            {"action": "all_in"},
        )
    )
    return {"type": "act", "seat": seat, **action}


def junk_action(c: Chooser, table: Table) -> dict[str, Any]:
    h = table.state.hand
    seat = h.to_act if h is not None and h.to_act is not None else c.integer(1, 9)
    legal = table.legal()
    base = legal.min_raise_to if legal and legal.min_raise_to else table.settings.game.big_blind
    return c.pick(
        (
            {"type": "act", "seat": c.integer(0, 11), "action": "call"},
            {"type": "act", "seat": seat, "action": "check"},
            {"type": "act", "seat": seat, "action": "raise"},
            {"type": "act", "seat": seat, "action": "raise", "to": base - 1},
            {"type": "act", "seat": seat, "action": "raise", "to": base + 1},
            {"type": "act", "seat": seat, "action": "bet", "to": base * 1000},
            {"type": "act", "seat": seat, "action": "bet", "to": 0},
            {"type": "act", "seat": seat, "action": "raise", "to": -5},
            {"type": "act", "seat": seat, "action": "dance"},
        )
    )


def ranking(c: Chooser, table: Table) -> dict[str, Any]:
    h = table.state.hand
    live = [s for s in (h.dealt if h else []) if table.state.seats[s].live]
    order = list(live)
    for i in range(len(order) - 1, 0, -1):  # a shuffle through the chooser
        j = c.integer(0, i)
        order[i], order[j] = order[j], order[i]
    groups: list[list[int]] = []
    for seat in order:
        if groups and c.integer(0, 3) == 0:
            groups[-1].append(seat)
        else:
            groups.append([seat])
    kind = c.integer(0, 9)
    if kind == 0 and len(groups) > 1:
        groups = groups[:-1]  # a hand mucked (P5), or a pot left with no one ranked
    elif kind == 1:
        groups = []
    elif kind == 2 and groups:
        groups.append([groups[0][0]])  # ranked twice
    elif kind == 3:
        groups.append([c.integer(0, 11)])
    return {"type": "award", "ranking": groups}


def other_event(c: Chooser, table: Table) -> dict[str, Any]:
    settings = table.settings
    state = table.state
    seat = c.integer(0, settings.seats + 1)
    taken = sorted(state.seats)
    if taken and c.integer(0, 1):
        seat = c.pick(taken)
    free = [s for s in range(1, settings.seats + 1) if s not in state.seats]
    # B11: a seat dealt cards by mistake is one not dealt in (most rulings then apply)
    not_dealt = [s for s in taken if not state.seats[s].in_hand] if state.hand else []
    player = c.pick(NAMES)
    entry = c.pick(("wait", "post"))
    chip = settings.game.smallest_chip
    return c.pick(
        (
            {
                "type": "sit",
                "seat": c.pick(free) if free else seat,
                "player": player,
                "chips": stack_amount(c, settings),
                "entry": entry,
            },
            {"type": "leave", "seat": seat},
            {"type": "sit_out", "seat": seat},
            {"type": "sit_in", "seat": seat, "entry": entry},
            {
                "type": "move_seat",
                "from": seat,
                "to": c.pick(free) if free else seat,
                "entry": c.pick((entry, "kill")),
            },
            {"type": "chips", "seat": seat, "amount": c.pick((chip, 20 * chip, chip + 1))},
            {"type": "start_hand"},
            {"type": "misdeal"},
            {"type": "undo"},
            {"type": "straddle", "seat": seat},
            {"type": "time_fee", "seat": seat, "amount": c.pick((chip, 2 * chip, 3))},
            {
                "type": "transfer",
                "from": seat,
                "to": c.pick(taken) if taken else seat,
                "amount": c.pick((chip, 20 * chip, chip + 1, 10_000 * chip)),
                "reason": c.pick(("wrong_payout", "chips_misplaced", "other", "tip")),
            },
            {
                "type": "dealt_in_error",
                "seat": c.pick(not_dealt) if not_dealt and c.integer(0, 1) else seat,
                "ruling": c.pick(("kill", "keep")),
            },
            {"type": "tip", "seat": seat, "amount": c.pick((chip, 5 * chip, chip + 1))},
            {"type": "dealer", "id": c.pick(("D1", "D2", None))},
            {
                "type": "shift",
                "action": c.pick(("open", "close")),
                "counts": {str(chip): c.integer(0, 200)},
                "by": "S1",
                "witness": c.pick(("S2", "S1")),
            },
            {"type": "key", "key": c.pick(KEYS)},
            {"type": "call_clock"},
            {"type": "tick", "ms": c.pick((1000, 2500, 60000))},
            {"type": "puck", "seat": c.pick((None, seat))},
            {"type": "tray", "counts": {"5": c.integer(0, 9)}},
            device_event(c),
            {"type": "state"},
            {"type": c.pick(("dance", "sit", "act", "award"))},
            junk_event(c, seat),
        )
    )


def junk_event(c: Chooser, seat: int) -> dict[str, Any]:
    """Any event type of the engine (project events included) with fields that may or
    may not make sense."""
    return {
        "type": c.pick(EVENT_TYPES),
        "seat": seat,
        "amount": c.pick((5, 7, 100)),
        "chips": c.pick(([5, 5], [25], [])),
        "to": c.pick((10, 15, None)),
        "counts": c.pick(({"5": 4}, {})),
        "key": c.pick(KEYS),
        "ms": 1000,
        "action": c.pick(("call", "raise")),
        "ranking": [[seat]],
        "player": c.pick(NAMES),
        "ruling": "kill",
        "declared": c.pick((None, "raise")),
        "from": seat,
        "reason": c.pick(("other", "tip")),
    }


def next_event(c: Chooser, table: Table) -> dict[str, Any]:
    state = table.state
    if table.base_settings.tournament is not None and c.integer(0, 5) == 0:
        return tournament_event(c, table)
    roll = c.integer(0, 99)
    if state.phase == "idle":
        if len(state.seats) < 2 or roll < 15:
            return (
                other_event(c, table)
                if roll < 60
                else {
                    "type": "sit",
                    "seat": c.integer(1, table.settings.seats),
                    "player": c.pick(NAMES),
                    "chips": stack_amount(c, table.settings),
                    "entry": c.pick(("wait", "post")),
                }
            )
        return {"type": "start_hand"}
    if state.phase == "showdown":
        return ranking(c, table) if roll < 85 else other_event(c, table)
    if roll < 10:
        special = straddle_or_out_of_turn(c, table)
        if special is not None:
            return special
    if roll < 80:
        action = legal_action(c, table)
        if action is not None:
            return action
    if roll < 88:
        return junk_action(c, table)
    return other_event(c, table)


def opening(settings: RuleSettings, c: Chooser) -> list[dict[str, Any]]:
    """A few players sitting down, so that most streams play hands at once."""
    seats = list(range(1, settings.seats + 1))
    count = c.integer(2, settings.seats)
    events = []
    for index in range(count):
        seat = c.pick(seats)
        seats.remove(seat)
        events.append(
            {
                "type": "sit",
                "seat": seat,
                "player": NAMES[index],
                "chips": stack_amount(c, settings),
            }
        )
    return events


# -- invariants ------------------------------------------------------------------------


def chips_on_table(state: TableState) -> int:
    """Every chip the table accounts for: stacks, chips bought waiting to play, live
    bets, the pots, everything the house took and the dealers' tips."""
    total = state.rake_total + state.jackpot_total + state.time_fees_total + state.tips_total
    for seat in state.seats.values():
        total += seat.stack + seat.pending_chips + seat.bet + seat.gathered
    if state.hand is not None:  # dead money, and every player's antes (A1)
        total += state.hand.dead_money
        total += sum(p["dead"] for p in state.hand.posts if p["kind"] == "ante")
    return total


def check_heads_up_blinds(table: Table) -> None:
    """B3: in a hand dealt to two players the button is the small blind and posts the
    small blind, live, and nothing else but its ante (all in for less when its stack is
    short; no blind when the ante took it all, A1): never a big blind or an entry post
    (B7: no one owing is dealt on the button)."""
    state = table.state
    pos = state.positions
    if state.hand is None or not pos.heads_up:
        return
    assert pos.small_blind == pos.button, f"heads-up: button {pos.button}, SB {pos.small_blind}"
    posts = [p for p in state.hand.posts if p["seat"] == pos.button and p["kind"] != "ante"]
    anted = any(p["seat"] == pos.button and p["kind"] == "ante" for p in state.hand.posts)
    if not posts and anted and state.seats[pos.button].all_in:
        return  # A1: all-in for its ante, the button posts no blind
    sb = table.settings.game.sb_amount
    assert len(posts) == 1 and posts[0]["kind"] == "small_blind", f"heads-up button posts {posts}"
    assert posts[0]["live"] <= sb and posts[0]["dead"] == 0, f"heads-up button posts {posts}"


def check_invariants(table: Table) -> dict[str, Any]:
    state = table.state
    check_heads_up_blinds(table)
    assert chips_on_table(state) == state.bought_in - state.cashed_out, "chips not conserved"
    view = state_view(table)
    bets = sum(s["bet"] for s in view["seats"].values())
    assert view["pot_total"] == sum(p["amount"] for p in view["pots"]) + bets
    if state.hand is not None:  # ... and every chip actually in the middle
        assert view["pot_total"] == pot_total(state.hand, state.seats)
    chip = table.settings.game.smallest_chip
    for seat in state.seats.values():
        assert seat.stack >= 0 and seat.bet >= 0 and seat.gathered >= 0
        # an all-in seat has no playing chips behind (an uncalled bet returned to it
        # makes it a playing seat again)
        assert not (seat.all_in and playable(seat.stack, chip) > 0), f"all in with {seat.stack}"
    if view["legal"] is not None:
        legal = view["legal"]
        low, high = legal["min_raise_to"], legal["max_raise_to"]
        assert (low is None) == (high is None)
        if low is not None:
            assert low <= high
    if state.hand is None:
        assert all(s.bet == 0 and s.gathered == 0 for s in state.seats.values())
    else:
        # a seat still in the hand with chips behind has matched every bet (and put in
        # its ante, A1): it can win every pot
        playing = [n for n in state.hand.dealt if state.seats[n].can_act]
        for pot in view["pots"]:
            assert pot["amount"] > 0 and pot["eligible"] == sorted(pot["eligible"])
            assert set(playing) <= set(pot["eligible"]), f"{playing} not all in {pot}"
    return view


def apply_checked(table: Table, obj: dict[str, Any]) -> bool:
    """Apply one event; a refusal must leave the state exactly as it was."""
    return applied(table, obj) is not None


def applied(table: Table, obj: dict[str, Any]) -> list[effects.Effect] | None:
    """Apply one event and return its effects; a refusal must leave the state exactly
    as it was (None)."""
    before = pickle.dumps(table.state)
    try:
        out = table.apply(parse_event(obj))
    except Refusal:
        after = pickle.dumps(table.state)
        if after != before:  # the bytes are the quick test; the dict form the verdict
            assert table.state.to_dict() == pickle.loads(before).to_dict(), (
                f"refused {obj} changed the state"
            )
        return None
    return out


def play(settings: RuleSettings, events: list[dict[str, Any]]) -> Table:
    table = Table(settings)
    for obj in events:
        with contextlib.suppress(Refusal):
            table.apply(parse_event(obj))
    return table


def play_stream(
    c: Chooser, steps: int, seats: int | None = None, *, tournament: bool = False, **game: Any
) -> tuple[Table, list[dict[str, Any]]]:
    """A random table and a stream of events played on it, every invariant checked
    after every event; ``seats`` and ``game`` fix those settings instead; a tournament
    table's streams (``tournament``) are checked by ``check_tournament`` too."""
    rules = random_tournament(c) if tournament else random_settings(c)
    if game:
        rules = dataclasses.replace(rules, game=dataclasses.replace(rules.game, **game))
    if seats is not None:
        rules = dataclasses.replace(rules, seats=seats)
    table = Table(rules)
    events: list[dict[str, Any]] = []
    for obj in opening(table.settings, c):
        apply_checked(table, obj)
        events.append(obj)
    for _ in range(steps):
        obj = next_event(c, table)
        level = _hand_level(table)
        bought = table.state.bought_in
        out = applied(table, obj)
        events.append(obj)
        check_invariants(table)
        if tournament:
            check_tournament(table, level, out)
            check_tournament_chips(obj, bought, table.state.bought_in, out)
    return table, events


def check_tournament_chips(
    obj: dict[str, Any], before: int, after: int, out: list[effects.Effect] | None
) -> None:
    """Tournament chips are constant but for the stacks brought (``sit``), rebuys and
    add-ons (``chips``) and the colour-up (T5-T7): any other event brings in exactly
    the chips its colour-ups added, and a refused one nothing."""
    if out is None:
        assert after == before, f"refused {obj} moved the ledger"
        return
    if obj.get("type") in ("sit", "chips", "key"):  # a key may end a FUNC 1 or FUNC 5
        return
    added = sum(e.chips for e in out if isinstance(e, effects.ColouredUp))
    assert after - before == added, f"{obj}: {after - before} chips came in, colour-up {added}"


def _hand_level(table: Table) -> tuple[int, int] | None:
    """The hand in progress and its big blind, as the rules play it."""
    h = table.state.hand
    return None if h is None else (h.number, table.settings.game.big_blind)


def check_tournament(
    table: Table, before: tuple[int, int] | None, out: list[effects.Effect] | None
) -> None:
    """T1: a hand keeps its stakes whatever the level clock does; T3: no markers, and a
    seat away that posted nothing is folded at the deal; T4: at a hand's end no seat
    is left without chips (rebuys or not), and the places only get better as players
    go out, never as good as a seat still playing."""
    state = table.state
    now = _hand_level(table)
    if before is not None and now is not None and before[0] == now[0]:
        assert before[1] == now[1], f"hand {now[0]} changed its big blind {before} -> {now}"
    assert all(not s.missed_big and not s.missed_small for s in state.seats.values())
    record = state.tournament or {}
    places = [e["place"] for e in record.get("eliminated", []) if "place" in e]
    assert places == sorted(places, reverse=True), places
    assert all(place > len(state.seats) for place in places), (places, len(state.seats))
    ended = any(
        (isinstance(e, effects.HandEnded) and not e.voided) or isinstance(e, effects.LevelChanged)
        for e in out or []
    )
    if ended and state.hand is None:
        broke = [n for n, s in state.seats.items() if s.stack == 0 and not s.pending_chips]
        assert not broke, f"seats {broke} out of chips and still seated"
    started = [e for e in out or [] if isinstance(e, effects.HandStarted)]
    posted = {e.seat for e in out or [] if isinstance(e, effects.Posted)}
    for number in started[0].dealt if started and state.hand is not None else ():
        s = state.seats[number]
        assert not s.away or number in posted or s.folded, f"seat {number} away, owes nothing, live"


def random_stream(c: Chooser, steps: int) -> tuple[RuleSettings, list[dict[str, Any]]]:
    """A random table's settings and a checked stream of events played on it."""
    table, events = play_stream(c, steps)
    return table.settings, events


# -- play stopped by the table (controller.rules.stopped) ---------------------------------

#: The devices whose loss stops play, and the cause each raises.
STOPPING = {"keypad": "keypad_lost", "display": "display_lost"}


def device_event(c: Chooser) -> dict[str, Any]:
    """A device lost or back, or the door opened or closed; the keypad and the display
    (which stop play) most often."""
    if c.integer(0, 4) == 0:
        return {"type": "door", "status": c.pick(DOOR_STATUSES)}
    device = c.pick(("keypad", "display", "keypad", "display", *DEVICES))
    return {"type": "device", "device": device, "status": c.pick((*DEVICE_STATUSES, "back"))}


def stopped_event(c: Chooser, table: Table) -> dict[str, Any]:
    """The next event of a stream that stops play often: device losses and returns, the
    clock called, ticks long enough to expire it, NEXT and start_hand; else as
    ``next_event``."""
    roll = c.integer(0, 19)
    stuck = bool(table.state.play_stopped) and table.state.phase == "idle"
    if roll < (8 if stuck else 2):  # stopped between hands, only a device helps
        return device_event(c)
    if roll < 5:
        return {"type": "call_clock"}
    if roll < (12 if table.state.play_stopped and table.state.clock else 8):
        return {"type": "tick", "ms": c.pick((1000, 1000, 60_000, 600_000))}
    if roll == 8:
        return c.pick(({"type": "key", "key": "NEXT"}, {"type": "start_hand"}))
    return next_event(c, table)


class StoppedBefore:
    """What the play-stopped invariants compare: the table before one event."""

    def __init__(self, table: Table) -> None:
        state = table.state
        self.causes = list(state.play_stopped)
        clock = state.clock
        self.clock = Clock(clock.seat, clock.remaining_ms, clock.warning) if clock else None
        self.hand_number = state.hand_number
        self.phase = state.phase


def expected_causes(causes: list[str], obj: dict[str, Any], accepted: bool) -> set[str]:
    """The causes after ``obj`` by the model: a keypad or display lost raises one, back
    clears it; the door open raises ``door_open``, closed clears it; nothing else
    changes them."""
    model = set(causes)
    if accepted and obj.get("type") == "door":
        (model.add if obj.get("status") == "open" else model.discard)("door_open")
    device = STOPPING.get(str(obj.get("device")))
    if accepted and obj.get("type") == "device" and device is not None:
        (model.add if obj.get("status") == "lost" else model.discard)(device)
    return model


def check_play_stopped(
    table: Table, obj: dict[str, Any], before: StoppedBefore, accepted: bool
) -> None:
    """While play is stopped a tick never changes the clock (its time left, its warning,
    no expiry) and no hand starts (``start_hand`` between hands is refused with
    ``play_stopped``); the causes are those the device events left."""
    state = table.state
    assert set(state.play_stopped) == expected_causes(before.causes, obj, accepted), obj
    if not before.causes:
        return
    assert state.hand_number == before.hand_number, f"a hand started while stopped: {obj}"
    if obj["type"] == "tick":
        assert state.clock == before.clock, f"the clock moved while stopped: {obj}"
    if obj["type"] == "start_hand" and before.phase == "idle":
        assert not accepted
        try:
            table.check(parse_event(obj))
        except Refusal as refusal:
            assert refusal.code == "play_stopped", refusal
