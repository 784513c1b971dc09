"""The dealer display says what the card says (issue 11, items 4 and 5): no word the
card never uses, each payout after the award (``NEXT`` pages, then deals), and every pot
with the seats that can win it, a page at a time on the 2x40 display."""

from __future__ import annotations

from typing import Any

import pytest

from controller.lights import dealer_lines
from controller.rules import Refusal, Table, parse_event, state_view
from controller.rules.catalogue import CATALOGUES
from tests.keypad_tables import THREE, feed, keys, table

# four stacks that make a main pot and two side pots when everyone is all in
FOUR = [
    {"type": "sit", "seat": s, "player": p, "chips": c}
    for s, p, c in ((1, "ana", 200), (3, "bob", 400), (5, "cruz", 600), (7, "dee", 1000))
]
# seat 5 is first to act (button 7, blinds 1 and 3): 5 all in, 7 calls, 1 and 3 all in
ALL_IN = keys("NEXT ALLIN CHECK ALLIN ALLIN")


def shown(t: Table, language: str = "en") -> list[str]:
    """The two lines the dealer display gets (controller.lights, as the daemon shows)."""
    return list(dealer_lines(state_view(t), language=language))


def press(t: Table, text: str) -> list[list[str]]:
    """Key each key, and what the display showed after each."""
    seen = []
    for event in keys(text):
        feed(t, [event])
        seen.append(shown(t))
    return seen


def test_the_showdown_asks_for_the_winning_seat_never_a_ranking() -> None:
    t = table(THREE + keys("NEXT CHECK CHECK CHECK") + keys("CHECK CHECK CHECK") * 3)
    assert t.state.phase == "showdown"
    words = " ".join(shown(t) + shown(t, "es"))
    assert "RANKING" not in words and "ORDEN" not in words
    assert shown(t) == ["SHOWDOWN: WINNING SEAT, ENTER", "SHOW: 2 5 8"]
    assert shown(t, "es") == ["DESCUBRIR: ASIENTO GANADOR, ENTER", "MUESTRAN: 2 5 8"]
    # the first seat keyed: the pot, and the seats that can win it
    assert press(t, "8")[-1] == ["MAIN POT 30: WINNER", "ONE OF 2 5 8: 8_"]


def test_after_the_award_the_display_pays_each_seat_until_next_deals() -> None:
    t = table(THREE + keys("NEXT CHECK CHECK CHECK") + keys("CHECK CHECK CHECK") * 3)
    assert press(t, "8 ENTER ENTER")[-1] == ["PAY SEAT 8: 30", "MAIN POT  NEXT: DEAL"]
    assert shown(t, "es") == ["PAGUE AL ASIENTO 8: 30", "BOTE PRINCIPAL  NEXT: REPARTIR"]
    # a menu between hands, then the payout again; NEXT deals as it always did
    assert press(t, "FUNC 8 1 2 ENTER")[-1] == ["DEALER 12 SIGNED IN", "PAY SEAT 8: 30"]
    feed(t, keys("NEXT"))
    assert t.state.hand_number == 2 and shown(t)[0].endswith("TO ACT")


def test_side_pots_are_paid_a_page_at_a_time_then_next_deals() -> None:
    t = table(FOUR + ALL_IN + keys("1 ENTER ENTER 5 ENTER 7 ENTER ENTER"))
    assert t.state.phase == "idle" and t.state.hand_number == 1
    pages = [shown(t)] + press(t, "NEXT NEXT NEXT NEXT")
    assert pages == [
        ["PAY SEAT 1: 800", "MAIN POT 1/5  NEXT: MORE"],
        ["PAY SEAT 5: 300", "SIDE POT 1 2/5  NEXT: MORE"],
        ["PAY SEAT 7: 300", "SIDE POT 1 3/5  NEXT: MORE"],
        ["PAY SEAT 5: 200", "SIDE POT 2 4/5  NEXT: MORE"],
        ["PAY SEAT 7: 200", "SIDE POT 2 5/5  NEXT: DEAL"],
    ]
    assert t.state.hand_number == 1  # paging never deals
    assert shown(t, "es") == ["PAGUE AL ASIENTO 7: 200", "BOTE LATERAL 2 5/5  NEXT: REPARTIR"]
    feed(t, keys("NEXT"))
    assert t.state.hand_number == 2


