"""Tournament tables (docs/rulebook.md T1-T8): the level clock, levels and breaks, players
away and busted out, chips brought, rebuys and the add-on, the colour-up.

Theory of operation. A tournament table (``RuleSettings.tournament``) keeps one record
in ``TableState.tournament`` (a plain dict, so that it goes into the journal's snapshots
as it is; None until the first event that needs it):

- the level clock: ``level`` (the level in force for the next hand; on a break, the
  level after it), ``ms_left`` (of that level, or of the break), ``started``,
  ``paused``, ``on_break``. It counts every ``tick`` while the tournament runs (started,
  not paused), on a break the break's time; play stopped by the table never stops it
  (T1). It is counted from the journalled ticks alone, so replay and recovery give the
  same level. It stops at the end of the last level, which then lasts as long as play.
- ``hand_level``: the level of the hand in progress, fixed when it is dealt. The rules
  play a hand at its own level, and between hands at the level in force
  (``rules_level``): ``for_rules`` gives the settings with that level's blinds, ante and
  smallest chip in ``game``.
- ``eliminated``: the players out (T4), in the order they went out, each with the hand,
  its stack at the hand's start and, in a single-table tournament, its place.
- ``stacks_at_start`` (the stacks as each hand was dealt, for T4's order), and the
  counts ``entries``, ``moved_in``, ``rebuys``, ``add_ons`` (the players who took it),
  ``coloured_up`` (chips added by T7's ruling): never money.

The record lives through a misdeal (``state.KEPT_THROUGH_A_VOID``): the voided hand's
time has passed all the same.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from controller.rules import effects
from controller.rules.errors import Refusal
from controller.rules.events import Chips, Sit, Tournament
from controller.rules.settings import Level, RuleSettings, TournamentSettings
from controller.rules.state import TableState, tournament_as_0_3
from controller.rules.text import Message, Phrase, msg, refuse

MS_PER_MINUTE = 60_000


def fresh(config: TournamentSettings) -> dict[str, Any]:
    """The record of a tournament table that nothing has happened at yet."""
    return {
        "level": 1,
        "ms_left": config.levels[0].minutes * MS_PER_MINUTE,
        "started": False,
        "paused": False,
        "on_break": False,
        "hand_level": 0,
        "eliminated": [],
        "stacks_at_start": [],
        "entries": 0,
        "moved_in": 0,
        "rebuys": 0,
        "add_ons": [],
        "coloured_up": 0,
        "broke": {},  # T6: player -> [hand, stack at its start] of the hand he went broke in
    }


def record(state: TableState, config: TournamentSettings) -> dict[str, Any]:
    """The table's tournament record, made on first use (deeds only)."""
    if state.tournament is None:
        state.tournament = fresh(config)
    return state.tournament


def _current(state: TableState, config: TournamentSettings) -> dict[str, Any]:
    """The record as it is, or as it would be made (checks: changes nothing)."""
    return state.tournament if state.tournament is not None else fresh(config)


def rules_level(state: TableState, config: TournamentSettings) -> int:
    """The level the rules play at now: the hand's own while one is in progress (T1: a
    hand keeps its level), else the level in force for the next hand."""
    current = _current(state, config)
    if state.hand is not None and current["hand_level"]:
        return int(current["hand_level"])
    return int(current["level"])


def level_of(config: TournamentSettings, number: int) -> Level:
    return config.levels[min(max(number, 1), len(config.levels)) - 1]


def for_rules(base: RuleSettings, level_number: int) -> RuleSettings:
    """``base`` with ``game`` at a level's stakes: its blinds, ante and smallest chip;
    no house buy-in limits (T5: nothing is bought but what T6 allows)."""
    config = base.tournament
    assert config is not None
    level = level_of(config, level_number)
    game = replace(
        base.game,
        small_blind=level.small_blind,
        big_blind=level.big_blind,
        ante=level.ante,
        smallest_chip=level.smallest_chip,
        small_bet=None,
        big_bet=None,
        min_buy_in=None,
        max_buy_in=None,
    )
    return replace(base, game=game)


