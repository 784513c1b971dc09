"""The configuration loader (controller.config) and `tablectl check-config`."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.config import (
    ConfigError,
    Settings,
    load_config,
    load_config_text,
    rules_differences,
)
from controller.config.loader import option_paths
from controller.config.settings import settings_changes
from controller.rules.settings import ClockSettings, FeeSettings, GameSettings, RuleSettings

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "config" / "table.example.yaml"
BENCH = ROOT / "config" / "bench.yaml"
SHARED_EXAMPLE = ROOT.parent / "shared" / "examples" / "table.yaml"
needs_shared = pytest.mark.skipif(
    not SHARED_EXAMPLE.exists(), reason="the project's shared/ folder is not beside the checkout"
)

TABLE = "table: {id: T1, seats: 9}\n"
BASE = TABLE + "game: {big_blind: 10, smallest_chip: 5}\n"


def config(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def problems(text: str) -> list[str]:
    """The problems of a file that must be refused, without the file name."""
    with pytest.raises(ConfigError) as caught:
        load_config_text(config(text), "t.yaml")
    assert all(p.startswith("t.yaml:") for p in caught.value.problems)
    return [p.removeprefix("t.yaml:") for p in caught.value.problems]


def at(text: str, needle: str, start: int = 0) -> str:
    """`LINE:COL` of the first `needle` (from `start`) in the dedented text: where a
    problem about that value must be reported."""
    text = config(text)
    offset = text.index(needle, start)
    line = text.count("\n", 0, offset) + 1
    return f"{line}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def load(text: str) -> Settings:
    return load_config_text(config(text), "t.yaml")


def example_with_floor() -> str:
    """The example file with its commented floor: block switched on."""
    text = EXAMPLE.read_text()
    block = text[text.index("# floor:") :]
    return text + re.sub(r"(?m)^# ?", "", block)


# -- Files that must load --------------------------------------------------------------


@needs_shared
def test_shared_example_loads() -> None:
    settings = load_config(SHARED_EXAMPLE)
    game = settings.rules.game
    assert (settings.rules.table_id, settings.rules.seats) == ("T7", 9)
    assert (game.structure, game.sb_amount, game.big_blind, game.smallest_chip) == (
        "no_limit",
        5,
        10,
        5,
    )
    assert settings.hardware is None
    assert settings.warnings == (
        f"{SHARED_EXAMPLE}:1:1: warning: no hardware: section: fine for replay and tests, "
        "but the daemon will not start",
    )


def test_example_file_loads_with_real_hardware() -> None:
    settings = load_config(EXAMPLE)
    assert settings.warnings == ()
    assert settings.hardware is not None and not settings.hardware.simulated
    assert dict(settings.hardware.puck.pins) == dict(zip(range(1, 10), range(4, 13), strict=True))
    assert settings.hardware.keypad.port == "/dev/serial/by-id/usb-Table_Keypad-if00"
    assert settings.floor is None
    assert settings.journal.state_dir == Path("/var/lib/table-controller")


def test_example_floor_block_loads_when_uncommented() -> None:
    settings = load_config_text(example_with_floor(), "example.yaml")
    floor = settings.floor
    assert floor is not None and floor.tls is not None
    assert (floor.site, floor.host, floor.port, floor.username) == (
        "casino-east",
        "floor-broker.local",
        8883,
        "T7",
    )
    assert floor.password_file == Path("/etc/table-controller/floor-password")
    assert floor.tls.key_file == Path("/etc/table-controller/table.key")


def test_example_documents_every_option_and_nothing_else() -> None:
    """config/table.example.yaml, with config/tournament.example.yaml's tournament:
    section (a tournament table's own options, T1-T8)."""
    tree = yaml.safe_load(example_with_floor())
    tournament = yaml.safe_load((ROOT / "config" / "tournament.example.yaml").read_text())
    tree["tournament"] = tournament["tournament"]

    def leaves(node: dict[str, Any], prefix: str = "") -> set[str]:
        found: set[str] = set()
        for key, value in node.items():
            path = f"{prefix}{key}"
            if isinstance(value, dict) and value and not isinstance(next(iter(value)), int):
                found |= leaves(value, path + ".")
            else:
                found.add(path)
        return found

    assert leaves(tree) == set(option_paths())


def test_example_gives_every_default_that_has_one() -> None:
    """The example's values for the rules are the rule book's defaults, except the
    stakes and table identity it must give."""
    rules = load_config(EXAMPLE).rules
    assert rules.clock == ClockSettings()
    assert rules.fees == FeeSettings()
    assert dataclasses.replace(rules.game, big_blind=2, small_blind=None, smallest_chip=1) == (
        GameSettings()
    )


@pytest.mark.parametrize("chip", [10, 25])
def test_every_legal_chip_takes_the_fee_defaults(chip: int) -> None:
    """Issue 12 item 7: a table with 25-unit (or 10-unit) chips loads with the fee
    defaults, and with a rake_cap that does not fit its chips while fees are off."""
    game = f"game: {{big_blind: {2 * chip}, smallest_chip: {chip}}}\n"
    assert load(TABLE + game).rules.fees.rake_cap == chip
    assert load(TABLE + game + "fees: {mode: rake}\n").rules.fees.rake_cap == chip
    assert load(TABLE + game + "fees: {mode: none, rake_cap: 7}\n").rules.fees.mode == "none"
    assert load(TABLE + game + "fees: {mode: time, jackpot_drop: 0}\n").rules.fees.mode == "time"
    assert problems(TABLE + game + "fees: {mode: rake, rake_cap: 7}\n") == [
        f"3:30: fees.rake_cap: must be a multiple of game.smallest_chip ({chip}), got 7"
    ]


def test_bench_file_is_a_simulated_nine_seat_no_limit_5_10() -> None:
    settings = load_config(BENCH)
    game = settings.rules.game
    assert settings.rules.seats == 9
    assert (game.structure, game.sb_amount, game.big_blind, game.smallest_chip) == (
        "no_limit",
        5,
        10,
        5,
    )
    assert settings.hardware is not None and settings.hardware.simulated
    assert settings.journal.state_dir == Path("./state")
    assert settings.warnings == ()


def test_minimal_file_takes_the_rule_book_defaults() -> None:
    settings = load(BASE)
    assert settings.rules == RuleSettings(
        table_id="T1", seats=9, game=GameSettings(big_blind=10, smallest_chip=5)
    )
    assert settings.rules.game.sb_amount == 5
    assert settings.floor is None
    assert (settings.display.language, settings.puck.mismatch, settings.logging.level) == (
        "en",
        "warn",
        "INFO",
    )
    assert (settings.journal.snapshot_every, settings.journal.keep_hands) == (100, 200)
    assert not settings.journal.archive
    assert dict(settings.tray.float_counts) == {}


def test_design_configuration_block_loads() -> None:
    settings = load("""
        table: {id: "T1", seats: 9}
        game:
          structure: no_limit
          small_blind: 1
          big_blind: 2
          small_bet: 2
          big_bet: 4
          button: dead
          first_button: last_seat
          smallest_chip: 1
        clock: {seconds: 60, warning: 10, on_expiry: fold}
        fees:
          mode: none
          rake_percent: 10
          rake_cap: 5
          no_flop_no_drop: true
          jackpot_drop: 0
          jackpot_min_pot: 0
    """)
    assert settings.rules.game.small_bet == 2
    # Fixed-limit bet sizes in another structure are accepted, with a warning.
    assert settings.warnings[1:] == (
        "t.yaml:6:14: warning: game.small_bet: only used with structure fixed_limit "
        "(this game is no_limit)",
        "t.yaml:7:12: warning: game.big_bet: only used with structure fixed_limit "
        "(this game is no_limit)",
    )


@pytest.mark.parametrize(
    ("knob", "needle", "warning", "fix"),
    [
        # R11 works on the actions recorded out of turn: under reject it does nothing
        (
            "lose_right_to_act: true",
            "true",
            "game.lose_right_to_act: has no effect while game.out_of_turn is reject: only "
            "actions recorded out of turn (out_of_turn: record) act behind a seat",
            "out_of_turn: record, ",
        ),
        # A2's form with no ante (the default 0) takes nothing: a forgotten ``ante``
        (
            "ante_form: big_blind",
            "big_blind}",
            "game.ante_form: has no effect while game.ante is 0",
            "ante: 10, ",
        ),
    ],
)
def test_a_knob_that_needs_another_warns_without_it(
    knob: str, needle: str, warning: str, fix: str
) -> None:
    text = f"""
        table: {{id: T1, seats: 9}}
        game: {{big_blind: 10, smallest_chip: 5, {knob}}}
    """
    assert load(text).warnings[1:] == (f"t.yaml:{at(text, needle)}: warning: {warning}",)
    assert load(text.replace(knob, fix + knob)).warnings[1:] == ()


def test_lose_right_to_act_is_read() -> None:
    text = """
        table: {id: T1, seats: 9}
        game: {big_blind: 10, smallest_chip: 5, out_of_turn: record, lose_right_to_act: true}
    """
    assert load(text).rules.game.lose_right_to_act
    assert problems(text.replace("true}", "3}")) == [
        f"{at(text, 'true')}: game.lose_right_to_act: expected true or false, got 3"
    ]


def test_the_ante_is_read_with_its_form() -> None:
    text = "table: {id: T1, seats: 9}\ngame: {big_blind: 10, ante: 10, ante_form: big_blind}\n"
    assert (load(text).rules.game.ante, load(text).rules.game.ante_form) == (10, "big_blind")
    assert (load(BASE).rules.game.ante, load(BASE).rules.game.ante_form) == (0, "each")


def test_every_knob_is_read() -> None:
    settings = load("""
        table: {id: east-3, seats: 6}
        game:
          structure: fixed_limit
          form: triple_draw
          smallest_chip: 2
          big_blind: 4
          small_blind: 2
          small_bet: 4
          big_bet: 8
          button: moving
          first_button: 3
          new_player_post_multiple: 2
          missed_blind_return: post_only
          missed_small_blind: live
          straddle: true
          straddle_in_limit: true
          seat_change_post: false
          seat_change_kill: true
          check_raise: false
          max_raises_big_bet: 4
          limit_cap_raises: 4
          out_of_turn: record
          lose_right_to_act: true
          min_buy_in: 40
          max_buy_in: 400
          max_absent_hands: 3
          ante: 2
          ante_form: big_blind
        clock: {seconds: 30, warning: 5, on_expiry: check_or_fold, shot_clock: true,
                time_banks: 2, time_bank_seconds: 20}
        fees: {mode: rake, rake_percent: 5, rake_cap: 6, no_flop_no_drop: false,
               jackpot_drop: 2, jackpot_min_pot: 40}
        journal: {state_dir: /srv/t, snapshot_every: 50, keep_hands: 10, archive: yes}
        display: {language: es}
        puck: {mismatch: block}
        tray: {float: {2: 10, 10: 5}, stable_seconds: 1}
        logging: {level: debug}
    """)
    rules = settings.rules
    assert rules == RuleSettings(
        table_id="east-3",
        seats=6,
        game=GameSettings(
            structure="fixed_limit",
            form="triple_draw",
            smallest_chip=2,
            big_blind=4,
            small_blind=2,
            small_bet=4,
            big_bet=8,
            button="moving",
            first_button=3,
            new_player_post_multiple=2,
            missed_blind_return="post_only",
            missed_small_blind="live",
            straddle=True,
            straddle_in_limit=True,
            seat_change_post=False,
            seat_change_kill=True,
            check_raise=False,
            max_raises_big_bet=4,
            limit_cap_raises=4,
            out_of_turn="record",
            lose_right_to_act=True,
            min_buy_in=40,
            max_buy_in=400,
            max_absent_hands=3,
            ante=2,
            ante_form="big_blind",
        ),
        clock=ClockSettings(
            seconds=30,
            warning=5,
            on_expiry="check_or_fold",
            shot_clock=True,
            time_banks=2,
            time_bank_seconds=20,
        ),
        fees=FeeSettings(
            mode="rake",
            rake_percent=5,
            rake_cap=6,
            no_flop_no_drop=False,
            jackpot_drop=2,
            jackpot_min_pot=40,
        ),
    )
    assert settings.journal.state_dir == Path("/srv/t") and settings.journal.archive
    assert (settings.display.language, settings.puck.mismatch) == ("es", "block")
    assert dict(settings.tray.float_counts) == {2: 10, 10: 5}
    assert settings.tray.float_total == 70
    assert settings.tray.stable_seconds == 1.0
    assert settings.logging.level == "DEBUG"


@pytest.mark.parametrize("word", ["last_seat", "puck"])
def test_first_button_words(word: str) -> None:
    assert (
        load(TABLE + f"game: {{big_blind: 2, first_button: {word}}}\n").rules.game.first_button
        == word
    )


def test_a_numeric_table_id_is_taken_as_written() -> None:
    assert load("table: {id: 007, seats: 2}\ngame: {big_blind: 2}\n").rules.table_id == "007"


def test_settings_are_frozen_and_carry_their_source() -> None:
    text = config(BASE)
    settings = load_config_text(text, "t.yaml")
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.rules = settings.rules  # type: ignore[misc]
    assert settings.config_text == text and settings.source == "t.yaml"
    assert settings.sha256 == hashlib.sha256(text.encode()).hexdigest()


def test_load_config_hashes_the_file_bytes(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + config(BASE).encode())  # with a UTF-8 BOM
    assert load_config(path).sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_rules_differences_name_the_yaml_keys() -> None:
    old = load(BASE).rules
    new = load(TABLE.replace("T1", "T2") + "game: {big_blind: 20, smallest_chip: 5}\n").rules
    assert rules_differences(old, new) == ["table.id: 'T1' -> 'T2'", "game.big_blind: 10 -> 20"]
    assert rules_differences(old, old) == []


# -- Files that must be refused: exact line, column and key ----------------------------


def test_typo_in_an_option_suggests_the_right_one() -> None:
    assert problems("""
        table: {id: T1, seats: 9}
        game:
          big_blnd: 10
    """) == [
        "2:1: game.big_blind: required, a whole number of chip units from 1 to 1000000000000",
        "3:3: unknown option game.big_blnd (did you mean game.big_blind?)",
    ]


def test_typo_in_a_section_name() -> None:
    assert problems(BASE + "clok: {seconds: 30}\n") == [
        "3:1: unknown section clok (did you mean clock?)"
    ]


def test_option_in_the_wrong_section_names_its_place() -> None:
    assert problems(BASE + "clock: {big_blind: 5}\npuck:\n  pins: {1: 4}\n") == [
        "3:9: unknown option clock.big_blind (did you mean game.big_blind?)",
        "5:3: unknown option puck.pins (did you mean hardware.puck.pins or hardware.lights.pins?)",
    ]


def test_unknown_option_without_a_near_name_lists_the_valid_ones() -> None:
    assert problems(BASE + "display: {colour: red}\n") == [
        "3:11: unknown option display.colour; valid options of display: language"
    ]


def test_unknown_section_lists_the_sections() -> None:
    [problem] = problems(BASE + "zzz: 1\n")
    assert problem.startswith("3:1: unknown section zzz; valid sections: table, game, clock, fees,")


def test_duplicate_keys() -> None:
    assert problems("""
        table: {id: T1, seats: 9, seats: 8}
        game:
          big_blind: 10
          big_blind: 20
        game: {big_blind: 2}
    """) == [
        "1:27: duplicate key table.seats (first set at line 1)",
        "4:3: duplicate key game.big_blind (first set at line 3)",
        "5:1: duplicate key game (first set at line 2)",
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("big_blind: 2.5", "game.big_blind: expected a whole number of chip units from 1 to"),
        ("big_blind: 10.0", "game.big_blind: expected a whole number of chip units from 1 to"),
        ("big_blind: 1e3", "game.big_blind: expected a whole number of chip units from 1 to"),
        ("big_blind: '10'", "game.big_blind: expected a whole number of chip units"),
        ("big_blind: ten", "game.big_blind: expected a whole number of chip units"),
        ("big_blind: true", "game.big_blind: expected a whole number of chip units"),
        ("big_blind: [10]", "game.big_blind: expected a whole number of chip units"),
        ("big_blind: 0", "game.big_blind: must be from 1 to 1000000000000, got 0"),
        ("big_blind: -10", "game.big_blind: must be from 1 to 1000000000000, got -10"),
        ("big_blind: .inf", "game.big_blind: expected a whole number of chip units"),
    ],
)
def test_big_blind_must_be_whole_chip_units(line: str, expected: str) -> None:
    [problem] = problems(f"{TABLE}game:\n  {line}\n")
    assert problem.startswith(f"3:14: {expected}")


