"""Main and side pots, and paying them.

Pots are derived, never stored: from each dealt seat's live chips gathered on earlier
streets, which of those seats are still in, and the dead money (dead blinds), which
stays in the main pot. Each all-in caps a pot; seats that folded leave their chips
behind but win nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """A pot: its chips and the seats that can win it (the main pot first, then the side pots)."""

    amount: int
    eligible: tuple[int, ...]


def build_pots(
    contributions: Mapping[int, int],
    live: Iterable[int],
    all_in: Iterable[int],
    dead_money: int = 0,
) -> list[Pot]:
    """Layer the contributions into a main pot and side pots, in order.

    Written with plain loops (no ``min``/``sorted`` per level): every hand builds its
    pots at least once, at the award or when the last opponent folds."""
    live_set = set(live)
    caps = sorted({contributions[s] for s in all_in if s in live_set and contributions[s] > 0})
    amounts = list(contributions.values())
    top = max(amounts, default=0)
    if not caps or caps[-1] < top:
        caps.append(top)
    pots: list[Pot] = []
    previous = 0
    for level in caps:
        # each contribution's part between the previous level and this one
        amount = 0
        for c in amounts:
            if c > previous:
                amount += (c if c < level else level) - previous
        eligible = tuple(sorted([s for s in live_set if contributions.get(s, 0) >= level]))
        previous = level
        if amount <= 0:
            continue
        if not eligible and pots:
            # chips above every live seat's contribution (left by seats that folded)
            last = pots.pop()
            pots.append(Pot(last.amount + amount, last.eligible))
        else:
            # a new pot: every level below the top is a live all-in seat's contribution,
            # so that seat can win this pot and not the next; no two pots have the same
            # seats (tests/test_pots.py)
            pots.append(Pot(amount, eligible or tuple(sorted(live_set))))
    if dead_money:
        if pots:
            pots[0] = Pot(pots[0].amount + dead_money, pots[0].eligible)
        else:
            pots.append(Pot(dead_money, tuple(sorted(live_set))))
    return pots


def clockwise_from(start: int, seats: Iterable[int], table_seats: int) -> list[int]:
    """``seats`` ordered clockwise beginning with the first seat after ``start``."""
    return sorted(seats, key=lambda s: (s - start - 1) % table_seats)


def split(
    amount: int, winners: Sequence[int], button: int, table_seats: int, chip: int
) -> dict[int, int]:
    """Share ``amount`` among ``winners`` in whole smallest chips.

    Odd chips go one each to the tied winners first clockwise from the button
    (the usual card-room ruling).
    """
    units, rest = divmod(amount, chip)
    share, odd = divmod(units, len(winners))
    paid = {seat: share * chip for seat in winners}
    if odd or rest:  # most pots split evenly: no need to order the winners
        order = clockwise_from(button, winners, table_seats)
        for seat in order[:odd]:
            paid[seat] += chip
        if rest:  # below the smallest chip: cannot happen with whole-chip stacks
            paid[order[0]] += rest
    return paid


def take_fees(pots: list[Pot], fee: int) -> list[Pot]:
    """Take ``fee`` from the main pot first, then the side pots in order."""
    if not fee:
        return pots  # most hands pay no fee: the pots stay as they are
    taken = []
    for pot in pots:
        cut = min(fee, pot.amount)
        fee -= cut
        taken.append(Pot(pot.amount - cut, pot.eligible))
    return taken
