"""Button, blinds and who is dealt in, hand after hand (docs/rulebook.md section B and
"Positions, precisely").

``plan_hand`` looks at the table between hands and returns a ``HandPlan``: the button,
the blinds, the seats dealt in (in dealing order, P1), every post with its live and
dead parts, and the missed-blind markers the hand leaves behind. It changes nothing;
``controller.rules.hand`` carries the plan out.

Theory of operation. A plan is made in three steps:

1. *Placement.* Where the button and the blinds go, from last hand's positions.
   Dead button (the default):
     BB(n)     = the next due seat after BB(n-1); absent seats it skips get "big".
     SB(n)     = the seat of BB(n-1) while the same player sits there; none if that
                 player left or moved, none plus "small" if they are away.
     button(n) = the small-blind position of hand n-1, empty or not; if that is the
                 BB's seat (coming back from heads-up), the nearest seat
                 counter-clockwise from the SB position that is not the BB's.
   Moving button: the button moves clockwise to the next player who was dealt in last
   hand, in the seat they have now (a player who moved counts in the new seat), whether
   or not they play this hand (away: a dead button); the SB is the next player after it
   who may play without posting, the BB the next due player after the SB (absent seats
   it skips get "big"; there are no "small" markers).
   A seat is *due* when its player would play if the BB reached it: present, with
   chips (new players and returning players waiting for the BB included).
2. *Who is dealt in.* The blinds; every player entitled to play; then, outside the
   seats behind the blinds (B7), a player who owes a post because a dealer kept a
   mistaken deal (B11), new players in a game's free first orbit (B13), and new,
   returning or moved players who chose to post (B4, B10, B14).
3. *Heads-up.* With two players dealt in, B3 overrides the placement.

When fewer than two players could be dealt in, play has stopped for want of two
players, and the hand is the first of a new game: every seated player with chips is
dealt in (B13, docs/rulebook.md).

After a misdeal the voided hand's plan is dealt again as it was (same button, blinds,
posts and seats dealt in), so a player who sat down meanwhile waits (B7); only when a
player of that plan is no longer there to play it is the hand planned afresh.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

from controller.rules.betting import playable
from controller.rules.records import PlanRecord, PostKind, PostRecord
from controller.rules.settings import RuleSettings
from controller.rules.state import Seat, TableState
from controller.rules.text import refuse


@dataclass(frozen=True, slots=True)
class Post:
    """A forced bet a hand's plan asks of a seat: its kind, the live part and the dead part."""

    seat: int
    kind: PostKind
    live: int
    dead: int


@dataclass(frozen=True, slots=True)
class HandPlan:
    """Where a new hand puts the button and blinds, who is dealt in, what each seat posts, and
    what it settles."""

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
    kill: int | None = None  # lowball seat change: the seat killing the pot (entry: kill)


@dataclass
class Placement:
    """The button and blinds being worked out for the next hand, with the blinds found missed
    on the way."""

    button: int
    small_blind: int | None
    sb_position: int
    big_blind: int
    missed: list[tuple[int, str]] = field(default_factory=list)


def ring(after: int, seats: int) -> list[int]:
    """Seat numbers clockwise starting with the one after ``after``, ending with it."""
    return [(after + step) % seats + 1 for step in range(seats)]


def distance(start: int, end: int, seats: int) -> int:
    """Steps clockwise from ``start`` to ``end`` (0 when equal)."""
    return (end - start) % seats


def between(start: int, end: int, seats: int) -> list[int]:
    """Seats strictly between ``start`` and ``end`` going clockwise."""
    return ring(start, seats)[: max(distance(start, end, seats) - 1, 0)]


def counter_clockwise(start: int, seats: int) -> Iterator[int]:
    """Seat numbers counter-clockwise starting with the one before ``start``."""
    for step in range(1, seats):
        yield (start - step - 1) % seats + 1