def test_money_decimal_says_why() -> None:
    assert problems(TABLE + "game: {big_blind: 10, small_blind: 2.5}\n") == [
        "2:36: game.small_blind: expected a whole number of chip units from 1 to 1000000000000, "
        "or null (big_blind / 2), got the decimal number 2.5 "
        "(money is a whole number of chip units, never a decimal)"
    ]


@pytest.mark.parametrize(
    ("table", "needle", "expected"),
    [
        ("{id: T1, seats: 11}", "11", "table.seats: must be from 2 to 10, got 11"),
        ("{id: T1, seats: 1}", "1}", "table.seats: must be from 2 to 10, got 1"),
        (
            "{id: T1, seats: nine}",
            "nine",
            "table.seats: expected an integer from 2 to 10, got the text 'nine'",
        ),
        (
            "{id: T1, seats: yes}",
            "yes",
            "table.seats: expected an integer from 2 to 10, got the boolean yes",
        ),
        (
            "{id: T1, seats: 9.0}",
            "9.0",
            "table.seats: expected an integer from 2 to 10, got the decimal number 9.0",
        ),
        (
            "{id: 'T 1', seats: 9}",
            "'T 1'",
            "table.id: expected a table name of 1 to 16 letters, digits, '_', '.' or '-' "
            "(like T7), got the text 'T 1'",
        ),
        (
            "{id: T1/east, seats: 9}",
            "T1/",
            "table.id: expected a table name of 1 to 16 letters, digits, '_', '.' or '-' "
            "(like T7), got the text 'T1/east'",
        ),
        (
            "{id: '', seats: 9}",
            "''",
            "table.id: expected a table name of 1 to 16 letters, digits, '_', '.' or '-' "
            "(like T7), got an empty text",
        ),
        (
            "{seats: 9}",
            "table",
            "table.id: required, a table name of 1 to 16 letters, digits, '_', '.' or '-' "
            "(like T7)",
        ),
    ],
)
def test_table_bounds(table: str, needle: str, expected: str) -> None:
    text = f"table: {table}\ngame: {{big_blind: 2}}\n"
    assert problems(text) == [f"{at(text, needle)}: {expected}"]


