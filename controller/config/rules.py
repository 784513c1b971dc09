"""Sections `table:`, `game:`, `clock:` and `fees:` -> `RuleSettings`.

Every knob of docs/rulebook.md is read here with its bounds; the cross-field rules (blinds
against each other and against the smallest chip, the first button against the seats,
the clock's warning against its length) follow the plain reads. Defaults are those of
`controller.rules.settings`, so a knob left out means what the rule book says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, cast, get_args

from controller.config.reader import Section, describe, read_value
from controller.config.tournament import check_with_rules, read_tournament
from controller.rules.limits import MAX_AMOUNT
from controller.rules.settings import (
    DEFAULT_TIP_CONFIRM_BIG_BLINDS,
    MAX_TIP_CONFIRM_BIG_BLINDS,
    AnteForm,
    ButtonMethod,
    ClockSettings,
    DealerSettings,
    ExpiryAction,
    FeeMode,
    FeeSettings,
    Form,
    GameSettings,
    MissedReturn,
    MissedSmall,
    OutOfTurn,
    RuleSettings,
    Structure,
)

MIN_SEATS, MAX_SEATS = 2, 10
TABLE_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,15}"
TABLE_ID_HELP = "a table name of 1 to 16 letters, digits, '_', '.' or '-' (like T7)"

# The allowed words come from the rules core's own types, so the two cannot drift apart.
STRUCTURES: tuple[str, ...] = get_args(Structure)
FORMS: tuple[str, ...] = get_args(Form)
BUTTON_METHODS: tuple[str, ...] = get_args(ButtonMethod)
FirstButtonWord = Literal["last_seat", "puck"]
FIRST_BUTTON_WORDS: tuple[str, ...] = get_args(FirstButtonWord)
EXPIRY_ACTIONS: tuple[str, ...] = get_args(ExpiryAction)
FEE_MODES: tuple[str, ...] = get_args(FeeMode)
MISSED_RETURNS: tuple[str, ...] = get_args(MissedReturn)
MISSED_SMALLS: tuple[str, ...] = get_args(MissedSmall)
OUT_OF_TURN: tuple[str, ...] = get_args(OutOfTurn)
ANTE_FORMS: tuple[str, ...] = get_args(AnteForm)


def read_rules(root: Section) -> RuleSettings:
    table = root.get_section("table")
    game = root.get_section("game")
    clock = root.get_section("clock")
    fees = root.get_section("fees")
    dealer = root.get_section("dealer")
    for section, needs in ((table, "table.id and table.seats"), (game, "game.big_blind")):
        if not section.present and not section.lenient:
            root.report.error(
                section.anchor,
                f"{section.path}: required section is missing or empty (needs {needs})",
            )
            section.lenient = True
    table_id = table.get_text(
        "id", "T1", required=True, pattern=TABLE_ID_PATTERN, pattern_help=TABLE_ID_HELP
    )
    seats = table.get_int("seats", 9, MIN_SEATS, MAX_SEATS, required=True)
    in_tournament = root.get_section("tournament").present
    game_settings = _read_game(game, seats if table.ok("seats") else MAX_SEATS, in_tournament)
    chip = game_settings.smallest_chip if game.ok("smallest_chip") else None
    fee_settings = _read_fees(fees, chip)
    tournament = read_tournament(root.get_section("tournament"), game_settings)
    if tournament is not None:
        check_with_rules(
            game,
            fees,
            game_settings.button,
            fee_settings.mode,
            game_settings.max_absent_hands,
        )
    return RuleSettings(
        table_id=table_id,
        seats=seats,
        game=game_settings,
        clock=_read_clock(clock),
        fees=fee_settings,
        dealer=DealerSettings(
            push_minutes=dealer.get_optional_int("push_minutes", 1, 24 * 60, none_means="off"),
            tip_confirm_big_blinds=dealer.get_int(
                "tip_confirm_big_blinds",
                DEFAULT_TIP_CONFIRM_BIG_BLINDS,
                0,
                MAX_TIP_CONFIRM_BIG_BLINDS,
            ),
        ),
        tournament=tournament,
    )


def _money(section: Section, key: str, default: int, lo: int = 1) -> int:
    return section.get_int(key, default, lo, MAX_AMOUNT, money=True)


def _optional_money(section: Section, key: str, none_means: str) -> int | None:
    return section.get_optional_int(key, 1, MAX_AMOUNT, money=True, none_means=none_means)


def _read_game(game: Section, seats: int, in_tournament: bool = False) -> GameSettings:
    structure = cast(Structure, game.get_choice("structure", STRUCTURES, "no_limit"))
    smallest_chip = _money(game, "smallest_chip", 1)
    big_blind = game.get_int("big_blind", 2, 1, MAX_AMOUNT, money=True, required=True)
    settings = GameSettings(
        structure=structure,
        form=cast(Form, game.get_choice("form", FORMS, "flop")),
        big_blind=big_blind,
        small_blind=_optional_money(game, "small_blind", "big_blind / 2"),
        small_bet=_optional_money(game, "small_bet", "big_blind"),
        big_bet=_optional_money(game, "big_bet", "2 x small_bet"),
        button=cast(ButtonMethod, game.get_choice("button", BUTTON_METHODS, "dead")),
        first_button=_read_first_button(game, seats),
        smallest_chip=smallest_chip,
        new_player_post_multiple=game.get_int("new_player_post_multiple", 1, 1, 2),
        missed_blind_return=cast(
            MissedReturn, game.get_choice("missed_blind_return", MISSED_RETURNS, "post_or_wait")
        ),
        missed_small_blind=cast(
            MissedSmall, game.get_choice("missed_small_blind", MISSED_SMALLS, "dead")
        ),
        straddle=game.get_bool("straddle", False),
        straddle_in_limit=game.get_bool("straddle_in_limit", False),
        seat_change_post=game.get_bool("seat_change_post", True),
        seat_change_kill=game.get_bool("seat_change_kill", False),
        check_raise=game.get_bool("check_raise", True),
        max_raises_big_bet=game.get_optional_int(
            "max_raises_big_bet", 1, 100, none_means="unlimited"
        ),
        limit_cap_raises=game.get_optional_int(
            "limit_cap_raises", 1, 10, none_means="4 with game.form draw, else 3"
        ),
        out_of_turn=cast(OutOfTurn, game.get_choice("out_of_turn", OUT_OF_TURN, "reject")),
        lose_right_to_act=game.get_bool("lose_right_to_act", False),
        min_buy_in=_optional_money(game, "min_buy_in", "no minimum"),
        max_buy_in=_optional_money(game, "max_buy_in", "no maximum"),
        max_absent_hands=game.get_optional_int(
            "max_absent_hands", 1, 10_000, none_means="no limit"
        ),
        ante=_money(game, "ante", 0, lo=0),
        ante_form=cast(AnteForm, game.get_choice("ante_form", ANTE_FORMS, "each")),
    )
    _check_game(game, settings)
    # the levels' antes are taken as ante_form says (T1)
    quiet = in_tournament or settings.ante or settings.ante_form == "each"
    if not quiet and game.ok("ante", "ante_form"):
        game.warn("ante_form", "has no effect while game.ante is 0")
    if not in_tournament and settings.ante > settings.big_blind and game.ok("ante", "big_blind"):
        game.warn(
            "ante",
            f"more than game.big_blind ({settings.big_blind}), got {settings.ante}: "
            "an ante is usually at most the big blind",
        )
    return settings


def _read_first_button(game: Section, seats: int) -> int | FirstButtonWord:
    node = game.get_node("first_button")
    if node is None:
        return "last_seat"
    value = read_value(node)
    if value.kind == "int" and isinstance(value.value, int):
        if 1 <= value.value <= seats:
            return value.value
        game.fail(
            "first_button", f"must be a seat from 1 to {seats} (table.seats), got {value.text}"
        )
        return "last_seat"
    if value.kind == "str" and value.text in FIRST_BUTTON_WORDS:
        return cast(FirstButtonWord, value.text)
    game.fail(
        "first_button",
        f"expected last_seat, puck or a seat number from 1 to {seats}, got {describe(value)}",
    )
    return "last_seat"


def _check_game(game: Section, settings: GameSettings) -> None:
    """What the game's options say together, each check a named step."""
    for check in GAME_CHECKS:
        check(game, settings)