class Planner:
    """One planning pass over the table; holds the small pieces of shared context."""

    def __init__(self, state: TableState, settings: RuleSettings) -> None:
        self.state = state
        self.seats: Mapping[int, Seat] = state.seats
        self.pos = state.positions
        self.n = settings.seats
        self.game = settings.game
        self.chip = settings.game.smallest_chip
        self.moving = settings.game.button == "moving"
        # T3: at a tournament table a player away is dealt in (and folded), owes nothing
        self.tournament = settings.tournament is not None
        # worked out once: every step of the plan asks who is present, often twice
        self.due = frozenset(
            number
            for number, s in state.seats.items()
            if (not s.away or self.tournament) and playable(s.stack, self.chip) > 0
        )

    # -- who is who --------------------------------------------------------------

    def present(self, seat: int) -> bool:
        """Due for the big blind: seated, not away, with chips that play (``due``)."""
        return seat in self.due

    def entitled(self, seat: int) -> bool:
        """May be dealt in anywhere without posting: owes nothing, waits for nothing."""
        if seat not in self.due:
            return False
        if self.tournament:  # T3, T5: every player with chips plays, owing nothing
            return True
        s = self.seats[seat]
        return not s.fresh and not s.owes and s.wait_hands == 0

    def free_first_orbit(self, seat: int) -> bool:
        """B13: a new player whose seat no blind has passed since the game started."""
        s = self.seats[seat]
        return s.fresh and self.state.bb_travel < self.n and seat not in self.state.passed

    def marks(self, seat: int) -> bool:
        """An absent player collects markers unless never dealt in (B5); none at a
        tournament table (T3)."""
        if self.tournament:
            return False
        s = self.seats.get(seat)
        return s is not None and not self.present(seat) and not s.fresh and not s.pending_leave

    def away_at_start(self, seat: int) -> bool:
        """B13: at a game's first hand, a seated player not dealt in (away or busted)."""
        s = self.seats.get(seat)
        return s is not None and not self.present(seat) and not s.pending_leave

    def posted_last_big_blind(self, seat: int) -> bool:
        """The player in ``seat`` is the one who posted last hand's big blind."""
        s = self.seats.get(seat)
        return s is not None and self.pos.hand > 0 and s.last_bb_hand == self.pos.hand

    def dealt_last_hand(self, seat: int) -> bool:
        s = self.seats.get(seat)
        return s is not None and self.pos.hand > 0 and s.last_dealt_hand == self.pos.hand

    def dealing_order(self, button: int, dealt: set[int]) -> tuple[int, ...]:
        return tuple(s for s in ring(button, self.n) if s in dealt)

    # -- the plan -----------------------------------------------------------------

    def plan(self) -> HandPlan:
        present = sorted(self.due)
        if len(present) < 2:
            raise refuse("not_enough_players", "refuse.two_players")
        redeal = self.redeal()
        if redeal is not None:
            return redeal
        if not self.state.game_on or self.pos.big_blind is None:
            return self.first_hand(present)
        # B2: the button method, moving or dead (the default), chosen by ``game.button``
        placement = self.moving_positions() if self.moving else self.dead_positions()
        plan = self.deal(placement)
        if plan is None:
            # ruling: fewer than two could play, so play had stopped; a new game starts
            return self.first_hand(present)
        return plan

    def redeal(self) -> HandPlan | None:
        """The voided hand's plan, if every player it deals in is still here to play."""
        data = self.state.redeal
        if data is None:
            return None
        players = data["players"]
        for seat in data["dealt"]:
            s = self.seats.get(seat)
            if s is None or s.player != players[str(seat)] or not self.present(seat):
                return None
        plan = plan_from_dict(data)
        # markers only for players still there to collect them (others may have left)
        missed = tuple((seat, kind) for seat, kind in plan.missed if self.marks(seat))
        return replace(plan, missed=missed)

    def first_button(self, present: list[int]) -> int:
        choice = self.game.first_button
        if choice == "last_seat":
            return present[-1]
        if choice == "puck":
            if self.state.puck is None:
                raise refuse("puck_missing", "refuse.puck_missing")
            start = self.state.puck
        else:
            start = int(choice)
        if start in present:
            return start
        return next(s for s in ring(start, self.n) if s in present)

    def first_hand(self, present: list[int]) -> HandPlan:
        """B13, B16: the first hand of a game deals in every seated player with chips."""
        button = self.first_button(present)
        order = self.dealing_order(button, set(present))
        if len(present) == 2:
            sb, bb = button, order[0]
        else:
            sb, bb = order[0], order[1]
        # B13: every player seated when a game starts is in it (drew for the button), new
        # or not: one away whose seat the big blind passes (from the small blind on) misses it
        missed = tuple((s, "big") for s in between(sb, bb, self.n) if self.away_at_start(s))
        passed = ring(button, self.n)[: distance(button, bb, self.n)]
        return HandPlan(
            button=button,
            small_blind=sb,
            sb_position=sb,
            big_blind=bb,
            dealt=order,
            posts=self.blind_posts(sb, bb),
            missed=missed,
            settled=tuple(present),
            heads_up=len(present) == 2,
            first_of_game=True,
            passed=tuple(sorted(passed)),
            bb_travel=0,
        )

    def dead_positions(self) -> Placement:
        bb_prev = self.pos.big_blind
        assert bb_prev is not None
        missed: list[tuple[int, str]] = []
        bb = bb_prev
        for seat in ring(bb_prev, self.n):
            if self.present(seat):
                bb = seat
                break
            if self.marks(seat):
                missed.append((seat, "big"))
        sb: int | None = None
        if self.posted_last_big_blind(bb_prev):
            if self.present(bb_prev):
                sb = bb_prev
            elif self.marks(bb_prev):
                missed.append((bb_prev, "small"))
        button = self.pos.sb_position if self.pos.sb_position is not None else bb_prev
        if button == bb:
            # back from heads-up: the button may not sit with the big blind
            button = next((s for s in counter_clockwise(bb_prev, self.n) if s != bb), bb_prev)
        return Placement(button, sb, bb_prev, bb, missed)

    def moving_positions(self) -> Placement:
        assert self.pos.button is not None
        after_old = ring(self.pos.button, self.n)
        # docs/rules.md "B2 — Moving button": the next player dealt in last hand, in the seat they
        # have now, whether or not they play this hand; clockwise only. Ruling: the
        # search starts at last hand's small-blind seat, so that a player who moved into
        # the seats between last hand's button and small blind (behind the blinds) does
        # not take the button and make last hand's big blind post it again.
        sb_prev = self.pos.small_blind
        start = after_old.index(sb_prev) if sb_prev not in (None, self.pos.button) else 0
        button = next(
            (s for s in after_old[start:] if self.dealt_last_hand(s)),
            next((s for s in after_old if self.entitled(s)), self.pos.button),
        )
        around = ring(button, self.n)[:-1]  # every seat but the button's
        sb = next((s for s in around if self.entitled(s)), None)
        missed: list[tuple[int, str]] = []
        if sb is not None:
            for seat in around[around.index(sb) + 1 :]:
                if self.present(seat):
                    return Placement(button, sb, sb, seat, missed)
                if self.marks(seat):
                    missed.append((seat, "big"))
        # No big blind after a small blind: the first due player after the button is the
        # big blind and no small blind is posted. Of the absent players before it, the
        # first would have had the small blind; the others missed the big blind.
        missed = []
        small_slot = True
        for seat in around:
            if self.present(seat) and seat != sb:
                return Placement(button, None, button, seat, missed)
            if self.marks(seat):
                if not small_slot:
                    missed.append((seat, "big"))
                small_slot = False
        # only the button and the small blind can play: heads-up decides
        assert sb is not None
        return Placement(button, None, button, sb, [])

    def deal(self, place: Placement) -> HandPlan | None:
        button, sb, bb = place.button, place.small_blind, place.big_blind
        behind = set(between(button, bb, self.n)) | {button}
        dealt: set[int] = set()
        debtors: set[int] = set()  # dealt in while owing a blind or an entry
        posts: list[Post] = []
        settled: list[int] = []
        for seat in sorted(self.due):
            s = self.seats[seat]
            if seat == bb:
                dealt.add(seat)
                settled.append(seat)  # the big blind reaching a seat clears its debts
                if not self.entitled(seat):
                    debtors.add(seat)
            elif seat == sb or self.entitled(seat):
                dealt.add(seat)
            elif seat in behind:
                continue  # B7: wait until the button passes
            elif s.owes_post:
                # B11 keep ruling: the debt is paid at the next hand it may be, whatever
                # the entry chosen
                dealt.add(seat)
                debtors.add(seat)
                posts.append(self.owed_post(seat) or Post(seat, "owed", self.game.big_blind, 0))
                settled.append(seat)
            elif self.free_first_orbit(seat):
                dealt.add(seat)
            elif s.entry in ("post", "kill"):
                post = self.owed_post(seat) if s.entry == "post" else self.kill_post(seat, posts)
                if post is not None:
                    dealt.add(seat)
                    debtors.add(seat)
                    posts.append(post)
                    settled.append(seat)
        if len(dealt) < 2:
            return None
        if len(dealt) == 2:
            return self.heads_up(dealt, debtors, place)
        posts = list(self.blind_posts(sb, bb)) + self.penalty(bb) + posts
        passed, travel = self.travel(bb)
        kill = next((p.seat for p in posts if p.kind == "kill"), None)
        return HandPlan(
            button=button,
            small_blind=sb,
            sb_position=place.sb_position,
            big_blind=bb,
            dealt=self.dealing_order(button, dealt),
            posts=tuple(posts),
            missed=tuple(place.missed),
            settled=tuple(settled),
            heads_up=False,
            first_of_game=False,
            passed=passed,
            bb_travel=travel,
            kill=kill,
        )

    def heads_up(self, dealt: set[int], debtors: set[int], place: Placement) -> HandPlan | None:
        """B3: the player who had the big blind most recently takes the button.

        Ruling for the cases B3 does not name: a player dealt in while owing (new,
        returning, moved) takes the big blind, so that no one gets the button without
        having paid; with no such difference, the placement's big blind keeps it. When
        both owe, the one not taking the big blind would be dealt on the button (B7):
        only one can play, so play has stopped (None: a new game starts).
        """
        first, second = sorted(dealt)
        a, b = self.seats[first], self.seats[second]
        owing = dealt & debtors
        if len(owing) == 2:
            return None
        if len(owing) == 1:
            bb = owing.pop()
        elif a.last_bb_hand != b.last_bb_hand:
            bb = second if a.last_bb_hand > b.last_bb_hand else first
        else:
            # ``deal`` always deals in the placement's big blind: it keeps the big blind
            assert place.big_blind in dealt
            bb = place.big_blind
        button = second if bb == first else first
        posts = (
            Post(button, "small_blind", self.game.sb_amount, 0),
            Post(bb, "big_blind", self.game.big_blind, 0),
            *self.penalty(bb),
        )
        passed, travel = self.travel(bb)
        # the markers follow where the big blind really went
        bb_prev = self.pos.big_blind if self.pos.big_blind is not None else bb
        missed = [(s, kind) for s, kind in place.missed if kind == "small"]
        missed += [(s, "big") for s in between(bb_prev, bb, self.n) if self.marks(s)]
        return HandPlan(
            button=button,
            small_blind=button,
            sb_position=button,
            big_blind=bb,
            dealt=(bb, button),
            posts=posts,
            missed=tuple(missed),
            settled=(first, second),
            heads_up=True,
            first_of_game=False,
            passed=passed,
            bb_travel=travel,
        )

    def travel(self, bb: int) -> tuple[tuple[int, ...], int]:
        """B13: the seats the big blind has passed since the game started, and how far
        it has gone."""
        bb_prev = self.pos.big_blind if self.pos.big_blind is not None else bb
        steps = distance(bb_prev, bb, self.n)
        passed = set(self.state.passed) | set(ring(bb_prev, self.n)[:steps])
        return tuple(sorted(passed)), self.state.bb_travel + steps

    def blind_posts(self, sb: int | None, bb: int) -> tuple[Post, ...]:
        posts = []
        if sb is not None:
            posts.append(Post(sb, "small_blind", self.game.sb_amount, 0))
        posts.append(Post(bb, "big_blind", self.game.big_blind, 0))
        return tuple(posts)

    def penalty(self, bb: int) -> list[Post]:
        """B10a ruling: under ``post_only`` a seat coming back at its big blind still
        pays the small-blind-size penalty for the blinds it missed (003 C)."""
        s = self.seats[bb]
        if (
            self.game.missed_blind_return == "post_only"
            and not self.moving
            and (s.missed_big or s.missed_small)
        ):
            return [Post(bb, "penalty", 0, self.game.sb_amount)]
        return []

    def kill_post(self, seat: int, posts: list[Post]) -> Post | None:
        """B14, lowball (000 s.11 r.7; ``game.seat_change_kill``): a player waiting after
        a seat change kills the pot to play at once: a live kill blind of two big blinds,
        the hand at double the limits. One kill a hand (the others wait); a player owing
        a missed blind may not skip the wait (as with a post), nor one who cannot cover
        the kill blind (no kill for less; with every player's ante, A1, the ante as well)."""
        s = self.seats[seat]
        if not s.wait_hands or s.missed_big or s.missed_small or s.owes_post:
            return None
        ante = self.game.ante if self.game.ante_form == "each" else 0
        if playable(s.stack, self.chip) < 2 * self.game.big_blind + ante:
            return None
        if any(p.kind == "kill" for p in posts):
            return None
        return Post(seat, "kill", 2 * self.game.big_blind, 0)

    def owed_post(self, seat: int) -> Post | None:
        """What a new, returning or moved player posts to be dealt in now (B4, B10,
        B14), or None when posting cannot bring them in."""
        s = self.seats[seat]
        bb, sb = self.game.big_blind, self.game.sb_amount
        if s.wait_hands and (s.missed_big or s.missed_small) and not s.owes_post:
            return None  # B14: only a player who owes no missed blind may post to skip
        if s.missed_big:
            return Post(seat, "return", bb, 0 if self.moving else sb)
        if s.missed_small:
            if self.game.missed_small_blind == "live":
                return Post(seat, "return", sb, 0)
            return Post(seat, "return", 0, sb)
        if s.owes_post:
            return Post(seat, "owed", bb, 0)
        if s.fresh:
            extra = bb * (self.game.new_player_post_multiple - 1)
            return Post(seat, "entry", bb, extra)
        if s.wait_hands and self.game.seat_change_post:
            return Post(seat, "entry", bb, 0)
        return None  # B14 lowball (seat_change_post: false): wait, no post


