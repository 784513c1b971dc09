"""Button, blinds and who is dealt in, hand after hand (RULES.md section B and
"Positions, precisely").

``plan_hand`` looks at the table between hands and returns a ``HandPlan``: the button,
the blinds, the seats dealt in (in dealing order, P1), every post with its live and
dead parts, and the missed-blind markers the hand leaves behind. It changes nothing;
``controller.rules.hand`` carries the plan out.

Theory of operation (dead button, the default):
  BB(n) = the next due seat after BB(n-1); seats sitting out that it skips get "big".
  SB(n) = the seat of BB(n-1); dead when that player left, dead with "small" if away.
  button(n) = the small-blind position of hand n-1, empty or not.
Moving button: the button moves to the next player dealt in last hand and the blinds
follow it. Either way, a hand with only two players dealt in is heads-up (B3): the
player who had the big blind most recently takes the button and posts the small blind.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from controller.rules.betting import playable
from controller.rules.errors import Refusal
from controller.rules.settings import RuleSettings
from controller.rules.state import Seat, TableState


@dataclass(frozen=True)
class Post:
    seat: int
    kind: str  # small_blind | big_blind | entry | return | owed
    live: int
    dead: int


@dataclass(frozen=True)
class HandPlan:
    button: int
    small_blind: int | None
    sb_position: int
    big_blind: int
    dealt: tuple[int, ...]
    posts: tuple[Post, ...]
    missed: tuple[tuple[int, str], ...]
    settled: tuple[int, ...]  # seats whose missed blinds are paid or cleared by this hand
    heads_up: bool
    first_of_game: bool
    passed: tuple[int, ...]
    bb_travel: int


def ring(after: int, seats: int) -> Iterator[int]:
    """Seat numbers clockwise starting with the one after ``after``, ending with it."""
    for step in range(1, seats + 1):
        yield (after + step - 1) % seats + 1


def distance(start: int, end: int, seats: int) -> int:
    """Steps clockwise from ``start`` to ``end`` (0 when equal)."""
    return (end - start) % seats


def between(start: int, end: int, seats: int) -> list[int]:
    """Seats strictly between ``start`` and ``end`` going clockwise."""
    return [s for s in ring(start, seats) if s != end][: max(distance(start, end, seats) - 1, 0)]


class Planner:
    """One planning pass over the table; holds the small pieces of shared context."""

    def __init__(self, state: TableState, settings: RuleSettings) -> None:
        self.state = state
        self.seats: Mapping[int, Seat] = state.seats
        self.n = settings.seats
        self.game = settings.game
        self.chip = settings.game.smallest_chip

    # -- who is who --------------------------------------------------------------

    def present(self, seat: int) -> bool:
        s = self.seats.get(seat)
        return s is not None and not s.away and playable(s.stack, self.chip) > 0

    def continuing(self, seat: int) -> bool:
        """Entitled to be dealt in without posting anything."""
        s = self.seats[seat]
        return self.present(seat) and not s.fresh and not s.owes and s.wait_hands == 0

    def free_first_orbit(self, seat: int) -> bool:
        """B13: a new player whose seat no blind has passed since the game started."""
        s = self.seats[seat]
        return (
            s.fresh
            and self.state.game_on
            and self.state.bb_travel < self.n
            and seat not in self.state.passed
        )

    def owes_marker(self, seat: int) -> bool:
        """An absent seat collects markers unless it has never been dealt in (B5)."""
        s = self.seats.get(seat)
        return s is not None and not s.fresh and not s.pending_leave

    def dealing_order(self, button: int, dealt: set[int]) -> tuple[int, ...]:
        return tuple(s for s in ring(button, self.n) if s in dealt)

    # -- the plan -----------------------------------------------------------------

    def plan(self) -> HandPlan:
        present = [s for s in sorted(self.seats) if self.present(s)]
        if len(present) < 2:
            raise Refusal("not_enough_players", "NEED TWO PLAYERS WITH CHIPS TO DEAL")
        if not self.state.game_on or self.state.positions.big_blind is None:
            return self.first_hand(present)
        if self.game.button == "moving":
            button, sb, bb, missed = self.moving_positions()
            sb_position = sb if sb is not None else button
        else:
            button, sb, sb_position, bb, missed = self.dead_positions()
        return self.deal(button, sb, sb_position, bb, missed)

    def first_button(self, present: list[int]) -> int:
        choice = self.game.first_button
        if choice == "last_seat":
            return present[-1]
        if choice == "puck":
            if self.state.puck is None:
                raise Refusal("puck_missing", "PLACE THE BUTTON PUCK TO START THE GAME")
            start = self.state.puck
        else:
            start = int(choice)
        if start in present:
            return start
        return next(s for s in ring(start, self.n) if s in present)

    def first_hand(self, present: list[int]) -> HandPlan:
        button = self.first_button(present)
        order = self.dealing_order(button, set(present))
        if len(present) == 2:
            sb, bb = button, order[0]
        else:
            sb, bb = order[0], order[1]
        posts = self.blind_posts(sb, bb)
        passed = tuple(ring(button, self.n))[: distance(button, bb, self.n)]
        return HandPlan(
            button=button, small_blind=sb, sb_position=sb, big_blind=bb, dealt=order,
            posts=posts, missed=(), settled=tuple(present), heads_up=len(present) == 2,
            first_of_game=True, passed=passed, bb_travel=0,
        )

    def dead_positions(self) -> tuple[int, int | None, int, int, list[tuple[int, str]]]:
        pos = self.state.positions
        assert pos.big_blind is not None
        bb_prev = pos.big_blind
        missed: list[tuple[int, str]] = []
        bb = bb_prev
        for seat in ring(bb_prev, self.n):
            if self.present(seat):
                bb = seat
                break
            if seat in self.seats and self.owes_marker(seat):
                missed.append((seat, "big"))
        sb: int | None = None
        if bb_prev != bb and self.present(bb_prev):
            sb = bb_prev
        elif bb_prev in self.seats and self.owes_marker(bb_prev) and bb_prev != bb:
            missed.append((bb_prev, "small"))
        button = pos.sb_position if pos.sb_position is not None else bb_prev
        if button == bb:
            # back from heads-up: the nearest seat counter-clockwise from the SB that
            # is not the big blind's
            button = next(
                s for s in ((bb_prev - k - 1) % self.n + 1 for k in range(1, self.n))
                if s != bb
            )
        return button, sb, bb_prev, bb, missed

    def moving_positions(self) -> tuple[int, int | None, int, list[tuple[int, str]]]:
        pos = self.state.positions
        assert pos.button is not None
        last = set(pos.dealt)
        button = next(
            (s for s in ring(pos.button, self.n) if s in last and self.present(s)),
            next(s for s in ring(pos.button, self.n) if self.present(s)),
        )
        sb = next(
            (s for s in ring(button, self.n) if s != button and self.continuing(s)), None
        )
        missed: list[tuple[int, str]] = []
        bb = button
        for seat in ring(sb if sb is not None else button, self.n):
            if self.present(seat) and seat not in (sb, button):
                bb = seat
                break
            if seat in self.seats and not self.present(seat) and self.owes_marker(seat):
                missed.append((seat, "big"))
        if bb == button:
            raise Refusal("not_enough_players", "NEED TWO PLAYERS WITH CHIPS TO DEAL")
        return button, sb, bb, missed

    def deal(
        self, button: int, sb: int | None, sb_position: int, bb: int,
        missed: list[tuple[int, str]],
    ) -> HandPlan:
        behind = set(between(button, bb, self.n)) | {button}
        dealt: set[int] = set()
        posts: list[Post] = []
        settled: list[int] = []
        for seat in sorted(self.seats):
            if not self.present(seat):
                continue
            s = self.seats[seat]
            if seat in (bb, sb):
                dealt.add(seat)
                if seat == bb:
                    settled.append(seat)  # the big blind reaching a seat clears its debts
            elif self.continuing(seat):
                dealt.add(seat)
            elif seat in behind:
                continue  # B7: wait until the button passes
            elif self.free_first_orbit(seat):
                dealt.add(seat)
            elif s.owes or s.fresh or s.wait_hands:
                if s.entry == "post" or s.owes_post:
                    post = self.owed_post(seat)
                    if post is not None:
                        dealt.add(seat)
                        posts.append(post)
                        settled.append(seat)
        missed = [(seat, kind) for seat, kind in missed if seat not in dealt]
        if len(dealt) == 2:
            return self.heads_up(dealt, missed, bb)
        if len(dealt) < 2:
            raise Refusal("not_enough_players", "NEED TWO PLAYERS WITH CHIPS TO DEAL")
        posts = list(self.blind_posts(sb, bb)) + posts
        bb_prev = self.state.positions.big_blind or bb
        travel = distance(bb_prev, bb, self.n)
        passed = tuple(sorted(set(self.state.passed) | set(list(ring(bb_prev, self.n))[:travel])))
        return HandPlan(
            button=button, small_blind=sb, sb_position=sb_position, big_blind=bb,
            dealt=self.dealing_order(button, dealt), posts=tuple(posts),
            missed=tuple(missed), settled=tuple(settled), heads_up=False,
            first_of_game=False, passed=passed, bb_travel=self.state.bb_travel + travel,
        )

    def heads_up(
        self, dealt: set[int], missed: list[tuple[int, str]], candidate_bb: int
    ) -> HandPlan:
        """B3: the player who had the big blind most recently takes the button."""
        first, second = sorted(dealt)
        a, b = self.seats[first], self.seats[second]
        if a.last_bb_hand != b.last_bb_hand:
            button = first if a.last_bb_hand > b.last_bb_hand else second
        elif candidate_bb in dealt:
            button = second if candidate_bb == first else first
        else:
            button = first
        bb = second if button == first else first
        bb_prev = self.state.positions.big_blind or bb
        travel = distance(bb_prev, bb, self.n)
        passed = tuple(sorted(set(self.state.passed) | set(list(ring(bb_prev, self.n))[:travel])))
        return HandPlan(
            button=button, small_blind=button, sb_position=button, big_blind=bb,
            dealt=(bb, button), posts=self.blind_posts(button, bb), missed=tuple(missed),
            settled=(first, second), heads_up=True, first_of_game=False, passed=passed,
            bb_travel=self.state.bb_travel + travel,
        )

    def blind_posts(self, sb: int | None, bb: int) -> tuple[Post, ...]:
        posts = []
        if sb is not None:
            posts.append(Post(sb, "small_blind", self.game.sb_amount, 0))
        posts.append(Post(bb, "big_blind", self.game.big_blind, 0))
        return tuple(posts)

    def owed_post(self, seat: int) -> Post | None:
        """What a new, returning or moved player posts to be dealt in now (B4, B10, B14)."""
        s = self.seats[seat]
        bb, sb = self.game.big_blind, self.game.sb_amount
        if s.missed_big or s.owes_post:
            return Post(seat, "return", bb, sb if s.missed_big else 0)
        if s.missed_small:
            if self.game.missed_small_blind == "live":
                return Post(seat, "return", sb, 0)
            return Post(seat, "return", 0, sb)
        if s.fresh:
            extra = bb * (self.game.new_player_post_multiple - 1)
            return Post(seat, "entry", bb, extra)
        if s.wait_hands:
            return Post(seat, "entry", bb, 0)
        return None


def plan_hand(state: TableState, settings: RuleSettings) -> HandPlan:
    return Planner(state, settings).plan()


def hands_until_big_blind(state: TableState, settings: RuleSettings, seat: int) -> int:
    """B14: how many hands the big blind needs to reach ``seat`` (due seats counted)."""
    bb_prev = state.positions.big_blind
    if bb_prev is None:
        return 0
    planner = Planner(state, settings)
    count = 0
    for s in ring(bb_prev, settings.seats):
        if s == seat:
            return count + 1
        if planner.present(s):
            count += 1
    return count + 1
