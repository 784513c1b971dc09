"""The rules of casino operations (``controller.rules.ops``, ``.meters``, ``.bust``)
through the rules core: who is credited with a hand's money, the tip shortcut, the
shift's history and float, the push reminder (issue 31)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.rules import Refusal, RuleSettings, Table, parse_event, state_view
from controller.rules.ops import KEPT_SHIFTS, shift_report
from controller.rules.settings import DealerSettings, FeeSettings, GameSettings

GAME = GameSettings(big_blind=10, small_blind=5, smallest_chip=5)
RAKE = FeeSettings(mode="rake", rake_percent=10, rake_cap=100, no_flop_no_drop=False)


def table_of(*events: dict[str, Any], **settings: Any) -> Table:
    table = Table(RuleSettings(**{"game": GAME, **settings}))
    play(table, *events)
    return table


def play(table: Table, *events: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for obj in events:
        out += table.apply(parse_event(obj))
    return out


def keys(table: Table, text: str) -> None:
    for key in text.split():
        table.apply(parse_event({"type": "key", "key": key}))


def counted(action: str, by: str = "S1", witness: str = "S2", fives: int = 100) -> dict[str, Any]:
    return {"type": "shift", "action": action, "counts": {"5": fives}, "by": by, "witness": witness}


SEATED = (
    {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
    {"type": "sit", "seat": 5, "player": "luis", "chips": 1000},
)


# -- item 1: the dealer who dealt the hand -------------------------------------------------


def test_a_hands_rake_goes_to_the_dealer_who_dealt_it_not_to_one_signed_in_during_it() -> None:
    table = table_of(
        {"type": "dealer", "id": "D311"},
        *SEATED,
        {"type": "start_hand"},  # button and SB 5, BB 2
        {"type": "dealer", "id": "D204"},  # signs in during the hand
        {"type": "act", "seat": 5, "action": "raise", "to": 100},
        {"type": "act", "seat": 2, "action": "call"},  # pot 200, the flop
        {"type": "act", "seat": 2, "action": "check"},
        {"type": "act", "seat": 5, "action": "bet", "to": 50},
        {"type": "act", "seat": 2, "action": "fold"},  # pot 200 after 50 returned: rake 20
        fees=RAKE,
    )
    assert state_view(table)["meters"]["rake"] == 20
    dealers = table.state.shift["dealers"]
    assert dealers["D311"]["rake"] == 20 and dealers["D311"]["hands"] == 1
    assert dealers.get("D204", {}).get("rake", 0) == 0


def test_chips_bought_and_taken_during_a_hand_are_the_hands_dealers_between_hands_the_new() -> None:
    table = table_of(
        {"type": "dealer", "id": "D311"},
        *SEATED,
        {"type": "sit", "seat": 7, "player": "cy", "chips": 500},
        {"type": "start_hand"},
        {"type": "dealer", "id": "D204"},
        {"type": "chips", "seat": 5, "amount": 100},  # plays from the next hand
        {"type": "leave", "seat": 7},  # in the hand: folds, leaves at its end
    )
    while table.state.hand is not None:  # the hand ends: cy's 500 leave with him
        play(table, {"type": "act", "seat": table.state.hand.to_act, "action": "fold"})
    play(table, {"type": "chips", "seat": 2, "amount": 200})
    dealers = table.state.shift["dealers"]
    assert (dealers["D311"]["buy_ins"], dealers["D311"]["cash_outs"]) == (2600, 500)
    assert (dealers["D204"]["buy_ins"], dealers["D204"]["cash_outs"]) == (200, 0)


# -- item 3: the tip shortcut ---------------------------------------------------------------


def won_by_luis() -> Table:
    return table_of(
        {"type": "dealer", "id": "D1"},
        *SEATED,
        {"type": "start_hand"},  # button and SB 5 (luis), BB 2 (ana)
        {"type": "act", "seat": 5, "action": "call"},
        {"type": "act", "seat": 2, "action": "check"},
        {"type": "act", "seat": 2, "action": "bet", "to": 10},
        {"type": "act", "seat": 5, "action": "raise", "to": 20},
        {"type": "act", "seat": 2, "action": "fold"},  # luis: 1010
    )


def test_the_tip_shortcut_takes_the_winner() -> None:
    table = won_by_luis()
    stack = table.state.seats[5].stack
    keys(table, "FUNC 7 ENTER 5 ENTER")
    assert table.state.seats[5].stack == stack - 5
    assert table.state.tips_total == 5


@pytest.mark.parametrize(
    ("meanwhile", "code"),
    [
        # the winner left and someone else sat in the seat
        (
            (
                {"type": "leave", "seat": 5},
                {"type": "sit", "seat": 5, "player": "new", "chips": 500},
            ),
            "bad_key",
        ),
        # the winner moved and someone else sat in the seat
        (
            (
                {"type": "move_seat", "from": 5, "to": 8},
                {"type": "sit", "seat": 5, "player": "new", "chips": 500},
            ),
            "bad_key",
        ),
        # the winner moved: the seat is empty
        (({"type": "move_seat", "from": 5, "to": 8},), "bad_key"),
    ],
    ids=["left_and_replaced", "moved_and_replaced", "moved"],
)
def test_the_tip_shortcut_is_refused_once_the_winner_is_no_longer_in_the_seat(
    meanwhile: tuple[dict[str, Any], ...], code: str
) -> None:
    table = won_by_luis()
    play(table, *meanwhile)
    stacks = {n: s.stack for n, s in table.state.seats.items()}
    keys(table, "FUNC 7")
    with pytest.raises(Refusal) as refused:
        keys(table, "ENTER")
    assert refused.value.code == code
    assert {n: s.stack for n, s in table.state.seats.items()} == stacks
    assert table.state.tips_total == 0


def test_enter_alone_never_picks_one_seat_of_a_split_pot() -> None:
    table = table_of(
        {"type": "dealer", "id": "D1"},
        *SEATED,
        {"type": "start_hand"},  # SB 5 (5), BB 2 (10)
        {"type": "act", "seat": 5, "action": "call"},
        {"type": "act", "seat": 2, "action": "check"},
        *(
            {"type": "act", "seat": 2, "action": "check"},
            {"type": "act", "seat": 5, "action": "check"},
        )
        * 3,
        {"type": "award", "ranking": [[2, 5]]},  # a pot of 20 split: 10 each
    )
    assert sorted(seat for _, seat, _ in table.state.payouts) == [2, 5]
    keys(table, "FUNC 7")
    with pytest.raises(Refusal) as refused:
        keys(table, "ENTER")
    assert refused.value.code == "bad_key"


# -- item 20: the shift history, the float, the push -----------------------------------------


def test_the_shift_history_keeps_the_newest_reports() -> None:
    table = table_of(*SEATED)
    for _ in range(KEPT_SHIFTS + 2):
        play(table, counted("open"), {"type": "chips", "seat": 2, "amount": 5}, counted("close"))
    numbers = [report["shift"] for report in table.state.shifts]
    assert numbers == list(range(3, KEPT_SHIFTS + 3))


def test_the_expected_float_takes_fills_in_and_credits_out() -> None:
    table = table_of(
        counted("open", fives=200),  # 1000
        *SEATED,  # 2000 sold
        {"type": "tray_fill", "amount": 1500},
        {"type": "tray_credit", "amount": 300},
        counted("close", fives=40),  # 200
    )
    assert table.state.shifts[-1]["float"] == {
        "open": 1000,
        "sold": 2000,
        "fills": 1500,
        "credits": 300,
        "expected": 1000 - 2000 + 1500 - 300,
        "close": 200,
        "difference": 200 - 200,
    }


def test_the_push_reminder_falls_due_when_a_tick_passes_the_due_time() -> None:
    table = table_of(*SEATED, {"type": "dealer", "id": "D1"}, dealer=DealerSettings(push_minutes=1))
    assert play(table, {"type": "tick", "ms": 59_000}) == []
    out = play(table, {"type": "tick", "ms": 5_000})  # one tick from 59 s to 64 s
    assert [type(e).__name__ for e in out] == ["PushDue"]
    assert state_view(table)["shift"]["push_due"] is True
    assert play(table, {"type": "tick", "ms": 60_000}) == []  # said once


# -- item 2: between a close and the next open ---------------------------------------------


def test_the_next_shifts_report_holds_what_happened_before_its_opening_count() -> None:
    table = table_of(
        {"type": "dealer", "id": "D1"},
        counted("open"),
        *SEATED,
        {"type": "tick", "ms": 60_000},
        counted("close"),  # shift 1: 2000 bought
        {"type": "tip", "seat": 2, "amount": 510},
        {"type": "chips", "seat": 5, "amount": 100},
        {"type": "tick", "ms": 30_000},
        counted("open", fives=80),  # 400 counted
        {"type": "chips", "seat": 2, "amount": 50},
        {"type": "tick", "ms": 30_000},
        counted("close", fives=70),  # 350
    )
    first, second = table.state.shifts
    assert (first["table"]["tips"], first["table"]["buy_ins"]) == (0, 2000)
    assert second["shift"] == 2
    assert second["start"] == {"hand": 0, "at_ms": 60_000}
    assert second["open"]["at_ms"] == 90_000
    assert second["before_open"] == {
        "hands": 0,
        "rake": 0,
        "jackpot": 0,
        "time_fees": 0,
        "tips": 510,
        "buy_ins": 100,
        "cash_outs": 0,
    }
    assert second["table"] == {
        "hands": 0,
        "rake": 0,
        "jackpot": 0,
        "time_fees": 0,
        "tips": 510,
        "buy_ins": 150,
        "cash_outs": 0,
        "ms": 60_000,
        "hands_per_hour": 0.0,
    }
    assert second["seats"]["2"]["tips"] == 510 and second["dealers"]["D1"]["tips"] == 510
    # the float is reckoned from the opening count: the chips sold after it
    assert second["float"] == {
        "open": 400,
        "sold": 50,
        "fills": 0,
        "credits": 0,
        "expected": 350,
        "close": 350,
        "difference": 0,
    }


def test_a_state_written_with_a_closed_shift_loads_as_the_next_shift() -> None:
    """Before a close started the next shift, the state kept the closed shift (its
    meters from its open) until the next open; such a state loads as the next shift,
    its meters from the close."""
    from controller.rules.state import TableState

    table = table_of(counted("open"), *SEATED, {"type": "tick", "ms": 1_000}, counted("close"))
    data = table.state.to_dict()
    report = data["shifts"][-1]
    data["shift"] = {  # as the earlier version wrote it after the close
        "number": 1,
        "open": report["open"],
        "close": report["close"],
        "base": dict.fromkeys(report["table"].keys() - {"ms", "hands_per_hour"}, 0),
        "seats": report["seats"],
        "dealers": {},
    }
    del report["start"], report["before_open"]
    loaded = Table(table.settings, TableState.from_dict(data))
    play(loaded, {"type": "tip", "seat": 2, "amount": 5})
    assert state_view(loaded)["shift"] == {"number": 2, "open": False, "push_due": False}
    assert state_view(loaded)["meters"]["tips"] == 5
    assert state_view(loaded)["meters"]["buy_ins"] == 0
    assert loaded.state.shift["start"] == {"hand": 0, "at_ms": 1_000}


# -- item 7: a wrong witness PIN keeps the count -------------------------------------------

PINS = {"1042": "2468", "2077": "1357"}


def supervised(*events: dict[str, Any]) -> Table:
    table = Table(RuleSettings(game=GAME), pin_verifier=lambda sid, pin: PINS.get(sid) == pin)
    play(table, *events)
    return table


OPEN_COUNT = "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 8 2 5 ENTER 4 0 ENTER 5 ENTER 3 ENTER ENTER"


def test_a_wrong_witness_pin_asks_again_and_the_count_is_kept() -> None:
    table = supervised(*SEATED)
    keys(table, OPEN_COUNT + " 2 0 7 7 ENTER 1 1 1 1 ENTER")
    assert table.state.shift["open"] is None
    assert table.state.keypad["pin_failures"] == 1
    keys(table, "1 3 5 7 ENTER")
    opened = table.state.shift["open"]
    assert opened is not None
    assert (opened["counts"], opened["by"], opened["witness"]) == (
        {"5": 3, "25": 40},
        "1042",
        "2077",
    )
    assert "pin_failures" not in table.state.keypad


def test_three_wrong_witness_pins_lock_the_menu_and_end_the_count() -> None:
    table = supervised(*SEATED)
    keys(table, OPEN_COUNT + " 2 0 7 7 ENTER 1 1 1 1 ENTER 2 2 2 2 ENTER")
    assert table.state.keypad["entry"]["step"] == "witness_pin"
    keys(table, "3 3 3 3 ENTER")
    assert "entry" not in table.state.keypad
    assert table.state.keypad["locked_until_ms"] == 300_000
    assert table.state.shift["open"] is None


# -- item 6: a tip put right -------------------------------------------------------------


def test_a_tip_put_right_comes_off_the_tipped_dealers_part_and_the_seats() -> None:
    table = won_by_luis()
    stack = table.state.seats[5].stack
    play(
        table,
        {"type": "tip", "seat": 5, "amount": 100},
        {"type": "dealer", "id": "D2"},  # signs in after the tip
    )
    out = play(table, {"type": "tip_correction", "amount": 10, "by": "1042"})
    assert [(type(e).__name__, e.seat, e.amount, e.was, e.dealer, e.by) for e in out] == [
        ("TipCorrected", 5, 10, 100, "D1", "1042")
    ]
    assert table.state.seats[5].stack == stack - 10
    dealers = table.state.shift["dealers"]
    assert dealers["D1"]["tips"] == 10
    assert dealers.get("D2", {}).get("tips", 0) == 0
    assert table.state.shift["seats"]["5"]["tips"] == 10
    assert state_view(table)["meters"]["tips"] == 10


NO_CARD = "FUNC 1 7 ENTER 5 0 0 ENTER ENTER 1"  # seat 7, 500, no player card, waits


def test_a_tip_is_not_put_right_to_the_next_player_in_the_seat_even_under_its_name() -> None:
    """Two players seated with no card in the same seat between the same two hands get
    the same name (SEAT7-H1): the second one never gets the first one's tip back."""
    table = won_by_luis()
    keys(table, NO_CARD)
    play(table, {"type": "tip", "seat": 7, "amount": 400}, {"type": "leave", "seat": 7})
    keys(table, NO_CARD)
    assert table.state.seats[7].player == "SEAT7-H1"
    with pytest.raises(Refusal) as refused:
        play(table, {"type": "tip_correction", "amount": 0, "by": "1042"})
    assert (refused.value.code, refused.value.message) == (
        "no_tip",
        "THE PLAYER WHO TIPPED LEFT SEAT 7",
    )
    assert table.state.seats[7].stack == 500
    assert table.state.tips_total == 400