# -- the `tournament` event: start, pause, resume, set the level (T1) -----------------


def _config(settings: RuleSettings) -> TournamentSettings:
    if settings.tournament is None:
        raise refuse("not_a_tournament", "refuse.not_a_tournament")
    return settings.tournament


def check(state: TableState, settings: RuleSettings, event: Tournament) -> None:
    config = _config(settings)
    current = _current(state, config)
    if event.level is not None and not 1 <= event.level <= len(config.levels):
        raise refuse("bad_level", "refuse.bad_level", level=event.level, last=len(config.levels))
    if event.action == "start" and current["started"] and not over(state, current):
        raise _started(state, config, current)
    if event.action in ("pause", "resume") and not current["started"]:
        raise refuse("tournament_not_started", "refuse.tournament_not_started")
    if event.action == "pause" and current["paused"]:
        raise refuse("tournament_paused", "refuse.tournament_paused")
    if event.action == "resume" and not current["paused"]:
        raise refuse("tournament_running", "refuse.tournament_running")
    if event.action == "level" and event.level is None:
        raise refuse("bad_level", "refuse.level_missing", last=len(config.levels))


def apply(state: TableState, settings: RuleSettings, event: Tournament) -> list[effects.Effect]:
    config = _config(settings)
    if event.action == "start" and over(state, _current(state, config)):
        state.tournament = fresh(config)  # the next tournament at this table
    current = record(state, config)
    if event.action == "pause":
        current["paused"] = True
    elif event.action == "resume":
        current["paused"] = False
    else:  # start (at level 1 or the one given), or a level set by hand
        if event.action == "start":
            current["started"], current["paused"] = True, False
        _enter_level(current, config, event.level if event.level is not None else 1)
    return [_changed(current, config, event.action)]


def over(state: TableState, current: dict[str, Any], newcomer: int | None = None) -> bool:
    """The tournament played at this table is over: it was started or players went out,
    and the table is empty (every player out or gone, the winner too), no hand in play.
    The next ``tournament start`` (at a single table, also the next new entrant) begins
    the next tournament (``newcomer``: the seat he has just taken, not counted). Never
    as 0.3.0 played it: its record lasted for ever."""
    return (
        not tournament_as_0_3(state)
        and (bool(current["started"]) or bool(current["eliminated"]))
        and not set(state.seats) - {newcomer}
        and state.hand is None
    )


def _started(state: TableState, config: TournamentSettings, current: dict[str, Any]) -> Refusal:
    """``start`` while the tournament goes on: at a single table played down to one
    player, the way to the next tournament (the winner leaves his seat first)."""
    if (
        config.single_table
        and len(state.seats) == 1
        and current["eliminated"]
        and state.hand is None
        and not tournament_as_0_3(state)
    ):
        seat = next(iter(state.seats))
        return refuse("tournament_started", "refuse.winner_seated", seat=seat)
    return refuse("tournament_started", "refuse.tournament_started")


def _enter_level(current: dict[str, Any], config: TournamentSettings, level: int) -> None:
    current["level"], current["on_break"] = level, False
    current["ms_left"] = level_of(config, level).minutes * MS_PER_MINUTE


def _changed(current: dict[str, Any], config: TournamentSettings, why: str) -> effects.Effect:
    level = level_of(config, current["level"])
    return effects.LevelChanged(
        level=current["level"],
        on_break=current["on_break"],
        paused=current["paused"],
        small_blind=level.small_blind,
        big_blind=level.big_blind,
        ante=level.ante,
        why=why,
    )


# -- the level clock (T1) ----------------------------------------------------------------


