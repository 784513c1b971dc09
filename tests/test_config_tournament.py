"""The `tournament:` section (controller.config.tournament): T1-T8's settings."""

from __future__ import annotations

from pathlib import Path

from controller.config import load_config
from controller.rules.settings import Level
from tests.test_config import at, load, problems

ROOT = Path(__file__).resolve().parent.parent

GOOD = """
table: {id: T1, seats: 9}
game: {big_blind: 10, smallest_chip: 5}
tournament:
  starting_stack: 1000
  single_table: true
  levels:
    - {minutes: 20, small_blind: 5, big_blind: 10}
    - {minutes: 15, small_blind: 100, big_blind: 200, ante: 200, smallest_chip: 100}
  breaks: {1: 10}
  rebuy_levels: 1
  rebuy_chips: 1000
  add_on_chips: 2000
"""


def test_T1_levels_breaks_and_rebuys_read_into_settings() -> None:
    tournament = load(GOOD).rules.tournament
    assert tournament is not None
    assert tournament.levels == (
        Level(minutes=20, small_blind=5, big_blind=10, ante=0, smallest_chip=5),
        Level(minutes=15, small_blind=100, big_blind=200, ante=200, smallest_chip=100),
    )
    assert (tournament.starting_stack, tournament.single_table, tournament.breaks) == (
        1000,
        True,
        ((1, 10),),
    )
    assert (tournament.rebuy_levels, tournament.rebuy_chips, tournament.add_on_chips) == (
        1,
        1000,
        2000,
    )


def test_a_cash_table_has_no_tournament() -> None:
    assert load("table: {id: T1, seats: 9}\ngame: {big_blind: 10}\n").rules.tournament is None


def test_T2_T8_a_moving_button_or_fees_in_a_tournament_are_errors() -> None:
    text = GOOD.replace("smallest_chip: 5}", "smallest_chip: 5, button: moving}") + (
        "fees: {mode: time}\n"
    )
    assert problems(text) == [
        f"{at(text, 'moving')}: game.button: a tournament plays with the dead button (T2): "
        "remove button: moving",
        f"{at(text, 'time}')}: fees.mode: a tournament takes no fees (T8): must be none, got time",
    ]


def test_T1_levels_out_of_order_or_off_their_chip_are_errors() -> None:
    text = """
    table: {id: T1, seats: 9}
    game: {big_blind: 10, smallest_chip: 5}
    tournament:
      starting_stack: 1010
      levels:
        - {minutes: 20, small_blind: 50, big_blind: 100, smallest_chip: 25}
        - {minutes: 20, small_blind: 25, big_blind: 75, ante: 30, smallest_chip: 25}
        - {minutes: 0, small_blind: 100, big_blind: 50, smallest_chip: 5}
    """
    assert problems(text) == [
        "4:19: tournament.starting_stack: must be a multiple of level 1's smallest_chip (25), "
        "got 1010",
        "7:34: tournament.levels[2].small_blind: levels out of order: less than level 1's "
        "small_blind (50), got 25",
        "7:49: tournament.levels[2].big_blind: levels out of order: less than level 1's "
        "big_blind (100), got 75",
        "7:59: tournament.levels[2].ante: must be a multiple of this level's smallest_chip "
        "(25), got 30",
        "8:17: tournament.levels[3].minutes: must be from 1 to 1440, got 0",
        "8:33: tournament.levels[3].small_blind: must not be more than this level's big_blind "
        "(50), got 100",
        "8:68: tournament.levels[3].smallest_chip: levels out of order: less than level 2's "
        "smallest_chip (25), got 5",
    ]


def test_T1_T6_missing_levels_rebuys_and_add_on_without_their_break() -> None:
    text = """
    table: {id: T1, seats: 9}
    game: {big_blind: 10, smallest_chip: 5}
    tournament:
      starting_stack: 1000
      rebuy_levels: 2
      add_on_chips: 1000
      bogus: 1
    """
    assert problems(text) == [
        "3:1: tournament.levels: required, a list of levels ({minutes, small_blind, big_blind "
        "...})",
        "3:1: tournament.rebuy_chips: must be set: rebuys are allowed through level 2",
        "6:17: tournament.add_on_chips: the add-on is taken at the break that ends the rebuy "
        "period: needs rebuy_levels and a break after that level",
        f"{at(text, 'bogus')}: unknown option tournament.bogus; valid options of tournament: "
        "starting_stack, single_table, id, levels, breaks, rebuy_levels, rebuy_chips, "
        "add_on_chips",
    ]