def test_the_tip_shortcut_is_refused_for_the_next_player_in_the_seat_under_its_name() -> None:
    """The winner leaves, a player of the same name sits there: the shortcut is refused
    (the dealer keys the seat)."""
    table = won_by_luis()
    play(
        table,
        {"type": "leave", "seat": 5},
        {"type": "sit", "seat": 5, "player": "luis", "chips": 500},
    )
    keys(table, "FUNC 7")
    with pytest.raises(Refusal) as refused:
        keys(table, "ENTER")
    assert refused.value.code == "bad_key"
    assert table.state.seats[5].stack == 500


@pytest.mark.parametrize(("limit", "asks"), [(0, False), (2, True), (3, False)])
def test_the_size_of_tip_that_asks_first_is_the_configured_number_of_big_blinds(
    limit: int, asks: bool
) -> None:
    table = won_by_luis()
    table = Table(
        RuleSettings(game=GAME, dealer=DealerSettings(tip_confirm_big_blinds=limit)),
        table.state,
    )
    keys(table, "FUNC 7 ENTER 2 5 ENTER")  # 2.5 big blinds
    assert table.state.tips_total == (0 if asks else 25)
    assert ("entry" in table.state.keypad) is asks


def test_a_big_tip_held_by_a_key_meant_for_the_hand_says_clear_first_whatever_the_key() -> None:
    """FOLD at the big tip's question holds it (ENTER no longer takes the tip); NEXT then
    says CLEAR FIRST too, never "PRESS ENTER TO CONFIRM", which ENTER would refuse."""
    table = won_by_luis()
    stack = table.state.seats[5].stack
    keys(table, "FUNC 7 ENTER 5 1 0 ENTER")
    messages = []
    for key in ("FOLD", "NEXT", "ENTER"):
        event = parse_event({"type": "key", "key": key})
        with pytest.raises(Refusal) as refused:
            table.apply(event)
        table.refused(event)  # as the daemon and replay fold a refused key
        messages.append(refused.value.message)
    assert messages == ["ENTRY OPEN: CLEAR FIRST"] * 3
    keys(table, "CLEAR")
    assert (table.state.seats[5].stack, table.state.tips_total) == (stack, 0)


