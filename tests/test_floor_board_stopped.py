"""A stopped table's clock stands still on the floor board: while its play is stopped (a
lost keypad: the state's `play_stopped`) and once the table itself has stopped (`TABLE
STOPPED`). Bench: the board showed `TABLE STOPPED` and `CLOCK SEAT 1: 22 S` counting
to 0. The model alone, then the page in Debian's headless Chromium with a real daemon
on simulated devices and a real Mosquitto."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from controller.floor.board import Board
from tests.daemon_helpers import press, running, seat_players, view, wait_for
from tests.localbroker import LocalBroker
from tests.test_floor_board import browser as browser  # the fixture  # noqa: F401
from tests.test_floor_board import card_text, lv_board, table_config, until

S = 1_000_000_000
ENVELOPE = {
    "v": 1,
    "table_id": "T4",
    "site": "lv",
    "ts": "2025-03-01T21:00:00.000Z",
    "ts_ns": 0,
    "clock_synced": True,
}
CLOCK = {"seat": 1, "remaining_ms": 30_000, "warning": False}


def state(msg_seq: int, **fields: Any) -> dict[str, Any]:
    body = {"hand": 3, "phase": "flop", "to_act": 1, "clock": CLOCK, "seats": {}}
    return {**ENVELOPE, "kind": "state", "seq": msg_seq, "msg_seq": msg_seq, "state": body | fields}


def test_the_model_holds_the_clock_of_a_table_whose_play_is_stopped() -> None:
    board = Board("lv")
    board.apply(state(1, play_stopped=["keypad_lost"]), 1 * S)
    card = board.card("T4", 60 * S)
    assert card is not None
    assert card["clock"] == {**CLOCK, "running": False}
    assert [a["text"] for a in card["alarms"]] == ["PLAY STOPPED: CLOCK HELD"]
    board.apply(state(2, play_stopped=[]), 61 * S)  # the keypad is back: it runs again
    card = board.card("T4", 63 * S)
    assert card is not None and card["clock"] == {**CLOCK, "remaining_ms": 28_000, "running": True}
    assert card["alarms"] == []


def test_the_model_says_the_door_is_open_and_holds_the_clock() -> None:
    board = Board("lv")
    board.apply(state(1, play_stopped=["door_open"]), 1 * S)
    card = board.card("T4", 60 * S)
    assert card is not None and card["clock"] == {**CLOCK, "running": False}
    assert [(a["code"], a["text"]) for a in card["alarms"]] == [
        ("door_open", "DOOR OPEN: CLOCK HELD")
    ]
    board.apply(state(2, play_stopped=["keypad_lost", "door_open"]), 61 * S)
    card = board.card("T4", 62 * S)
    assert card is not None and [a["text"] for a in card["alarms"]] == ["DOOR OPEN: CLOCK HELD"]
    board.apply(state(3, play_stopped=[]), 63 * S)  # closed: it runs again
    card = board.card("T4", 64 * S)
    assert card is not None and card["alarms"] == [] and card["clock"]["running"]


def test_the_model_holds_the_clock_of_a_table_that_stopped() -> None:
    board = Board("lv")
    board.apply(state(1), 1 * S)
    status = {**ENVELOPE, "kind": "status", "seq": 1, "msg_seq": 2, "link": "down"}
    board.apply({**status, "reason": "stopped", "will": False}, 9 * S)  # 8 s later
    for now in (9, 30, 600):
        card = board.card("T4", now * S)
        assert card is not None
        assert card["clock"] == {**CLOCK, "remaining_ms": 22_000, "running": False}
        assert "TABLE STOPPED" in [a["text"] for a in card["alarms"]]


def test_the_page_holds_a_stopped_tables_clock(
    tmp_path: Path,
    broker: LocalBroker,
    browser: Any,  # noqa: F811
) -> None:
    from selenium.webdriver.common.by import By

    board = lv_board(broker)
    board.start()
    try:
        assert board.wait_broker(10)
        with running(table_config(tmp_path, broker, "T1")) as table:
            seat_players(table, {1: "ana", 5: "luis"})
            press(table, "NEXT", "CLOCK")
            wait_for(lambda: view(table)["clock"] is not None, what="the clock called")
            browser.get(board.url)
            clock = browser.find_element(By.CSS_SELECTOR, "#card-T1 .clock")

            def remaining() -> int:
                return int(until(lambda: clock.get_attribute("data-remaining"), "remaining"))

            start = remaining()
            until(lambda: remaining() <= start - 1000, "the clock counting down")
            # the keypad pulled: play stopped, the clock stands still on the page
            table.devices.sim.keypad.unplug()  # type: ignore[union-attr]
            until(
                lambda: "PLAY STOPPED: CLOCK HELD" in card_text(browser, "T1", "alarms"),
                "play stopped on the card",
            )
            held = remaining()
            assert card_text(browser, "T1", "clock").endswith(" S STOPPED")
            time.sleep(1.5)
            assert remaining() == held
            table.devices.sim.keypad.replug()  # type: ignore[union-attr]
            until(lambda: remaining() <= held - 1000, "the clock counting again")
        # the daemon stopped with the clock running: TABLE STOPPED, the clock held
        until(lambda: "TABLE STOPPED" in card_text(browser, "T1", "alarms"), "table stopped")
        until(lambda: card_text(browser, "T1", "clock").endswith(" S STOPPED"), "held")
        held = remaining()
        time.sleep(1.5)
        assert remaining() == held
    finally:
        board.stop()
