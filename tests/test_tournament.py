"""Tournament tables (``controller.rules.tournament``) where no scenario can reach: the
display in Spanish, the level clock against a replay and a snapshot, the effects."""

from __future__ import annotations

import contextlib
import json
import random

import pytest

from controller.rules import Refusal, Table, effects, parse_event, state_view
from controller.rules.settings import Level, RuleSettings, TournamentSettings
from controller.rules.state import TableState
from controller.rules.view import display_lines
from tests.rules_fuzz import RandomChooser, play_stream

STRUCTURE = TournamentSettings(
    starting_stack=1000,
    single_table=True,
    levels=(
        Level(minutes=1, small_blind=5, big_blind=10, smallest_chip=5),
        Level(minutes=1, small_blind=150, big_blind=300, ante=300, smallest_chip=5),
    ),
    breaks=((1, 2),),
)
SETTINGS = RuleSettings(tournament=STRUCTURE)


def play(table: Table, *events: dict[str, object]) -> list[effects.Effect]:
    out: list[effects.Effect] = []
    for event in events:
        out += table.apply(parse_event(event))
    return out


def seated() -> Table:
    table = Table(SETTINGS)
    play(
        table,
        {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
        {"type": "sit", "seat": 5, "player": "luis", "chips": 1000},
    )
    return table


def test_T1_the_display_in_spanish() -> None:
    table = seated()
    assert display_lines(table, "es") == ["LISTO", "NIVEL 1 5/10 PARADO"]
    play(table, {"type": "tournament", "action": "start"}, {"type": "tick", "ms": 1500})
    assert display_lines(table, "es") == ["LISTO", "NIVEL 1 5/10 0:59"]
    play(table, {"type": "tick", "ms": 60000})
    assert display_lines(table, "es") == ["DESCANSO 1:59", "NIVEL 2 PROX. MANO: 150/300 A300"]
    assert display_lines(table, "en") == ["BREAK 1:59", "LEVEL 2 NEXT HAND: 150/300 A300"]


def test_T1_a_break_held_by_the_supervisor_says_paused() -> None:
    """The break's time stands still while the level clock is paused: the display says
    so, as it does for a level (not a break clock that looks stuck)."""
    table = seated()
    play(table, {"type": "tournament", "action": "start"}, {"type": "tick", "ms": 61000})
    assert display_lines(table, "en") == ["BREAK 1:59", "LEVEL 2 NEXT HAND: 150/300 A300"]
    play(table, {"type": "tournament", "action": "pause"}, {"type": "tick", "ms": 5000})
    assert display_lines(table, "en") == ["BREAK 1:59 PAUSED", "LEVEL 2 NEXT HAND: 150/300 A300"]
    assert display_lines(table, "es") == [
        "DESCANSO 1:59 PARADO",
        "NIVEL 2 PROX. MANO: 150/300 A300",
    ]
    play(table, {"type": "tournament", "action": "resume"}, {"type": "tick", "ms": 1000})
    assert display_lines(table, "en") == ["BREAK 1:58", "LEVEL 2 NEXT HAND: 150/300 A300"]


def test_T1_the_level_clock_reports_each_change() -> None:
    table = seated()
    out = play(table, {"type": "tournament", "action": "start", "by": "S1"})
    assert out == [effects.LevelChanged(1, False, False, 5, 10, 0, "start")]
    # one tick over a level's end and the whole break: both changes, in order
    out = play(table, {"type": "tick", "ms": 60000 + 120000 + 1000})
    assert out == [
        effects.LevelChanged(2, True, False, 150, 300, 300, "break"),
        effects.LevelChanged(2, False, False, 150, 300, 300, "clock"),
    ]
    assert state_view(table)["tournament"]["level_ms_left"] == 59000


def test_T1_a_snapshot_mid_level_plays_on_as_the_whole_stream() -> None:
    """Recovery: a snapshot taken mid-level and the ticks after it give the same level
    and time left as the stream played from the start (replay determinism)."""
    events = [
        {"type": "tournament", "action": "start"},
        {"type": "start_hand"},
        {"type": "tick", "ms": 40000},
        {"type": "act", "seat": 5, "action": "call"},
        {"type": "tick", "ms": 30000},
        {"type": "act", "seat": 2, "action": "check"},
        {"type": "tick", "ms": 100000},
    ]
    whole = seated()
    play(whole, *events)
    part = seated()
    play(part, *events[:4])
    snapshot = json.loads(json.dumps(part.state.to_dict()))
    resumed = Table(SETTINGS, TableState.from_dict(snapshot))
    play(resumed, *events[4:])
    assert state_view(resumed) == state_view(whole)
    shown = state_view(whole)["tournament"]
    assert (shown["level"], shown["break"], shown["level_ms_left"]) == (2, True, 10000)


def test_T4_an_elimination_is_an_effect_with_its_place() -> None:
    table = seated()
    play(
        table,
        {"type": "tournament", "action": "start"},
        {"type": "start_hand"},
        {"type": "act", "seat": 5, "action": "all_in"},
    )
    out = play(table, {"type": "act", "seat": 2, "action": "call"})
    out += play(table, {"type": "award", "ranking": [[5], [2]]})
    assert [e for e in out if isinstance(e, effects.Eliminated)] == [
        effects.Eliminated(seat=2, player="ana", hand=1, stack_at_start=1000, place=2)
    ]


@pytest.mark.slow  # property tests over random sessions, as tests/test_rules_properties.py
def test_tournament_streams_keep_every_invariant() -> None:
    """Seeded random streams on random tournament tables: levels changing mid-hand (one
    minute each, ticks of up to 90 s), breaks, colour-ups, pauses, players away,
    rebuys and add-ons, eliminations: chips conserved (the chips brought, rebought,
    added on and coloured up are the only ones to come in), each hand at its own
    stakes, no markers, places that only get better; and the same events replayed, or
    played on from a snapshot, give the same table."""
    for seed in range(40):
        table, events = play_stream(RandomChooser(random.Random(seed)), 300, tournament=True)
        again = Table(table.base_settings)
        for obj in events:
            with contextlib.suppress(Refusal):
                again.apply(parse_event(obj))
        assert again.state.to_dict() == table.state.to_dict()
        snapshot = json.loads(json.dumps(table.state.to_dict()))
        restored = Table(table.base_settings, TableState.from_dict(snapshot))
        assert state_view(restored) == state_view(table)


@pytest.mark.slow
def test_the_tournament_streams_reach_what_they_test() -> None:
    """The streams above do go out, come back with a rebuy after going out (a listing
    left without its place, at a single table), rebuy, colour up and change levels
    mid-hand."""
    kinds = ("out", "back", "rebuy", "colour", "level_mid_hand")
    seen: dict[str, int] = dict.fromkeys(kinds, 0)
    for seed in range(40):
        table, events = play_stream(RandomChooser(random.Random(seed)), 300, tournament=True)
        record = table.state.tournament or {}
        seen["out"] += len(record.get("eliminated", []))
        config = table.base_settings.tournament
        if config is not None and config.single_table:
            seen["back"] += sum(1 for e in record.get("eliminated", []) if "place" not in e)
        seen["rebuy"] += record.get("rebuys", 0) + len(record.get("add_ons", []))
        seen["colour"] += record.get("coloured_up", 0)
    table = Table(SETTINGS)
    play(
        table,
        {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
        {"type": "sit", "seat": 5, "player": "luis", "chips": 1000},
        {"type": "tournament", "action": "start"},
        {"type": "start_hand"},
    )
    seen["level_mid_hand"] = 1 if play(table, {"type": "tick", "ms": 60000}) else 0
    assert all(seen.values()), seen


def test_T1_T4_tablectl_state_says_the_level_and_who_is_out() -> None:
    from controller.commands.state import summary

    table = seated()
    play(
        table,
        {"type": "tournament", "action": "start"},
        {"type": "tick", "ms": 20500},
        {"type": "start_hand"},
        {"type": "act", "seat": 5, "action": "all_in"},
        {"type": "act", "seat": 2, "action": "call"},
        {"type": "award", "ranking": [[5], [2]]},
    )
    lines = summary(state_view(table), 9).splitlines()
    tournament = [line for line in lines if "tournament" in line or "out:" in line]
    assert tournament == [
        "tournament: level 1 (5/10 ante 0), 0:40 left",
        "  out: ana in hand 1 (began it with 1000, place 2)",
    ]
    play(table, {"type": "tick", "ms": 45000}, {"type": "tournament", "action": "pause"})
    lines = summary(state_view(table), 11).splitlines()
    assert "tournament: on a break, 1:55 left, then level 2 (150/300 ante 300), paused" in lines


def test_T1_the_display_shows_the_level_clock_the_time_since_the_last_tick_on() -> None:
    """``since_ms`` (the shell's time not yet told) moves only what the display shows of
    a running level clock or break; a held clock, and the state, stay as told."""
    table = seated()
    assert state_view(table, since_ms=5000)["display"][1] == "LEVEL 1 5/10 PAUSED"
    play(table, {"type": "tournament", "action": "start"})
    view = state_view(table, since_ms=20_500)
    assert view["display"][1] == "LEVEL 1 5/10 0:40"
    assert view["tournament"]["level_ms_left"] == 60_000
    assert state_view(table, since_ms=90_000)["display"][1] == "LEVEL 1 5/10 0:00"
    play(table, {"type": "tick", "ms": 61_000})  # the break after level 1: 2:00, 1 s gone
    assert state_view(table, since_ms=3000)["display"][0] == "BREAK 1:56"
    play(table, {"type": "tournament", "action": "pause"})
    assert state_view(table, since_ms=3000)["display"][0] == "BREAK 1:59 PAUSED"


def test_T4_the_display_names_the_player_out_until_the_next_deal() -> None:
    """In both languages, under the last payout and then over the level (a transfer has
    put the payouts away)."""
    table = seated()
    play(
        table,
        {"type": "sit", "seat": 8, "player": "cy", "chips": 100},
        {"type": "start_hand"},
    )
    h = table.state.hand
    assert h is not None and h.to_act == 8
    play(
        table,
        {"type": "act", "seat": 8, "action": "all_in"},
        {"type": "act", "seat": 2, "action": "call"},
        {"type": "act", "seat": 5, "action": "fold"},
        {"type": "award", "ranking": [[2], [8]]},
    )
    assert display_lines(table, "en")[1] == "SEAT 8 OUT: 3RD  NEXT: DEAL"
    assert display_lines(table, "es")[1] == "ASIENTO 8 FUERA PUESTO 3 NEXT: REPARTIR"
    play(table, {"type": "transfer", "from": 2, "to": 5, "amount": 5, "reason": "other"})
    assert display_lines(table, "en") == ["SEAT 8 OUT: 3RD", "LEVEL 1 5/10 PAUSED"]
    assert display_lines(table, "es") == ["ASIENTO 8 FUERA PUESTO 3", "NIVEL 1 5/10 PARADO"]
    play(table, {"type": "start_hand"})
    assert "OUT" not in " ".join(display_lines(table, "en"))


@pytest.mark.parametrize(
    ("place", "word"), [(1, "1ST"), (2, "2ND"), (3, "3RD"), (4, "4TH"), (11, "11TH"), (22, "22ND")]
)
def test_T4_places_as_the_display_writes_them(place: int, word: str) -> None:
    from controller.rules.text import render
    from controller.rules.tournament import place_word

    assert render(place_word(place)) == word
    assert render(place_word(place), "es") == f"PUESTO {place}"


def test_T3_the_display_names_a_player_away_in_the_hand_in_spanish() -> None:
    table = seated()
    play(
        table,
        {"type": "sit", "seat": 8, "player": "cy", "chips": 1000},
        {"type": "sit_out", "seat": 5},
        {"type": "start_hand"},  # luis away posts the big blind: playing, folded at his turn
    )
    assert state_view(table)["seats"]["5"]["status"] == "playing"
    assert display_lines(table, "es") == ["HABLA EL ASIENTO 8 AUSENTE: 5", "IGUALA 10"]