def test_a_tip_made_before_the_opening_count_is_put_right_there_too() -> None:
    """A tip of 510 before the shift's opening count, put right to 5 after it: the
    report says 5 before the count, as the shift's whole tips are 5 (never 510 before
    the count in a shift of 5)."""
    table = won_by_luis()
    play(
        table,
        {"type": "tip", "seat": 5, "amount": 510},
        counted("open"),
        {"type": "tip_correction", "amount": 5, "by": "S1"},
        {"type": "tip", "seat": 2, "amount": 20},  # after the count
    )
    report = shift_report(table.state)
    assert report["before_open"] is not None
    assert (report["before_open"]["tips"], report["table"]["tips"]) == (5, 25)


def test_check_config_reads_the_tip_confirmation_size(tmp_path: Any) -> None:
    from controller.config import load_config

    path = tmp_path / "table.yaml"
    path.write_text(
        'table: {id: "T1", seats: 9}\ngame: {big_blind: 10}\ndealer: {tip_confirm_big_blinds: 3}\n'
    )
    assert load_config(path).rules.dealer.tip_confirm_big_blinds == 3
    path.write_text('table: {id: "T1", seats: 9}\ngame: {big_blind: 10}\n')
    assert load_config(path).rules.dealer.tip_confirm_big_blinds == 10