def _check_chip_multiples(game: Section, settings: GameSettings) -> None:
    chip = settings.smallest_chip
    if not game.ok("smallest_chip"):
        return
    # 004 R7: the smallest chip that plays is the smallest used for antes, blinds ...
    for key in (
        "big_blind",
        "small_blind",
        "small_bet",
        "big_bet",
        "min_buy_in",
        "max_buy_in",
        "ante",
    ):
        amount = getattr(settings, key)
        if amount is not None and game.ok(key) and amount % chip:
            game.fail(key, f"must be a multiple of game.smallest_chip ({chip}), got {amount}")


def _check_blinds(game: Section, settings: GameSettings) -> None:
    if not game.ok("big_blind", "small_blind", "smallest_chip"):
        return
    if settings.small_blind is not None and settings.small_blind > settings.big_blind:
        game.fail(
            "small_blind",
            f"must not be more than game.big_blind ({settings.big_blind}), "
            f"got {settings.small_blind}",
        )
    elif settings.small_blind is None and settings.sb_amount == 0:
        game.fail(
            "big_blind",
            f"the default small blind (big_blind / 2 rounded down to "
            f"game.smallest_chip {settings.smallest_chip}) would be 0: set game.small_blind",
        )


def _check_limit_bets(game: Section, settings: GameSettings) -> None:
    fixed = settings.structure == "fixed_limit"
    if fixed and game.ok("big_blind", "small_bet", "big_bet", "structure"):
        if settings.small_bet_amount < settings.big_blind:
            game.fail(
                "small_bet",
                f"must be at least game.big_blind ({settings.big_blind}), "
                f"got {settings.small_bet_amount}",
            )
        elif settings.big_bet_amount < settings.small_bet_amount:
            game.fail(
                "big_bet",
                f"must be at least game.small_bet ({settings.small_bet_amount}), "
                f"got {settings.big_bet_amount}",
            )
    if not fixed and game.ok("structure"):
        for key in ("small_bet", "big_bet"):
            if getattr(settings, key) is not None:
                game.warn(
                    key, f"only used with structure fixed_limit (this game is {settings.structure})"
                )