def test_any_other_key_goes_back_to_the_first_payout() -> None:
    t = table(FOUR + ALL_IN + keys("1 ENTER ENTER 5 ENTER 7 ENTER ENTER NEXT NEXT CLEAR"))
    assert shown(t) == ["PAY SEAT 1: 800", "MAIN POT 1/5  NEXT: MORE"]


def test_payouts_of_an_award_event_and_of_a_hand_won_by_folds() -> None:
    t = table(
        THREE
        + [{"type": "start_hand"}]
        + keys("CHECK CHECK CHECK")
        + keys("CHECK CHECK CHECK") * 3
        + [{"type": "award", "ranking": [[2]]}]
    )
    assert shown(t) == ["PAY SEAT 2: 30", "MAIN POT  NEXT: DEAL"]
    t = table(THREE + keys("NEXT FOLD FOLD"))  # the big blind's 5 back uncalled, 10 won
    assert shown(t) == ["PAY SEAT 5: 10", "MAIN POT  NEXT: DEAL"]


def test_payouts_show_what_was_paid_after_the_rake() -> None:
    config = {
        "fees": {"mode": "rake", "rake_percent": 50, "rake_cap": 10, "no_flop_no_drop": False}
    }
    t = table(
        THREE
        + keys("NEXT CHECK CHECK CHECK")
        + keys("CHECK CHECK CHECK") * 3
        + keys("5 ENTER 8 ENTER ENTER"),
        config=config,
    )
    rake = state_view(t)["fees"]["rake"]
    assert rake > 0
    paid = {seat: amount for _, seat, amount in t.state.payouts}
    assert sum(paid.values()) == 30 - rake
    assert shown(t)[0] == f"PAY SEAT 5: {paid[5]}"


def test_a_voided_hand_shows_no_payout() -> None:
    t = table(THREE + keys("NEXT FOLD FOLD NEXT"))
    assert t.state.payouts == []
    t.apply(parse_event({"type": "misdeal"}))
    assert shown(t) == ["READY", ""]


def test_every_pot_and_its_seats_page_on_the_display_during_the_hand() -> None:
    t = table(FOUR + ALL_IN)
    assert shown(t) == ["SHOWDOWN: WINNING SEAT, ENTER", "SHOW: 5 7 1 3  NEXT: POTS"]
    pages = press(t, "NEXT NEXT NEXT NEXT")
    assert pages == [
        ["MAIN POT 800 (1/3)", "SEATS 1 3 5 7"],
        ["SIDE POT 1 600 (2/3)", "SEATS 3 5 7"],
        ["SIDE POT 2 400 (3/3)", "SEATS 5 7"],
        ["SHOWDOWN: WINNING SEAT, ENTER", "SHOW: 5 7 1 3  NEXT: POTS"],  # back
    ]
    view = state_view(t)
    for pot in view["pots"]:  # every pot, with every seat that can win it, was shown
        assert any(
            " ".join(map(str, pot["eligible"])) in page[1] and str(pot["amount"]) in page[0]
            for page in pages
        )
    # a page lasts until the next key: the dealer keys the winner straight away
    feed(t, keys("NEXT"))
    assert press(t, "3")[-1] == ["MAIN POT 800: WINNER", "ONE OF 1 3 5 7: 3_"]


def test_the_pots_page_while_a_seat_is_to_act() -> None:
    six = [
        {"type": "sit", "seat": s, "player": f"p{s}", "chips": c}
        for s, c in ((1, 100), (2, 300), (3, 2000), (4, 2000))
    ]
    # button 4, blinds 1 and 2, seat 3 first: 3 raises, 4 calls, 1 and 2 all in
    t = table(six + keys("NEXT BET 5 0 0 ENTER CHECK ALLIN ALLIN CHECK CHECK"))
    view = state_view(t)
    assert len(view["pots"]) == 3 and view["phase"] in ("flop", "turn")
    assert shown(t) == [f"SEAT {view['to_act']} TO ACT", "CHECK  NEXT: POTS"]
    assert shown(t, "es")[1] == "PASA  NEXT: BOTES"
    pages = press(t, "NEXT NEXT NEXT")
    assert [page[1] for page in pages] == ["SEATS 1 2 3 4", "SEATS 2 3 4", "SEATS 3 4"]
    # an action key acts (the page was only a look)
    feed(t, keys("CHECK"))
    assert state_view(t)["to_act"] != view["to_act"]


