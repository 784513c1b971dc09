"""The ante posts (``controller.rules.antes``) where no scenario can reach them."""

from __future__ import annotations

from controller.commands.state import summary
from controller.daemon.recall import RecalledHand, as_text
from controller.rules import Table, antes, state_view
from controller.rules.events import Sit, StartHand
from controller.rules.settings import GameSettings, RuleSettings
from controller.rules.state import Hand, Seat
from controller.rules.view import display_lines

BB_ANTE = GameSettings(big_blind=10, ante=10, ante_form="big_blind")


def test_a_dead_big_blind_posts_no_ante() -> None:
    """A2: no big blind posted (none planned, or one of nothing), no ante. The
    table's own plans always post a big blind; the rule holds whatever plan comes."""
    seats = {5: Seat(player="luis", stack=1000)}
    for posts in ([], [{"seat": 5, "kind": "big_blind", "live": 0, "dead": 0}]):
        hand = Hand(number=1, dealt=[5], posts=list(posts))  # type: ignore[arg-type]
        assert antes.post_big_blind(hand, seats, 5, BB_ANTE) == []
        assert (seats[5].stack, hand.dead_money, len(hand.posts)) == (1000, 0, len(posts))


def test_the_big_blind_ante_follows_the_blind() -> None:
    seats = {5: Seat(player="luis", stack=15)}
    hand = Hand(
        number=1, dealt=[5], posts=[{"seat": 5, "kind": "big_blind", "live": 10, "dead": 0}]
    )
    seats[5].stack, seats[5].bet = 5, 10
    posted = antes.post_big_blind(hand, seats, 5, BB_ANTE)
    assert [(e.seat, e.kind, e.live, e.dead) for e in posted] == [(5, "big_blind_ante", 0, 5)]  # type: ignore[attr-defined]
    assert (seats[5].stack, seats[5].all_in, hand.dead_money) == (0, True, 5)
    assert hand.posts[-1] == {"seat": 5, "kind": "big_blind_ante", "live": 0, "dead": 5}


def test_no_ante_no_post() -> None:
    seats = {2: Seat(player="ana", stack=100), 5: Seat(player="luis", stack=100)}
    hand = Hand(number=1, dealt=[2, 5])
    assert antes.post_each(hand, seats, (2, 5), GameSettings()) == []
    assert antes.post_each(hand, seats, (2, 5), BB_ANTE) == []
    assert [s.stack for s in seats.values()] == [100, 100] and hand.posts == []


def _table(**game: object) -> Table:
    table = Table(RuleSettings(game=GameSettings(big_blind=10, smallest_chip=5, **game)))  # type: ignore[arg-type]
    for seat in (2, 5, 8):
        table.apply(Sit(seat=seat, player=f"p{seat}", chips=1000))
    return table


def test_the_display_names_the_ante_between_hands() -> None:
    """The dealer collects the antes at the deal: the display says which, with READY."""
    each, big_blind = _table(ante=5), _table(ante=10, ante_form="big_blind")
    assert display_lines(each) == ["READY", "ANTE 5 EACH"]
    assert display_lines(each, "es") == ["LISTO", "ANTE 5 CADA UNO"]
    assert display_lines(big_blind) == ["READY", "BIG BLIND ANTE 10"]
    assert display_lines(big_blind, "es") == ["LISTO", "ANTE DE CIEGA GRANDE 10"]
    assert display_lines(_table()) == ["READY"]
    each.apply(StartHand())
    assert display_lines(each) == ["SEAT 8 TO ACT", "CALL 10"]


def test_recall_lists_the_antes_with_the_posts() -> None:
    """The recall's posts line: an ante as "ante seat N AMOUNT" (all of it dead),
    the blinds as before."""
    started = {"wall": "2026-12-07 10:00:00Z", "clock_synced": True}
    hand = RecalledHand(hand=1, first_seq=4, last_seq=9, started=started, button=8, small_blind=2)
    hand.big_blind, hand.dealt = 5, [2, 5, 8]
    hand.posts = [
        {"seat": 2, "kind": "ante", "live": 0, "dead": 5},
        {"seat": 2, "kind": "small_blind", "live": 5, "dead": 0},
        {"seat": 5, "kind": "big_blind", "live": 10, "dead": 0},
    ]
    assert "  posts: ante seat 2 5; SB seat 2 5; BB seat 5 10" in as_text([hand]).splitlines()


def test_tablectl_state_lists_the_antes_under_the_positions() -> None:
    table = _table(ante=10, ante_form="big_blind")
    table.apply(StartHand())
    lines = summary(state_view(table), 7).splitlines()
    at = lines.index("button seat 8, SB seat 2, BB seat 5")
    assert lines[at + 1 : at + 3] == ["antes: seat 5 10", "pot total 25: main 10 [2 5 8]"]
