"""Section `tournament:` -> `TournamentSettings` (docs/rulebook.md T1-T8).

The levels are read one by one with their bounds, then checked together: each level's
amounts are multiples of its smallest chip, the blinds never go down from one level to
the next, nor does the smallest chip (chips coloured up do not come back, T7). What a
tournament forbids elsewhere in the file (a moving button, T2; fees, T8) is checked by
`check_with_rules`, which reports at the offending option.
"""

from __future__ import annotations

from controller.config.reader import Section
from controller.rules.limits import MAX_AMOUNT
from controller.rules.settings import GameSettings, Level, TournamentSettings

MAX_LEVEL_MINUTES = 24 * 60
#: ``tournament.id``: the tournament's name on the floor, the same at each of its tables
TOURNAMENT_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,23}"
TOURNAMENT_ID_HELP = "a tournament name of 1 to 24 letters, digits, '_', '.' or '-' (like SUN-500)"
MAX_LEVELS = 100


def read_tournament(section: Section, game: GameSettings) -> TournamentSettings | None:
    """None on a cash table (no `tournament:` section)."""
    starting_stack = section.get_int(
        "starting_stack", 0, 1, MAX_AMOUNT, money=True, required=section.present
    )
    single_table = section.get_bool("single_table", False)
    name = section.get_optional_text(
        "id", pattern=TOURNAMENT_ID_PATTERN, pattern_help=TOURNAMENT_ID_HELP
    )
    items = section.get_section_list("levels", "level")
    breaks = section.get_int_map(
        "breaks", "level", (1, MAX_LEVELS), "break length in minutes", (1, MAX_LEVEL_MINUTES)
    )
    rebuy_levels = section.get_int("rebuy_levels", 0, 0, MAX_LEVELS)
    rebuy_chips = section.get_int("rebuy_chips", 0, 0, MAX_AMOUNT, money=True)
    add_on_chips = section.get_int("add_on_chips", 0, 0, MAX_AMOUNT, money=True)
    if not section.present:
        return None
    if items is None:
        section.fail("levels", "required, a list of levels ({minutes, small_blind, big_blind ...})")
        items = []
    elif not items and section.ok("levels"):
        section.fail("levels", "needs at least one level")
    levels = tuple(_read_level(item, game) for item in items)
    settings = TournamentSettings(
        starting_stack=starting_stack,
        levels=levels,
        single_table=single_table,
        breaks=tuple(sorted((level, entry.value) for level, entry in breaks.items())),
        rebuy_levels=rebuy_levels,
        rebuy_chips=rebuy_chips,
        add_on_chips=add_on_chips,
        id=name,
    )
    _check_levels(section, items, levels)
    _check_stacks(section, settings)
    return settings


def _read_level(item: Section, game: GameSettings) -> Level:
    minutes = item.get_int("minutes", 1, 1, MAX_LEVEL_MINUTES, required=True)
    big_blind = item.get_int("big_blind", 2, 1, MAX_AMOUNT, money=True, required=True)
    small_blind = item.get_int("small_blind", 1, 1, MAX_AMOUNT, money=True, required=True)
    ante = item.get_int("ante", 0, 0, MAX_AMOUNT, money=True)
    chip = item.get_int("smallest_chip", game.smallest_chip, 1, MAX_AMOUNT, money=True)
    level = Level(
        minutes=minutes, small_blind=small_blind, big_blind=big_blind, ante=ante, smallest_chip=chip
    )
    if item.ok("smallest_chip"):
        for key in ("small_blind", "big_blind", "ante"):
            amount = getattr(level, key)
            if item.ok(key) and amount % chip:
                item.fail(
                    key, f"must be a multiple of this level's smallest_chip ({chip}), got {amount}"
                )
    if item.ok("ante", "big_blind") and ante > big_blind:
        item.warn(
            "ante",
            f"more than this level's big_blind ({big_blind}), got {ante}: "
            "an ante is usually at most the big blind",
        )
    if item.ok("small_blind", "big_blind") and small_blind > big_blind:
        item.fail(
            "small_blind",
            f"must not be more than this level's big_blind ({big_blind}), got {small_blind}",
        )
    return level


def _check_levels(section: Section, items: list[Section], levels: tuple[Level, ...]) -> None:
    """T1: the levels in order: blinds and smallest chip never go down (the ante is not
    checked: the rule book fixes no order for it)."""
    for index in range(1, len(levels)):
        before, now, item = levels[index - 1], levels[index], items[index]
        for key in ("big_blind", "small_blind", "smallest_chip"):
            if (
                item.ok(key)
                and items[index - 1].ok(key)
                and getattr(now, key) < getattr(before, key)
            ):
                item.fail(
                    key,
                    f"levels out of order: less than level {index}'s {key} "
                    f"({getattr(before, key)}), got {getattr(now, key)}",
                )


def _check_stacks(section: Section, settings: TournamentSettings) -> None:
    """T5, T6: the stacks fit level 1's chip; rebuys and the add-on have what they need."""
    count = len(settings.levels)
    if settings.rebuy_levels and not settings.rebuy_chips and section.ok("rebuy_chips"):
        section.fail(
            "rebuy_chips", f"must be set: rebuys are allowed through level {settings.rebuy_levels}"
        )
    ends_rebuys = settings.rebuy_levels and settings.break_after(settings.rebuy_levels)
    checkable = section.ok("add_on_chips", "rebuy_levels", "breaks")
    if settings.add_on_chips and not ends_rebuys and checkable:
        section.fail(
            "add_on_chips",
            "the add-on is taken at the break that ends the rebuy period: needs "
            "rebuy_levels and a break after that level",
        )
    if not count:
        return
    first_chip = settings.levels[0].smallest_chip
    for key in ("starting_stack", "rebuy_chips", "add_on_chips"):
        amount = getattr(settings, key)
        if section.ok(key) and amount % first_chip:
            section.fail(
                key, f"must be a multiple of level 1's smallest_chip ({first_chip}), got {amount}"
            )
    for level, _ in settings.breaks:
        if level >= count and section.ok("breaks"):
            section.fail("breaks", f"a break after level {level}, but the last level is {count}")
    if settings.rebuy_levels > count and section.ok("rebuy_levels"):
        section.fail(
            "rebuy_levels",
            f"must be at most the number of levels ({count}), got {settings.rebuy_levels}",
        )


def check_with_rules(
    game: Section, fees: Section, button: str, fee_mode: str, max_absent_hands: int | None
) -> None:
    """T2 and T8: what a tournament forbids in the other sections; T3: what it ignores."""
    if button != "dead" and game.ok("button"):
        game.fail("button", "a tournament plays with the dead button (T2): remove button: moving")
    if max_absent_hands is not None and game.ok("max_absent_hands"):
        game.warn(
            "max_absent_hands",
            "has no effect at a tournament table: a player away is blinded off, never "
            "freed from his seat (T3)",
        )
    if fee_mode != "none" and fees.ok("mode"):
        fees.fail("mode", f"a tournament takes no fees (T8): must be none, got {fee_mode}")