def run_clock(state: TableState, settings: RuleSettings, ms: int) -> list[effects.Effect]:
    """A ``tick`` of ``ms``: the level (or break) runs down; at zero the next begins."""
    config = settings.tournament
    if config is None or ms <= 0:
        return []
    current = _current(state, config)
    if not current["started"] or current["paused"]:
        return []
    current = record(state, config)
    out: list[effects.Effect] = []
    left = current["ms_left"] - ms
    while left <= 0:
        if not _advance(current, config):
            left = 0
            break
        left += current["ms_left"]
        out.append(_changed(current, config, "break" if current["on_break"] else "clock"))
    current["ms_left"] = left
    return out


def _advance(current: dict[str, Any], config: TournamentSettings) -> bool:
    """The next period after the one that ran out: the break after this level, or the
    next level. False at the end of the last level (it goes on)."""
    level = current["level"]
    if current["on_break"]:
        current["on_break"] = False
        current["ms_left"] = level_of(config, level).minutes * MS_PER_MINUTE
        return True
    if level >= len(config.levels):
        return False
    pause = config.break_after(level)
    _enter_level(current, config, level + 1)
    if pause:
        current["on_break"], current["ms_left"] = True, pause * MS_PER_MINUTE
    return True


def ms_left_running(state: TableState, settings: RuleSettings) -> int | None:
    """The level clock's time left (of the level or the break) while it runs; None when
    it does not (a cash table, not started, paused): for the shell, which must tell the
    rules the time while it runs."""
    config = settings.tournament
    if config is None or state.tournament is None:
        return None
    current = state.tournament
    if not current["started"] or current["paused"]:
        return None
    return int(current["ms_left"])


def check_start(state: TableState, settings: RuleSettings) -> None:
    """No hand is dealt on a break."""
    config = settings.tournament
    if config is not None and _current(state, config)["on_break"]:
        raise refuse("on_break", "refuse.on_break")


# -- the deal: the hand's level and the colour-up (T1, T7) --------------------------------


def begin_hand(state: TableState, settings: RuleSettings) -> list[effects.Effect]:
    """Before the plan: the hand takes the level in force, and each stack's remainder
    below its smallest chip is rounded up to one such chip (T7, a ruling)."""
    config = settings.tournament
    if config is None:
        return []
    current = record(state, config)
    current["hand_level"] = current["level"]
    chip = level_of(config, current["level"]).smallest_chip
    out: list[effects.Effect] = []
    for number in sorted(state.seats):
        s = state.seats[number]
        odd = s.stack % chip
        if odd and not s.pending_leave:
            added = chip - odd
            s.stack += added
            state.bought_in += added  # the ledger's chips in; never money (meters)
            current["coloured_up"] += added
            out.append(effects.ColouredUp(number, added))
    return out


def note_stacks(state: TableState, settings: RuleSettings) -> None:
    """After the plan, before the posts: every seat's stack as the hand is dealt (T4)."""
    if settings.tournament is None or state.tournament is None:
        return
    state.tournament["stacks_at_start"] = [[n, s.stack] for n, s in sorted(state.seats.items())]


# -- the hand's end: eliminations and places (T4) -----------------------------------------


def rebuys_open(current: dict[str, Any], config: TournamentSettings) -> bool:
    """T6: a rebuy is allowed now: within the rebuy levels, or on the break ending them."""
    level = current["level"]
    if level <= config.rebuy_levels:
        return True
    return bool(current["on_break"]) and level == config.rebuy_levels + 1


def add_on_open(current: dict[str, Any], config: TournamentSettings) -> bool:
    """T6: the add-on is taken at the break that ends the rebuy period."""
    return (
        bool(config.add_on_chips)
        and bool(current["on_break"])
        and current["level"] == config.rebuy_levels + 1
    )


def eliminate(state: TableState, settings: RuleSettings, hand: int) -> list[effects.Effect]:
    """T4: at the hand's end every seat with no chips is out: it leaves its seat and is
    listed with the hand and its stack at the hand's start; at a single table with its
    place, ties sharing the better one, the lower place listed first. During the rebuy
    period too: a player out comes back by sitting down again with a rebuy (T5, T6:
    ``check_sit``)."""
    config = settings.tournament
    if config is None:
        return []
    current = record(state, config)
    at_start = {number: stack for number, stack in current["stacks_at_start"]}
    broke = [number for number, s in state.seats.items() if s.stack == 0 and s.pending_chips == 0]
    if tournament_as_0_3(state):
        return _eliminate_as_0_3(state, current, config, hand, at_start, broke)
    if not broke:
        return []
    return _place(state, current, config, [(hand, at_start.get(n, 0), n) for n in broke])