@pytest.mark.parametrize(
    ("section", "needle", "expected"),
    [
        ("clock: {seconds: 0}", "0", "clock.seconds: must be from 1 to 3600, got 0"),
        (
            "clock: {seconds: 10}",
            "clock",
            "clock.warning: must be less than clock.seconds (10), got 10",
        ),
        (
            "clock: {seconds: 20, warning: 20}",
            "20}",
            "clock.warning: must be less than clock.seconds (20), got 20",
        ),
        (
            "dealer: {tip_confirm_big_blinds: -1}",
            "-1",
            "dealer.tip_confirm_big_blinds: must be from 0 to 1000, got -1",
        ),
        (
            "dealer: {tip_confirm_big_blinds: 1001}",
            "1001",
            "dealer.tip_confirm_big_blinds: must be from 0 to 1000, got 1001",
        ),
        (
            "clock: {on_expiry: Fold}",
            "Fold",
            "clock.on_expiry: must be one of fold, check_or_fold, got the text 'Fold' "
            "(did you mean fold?)",
        ),
        (
            "clock: {shot_clock: maybe}",
            "maybe",
            "clock.shot_clock: expected true or false, got the text 'maybe'",
        ),
        (
            "clock: {time_banks: 101}",
            "101",
            "clock.time_banks: must be from 0 to 100, got 101",
        ),
        ("fees: {rake_percent: 101}", "101", "fees.rake_percent: must be from 0 to 100, got 101"),
        (
            "fees: {rake_percent: 10.5}",
            "10.5",
            "fees.rake_percent: expected an integer from 0 to 100, got the decimal number 10.5",
        ),
        (
            "fees: {mode: rake, rake_cap: 7}",
            "7",
            "fees.rake_cap: must be a multiple of game.smallest_chip (5), got 7",
        ),
        (
            "fees: {mode: rake, jackpot_min_pot: 12}",
            "12",
            "fees.jackpot_min_pot: must be a multiple of game.smallest_chip (5), got 12",
        ),
        (
            "fees: {mode: rak}",
            "rak",
            "fees.mode: must be one of none, rake, time, got the text 'rak' (did you mean rake?)",
        ),
        (
            "fees: {jackpot_drop: -5}",
            "-5",
            "fees.jackpot_drop: must be from 0 to 1000000000000, got -5",
        ),
        (
            "fees: {no_flop_no_drop: 1}",
            "1}",
            "fees.no_flop_no_drop: expected true or false, got 1",
        ),
        (
            "journal: {keep_hands: 5}",
            "5}",
            "journal.keep_hands: must be from 10 to 1000000, got 5",
        ),
        (
            "journal: {snapshot_every: 0}",
            "0}",
            "journal.snapshot_every: must be from 1 to 100000, got 0",
        ),
        (
            "journal: {state_dir: null}",
            "null",
            "journal.state_dir: expected a directory path, got nothing (null)",
        ),
        (
            "display: {language: fr}",
            "fr",
            "display.language: must be one of en, es, got the text 'fr'",
        ),
        (
            "display: {language: no}",
            "no}",
            "display.language: must be one of en, es, got the boolean no",
        ),
        (
            "puck: {mismatch: stop}",
            "stop",
            "puck.mismatch: must be one of warn, block, got the text 'stop'",
        ),
        (
            "logging: {level: LOUD}",
            "LOUD",
            "logging.level: must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, "
            "got the text 'LOUD'",
        ),
        (
            "tray: {stable_seconds: 61}",
            "61",
            "tray.stable_seconds: must be from 0 to 60, got 61",
        ),
        (
            "tray: {stable_seconds: soon}",
            "soon",
            "tray.stable_seconds: expected a number from 0 to 60, got the text 'soon'",
        ),
        (
            "tray: {float: {7: 10}}",
            "7",
            "tray.float.7: chip value 7 is not a multiple of game.smallest_chip (5); "
            "smaller chips do not play",
        ),
        (
            "tray: {float: {5: 2.5}}",
            "2.5",
            "tray.float.5: expected a number of chips, an integer from 0 to 100000, "
            "got the decimal number 2.5",
        ),
        (
            "tray: {float: {five: 2}}",
            "five",
            "tray.float.five: expected a chip value from 1 to 1000000000000, got the text 'five'",
        ),
        (
            "tray: {float: {5: 1, 5: 2}}",
            "5: 2",
            "tray.float.5: duplicate chip value 5 (first set at line 3)",
        ),
        (
            "tray: {float: [5, 25]}",
            "[",
            "tray.float: expected a mapping of chip value to number of chips, got a list",
        ),
        (
            "game: {big_blind: 20}",
            "game: {big_blind: 20}",
            "duplicate key game (first set at line 2)",
        ),
    ],
)
def test_section_bounds(section: str, needle: str, expected: str) -> None:
    text = BASE + section + "\n"
    assert problems(text) == [f"{at(text, needle, start=len(BASE))}: {expected}"]