def test_next_in_a_hand_without_pots_is_refused_as_before() -> None:
    t = table(THREE + keys("NEXT"))
    with pytest.raises(Refusal, match="HAND 1 IS STILL IN PLAY"):
        t.apply(parse_event({"type": "key", "key": "NEXT"}))


@pytest.mark.parametrize("language", sorted(CATALOGUES))
def test_ten_seat_pages_fit_two_lines_of_40(language: str) -> None:
    ten = [
        {"type": "sit", "seat": s, "player": f"p{s}", "chips": 100_000 + 1000 * s}
        for s in range(1, 11)
    ]
    config: dict[str, Any] = {"table": {"seats": 10}}
    t = table(ten + keys("NEXT") + keys("ALLIN") * 7 + keys("CHECK ALLIN ALLIN"), config=config)
    assert t.state.phase == "showdown"
    assert len(state_view(t)["pots"]) == 9
    lines = [shown(t, language)]
    for event in keys("NEXT") * 9:
        feed(t, [event])
        lines.append(shown(t, language))
    feed(t, keys(" ".join(f"{seat} ENTER ENTER" for seat in range(1, 10))))
    assert len(t.state.payouts) == 9
    for event in keys("NEXT") * (len(t.state.payouts) - 1):
        lines.append(shown(t, language))
        feed(t, [event])
    for line in [line for page in lines for line in page]:
        assert len(line) <= 40, line
    assert "SEATS 1 2 3 4 5 6 7 8 9 10" in [page[1] for page in lines] or language == "es"


# -- menus longer than the display (item 8) ------------------------------------------------


def verifier(supervisor: str, pin: str) -> bool:
    return (supervisor, pin) == ("1042", "2468")


SUPERVISOR = "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER"


def test_the_supervisor_menu_pages_with_next_and_every_function_is_on_a_page() -> None:
    t = table(THREE + keys(SUPERVISOR), pin_verifier=verifier)
    first = shown(t)
    second = press(t, "NEXT")[-1]
    assert first == ["1 VOID HAND  2 UNDO LAST ACTION", "3 DEALT IN ERROR  NEXT: MORE"]
    assert second == ["4 TRAY FILL  5 TRAY CREDIT", "6 TRAY ACK  7 TRANSFER  NEXT: MORE"]
    assert press(t, "NEXT")[-1] == ["8 SHIFT OPEN  9 SHIFT CLOSE", "0 TIP FIX  NEXT: BACK"]
    assert press(t, "NEXT")[-1] == first
    from controller.rules.keypad.supervisor import FUNCTIONS

    for language in CATALOGUES:
        t = table(THREE + keys(SUPERVISOR), pin_verifier=verifier)
        pages = [shown(t, language)] + [p for p in press(t, "NEXT NEXT NEXT")]
        menu = " ".join(line for page in pages for line in page)
        for key in FUNCTIONS:  # every function's key is offered on some page
            assert f"{key} " in menu, (language, key, pages)
        assert all(len(line) <= 40 for page in pages for line in page)


def test_a_function_is_chosen_from_any_page() -> None:
    t = table(THREE + keys(SUPERVISOR + " NEXT"), pin_verifier=verifier)
    assert press(t, "4")[-1] == ["FILL: CHIP VALUE (ENTER: DONE)", "TOTAL 0"]
    t = table(THREE + keys(SUPERVISOR + " NEXT"), pin_verifier=verifier)
    with pytest.raises(Refusal, match="CHOOSE 0-9, NEXT FOR MORE, OR CLEAR"):
        t.apply(parse_event({"type": "key", "key": "ENTER"}))


# -- seat lights: one look, one meaning in a hand (item 7) ---------------------------------