def _eliminate_as_0_3(
    state: TableState,
    current: dict[str, Any],
    config: TournamentSettings,
    hand: int,
    at_start: dict[int, int],
    broke: list[int],
) -> list[effects.Effect]:
    """T4 as 0.3.0 played it (a journal it recorded): while rebuys were open a busted
    player kept the seat and could rebuy; the hand and the stack he went broke with were
    noted, and when he was out (at a hand's end or a level change between hands after
    the rebuys) they placed him: a later hand finished higher, then the bigger stack."""
    seated = {s.player for s in state.seats.values()}
    noted = {player: at for player, at in current.get("broke", {}).items() if player in seated}
    for number in broke:  # (hand, stack at its start) of the hand he went broke in
        noted.setdefault(state.seats[number].player, [hand, at_start.get(number, 0)])
    current["broke"] = noted
    if rebuys_open(current, config) or not broke:
        return []
    out_now = [(*noted.pop(state.seats[n].player), n) for n in broke]
    current["broke"] = noted
    return _place(state, current, config, out_now)


def _place(
    state: TableState,
    current: dict[str, Any],
    config: TournamentSettings,
    out_now: list[tuple[int, int, int]],
) -> list[effects.Effect]:
    """The players out now, ``(hand, stack at its start, seat)`` each: out of their
    seats, listed lower place first; equal (hand, stack) share the better place."""
    players = {number: state.seats.pop(number).player for _, _, number in out_now}
    left = len(state.seats)
    places = {
        number: left + 1 + sum(1 for h, st, _ in out_now if (h, st) > (hand, stack))
        for hand, stack, number in out_now
    }
    out: list[effects.Effect] = []
    records: list[dict[str, Any]] = []
    for hand, stack, number in sorted(out_now, key=lambda item: (-places[item[2]], item[2])):
        player = players[number]
        entry: dict[str, Any] = {"player": player, "hand": hand, "stack_at_start": stack}
        place = places[number] if config.single_table else None
        if place is not None:
            entry["place"] = place
        records.append(entry)
        out.append(effects.Eliminated(number, player, hand, stack, place))
    current["eliminated"] = [*current["eliminated"], *records]
    # the display's notice until the next deal (``out_lines``): seats, as listed
    shown = [[e.seat, e.place or 0] for e in out if isinstance(e, effects.Eliminated)]
    current["last_out"] = {"hand": state.hand_number, "seats": shown}
    return out


# -- chips brought and bought (T5, T6) ------------------------------------------------------


def check_sit(state: TableState, settings: RuleSettings, event: Sit) -> None:
    """T5: a player brings a tournament stack: some chips, a multiple of the smallest.
    At a single table no one enters once places are being given (a ruling: the places
    count the players seated). A player out sits down again only with a rebuy, while
    rebuys are allowed (T6: ``returning``)."""
    config = settings.tournament
    if config is None:
        return
    if event.chips <= 0:
        raise refuse("bad_amount", "refuse.tournament_no_stack", seat=event.seat)
    current = _current(state, config)
    if returning(state, current, event.player):
        if not rebuys_open(current, config):
            raise refuse("rebuy_not_allowed", "refuse.player_out", player=event.player)
        if event.chips != config.rebuy_chips:
            raise refuse("bad_amount", "refuse.rebuy_amount", amount=config.rebuy_chips)
        return
    if config.single_table and current["eliminated"] and not over(state, current):
        raise refuse("entries_closed", "refuse.entries_closed")