@pytest.mark.parametrize(
    ("game", "needle", "expected"),
    [
        (
            "{big_blind: 10, small_blind: 15}",
            "15",
            "game.small_blind: must not be more than game.big_blind (10), got 15",
        ),
        (
            "{big_blind: 12, smallest_chip: 5}",
            "12",
            "game.big_blind: must be a multiple of game.smallest_chip (5), got 12",
        ),
        (
            "{big_blind: 10, small_blind: 4, smallest_chip: 5}",
            "4",
            "game.small_blind: must be a multiple of game.smallest_chip (5), got 4",
        ),
        (
            "{big_blind: 10, min_buy_in: 101, smallest_chip: 5}",
            "101",
            "game.min_buy_in: must be a multiple of game.smallest_chip (5), got 101",
        ),
        (
            "{big_blind: 5, smallest_chip: 5}",
            "5,",
            "game.big_blind: the default small blind (big_blind / 2 rounded down to "
            "game.smallest_chip 5) would be 0: set game.small_blind",
        ),
        (
            "{big_blind: 2, first_button: 10}",
            "10",
            "game.first_button: must be a seat from 1 to 9 (table.seats), got 10",
        ),
        (
            "{big_blind: 2, first_button: first}",
            "first}",
            "game.first_button: expected last_seat, puck or a seat number from 1 to 9, "
            "got the text 'first'",
        ),
        (
            "{big_blind: 4, structure: fixed_limit, small_bet: 2}",
            "2}",
            "game.small_bet: must be at least game.big_blind (4), got 2",
        ),
        (
            "{big_blind: 4, structure: fixed_limit, big_bet: 2}",
            "2}",
            "game.big_bet: must be at least game.small_bet (4), got 2",
        ),
        (
            "{big_blind: 2, min_buy_in: 100, max_buy_in: 50}",
            "50",
            "game.max_buy_in: must be at least game.min_buy_in (100), got 50",
        ),
        (
            "{big_blind: 2, limit_cap_raises: 0}",
            "0",
            "game.limit_cap_raises: must be from 1 to 10, got 0",
        ),
        (
            "{big_blind: 2, max_raises_big_bet: many}",
            "many",
            "game.max_raises_big_bet: expected an integer from 1 to 100, or null (unlimited), "
            "got the text 'many'",
        ),
        (
            "{big_blind: 10, ante: 7, smallest_chip: 5}",
            "7",
            "game.ante: must be a multiple of game.smallest_chip (5), got 7",
        ),
        (
            "{big_blind: 2, ante: -1}",
            "-1",
            "game.ante: must be from 0 to 1000000000000, got -1",
        ),
        (
            "{big_blind: 2, ante: 2.5}",
            "2.5",
            "game.ante: expected a whole number of chip units from 0 to 1000000000000, "
            "got the decimal number 2.5 (money is a whole number of chip units, never a "
            "decimal)",
        ),
        (
            "{big_blind: 2, ante: 1, ante_form: bb}",
            "bb",
            "game.ante_form: must be one of each, big_blind, got the text 'bb'",
        ),
        (
            "{big_blind: 2, max_absent_hands: 0}",
            "0",
            "game.max_absent_hands: must be from 1 to 10000, got 0",
        ),
        (
            "{big_blind: 2, new_player_post_multiple: 3}",
            "3",
            "game.new_player_post_multiple: must be from 1 to 2, got 3",
        ),
        (
            "{big_blind: 2, form: lowball}",
            "lowball",
            "game.form: must be one of flop, draw, triple_draw, got the text 'lowball'",
        ),
        (
            "{big_blind: 2, structure: nolimit}",
            "nolimit",
            "game.structure: must be one of no_limit, pot_limit, fixed_limit, "
            "got the text 'nolimit' (did you mean no_limit?)",
        ),
        (
            "{big_blind: 2, button: Moving}",
            "Moving",
            "game.button: must be one of dead, moving, got the text 'Moving' (did you mean moving?)",
        ),
        (
            "{big_blind: 2, straddle: on_request}",
            "on_request",
            "game.straddle: expected true or false, got the text 'on_request'",
        ),
    ],
)
def test_game_cross_checks(game: str, needle: str, expected: str) -> None:
    text = f"{TABLE}game: {game}\n"
    assert problems(text) == [f"{at(text, needle)}: {expected}"]


