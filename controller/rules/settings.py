"""The rule knobs of docs/rulebook.md, as one frozen value the rules core is built with.

The shell (``controller.config``) reads YAML into this; the rules core never reads
files. Every default here is the rule book's default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Structure = Literal["no_limit", "pot_limit", "fixed_limit"]
Form = Literal["flop", "draw", "triple_draw"]
ButtonMethod = Literal["dead", "moving"]
ExpiryAction = Literal["fold", "check_or_fold"]
FeeMode = Literal["none", "rake", "time"]
MissedReturn = Literal["post_or_wait", "post_only"]
MissedSmall = Literal["dead", "live"]
OutOfTurn = Literal["reject", "record"]
AnteForm = Literal["each", "big_blind"]

#: ``dealer.tip_confirm_big_blinds``: a tip over this many big blinds is confirmed on the
#: keypad with its amount on the display (0: never asked), and the most it may be set to.
DEFAULT_TIP_CONFIRM_BIG_BLINDS = 10
MAX_TIP_CONFIRM_BIG_BLINDS = 1000


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockSettings:
    """P6: the action clock."""

    seconds: int = 60
    warning: int = 10
    on_expiry: ExpiryAction = "fold"
    shot_clock: bool = False  # time every decision, not only when the clock is called
    time_banks: int = 0  # shot-clock extensions per player per session
    time_bank_seconds: int = 30


@dataclass(frozen=True, slots=True, kw_only=True)
class FeeSettings:
    """House fees: rake with cap and no-flop-no-drop, jackpot drop, or a time fee."""

    mode: FeeMode = "none"
    rake_percent: int = 10
    rake_cap: int = 5
    no_flop_no_drop: bool = True
    jackpot_drop: int = 0
    jackpot_min_pot: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class GameSettings:
    """The `game:` section: stakes, structure and every table-rule knob."""

    structure: Structure = "no_limit"
    form: Form = "flop"  # the betting rounds (state.ROUNDS)
    big_blind: int = 2
    small_blind: int | None = None  # None: big_blind // 2 rounded down to smallest_chip
    small_bet: int | None = None  # fixed_limit: default big_blind
    big_bet: int | None = None  # fixed_limit: default 2 x small_bet
    button: ButtonMethod = "dead"
    first_button: int | Literal["last_seat", "puck"] = "last_seat"
    smallest_chip: int = 1
    new_player_post_multiple: int = 1  # B4
    missed_blind_return: MissedReturn = "post_or_wait"  # B10 / B10a
    missed_small_blind: MissedSmall = "dead"  # B10
    straddle: bool = False  # B15
    straddle_in_limit: bool = False  # B15
    seat_change_post: bool = True  # B14: False (lowball): no post to skip a move's wait
    seat_change_kill: bool = False  # B14 lowball: a move may kill the pot (entry: kill)
    check_raise: bool = True  # R1
    max_raises_big_bet: int | None = None  # R2: raises per round in no/pot limit
    limit_cap_raises: int | None = None  # R3: None means the form's default (cap_raises)
    out_of_turn: OutOfTurn = "reject"  # R10
    lose_right_to_act: bool = False  # R11: with out_of_turn record, three acting behind
    min_buy_in: int | None = None
    max_buy_in: int | None = None
    max_absent_hands: int | None = None
    ante: int = 0  # A1: 0 = no ante
    ante_form: AnteForm = "each"  # A1: every player dealt in; A2: the big blind alone

    @property
    def sb_amount(self) -> int:
        if self.small_blind is not None:
            return self.small_blind
        half = self.big_blind // 2
        return half - half % self.smallest_chip

    @property
    def cap_raises(self) -> int:
        """R3: raises after the bet in a fixed-limit round while three or more play:
        four in a game of two betting rounds (``form: draw``), three otherwise."""
        if self.limit_cap_raises is not None:
            return self.limit_cap_raises
        return 4 if self.form == "draw" else 3

    @property
    def small_bet_amount(self) -> int:
        return self.small_bet if self.small_bet is not None else self.big_blind

    @property
    def big_bet_amount(self) -> int:
        return self.big_bet if self.big_bet is not None else 2 * self.small_bet_amount


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerSettings:
    """The `dealer:` section: the push reminder (``controller.rules.ops``) and the size
    of tip the keypad asks to confirm (``controller.rules.keypad.tips``)."""

    push_minutes: int | None = None  # a dealer's time at the table before the push; None: off
    # a tip over this many big blinds asks the dealer to confirm it (0: never asks)
    tip_confirm_big_blinds: int = DEFAULT_TIP_CONFIRM_BIG_BLINDS


@dataclass(frozen=True, slots=True, kw_only=True)
class Level:
    """One level of a tournament's structure (T1): how long it lasts and its stakes."""

    minutes: int
    small_blind: int
    big_blind: int
    ante: int = 0
    smallest_chip: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentSettings:
    """The `tournament:` section (T1-T8): the structure, the stacks, rebuys and add-on."""

    starting_stack: int
    levels: tuple[Level, ...]
    single_table: bool = False
    breaks: tuple[tuple[int, int], ...] = ()  # (after level, minutes), in level order
    rebuy_levels: int = 0  # T6: rebuys allowed through this level (0: none)
    rebuy_chips: int = 0
    add_on_chips: int = 0  # T6: at the break that ends the rebuy period (0: none)
    id: str | None = None  # the tournament's name on the floor (its tables share it)

    def break_after(self, level: int) -> int:
        """The minutes of the break after ``level`` (0: none)."""
        return dict(self.breaks).get(level, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleSettings:
    """Everything the rules core needs to know about the table."""

    table_id: str = "T1"
    seats: int = 9
    game: GameSettings = field(default_factory=GameSettings)
    clock: ClockSettings = field(default_factory=ClockSettings)
    fees: FeeSettings = field(default_factory=FeeSettings)
    dealer: DealerSettings = field(default_factory=DealerSettings)
    tournament: TournamentSettings | None = None  # None: a cash table