def returning(state: TableState, current: dict[str, Any], player: str) -> bool:
    """T4, T6: ``player`` went out at this table and sits down again: his rebuy (not as
    0.3.0 played it, when a busted player kept his seat through the rebuys)."""
    if tournament_as_0_3(state):
        return False
    return any(entry["player"] == player for entry in current["eliminated"])


def note_sit(state: TableState, settings: RuleSettings, event: Sit) -> None:
    """An entry, a player moved in, or a player out back with a rebuy: his listings
    stay (he went out then) but give no place any more (he is in the field again)."""
    config = settings.tournament
    if config is None:
        return
    current = record(state, config)
    if returning(state, current, event.player):
        current["rebuys"] += 1
        current["eliminated"] = [
            {k: v for k, v in entry.items() if k != "place" or entry["player"] != event.player}
            for entry in current["eliminated"]
        ]
        return
    if config.single_table and event.from_table is None and over(state, current, event.seat):
        current = state.tournament = fresh(config)  # the next tournament's first entrant
    key = "moved_in" if event.from_table is not None else "entries"
    current[key] += 1


def check_chips(state: TableState, settings: RuleSettings, event: Chips) -> str | None:
    """T6: ``chips`` is a rebuy or the add-on, when allowed now; anything else is
    refused. Returns which it is (None on a cash table)."""
    config = settings.tournament
    if config is None:
        return None
    current = _current(state, config)
    if state.hand is not None:
        raise refuse("rebuy_not_allowed", "refuse.rebuy_between_hands")
    s = state.seats[event.seat]
    if add_on_open(current, config) and event.amount == config.add_on_chips:
        if s.player in current["add_ons"]:
            raise refuse("rebuy_not_allowed", "refuse.add_on_taken", player=s.player)
        return "add_on"
    if not rebuys_open(current, config):
        raise refuse("rebuy_not_allowed", "refuse.no_rebuy_now")
    may_rebuy = s.stack + s.pending_chips <= config.starting_stack
    if event.amount != config.rebuy_chips or not may_rebuy:
        offered = add_on_open(current, config) and s.player not in current["add_ons"]
        raise _chips_refused(config, offered, may_rebuy)
    return "rebuy"


def _chips_refused(config: TournamentSettings, offered: bool, may_rebuy: bool) -> Refusal:
    """What a wrong ``chips`` is told while rebuys are open: what he may take (the
    add-on ``offered`` at its break, a rebuy when his stack allows one)."""
    if offered and may_rebuy:
        return refuse(
            "bad_amount",
            "refuse.add_on_or_rebuy",
            add_on=config.add_on_chips,
            rebuy=config.rebuy_chips,
        )
    if offered:
        return refuse("bad_amount", "refuse.add_on_amount", amount=config.add_on_chips)
    if not may_rebuy:
        return refuse(
            "rebuy_not_allowed", "refuse.rebuy_stack_too_big", amount=config.starting_stack
        )
    return refuse("bad_amount", "refuse.rebuy_amount", amount=config.rebuy_chips)


def note_chips(state: TableState, settings: RuleSettings, event: Chips, kind: str) -> None:
    config = settings.tournament
    assert config is not None
    current = record(state, config)
    player = state.seats[event.seat].player
    if kind == "add_on":
        current["add_ons"] = [*current["add_ons"], player]
    else:
        current["rebuys"] += 1
    current["broke"] = {k: v for k, v in current.get("broke", {}).items() if k != player}


# -- what the state shows ------------------------------------------------------------------


def view(state: TableState, settings: RuleSettings) -> dict[str, Any] | None:
    """The state's ``tournament``: null on a cash table."""
    config = settings.tournament
    if config is None:
        return None
    current = _current(state, config)
    level = level_of(config, current["level"])
    return {
        "level": current["level"],
        "small_blind": level.small_blind,
        "big_blind": level.big_blind,
        "ante": level.ante,
        "level_ms_left": current["ms_left"],
        "paused": bool(current["paused"]) or not current["started"],
        "break": bool(current["on_break"]),
        "eliminated": [dict(entry) for entry in current["eliminated"]],
    }