def test_missing_and_malformed_sections() -> None:
    assert problems("clock: {seconds: 30}\n") == [
        "1:1: table: required section is missing or empty (needs table.id and table.seats)",
        "1:1: game: required section is missing or empty (needs game.big_blind)",
    ]
    assert problems(TABLE + "game:\n") == [
        "2:1: game: required section is missing or empty (needs game.big_blind)"
    ]
    assert problems(TABLE + "game: 5\n") == [
        "2:7: game: expected a mapping of options (game: followed by indented lines), got 5"
    ]
    assert problems(BASE + "clock: [60, 10]\n") == [
        "3:8: clock: expected a mapping of options (clock: followed by indented lines), got a list"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "1:1: the file is empty: expected a mapping of sections (table:, game:,"),
        ("# nothing here\n\n", "1:1: the file is empty"),
        (
            "- table\n- game\n",
            "1:1: expected a mapping of sections (table:, game:, clock:, fees:, hardware:, journal: ...), got a list",
        ),
        (
            "just words\n",
            "1:1: expected a mapping of sections (table:, game:, clock:, fees:, hardware:, journal: ...), got the text 'just words'",
        ),
        ("~\n", "1:1: expected a mapping of sections"),
        (
            "table:\n\tid: T1\n",
            "2:1: YAML syntax error: while scanning for the next token, found character '\\t' "
            "that cannot start any token (indent with spaces, never tabs)",
        ),
        ("game: *stakes\n", "1:7: YAML syntax error: found undefined alias 'stakes'"),
        (
            "game: {big_blind: 2}\n---\ntable: {}\n",
            "2:1: YAML syntax error: expected a single document in the stream, but found another document",
        ),
        (
            "game: {big_blind: \x07}\n",
            "1:19: YAML syntax error: unacceptable character #x0007: special characters are not allowed",
        ),
        ("game: {big_blind: 'open\n", "2:1: YAML syntax error: found unexpected end of stream"),
    ],
)
def test_files_that_are_not_a_configuration(text: str, expected: str) -> None:
    [problem] = problems(text)
    assert problem.startswith(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # three spaces among two
            "game:\n  structure: no_limit\n   small_blind: 5\n  big_blind: 10\n",
            "3:15: YAML syntax error: mapping values are not allowed here "
            "(line 3 is indented 3 spaces, the line before it 2: indent each level of "
            "the file by the same number of spaces, and only under a line that ends in ':')",
        ),
        (  # more than the line before, which opens nothing
            "game:\n  big_blind: 10\n    smallest_chip: 5\n",
            "3:18: YAML syntax error: mapping values are not allowed here "
            "(line 3 is indented 4 spaces, the line before it 2: indent each level of "
            "the file by the same number of spaces, and only under a line that ends in ':')",
        ),
        (  # back to no level the file has
            "game:\n  big_blind: 2\n smallest_chip: 1\n",
            "3:2: YAML syntax error: expected <block end>, but found '<block mapping start>' "
            "(while parsing a block mapping started at line 1, column 1) "
            "(line 3 is indented 1 space, the line before it 2: indent each level of "
            "the file by the same number of spaces, and only under a line that ends in ':')",
        ),
    ],
)
def test_a_mis_indented_line_gets_a_hint_as_a_tab_does(text: str, expected: str) -> None:
    """Issue 31 item 17: a tab had a hint, three spaces among two had none."""
    assert problems(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # never closed, the file ends
            "table:\n  id: T1\n  seats: [1, 2\n\n",
            "3:10: YAML syntax error: the flow sequence '[' started here is not closed "
            "(at line 5, column 1: expected ',' or ']', but got '<stream end>')",
        ),
        (  # never closed, the next option taken into it
            "hardware:\n  lights:\n    pins: [16, 17\n  keypad: {port: /dev/x}\n",
            "3:11: YAML syntax error: the flow sequence '[' started here is not closed "
            "(at line 4, column 9: expected ',' or ']', but got ':')",
        ),
        (
            "table: {id: T1, seats: 9\ngame:\n  big_blind: 2\n",
            "1:8: YAML syntax error: the flow mapping '{' started here is not closed "
            "(at line 2, column 5: expected ',' or '}', but got ':')",
        ),
    ],
)
def test_an_unclosed_flow_sequence_is_named_where_it_starts(text: str, expected: str) -> None:
    """Issue 31 item 17: the place given was where the parser gave up (often the end of
    the file), not the '[' that was never closed."""
    assert problems(text) == [expected]


def test_yaml_oddities_are_refused_with_their_place() -> None:
    assert problems(
        BASE + "defaults: &d {seconds: 30}\nclock:\n  <<: *d\n  warning: !secret 5\n"
    ) == [
        "3:1: unknown section defaults; valid sections: table, game, clock, fees, dealer, "
        "tournament, hardware, journal, display, lights, supervisor, floor, puck, tray, logging, software",
        "5:3: clock: merge keys (<<) are not supported; write the options out",
        "6:12: clock.warning: expected an integer from 0 to 3600, got a value tagged !secret 5",
    ]
    assert problems(BASE + "clock: {[a]: 1, ~: 2}\n") == [
        "3:9: clock: a key must be a plain name, got a list",
        "3:17: clock: a key must be a plain name, got nothing (null)",
    ]


def test_all_problems_are_reported_at_once_in_file_order() -> None:
    assert problems("""
        tabel: {id: T1}
        game:
          structure: nolimit
          big_blind: 2.5
          smallest_chip: 0
          smallest_chip: 1
        clock: {seconds: 30, warning: 45}
        fees: {mode: rake, rake_percent: 150}
        journal: {archive: sometimes}
    """) == [
        "1:1: table: required section is missing or empty (needs table.id and table.seats)",
        "1:1: unknown section tabel (did you mean table?)",
        "3:14: game.structure: must be one of no_limit, pot_limit, fixed_limit, "
        "got the text 'nolimit' (did you mean no_limit?)",
        "4:14: game.big_blind: expected a whole number of chip units from 1 to 1000000000000, "
        "got the decimal number 2.5 (money is a whole number of chip units, never a decimal)",
        "5:18: game.smallest_chip: must be from 1 to 1000000000000, got 0",
        "6:3: duplicate key game.smallest_chip (first set at line 5)",
        "7:31: clock.warning: must be less than clock.seconds (30), got 45",
        "8:34: fees.rake_percent: must be from 0 to 100, got 150",
        "9:20: journal.archive: expected true or false, got the text 'sometimes'",
    ]


# -- hardware: ---------------------------------------------------------------------------


def hardware(text: str, game: str = "{big_blind: 2}") -> str:
    return (
        "table: {id: T1, seats: 4}\n"
        + f"game: {game}\n"
        + "hardware:\n"
        + textwrap.indent(config(text), "  ")
    )


SIM = "simulated: true\n"


def test_a_pin_used_twice_is_reported_at_its_second_use() -> None:
    text = hardware(SIM + "puck: {pins: {1: 5, 2: 6}}\nlights: {pins: {1: 6}}\n")
    assert problems(text) == [
        f"{at(text, '6}}', text.index('lights'))}: hardware.lights.pins.1: pin 6 is used twice: "
        "puck seat 2 and lights seat 1"
    ]


def test_a_pin_off_the_header_is_reported_at_the_pin() -> None:
    text = hardware(SIM + "puck:\n  pins: {1: 5, 2: 40}\n")
    assert problems(text) == [
        f"{at(text, '40')}: hardware.puck.pins.2: pin 40 (puck seat 2) is not a GPIO on the "
        "header (BCM 0-27)"
    ]


def test_a_pin_needed_by_the_uart_is_reported_at_the_port() -> None:
    text = hardware(SIM + "lights: {pins: {1: 14}}\nkeypad: {port: /dev/serial0}\n")
    assert problems(text) == [
        f"{at(text, '/dev/serial0')}: hardware.keypad.port: pin 14 is used twice: lights seat 1 "
        "and keypad serial port /dev/serial0 (UART TX)"
    ]


def test_the_door_switch_pin_clashing_with_another_pin_names_the_pin() -> None:
    text = hardware(SIM + "lights: {pins: {1: 16, 2: 17}}\ndoor: {pin: 17}\n")
    assert problems(text) == [
        f"{at(text, '17}', text.index('door'))}: hardware.door.pin: pin 17 is used twice: "
        "lights seat 2 and door switch"
    ]
    text = hardware(SIM + "door: {pin: 15}\nkeypad: {port: /dev/serial0}\n")
    assert problems(text) == [
        f"{at(text, '/dev/serial0')}: hardware.keypad.port: pin 15 is used twice: door switch "
        "and keypad serial port /dev/serial0 (UART RX)"
    ]


