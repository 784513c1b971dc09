"""The shift's meters (issue 24): every chip that enters or leaves the players' stacks,
other than from one player to another (pots, transfers), is in exactly one meter, and
credited to exactly one seat and at most one dealer.

Random sessions through the real rules core (``tests/rules_fuzz.py``: seating, hands,
rake or time fees, rebuys, departures, misdeals, undos, transfers, tips, dealers
signing in and out, shifts opened and closed, junk), checked after every event:

- the meters are the ledger's changes since the last shift close (the journal's start
  before any), and a close's report holds them all: every change in exactly one shift;
- the chips on the table (stacks, chips bought waiting to play, bets, pots) changed
  since the shift began by exactly buy_ins - cash_outs - rake - jackpot - time_fees
  - tips (the state's ``meters``);
- the seats' parts of buy-ins, cash-outs, time fees and tips add up to the meters;
- each dealer's part is what changed the meters while the dealer was signed in
  between hands, or in the hands the dealer dealt (the test's own reckoning);
- a closed shift's report holds the meters as they were at the close.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules import Table, state_view
from controller.rules.meters import METERS
from controller.rules.state import TableState
from tests.rules_fuzz import (
    Chooser,
    RandomChooser,
    apply_checked,
    next_event,
    opening,
    random_settings,
)

SEAT_METERS = ("buy_ins", "cash_outs", "time_fees", "tips")


class DataChooser:
    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))

    def pick(self, options):  # type: ignore[no-untyped-def]
        return options[self.data.draw(st.integers(0, len(options) - 1))]


def on_table(state: TableState) -> int:
    """The chips in the players' hands: stacks, chips bought not yet playing, bets and
    the pots (dead money and every player's antes, A1, included)."""
    total = sum(s.stack + s.pending_chips + s.bet + s.gathered for s in state.seats.values())
    if state.hand is None:
        return total
    antes = sum(p["dead"] for p in state.hand.posts if p["kind"] == "ante")
    return total + state.hand.dead_money + antes


def session(c: Chooser, steps: int) -> Table:
    table = Table(random_settings(c))
    tally = Tally()
    for obj in opening(table.settings, c):
        tally.play(table, obj)
    for _ in range(steps):
        obj = next_event(c, table) if c.integer(0, 9) else _ops_event(c, table)
        if tally.play(table, obj):
            check(table, tally)
    return table


def ledger(state: TableState) -> dict[str, int]:
    """The ledger's totals since the journal began, by meter."""
    return {
        "hands": state.hand_number,
        "rake": state.rake_total,
        "jackpot": state.jackpot_total,
        "time_fees": state.time_fees_total,
        "tips": state.tips_total,
        "buy_ins": state.bought_in,
        "cash_outs": state.cashed_out,
    }


class Tally:
    """The test's own reckoning: what each shift's meters hold (the ledger's changes
    since the last close, the journal's start before any), and whose each change is
    (during a hand the dealer signed in when it was dealt, between hands the one signed
    in, nobody's when none was)."""

    def __init__(self) -> None:
        self.at_start = 0  # the chips on the table when the shift began
        self.ledger_at_start = dict.fromkeys(METERS, 0)
        self.dealers: dict[str | None, dict[str, int]] = {}
        self.dealt_by: str | None = None
        self.tipped_to: str | None = None  # who was signed in at the last tip

    def play(self, table: Table, obj: dict) -> bool:
        state = table.state
        before = ledger(state)
        signed_in, in_hand, hands = state.dealer, state.hand is not None, state.hand_number
        reports = len(state.shifts), state.shifts[-1]["shift"] if state.shifts else None
        if not apply_checked(table, obj):
            return False
        state = table.state  # a misdeal puts a table restored from before the hand in place
        whose = self.dealt_by if in_hand else signed_in
        after = ledger(state)
        if after["tips"] > before["tips"]:  # a tip (only a tip adds to the tips)
            self.tipped_to = signed_in
        elif after["tips"] < before["tips"]:  # a tip put right: the tip's dealer's
            whose = self.tipped_to
        part = self.dealers.setdefault(whose, dict.fromkeys(METERS, 0))
        self.dealers.setdefault(signed_in, dict.fromkeys(METERS, 0))  # (time signed in)
        for name in METERS:
            part[name] += after[name] - before[name]
        if table.state.hand_number != hands:  # a hand was dealt, by the dealer signed in
            self.dealt_by = signed_in
        closed = state.shifts[-1] if state.shifts else None
        if closed is not None and (len(state.shifts), closed["shift"]) != reports:
            # a close: its report holds every change since the shift began, then the
            # next shift's meters start
            since = {name: after[name] - self.ledger_at_start[name] for name in METERS}
            assert {name: closed["table"][name] for name in METERS} == since
            self.at_start = on_table(state)
            self.ledger_at_start = after
            self.dealers = {}
        return True


def _ops_event(c: Chooser, table: Table) -> dict:
    """Operations often enough that shifts open and close in most sessions."""
    taken = sorted(table.state.seats) or [1]
    chip = table.settings.game.smallest_chip
    return c.pick(
        (
            {"type": "tip", "seat": c.pick(taken), "amount": chip * c.integer(1, 3)},
            {"type": "tip_correction", "amount": chip * c.integer(0, 2), "by": "S1"},
            {"type": "dealer", "id": c.pick(("D1", "D2"))},
            {
                "type": "shift",
                "action": c.pick(("open", "close")),
                "counts": {str(chip): c.integer(1, 50)},
                "by": "S1",
                "witness": "S2",
            },
        )
    )


def check(table: Table, tally: Tally) -> None:
    state = table.state
    meters = state_view(table)["meters"]
    now = ledger(state)
    assert meters == {name: now[name] - tally.ledger_at_start[name] for name in METERS}
    entered = meters["buy_ins"]
    left = sum(meters[m] for m in ("cash_outs", "rake", "jackpot", "time_fees", "tips"))
    assert on_table(state) - tally.at_start == entered - left, (meters, on_table(state))
    seats = state.shift["seats"].values()
    for name in SEAT_METERS:
        assert sum(part[name] for part in seats) == meters[name], name
    parts = state.shift["dealers"]
    for dealer, expected in tally.dealers.items():
        if dealer is None:
            continue
        got = {name: parts[dealer][name] for name in METERS} if dealer in parts else None
        assert got == expected or (got is None and not any(expected.values())), dealer
    assert set(parts) <= set(tally.dealers)
    if state.shifts:
        last = state.shifts[-1]
        assert set(last["table"]) >= set(METERS)
        assert last["close"] is not None and last["float"]["close"] is not None


@pytest.mark.slow  # a property test: 60 random streams (the seeded sessions below stay quick)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_chip_in_or_out_of_the_stacks_is_in_exactly_one_meter(data: st.DataObject) -> None:
    table = session(DataChooser(data), 150)
    # and the shift's record survives a snapshot
    again = TableState.from_dict(json.loads(json.dumps(table.state.to_dict())))
    assert again.to_dict() == table.state.to_dict()


def test_long_seeded_sessions_keep_the_meters() -> None:
    """Longer sessions than hypothesis draws, several shifts each."""
    closed = 0
    for seed in range(6):
        table = session(RandomChooser(random.Random(seed)), 1500)
        closed += len(table.state.shifts)
    assert closed > 0  # the sessions did close shifts


def test_a_shift_report_names_the_meters_the_seats_and_the_dealers() -> None:
    from controller.rules import RuleSettings, parse_event
    from controller.rules.settings import GameSettings

    table = Table(RuleSettings(game=GameSettings(big_blind=10, small_blind=5, smallest_chip=5)))
    for obj in (
        {"type": "dealer", "id": "D1"},
        {"type": "shift", "action": "open", "counts": {"5": 100}, "by": "S1", "witness": "S2"},
        {"type": "sit", "seat": 1, "player": "ana", "chips": 500},
        {"type": "sit", "seat": 2, "player": "bo", "chips": 500},
        {"type": "start_hand"},
        {"type": "tick", "ms": 120_000},
        {"type": "act", "seat": 2, "action": "fold"},
        {"type": "tip", "seat": 1, "amount": 5},
        {"type": "dealer", "id": "D2"},
        {"type": "leave", "seat": 2},
        {"type": "tray_fill", "amount": 200},
        {"type": "shift", "action": "close", "counts": {"5": 60}, "by": "S1", "witness": "S3"},
    ):
        table.apply(parse_event(obj))
    report = table.state.shifts[-1]
    assert report["before_open"] == dict.fromkeys(METERS, 0)  # opened before anything
    assert report["table"] == {
        "hands": 1,
        "rake": 0,
        "jackpot": 0,
        "time_fees": 0,
        "tips": 5,
        "buy_ins": 1000,
        "cash_outs": 495,
        "ms": 120_000,
        "hands_per_hour": 30.0,
    }
    assert report["seats"]["1"] == {
        "buy_ins": 500,
        "cash_outs": 0,
        "time_fees": 0,
        "tips": 5,
        "hands": 1,
        "players": ["ana"],
    }
    assert report["seats"]["2"]["cash_outs"] == 495
    assert report["dealers"]["D1"]["hands"] == 1 and report["dealers"]["D1"]["tips"] == 5
    assert report["dealers"]["D1"]["ms"] == 120_000
    assert report["dealers"]["D2"]["cash_outs"] == 495
    # float: 500 at open, 1000 sold, a fill of 200: 500 - 1000 + 200 = -300 expected
    assert report["float"] == {
        "open": 500,
        "sold": 1000,
        "fills": 200,
        "credits": 0,
        "expected": -300,
        "close": 300,
        "difference": 600,
    }


def test_a_hand_ended_by_a_binding_out_of_turn_action_credits_its_rake_to_the_dealer() -> None:
    """R10: the fold keyed out of turn binds when the action reaches its seat, after the
    event that brought it there; the rake of the hand it ends is the dealer's (found by
    the property test above: the shift's rake was more than the dealers' parts)."""
    from controller.rules import RuleSettings, parse_event
    from controller.rules.settings import FeeSettings, GameSettings

    game = GameSettings(big_blind=10, small_blind=5, smallest_chip=1, out_of_turn="record")
    fees = FeeSettings(mode="rake", rake_percent=10, rake_cap=100, no_flop_no_drop=False)
    table = Table(RuleSettings(seats=3, game=game, fees=fees))
    for obj in (
        {"type": "dealer", "id": "D1"},
        {"type": "sit", "seat": 1, "player": "ana", "chips": 1000},
        {"type": "sit", "seat": 2, "player": "bo", "chips": 1000},
        {"type": "sit", "seat": 3, "player": "cy", "chips": 1000},
        {"type": "start_hand"},  # button 3 (to act), blinds 1 and 2
        {"type": "act", "seat": 1, "action": "fold"},  # out of turn: recorded
    ):
        table.apply(parse_event(obj))
    out = table.apply(parse_event({"type": "act", "seat": 3, "action": "fold"}))
    assert [type(e).__name__ for e in out][:3] == ["Acted", "OutOfTurnSettled", "Acted"]
    assert table.state.hand is None  # seat 1's fold bound and ended the hand
    meters = state_view(table)["meters"]
    assert meters["rake"] == 1 and meters["hands"] == 1
    part = table.state.shift["dealers"]["D1"]
    assert {name: part[name] for name in METERS} == meters