def meters_view(state: TableState, settings: RuleSettings, cash: dict[str, int]) -> dict[str, int]:
    """The state's ``meters`` at a tournament table: never money (T5, T6, T8): the
    money meters stay 0 (the chips brought, rebought and coloured up are tournament
    chips) and the tournament's own counts join them."""
    config = settings.tournament
    if config is None:
        return cash
    current = _current(state, config)
    money = {"rake", "jackpot", "time_fees", "buy_ins", "cash_outs"}
    shown = {name: 0 if name in money else value for name, value in cash.items()}
    shown.update(
        entries=current["entries"],
        moved_in=current["moved_in"],
        rebuys=current["rebuys"],
        add_ons=len(current["add_ons"]),
        eliminations=len(current["eliminated"]),
        coloured_up=current["coloured_up"],
    )
    return shown


# -- what the dealer display says between hands ----------------------------------------------


def stakes_text(level: Level, ante_form: str) -> str:
    """A level's stakes as the display and the floor board write them: ``150/300 A300``
    (every player antes), ``150/300 BBA300`` (the big blind's ante), ``150/300``."""
    text = f"{level.small_blind}/{level.big_blind}"
    if level.ante:
        text += f" {'BBA' if ante_form == 'big_blind' else 'A'}{level.ante}"
    return text