def test_the_door_section_is_read_with_its_bounds() -> None:
    text = hardware(SIM + "door: {pin: 40, open_level: ajar, pull: sideways, debounce_ms: -1}\n")
    assert sorted(problems(text)) == sorted(
        [
            f"{at(text, 'ajar')}: hardware.door.open_level: must be one of high, low, got the "
            "text 'ajar'",
            f"{at(text, 'sideways')}: hardware.door.pull: must be one of auto, up, down, none, "
            "got the text 'sideways'",
            f"{at(text, '-1')}: hardware.door.debounce_ms: must be from 0 to 1000, got -1",
            f"{at(text, '40')}: hardware.door.pin: pin 40 (door switch) is not a GPIO on the "
            "header (BCM 0-27)",
        ]
    )
    door = load(hardware(SIM + "door: {pin: 26, open_level: low, debounce_ms: 80}\n"))
    assert door.hardware is not None
    assert (door.hardware.door.pin, door.hardware.door.open_level) == (26, "low")
    assert (door.hardware.door.pull, door.hardware.door.debounce_ms) == ("auto", 80)
    none = load(hardware(SIM))
    assert none.hardware is not None and none.hardware.door.pin is None


def test_a_pin_used_twice_is_reported_at_the_use_last_in_the_file() -> None:
    # lights: before puck: in the file, not in the drivers' order of puck then lights
    text = hardware(SIM + "lights: {pins: {1: 6}}\npuck: {pins: {2: 6}}\n")
    assert problems(text) == [
        f"{at(text, '6}}', text.index('puck'))}: hardware.puck.pins.2: pin 6 is used twice: "
        "puck seat 2 and lights seat 1"
    ]


def test_a_uart_pin_and_a_shared_uart_port_are_reported_at_the_last_device() -> None:
    text = hardware(
        SIM + "lights: {pins: {1: 14}}\nkeypad: {port: /dev/serial0}\ntray: {port: /dev/serial0}\n"
    )
    last = at(text, "/dev/serial0", text.index("tray"))
    assert problems(text) == [
        f"{last}: hardware.tray.port: pin 14 is used twice: lights seat 1 "
        "and keypad serial port /dev/serial0 (UART TX)",
        f"{last}: hardware.tray.port: serial port /dev/serial0 is used twice: keypad and tray",
    ]


def test_a_pull_that_hides_the_puck_is_reported_at_the_section() -> None:
    text = hardware(SIM + "puck: {pins: {1: 5}, active_level: high, pull: up}\n")
    assert problems(text) == [
        f"{at(text, 'hardware')}: hardware: puck pull up reads an active-high sensor as "
        "always seeing the puck: use pull down, none or auto"
    ]


def test_serial_devices() -> None:
    text = hardware(
        "keypad: {port: /dev/ttyUSB0, baud: 11520}\n"
        "tray: {port: /dev/ttyUSB0}\n"
        "display: {enabled: true}\n"
    )
    assert problems(text) == [
        f"{at(text, '11520')}: hardware.keypad.baud: must be a standard rate (1200, 2400, 4800, "
        "9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600, 1000000), "
        "got 11520",
        f"{at(text, '/dev/ttyUSB0}')}: hardware.tray.port: serial port /dev/ttyUSB0 is used "
        "twice: keypad and tray",
        f"{at(text, 'display')}: hardware.display.port: display has no port "
        "(give its /dev/serial/by-id/... path)",
    ]


def test_hardware_bounds_and_choices() -> None:
    text = hardware(
        "simulated: true\npin_factory: lgpoi\ngpiochip: -1\n"
        "puck: {active_level: lo, pins: {5: 3, x: 4}}\n"
        "lights: {pins: {1: 2.5}, fast_blink_ms: 0}\nkeypad: {port: serial0, retries: 101}\n"
    )
    assert problems(text) == [
        f"{at(text, 'lgpoi')}: hardware.pin_factory: must be one of lgpio, rpigpio, pigpio, "
        "native, mock, got the text 'lgpoi' (did you mean lgpio?)",
        f"{at(text, '-1')}: hardware.gpiochip: must be from 0 to 31, got -1",
        f"{at(text, 'lo,')}: hardware.puck.active_level: must be one of high, low, "
        "got the text 'lo' (did you mean low?)",
        f"{at(text, '5: 3')}: hardware.puck.pins.5: seat must be from 1 to 4 (table.seats), got 5",
        f"{at(text, 'x: 4')}: hardware.puck.pins.x: expected a seat from 1 to 4 (table.seats), "
        "got the text 'x'",
        f"{at(text, '2.5')}: hardware.lights.pins.1: expected a BCM pin, an integer from 0 to "
        "999, got the decimal number 2.5",
        f"{at(text, '0}')}: hardware.lights.fast_blink_ms: must be from 1 to 60000, got 0",
        f"{at(text, 'serial0')}: hardware.keypad.port: expected a device path like "
        "/dev/serial/by-id/..., got the text 'serial0'",
        f"{at(text, '101')}: hardware.keypad.retries: must be from 0 to 100, got 101",
    ]


def test_serial_keepalive_is_read_per_device_with_its_bounds() -> None:
    settings = load(hardware(SIM + "keypad: {keepalive_ms: 250}\ntray: {}\n")).hardware
    assert settings is not None
    assert (settings.keypad.keepalive_ms, settings.tray.keepalive_ms) == (250, 5000)
    assert settings.display.keepalive_ms == 5000
    text = hardware(SIM + "display: {keepalive_ms: 50}\n")
    assert problems(text) == [
        f"{at(text, '50}')}: hardware.display.keepalive_ms: must be from 100 to 3600000, got 50",
    ]


def test_first_button_puck_needs_puck_sensors() -> None:
    text = hardware(SIM, "{big_blind: 2, first_button: puck}")
    assert problems(text) == [
        f"{at(text, 'puck')}: game.first_button: puck needs the puck sensors "
        "(hardware.puck.pins), and none are set"
    ]
    pins = "puck: {pins: {1: 5, 2: 6, 3: 13, 4: 19}}\n"
    assert load(hardware(SIM + pins, "{big_blind: 2, first_button: puck}"))
    # Without a hardware: section (replay, tests) the puck arrives as events.
    assert load(TABLE + "game: {big_blind: 2, first_button: puck}\n")


def test_hardware_warnings() -> None:
    text = (
        hardware("lights: {pins: {1: 5, 2: 6}}\nkeypad: {port: /dev/ttyACM0}\n")
        + "  tray: {enabled: false}\n  display: {simulated: true}\n"
    )
    assert load(text).warnings == (
        f"t.yaml:{at(text, '{1: 5')}: warning: hardware.lights.pins: no pin for seats 3, 4 of "
        "the 4 seats (table.seats)",
        f"t.yaml:{at(text, '/dev/ttyACM0')}: warning: hardware.keypad.port: /dev/ttyACM0 may "
        "name another device after a reboot; use its /dev/serial/by-id/... path",
    )