def test_a_slow_blink_in_a_hand_is_only_ever_the_clock() -> None:
    from controller.lights import seat_patterns

    seats = {
        "2": {"status": "playing", "missed": []},
        "4": {"status": "sitting_out", "missed": ["big"]},
        "6": {"status": "all_in", "missed": []},
    }
    in_hand = {
        "phase": "flop",
        "to_act": 2,
        "seats": seats,
        "clock": {"seat": 2, "remaining_ms": 30000, "warning": False},
    }
    patterns = seat_patterns(in_hand, 6)
    assert [seat for seat, p in patterns.items() if p == "slow_blink"] == [2]
    assert patterns[4] == "off" and patterns[6] == "pulse"
    between = {"phase": "idle", "to_act": None, "seats": seats, "clock": None}
    assert seat_patterns(between, 6)[4] == "slow_blink"  # owes a missed blind


def test_a_transfer_after_the_hand_takes_the_payouts_off_the_display() -> None:
    t = table(THREE + keys("NEXT FOLD FOLD"))
    assert shown(t)[0] == "PAY SEAT 5: 10"
    feed(t, [{"type": "transfer", "from": 5, "to": 8, "amount": 10, "reason": "wrong_payout"}])
    assert shown(t) == ["READY", ""]


def test_the_supervisor_guide_shows_the_menu_pages_the_display_shows() -> None:
    """Issue 21 item 7: docs/supervisor.md drew page 2 without `7 TRANSFER`. The guide's
    drawing of the menu (the pages side by side) is the display's own lines, paged with
    NEXT until the first page comes back."""
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[1] / "docs" / "supervisor.md").read_text()
    t = table(THREE + keys(SUPERVISOR), pin_verifier=verifier)
    pages = [shown(t)]
    while (page := press(t, "NEXT")[-1]) != pages[0]:
        pages.append(page)
    assert len(pages) >= 2
    drawn = "\n".join("".join(f"{page[row]:<41}" for page in pages).rstrip() for row in range(2))
    assert f"```\n{drawn}\n```" in guide, drawn


# -- the push reminder beside the payouts (issue 31, item 9) ------------------------------

PUSH = {"dealer": {"push_minutes": 1}}
DUE = [{"type": "dealer", "id": "204"}, {"type": "tick", "ms": 60_000}]


def test_the_push_reminder_never_hides_the_payout_count_or_next_deal() -> None:
    t = table(FOUR + DUE + ALL_IN + keys("1 ENTER ENTER 5 ENTER 7 ENTER ENTER"), config=PUSH)
    assert t.state.push_due
    pages = [shown(t)] + press(t, "NEXT NEXT NEXT NEXT")
    assert pages == [
        ["PAY SEAT 1: 800  PUSH DUE", "MAIN POT 1/5  NEXT: MORE"],
        ["PAY SEAT 5: 300  PUSH DUE", "SIDE POT 1 2/5  NEXT: MORE"],
        ["PAY SEAT 7: 300  PUSH DUE", "SIDE POT 1 3/5  NEXT: MORE"],
        ["PAY SEAT 5: 200  PUSH DUE", "SIDE POT 2 4/5  NEXT: MORE"],
        ["PAY SEAT 7: 200  PUSH DUE", "SIDE POT 2 5/5  NEXT: DEAL"],
    ]
    assert shown(t, "es") == [
        "PAGUE AL ASIENTO 7: 200  RELEVO",
        "BOTE LATERAL 2 5/5  NEXT: REPARTIR",
    ]
    # with nothing paid the reminder has the first line to itself
    t = table(FOUR + DUE, config=PUSH)
    assert shown(t) == ["DEALER 204: PUSH DUE", "READY"]


@pytest.mark.parametrize("language", sorted(CATALOGUES))
def test_a_payout_with_the_push_reminder_fits_40(language: str) -> None:
    rich = [{"type": "sit", "seat": s, "player": f"p{s}", "chips": 9_999_995} for s in (9, 10)]
    config: dict[str, Any] = {"table": {"seats": 10}, **PUSH}
    t = table(rich + DUE + keys("NEXT ALLIN ALLIN 1 0 ENTER ENTER"), config=config)
    assert t.state.push_due and t.state.payouts == [[0, 10, 19_999_990]]
    assert all(len(line) <= 40 for line in shown(t, language)), shown(t, language)