def clock_text(ms: int) -> str:
    """Time left as the display shows it: minutes and seconds, rounded up (``12:05``)."""
    seconds = -(-max(ms, 0) // 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"


def display_lines(
    state: TableState, settings: RuleSettings, since_ms: int = 0
) -> list[Message] | None:
    """Between hands at a tournament table: ``READY`` (on a break, the break's time
    left, ``PAUSED`` while the supervisor holds it) over the level in force, its stakes and its time left; when the next hand is
    the first of a new level, ``LEVEL 6 NEXT HAND: 150/300 A300`` instead (T1).
    ``since_ms``: the time since the last ``tick`` (the shell's, not yet told): a
    running level clock is shown that much further on (the display counts down between
    ticks, as the action clock's digits do); the rules learn it at the next tick."""
    config = settings.tournament
    if config is None or state.hand is not None:
        return None
    current = _current(state, config)
    number = int(current["level"])
    stakes = stakes_text(level_of(config, number), settings.game.ante_form)
    running = current["started"] and not current["paused"]
    out = out_notice(state, settings)
    left = current["ms_left"] - (max(since_ms, 0) if running else 0)
    if current["on_break"]:  # no hand: the break's time, and the level after it
        held = current["started"] and current["paused"]
        first = msg("display.break_paused" if held else "display.on_break", time=clock_text(left))
        return [first, msg("display.level_next", level=number, stakes=stakes)]
    first = out or msg("display.ready")
    if current["hand_level"] and current["hand_level"] != number:
        return [first, msg("display.level_next", level=number, stakes=stakes)]
    if not running:
        return [first, msg("display.level_paused", level=number, stakes=stakes)]
    return [first, msg("display.level", level=number, stakes=stakes, time=clock_text(left))]


def out_notice(state: TableState, settings: RuleSettings) -> Message | None:
    """Between hands after a hand that put players out (T4), until the next deal: who
    went out, ``SEAT 4 OUT: 7TH`` (with his place at a single table; ``SEATS 4 7 OUT``
    for several). A seat taken again meanwhile (a rebuy) is not named."""
    config = settings.tournament
    if config is None or state.hand is not None or state.tournament is None:
        return None
    last = state.tournament.get("last_out")
    if not last or last["hand"] != state.hand_number:
        return None
    out = [(seat, place) for seat, place in last["seats"] if seat not in state.seats]
    if len(out) > 1:
        return msg("display.seats_out", seats=" ".join(str(seat) for seat, _ in out))
    if not out:
        return None
    seat, place = out[0]
    if not place:
        return msg("display.seat_out", seat=seat)
    return msg("display.player_out", seat=seat, place=Phrase(place_word(place)))


def away_in_hand(state: TableState, settings: RuleSettings) -> str:
    """T3: the seats dealt in while their player is away and still in the hand (the
    state says ``playing``; the controller folds each at his turn), as the display
    lists them (``4 9``); empty at a cash table, between hands or when there is none."""
    if settings.tournament is None or state.hand is None:
        return ""
    return " ".join(str(n) for n, s in sorted(state.seats.items()) if s.away and s.live)


def place_word(place: int) -> Message:
    """A place as the display writes it: ``1ST``, ``2ND``, ``3RD``, ``7TH``, ``11TH``
    (each language its own: ``PUESTO 7``)."""
    ending = {1: "1", 2: "2", 3: "3"}.get(place % 10, "n")
    if place % 100 in (11, 12, 13):
        ending = "n"
    return msg(f"word.place_{ending}", place=place)


#: The payout pages' second lines on which ``NEXT`` deals the next hand.
_DEALING_PAGES = frozenset({"display.pay_deal", "display.pay_last"})


def over_payouts(
    page: list[Message], state: TableState, settings: RuleSettings, since_ms: int = 0
) -> list[Message]:
    """A payout page between hands; when ``NEXT`` deals the first hand of a new level,
    its second line is the warning (``LEVEL 6 NEXT HAND: 150/300 A300``) instead: the
    dealer reads it before dealing. On a break, the break's lines (``since_ms``: as
    ``display_lines``)."""
    config = settings.tournament
    if (
        config is None
        or state.hand is not None
        or len(page) < 2
        or page[1][0] not in _DEALING_PAGES
    ):
        return page
    current = _current(state, config)
    number = int(current["level"])
    if current["on_break"]:  # the pot was paid before the break began
        return display_lines(state, settings, since_ms) or page
    if not current["hand_level"] or current["hand_level"] == number:
        out = out_notice(state, settings)
        return page if out is None else [page[0], msg("display.out_deal", out=Phrase(out))]
    stakes = stakes_text(level_of(config, number), settings.game.ante_form)
    return [page[0], msg("display.level_next", level=number, stakes=stakes)]


def report(state: TableState, settings: RuleSettings) -> dict[str, Any]:
    """``tablectl meters`` at a tournament table: the tournament's counts and the
    players out, never money (T5, T6, T8)."""
    config = settings.tournament
    assert config is not None
    current = _current(state, config)
    level = level_of(config, current["level"])
    return {
        "tournament": True,
        "tournament_id": config.id,  # its name on the floor (null: none configured)
        "table_id": settings.table_id,
        "hands": state.hand_number,
        "level": current["level"],
        "stakes": stakes_text(level, settings.game.ante_form),
        "break": bool(current["on_break"]),
        "players_left": len(state.seats),
        "entries": current["entries"],
        "moved_in": current["moved_in"],
        "rebuys": current["rebuys"],
        "add_ons": len(current["add_ons"]),
        "eliminations": len(current["eliminated"]),
        "coloured_up": current["coloured_up"],
        "eliminated": [dict(entry) for entry in current["eliminated"]],
        "winner": (
            next(iter(state.seats.values())).player
            if config.single_table and len(state.seats) == 1 and current["eliminated"]
            else None
        ),
    }


def effect_fields(effect: effects.LevelChanged | effects.Eliminated) -> dict[str, Any]:
    """What a level change or an elimination says, as the floor feed and recall list it
    (each adds its own: the time left, who keyed it, the journal seq)."""
    if isinstance(effect, effects.LevelChanged):
        return {
            "level": effect.level,
            "small_blind": effect.small_blind,
            "big_blind": effect.big_blind,
            "ante": effect.ante,
            "break": effect.on_break,
            "paused": effect.paused,
            "why": effect.why,
        }
    return {
        "hand": effect.hand,
        "seat": effect.seat,
        "player": effect.player,
        "stack_at_start": effect.stack_at_start,
        "place": effect.place,
    }