def test_hardware_maps_onto_the_drivers_settings() -> None:
    settings = load(
        hardware("""
            simulated: true
            pin_factory: mock
            gpiochip: 4
            puck: {pins: {1: 5, 2: 6, 3: 13, 4: 19}, active_level: high, pull: none,
                   debounce_ms: 50}
            lights: {pins: {1: 17, 2: 27, 3: 22, 4: 23}, pwm: true, active_high: false,
                     slow_blink_ms: 900, fast_blink_ms: 200, pulse_ms: 1500, lamp_test_ms: 100}
            keypad: {port: /dev/serial/by-id/k, baud: 9600, ack_timeout_ms: 100, retries: 2}
            tray: {enabled: false}
            display: {simulated: true}
        """)
    ).hardware
    assert settings is not None
    assert (settings.simulated, settings.pin_factory, settings.gpiochip) == (True, "mock", 4)
    assert dict(settings.puck.pins) == {1: 5, 2: 6, 3: 13, 4: 19}
    assert (settings.puck.active_level, settings.puck.pull, settings.puck.debounce_ms) == (
        "high",
        "none",
        50,
    )
    lights = settings.lights
    assert (lights.pwm, lights.active_high, lights.slow_blink_ms, lights.fast_blink_ms) == (
        True,
        False,
        900,
        200,
    )
    assert (lights.pulse_ms, lights.lamp_test_ms) == (1500, 100)
    keypad = settings.keypad
    assert (keypad.port, keypad.baud, keypad.ack_timeout_ms, keypad.retries) == (
        "/dev/serial/by-id/k",
        9600,
        100,
        2,
    )
    assert not settings.tray.enabled and settings.display.simulated


# -- floor: -------------------------------------------------------------------------------


def test_floor_is_optional_and_defaults() -> None:
    assert load(BASE + "floor:\n").floor is None
    floor = load(BASE + "floor: {site: east, host: 10.0.0.5}\n").floor
    assert floor is not None
    assert (floor.port, floor.tls, floor.topic_prefix, floor.outbox_max_messages) == (
        1883,
        None,
        "casino",
        10_000,
    )
    assert (floor.outbox_alarm_percent, floor.username, floor.password_file) == (80, None, None)
    # An empty tls: mapping is TLS with the system's CAs, on the TLS port.
    tls = load(BASE + "floor: {site: east, host: broker, tls: {}}\n").floor
    assert tls is not None and tls.tls is not None and tls.port == 8883
    assert tls.tls.ca_file is None


def test_floor_problems() -> None:
    text = BASE + config("""
        floor:
          password: hunter2
          host: mqtt://broker:1883
          port: 70000
          password_file: /etc/pw
          topic_prefix: casino/#
          tls: {cert_file: /etc/c.pem}
          outbox_alarm_percent: 0
    """)
    assert problems(text) == [
        "3:1: floor.site: required, a name of 1 to 32 letters, digits, '_' or '-'",
        "4:13: floor.password: never put the password in the configuration: write it to a file "
        "readable only by the service and give that file as floor.password_file",
        "5:9: floor.host: expected a host name or IP address, without scheme or port "
        "(like floor.example or 10.0.0.5), got the text 'mqtt://broker:1883'",
        "6:9: floor.port: must be from 1 to 65535, got 70000",
        "7:18: floor.password_file: needs floor.username (a password goes with a user name)",
        "8:17: floor.topic_prefix: expected topic levels of letters, digits, '_' or '-' "
        "separated by '/' (like casino or casino/east), got the text 'casino/#'",
        f"{at(text, '/etc/c.pem')}: floor.tls.cert_file: needs floor.tls.key_file too "
        "(a client certificate and its key go together)",
        "10:25: floor.outbox_alarm_percent: must be from 1 to 100, got 0",
    ]


# -- The error type and reading files ------------------------------------------------------


def test_config_error_is_a_value_error_with_formatted_problems() -> None:
    with pytest.raises(ValueError, match=r"^x\.yaml:2:19: game\.big_blind: ") as caught:
        load_config_text(TABLE + "game: {big_blind: 1.5}\n", "x.yaml")
    assert isinstance(caught.value, ConfigError)
    assert str(caught.value) == "\n".join(caught.value.problems)


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(
        config(BASE).encode() + "journal: {state_dir: /srv/caf\xe9}\n".encode("latin-1")
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    # "journal: {state_dir: /srv/caf" is 29 bytes: the bad byte is the 30th of line 3.
    assert caught.value.problems == [f"{path}:3:30: the file is not UTF-8 text (byte 0xe9)"]


def test_a_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_config(tmp_path / "nope.yaml")


# -- Robustness: any mutation of a good file gives Settings or ConfigError ------------------

FRAGMENTS = [
    ":", ": ", "- ", "-", "{", "}", "[", "]", ",", "#", "&a ", "*a", "!!float ", "!!str ",
    "!x ", "<<: ", "\t", "\n", "  ", '"', "'", "|", ">", "?", "%", "@", "`", "~", "null",
    "yes", "no", "0x1F", "0b_", "0o7", "1_000", "1:30", ".5", "-.inf", ".nan", "1e3", "2.5",
    "-1", "0", "99999999999999999999999", "2001-12-14", "T7", "é", "\x07", "\ufeff", "\x00",
    "game", "table", "seats", "big_blind", "pins", "port", "float", "floor", "tls",
]  # fmt: skip
EXAMPLE_TEXT = example_with_floor()
EXAMPLE_LINES = EXAMPLE_TEXT.splitlines(keepends=True)
PROBLEM = re.compile(r"^mut\.yaml:(\d+):(\d+): (warning: )?\S[^\n]*$")

mutation = st.one_of(
    st.tuples(st.just("insert"), st.integers(0, len(EXAMPLE_TEXT)), st.sampled_from(FRAGMENTS)),
    st.tuples(st.just("insert"), st.integers(0, len(EXAMPLE_TEXT)), st.text(max_size=4)),
    st.tuples(st.just("delete"), st.integers(0, len(EXAMPLE_TEXT)), st.integers(1, 30)),
    st.tuples(st.just("line"), st.integers(0, len(EXAMPLE_LINES) - 1), st.sampled_from(FRAGMENTS)),
    st.tuples(st.just("dup"), st.integers(0, len(EXAMPLE_LINES) - 1), st.integers(0, 3)),
)


def mutate(text: str, steps: list[tuple[str, int, Any]]) -> str:
    for kind, where, what in steps:
        lines = text.splitlines(keepends=True) or [""]
        if kind == "insert":
            text = text[:where] + what + text[where:]
        elif kind == "delete":
            text = text[:where] + text[where + what :]
        elif kind == "line":  # replace the value after the key on a line
            i = where % len(lines)
            key, sep, _ = lines[i].partition(":")
            lines[i] = f"{key}{sep} {what}\n" if sep else what + "\n"
            text = "".join(lines)
        else:  # duplicate a line, or drop it (what == 0)
            i = where % len(lines)
            lines[i : i + 1] = [lines[i]] * what
            text = "".join(lines)
    return text


@pytest.mark.slow  # a property test: out of the edit loop
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutation, min_size=1, max_size=4))
def test_mutations_never_raise_anything_but_config_error(
    steps: list[tuple[str, int, Any]],
) -> None:
    text = mutate(EXAMPLE_TEXT, steps)
    try:
        settings_ = load_config_text(text, "mut.yaml")
    except ConfigError as error:
        lines = error.problems
        assert lines
    else:
        assert isinstance(settings_, Settings)
        lines = list(settings_.warnings)
    last_line = text.count("\n") + 2
    for line in lines:
        match = PROBLEM.match(line)
        assert match, line
        assert 1 <= int(match[1]) <= last_line and int(match[2]) >= 1