def _check_options_without_effect(game: Section, settings: GameSettings) -> None:
    if settings.straddle_in_limit and not settings.straddle:
        game.warn("straddle_in_limit", "has no effect while game.straddle is false")
    if settings.lose_right_to_act and settings.out_of_turn != "record":
        game.warn(
            "lose_right_to_act",
            "has no effect while game.out_of_turn is reject: only actions recorded out of "
            "turn (out_of_turn: record) act behind a seat",
        )


def _check_buy_ins(game: Section, settings: GameSettings) -> None:
    low, high = settings.min_buy_in, settings.max_buy_in
    if low is not None and high is not None and low > high and game.ok("min_buy_in", "max_buy_in"):
        game.fail("max_buy_in", f"must be at least game.min_buy_in ({low}), got {high}")


#: the game's checks, in the order their problems are reported
GAME_CHECKS: tuple[Callable[[Section, GameSettings], None], ...] = (
    _check_chip_multiples,
    _check_blinds,
    _check_limit_bets,
    _check_options_without_effect,
    _check_buy_ins,
)


def _read_clock(clock: Section) -> ClockSettings:
    seconds = clock.get_int("seconds", 60, 1, 3600)
    warning = clock.get_int("warning", 10, 0, 3600)
    if clock.ok("seconds", "warning") and warning >= seconds:
        clock.fail("warning", f"must be less than clock.seconds ({seconds}), got {warning}")
    return ClockSettings(
        seconds=seconds,
        warning=warning,
        on_expiry=cast(ExpiryAction, clock.get_choice("on_expiry", EXPIRY_ACTIONS, "fold")),
        shot_clock=clock.get_bool("shot_clock", False),
        time_banks=clock.get_int("time_banks", 0, 0, 100),
        time_bank_seconds=clock.get_int("time_bank_seconds", 30, 1, 3600),
    )


#: fees.rake_cap when not given: 5, rounded up to a multiple of the smallest chip so
#: that the default fits every table (25 with 25-unit chips)
RAKE_CAP_DEFAULT = 5


def _read_fees(fees: Section, chip: int | None) -> FeeSettings:
    unit = chip or 1
    settings = FeeSettings(
        mode=cast(FeeMode, fees.get_choice("mode", FEE_MODES, "none")),
        rake_percent=fees.get_int("rake_percent", 10, 0, 100),
        rake_cap=_money(fees, "rake_cap", -(-RAKE_CAP_DEFAULT // unit) * unit, lo=0),
        no_flop_no_drop=fees.get_bool("no_flop_no_drop", True),
        jackpot_drop=_money(fees, "jackpot_drop", 0, lo=0),
        jackpot_min_pot=_money(fees, "jackpot_min_pot", 0, lo=0),
    )
    # a fee setting is checked only when its mode is on: a table without rake may keep
    # a rake_cap that would not fit its chips
    if chip is not None and settings.mode == "rake" and fees.ok("mode"):
        for key in ("rake_cap", "jackpot_drop", "jackpot_min_pot"):
            amount = getattr(settings, key)
            if fees.ok(key) and amount % chip:
                fees.fail(key, f"must be a multiple of game.smallest_chip ({chip}), got {amount}")
    if settings.mode == "none" and settings.jackpot_drop and fees.ok("mode", "jackpot_drop"):
        fees.warn("jackpot_drop", "is not taken while fees.mode is none")
    return settings