def test_the_daemon_tells_the_time_from_a_close_to_the_next_open() -> None:
    """The shift after a close counts its table time from the close (its hours and hands
    per hour): the daemon ticks once a minute then too, as while a shift is open; before
    the first open, nothing asks for it."""
    from controller.daemon.timekeeping import OPS_TICK_MS, ops_tick_after_ms

    table = table_of(*SEATED)
    assert ops_tick_after_ms(table.state, table.settings) == []
    play(table, counted("open"))
    assert ops_tick_after_ms(table.state, table.settings) == [OPS_TICK_MS]
    play(table, counted("close"))
    assert ops_tick_after_ms(table.state, table.settings) == [OPS_TICK_MS]


def test_a_day_of_two_shifts_and_three_dealers_puts_every_chip_in_one_report() -> None:
    """Issue 31's "done when": hand 1 dealt by D1 while D2 signs in, a tip to D2, the
    close; D3 deals hand 2 and sells chips before the next open, then a tip and a
    cash-out: each chip in exactly one shift report, and in the right dealer's part."""
    flop_and_fold = (  # button raises to 100, the small blind folds, the big blind calls;
        # the big blind checks the flop, the button bets 100, the big blind folds: rake 20
        {"type": "act", "seat": 8, "action": "raise", "to": 100},
        {"type": "act", "seat": 2, "action": "fold"},
        {"type": "act", "seat": 5, "action": "call"},
        {"type": "act", "seat": 5, "action": "check"},
        {"type": "act", "seat": 8, "action": "bet", "to": 100},
        {"type": "act", "seat": 5, "action": "fold"},
    )
    table = table_of(
        {"type": "dealer", "id": "D1"},
        counted("open"),
        *SEATED,
        {"type": "sit", "seat": 8, "player": "cy", "chips": 1000},
        {"type": "start_hand"},  # button 8, blinds 2 and 5
        {"type": "dealer", "id": "D2"},
        *flop_and_fold,
        {"type": "tip", "seat": 8, "amount": 25},
        counted("close"),
        {"type": "dealer", "id": "D3"},
        {"type": "start_hand"},  # button 2, blinds 5 and 8
        {"type": "act", "seat": 2, "action": "fold"},
        {"type": "act", "seat": 5, "action": "fold"},
        {"type": "chips", "seat": 2, "amount": 500},
        counted("open", by="S3", witness="S1"),
        {"type": "tip", "seat": 8, "amount": 10},
        fees=RAKE,
    )
    luis = table.state.seats[5].stack
    play(table, {"type": "leave", "seat": 5}, counted("close", by="S3", witness="S1"))
    first, second = table.state.shifts
    zero = dict.fromkeys(
        ("hands", "rake", "jackpot", "time_fees", "tips", "buy_ins", "cash_outs"), 0
    )
    assert {k: first["table"][k] for k in zero} == {
        **zero,
        "hands": 1,
        "rake": 20,
        "tips": 25,
        "buy_ins": 3000,
    }
    assert {k: second["table"][k] for k in zero} == {
        **zero,
        "hands": 1,
        "tips": 10,
        "buy_ins": 500,
        "cash_outs": luis,
    }
    assert second["before_open"] == {**zero, "hands": 1, "buy_ins": 500}
    # every chip of the ledger is in exactly one report
    from tests.test_meters import ledger  # the test's own reading of the ledger

    assert {k: first["table"][k] + second["table"][k] for k in zero} == ledger(table.state)
    mine = {
        (n, d): {k: part[k] for k in zero}
        for n, report in enumerate((first, second), 1)
        for d, part in report["dealers"].items()
    }
    assert mine == {
        (1, "D1"): {**zero, "hands": 1, "rake": 20, "buy_ins": 3000},
        (1, "D2"): {**zero, "tips": 25},
        (2, "D3"): {**zero, "hands": 1, "tips": 10, "buy_ins": 500, "cash_outs": luis},
    }