# -- tablectl check-config ----------------------------------------------------------------


def check_config(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", "check-config", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("path", ["config/table.example.yaml", "config/bench.yaml"])
def test_check_config_passes_the_shipped_files(path: str) -> None:
    result = check_config(path)
    # The example names the USB adapters and PIN file of a real table, not here.
    unplugged = [
        line
        for line in result.stderr.splitlines()
        if not re.search(
            r"warning: (hardware\.\w+\.port|supervisor\.pin_file): "
            r".* does not exist: ",
            line,
        )
    ]
    assert (result.returncode, unplugged) == (0, [])
    ok, summary = result.stdout.splitlines()
    assert ok == f"{path}: OK"
    assert summary.strip().startswith("table ")


@needs_shared
def test_check_config_prints_warnings_and_still_passes() -> None:
    result = check_config(str(SHARED_EXAMPLE))
    assert result.returncode == 0
    assert result.stdout.splitlines()[0] == f"{SHARED_EXAMPLE}: OK"
    assert (
        result.stderr
        == f"{SHARED_EXAMPLE}:1:1: warning: no hardware: section: fine for replay and tests, but the daemon will not start\n"
    )


def test_check_config_lists_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("table: {id: T1, seats: 12}\ngame:\n  big_blind: 2.5\n  big_blnd: 2\n")
    result = check_config(str(path))
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines == [
        f"{path}:1:24: table.seats: must be from 2 to 10, got 12",
        f"{path}:3:14: game.big_blind: expected a whole number of chip units from 1 to "
        "1000000000000, got the decimal number 2.5 (money is a whole number of chip units, "
        "never a decimal)",
        f"{path}:4:3: unknown option game.big_blnd (did you mean game.big_blind?)",
    ]


def test_check_config_unreadable_file(tmp_path: Path) -> None:
    result = check_config(str(tmp_path / "missing.yaml"))
    assert result.returncode == 2
    assert result.stderr == f"{tmp_path / 'missing.yaml'}: cannot read: No such file or directory\n"
    assert check_config(str(tmp_path)).returncode == 2


def test_lights_patterns_and_pin_file_are_read() -> None:
    settings = load_config_text(
        BASE + "lights:\n  to_act: fast_blink\nsupervisor:\n  pin_file: /srv/pins\n"
    )
    assert settings.lights.to_act == "fast_blink"
    assert settings.lights.waiting == "pulse"  # untouched default
    assert str(settings.supervisor.pin_file) == "/srv/pins"


def test_an_unknown_light_pattern_is_refused_at_its_place() -> None:
    [problem] = problems(BASE + "lights:\n  to_act: strobe\n")
    assert "lights.to_act" in problem and "fast_blink" in problem


def test_the_raise_cap_defaults_by_form() -> None:
    """R3: four raises by default in a game of two betting rounds, three otherwise; a
    value given wins, and null means the form's default."""

    def cap(game: str) -> int:
        text = f"table: {{id: T1, seats: 9}}\ngame: {{big_blind: 2, {game}}}\n"
        return load_config_text(text).rules.game.cap_raises

    assert cap("form: flop") == 3
    assert cap("form: draw") == 4
    assert cap("form: triple_draw") == 3
    assert cap("form: draw, limit_cap_raises: 3") == 3
    assert cap("form: flop, limit_cap_raises: 4") == 4
    assert cap("form: draw, limit_cap_raises: null") == 4


def test_check_config_summary_names_a_draw_form() -> None:
    text = "table: {id: T1, seats: 9}\ngame: {structure: fixed_limit, form: triple_draw, big_blind: 2}\n"
    assert "fixed_limit triple_draw 1/2, bets 2/4" in load_config_text(text).summary()
    flop = "table: {id: T1, seats: 9}\ngame: {big_blind: 2}\n"
    assert "no_limit 1/2 " in load_config_text(flop).summary()


def test_check_config_summary_and_changes_name_the_ante() -> None:
    """A1, A2: the ante is part of the stakes, in the summary and in a reload's change."""
    base = "table: {id: T1, seats: 9}\ngame: {big_blind: 2"
    each = load_config_text(base + ", ante: 1}\n")
    big_blind = load_config_text(base + ", ante: 2, ante_form: big_blind}\n")
    assert "no_limit 1/2 ante 1 " in each.summary()
    assert "no_limit 1/2 big blind ante 2 " in big_blind.summary()
    assert settings_changes(each, big_blind) == (
        "stakes: game.ante 1 -> 2, game.ante_form 'each' -> 'big_blind'"
    )


# -- check-config: the files and ports named exist ---------------------------------------


def test_check_config_names_missing_files_as_errors_and_unplugged_ports_as_warnings(
    tmp_path: Path,
) -> None:
    pins = tmp_path / "pins"
    path = tmp_path / "table.yaml"
    path.write_text(
        "table: {id: T1, seats: 6}\n"
        "game: {big_blind: 10}\n"
        "hardware:\n"
        "  keypad: {port: /dev/serial/by-id/usb-Table_Keypad-if00}\n"
        "  tray: {enabled: false, port: /dev/serial/by-id/usb-Table_Tray-if00}\n"
        "  display: {simulated: true}\n"
        f"supervisor: {{pin_file: {pins}}}\n"
        "floor:\n"
        "  site: lv\n"
        "  host: 10.0.0.5  # a host name adds a warning (test_broker_reach)\n"
        "  username: T1\n"
        f"  password_file: {tmp_path / 'floor-password'}\n"
    )
    result = check_config(str(path))
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{path}:4:18: warning: hardware.keypad.port: /dev/serial/by-id/usb-Table_Keypad-if00 "
        "does not exist: the keypad adapter is not plugged in (or not this one): the daemon "
        "shows a keypad fault until it appears",
        f"{path}:7:24: warning: supervisor.pin_file: {pins} does not exist: no supervisor "
        "PINs yet: every PIN typed is answered `NO: PIN CHECK NOT AVAILABLE: CALL TECH` "
        "until `tablectl pin set` writes this file",
        f"{path}:12:18: floor.password_file: {tmp_path / 'floor-password'} does not exist: "
        "the floor link will not start (LINK ERROR)",
    ]
    (tmp_path / "floor-password").write_text("secret\n")
    pins.write_text("")
    result = check_config(str(path))
    assert result.returncode == 0, result.stderr
    assert "floor.password_file" not in result.stderr and "pin_file" not in result.stderr
    assert "usb-Table_Keypad-if00 does not exist" in result.stderr  # still unplugged


def test_check_config_refuses_a_uart_that_is_off(tmp_path: Path) -> None:
    path = tmp_path / "table.yaml"
    path.write_text(
        "table: {id: T1, seats: 6}\ngame: {big_blind: 10}\n"
        "hardware:\n  display: {port: /dev/ttyAMA9}\n"
        "  keypad: {enabled: false}\n  tray: {enabled: false}\n"
    )
    result = check_config(str(path))
    assert result.returncode == 1
    assert (
        "hardware.display.port: /dev/ttyAMA9 does not exist: the Pi's serial port is "
        "off: turn it on in raspi-config" in result.stderr
    )
