"""House fees: rake with a cap and "no flop, no drop", the jackpot drop, or a time fee."""

from __future__ import annotations

from controller.rules.settings import FeeSettings


def hand_fees(settings: FeeSettings, pot: int, saw_flop: bool, chip: int) -> tuple[int, int]:
    """(rake, jackpot drop) taken from a hand whose pot, after uncalled bets, is ``pot``."""
    if settings.mode != "rake":
        return 0, 0
    rake = 0
    if saw_flop or not settings.no_flop_no_drop:
        rake = pot * settings.rake_percent // 100
        rake -= rake % chip
        rake = min(rake, settings.rake_cap)
    jackpot = 0
    if settings.jackpot_drop and saw_flop and pot >= settings.jackpot_min_pot:
        jackpot = min(settings.jackpot_drop, pot - rake)
    return rake, jackpot