def test_the_tournament_example_loads_without_warnings() -> None:
    settings = load_config(ROOT / "config" / "tournament.example.yaml")
    tournament = settings.rules.tournament
    assert tournament is not None and len(tournament.levels) == 4
    assert tournament.breaks == ((2, 2),)
    assert settings.warnings == ()


def test_T8_the_tray_float_is_not_checked_at_a_tournament_table() -> None:
    text = GOOD + "tray:\n  float: {5: 100}\n"
    settings = load(text)
    assert dict(settings.tray.float_counts) == {}
    assert settings.warnings[1:] == (
        "t.yaml:14:10: warning: tray.float: is not checked at a tournament table (rules T8)",
    )
    cash = load(GOOD.split("tournament:")[0] + "tray:\n  float: {5: 100}\n")
    assert dict(cash.tray.float_counts) == {5: 100}


def test_check_config_summarises_a_tournament_by_its_levels() -> None:
    summary = load_config(ROOT / "config" / "tournament.example.yaml").summary()
    assert summary.startswith(
        "table TOURNEY: 9 seats, no_limit tournament SAT-1 (single table), 4 levels 25/50 to "
        "200/400 (smallest chip 25), dead button"
    )


def test_a_tournament_names_itself_for_the_floor_with_id() -> None:
    """``tournament.id``: optional, the tournament's name shared by its tables (the floor
    board counts the players left per tournament); a bad one at its FILE:LINE:COL."""
    assert load(GOOD).rules.tournament.id is None  # type: ignore[union-attr]
    named = GOOD.replace("  single_table: true\n", "  single_table: true\n  id: SUN-500\n")
    settings = load(named)
    assert settings.rules.tournament is not None and settings.rules.tournament.id == "SUN-500"
    assert "no_limit tournament SUN-500 (single table), 2 levels" in settings.summary()
    expected = (
        "expected a tournament name of 1 to 24 letters, digits, '_', '.' or '-' (like SUN-500)"
    )
    for bad, shown in (
        ("'sun 500'", "the text 'sun 500'"),
        ("[1]", "a list"),
        ("''", "an empty text"),
    ):
        text = named.replace("id: SUN-500", f"id: {bad}")
        assert problems(text) == [f"{at(text, bad)}: tournament.id: {expected}, got {shown}"]


def test_check_config_names_the_line_of_a_bad_tournament_id(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "t.yaml"
    path.write_text(GOOD.replace("  single_table: true\n", "  id: A B\n  single_table: true\n"))
    done = subprocess.run(
        [sys.executable, "-m", "controller", "check-config", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert f"{path}:6:7: tournament.id: expected a tournament name" in done.stderr


def test_an_ante_above_the_big_blind_warns_at_a_level_and_in_game() -> None:
    """An ante bigger than the big blind (a zero too many, 1000 for 100): taken as
    written, with a warning at the ante, in a level as in game: (the board's A2: the
    big blind's ante is usually the big blind)."""
    text = GOOD.replace("ante: 200,", "ante: 2000,")
    assert load(text).warnings[1:] == (
        f"t.yaml:{at(text, '2000,')}: warning: tournament.levels[2].ante: more than this "
        "level's big_blind (200), got 2000: an ante is usually at most the big blind",
    )
    cash = "table: {id: T1, seats: 9}\ngame: {big_blind: 10, smallest_chip: 5, ante: 50}\n"
    assert load(cash).warnings[1:] == (
        f"t.yaml:{at(cash, '50}')}: warning: game.ante: more than game.big_blind (10), "
        "got 50: an ante is usually at most the big blind",
    )
    assert load(cash.replace("ante: 50", "ante: 10")).warnings[1:] == ()


def test_T3_a_limit_on_absent_hands_in_a_tournament_warns_it_does_nothing() -> None:
    """A player away is dealt in and blinded off (T3): the cash table's limit on absent
    hands never frees his seat there (taken, with a warning: journals recorded by 0.3.0
    with it stay readable)."""
    text = GOOD.replace("smallest_chip: 5}", "smallest_chip: 5, max_absent_hands: 3}")
    assert load(text).warnings[1:] == (
        f"t.yaml:{at(text, '3}')}: warning: game.max_absent_hands: has no effect at a "
        "tournament table: a player away is blinded off, never freed from his seat (T3)",
    )