def plan_to_dict(plan: HandPlan, state: TableState) -> PlanRecord:
    """The plan as plain JSON values, with the players it deals in (for a re-deal)."""
    return {
        "button": plan.button,
        "small_blind": plan.small_blind,
        "sb_position": plan.sb_position,
        "big_blind": plan.big_blind,
        "dealt": list(plan.dealt),
        "posts": [
            PostRecord(seat=p.seat, kind=p.kind, live=p.live, dead=p.dead) for p in plan.posts
        ],
        "missed": [[seat, kind] for seat, kind in plan.missed],
        "settled": list(plan.settled),
        "heads_up": plan.heads_up,
        "first_of_game": plan.first_of_game,
        "passed": list(plan.passed),
        "bb_travel": plan.bb_travel,
        "kill": plan.kill,
        "players": {str(seat): state.seats[seat].player for seat in plan.dealt},
    }


def plan_from_dict(data: PlanRecord) -> HandPlan:
    return HandPlan(
        button=data["button"],
        small_blind=data["small_blind"],
        sb_position=data["sb_position"],
        big_blind=data["big_blind"],
        dealt=tuple(data["dealt"]),
        posts=tuple(Post(**post) for post in data["posts"]),
        missed=tuple((int(seat), str(kind)) for seat, kind in data["missed"]),
        settled=tuple(data["settled"]),
        heads_up=data["heads_up"],
        first_of_game=data["first_of_game"],
        passed=tuple(data["passed"]),
        bb_travel=data["bb_travel"],
        kill=data.get("kill"),
    )


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
