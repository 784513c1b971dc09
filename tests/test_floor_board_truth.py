"""The floor board shows what the table says (issue 31, items 10-12), in Debian's
headless Chromium on a real Mosquitto with the board's own subscriber and server: the
push due is the table's (its `push_minutes`, its `push_due`), a locked table's hand
and clock do not look live, the card and the room's open seats agree while a link is
down, a seat's stack is never broken over two lines, and one table's message that no
card can be made of never blanks the board."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from controller.floor.board import Board
from controller.floor.board_server import BoardServer
from controller.floor.clock import Stamp
from controller.floor.messages import state_message, status_payload
from controller.floor.topics import TableTopics
from tests.daemon_helpers import WAIT
from tests.floor_board_helpers import NINE_SEAT_NLHE, lv_board
from tests.floor_schema import assert_valid
from tests.localbroker import LocalBroker
from tests.test_floor_board import (
    browser,  # noqa: F401 - the fixture
    card_text,
    until,
)
from tests.test_floor_board_hostile import publish

S = 1_000_000_000
MIN = 60 * S
SEATS = {
    "2": {"player": "ana", "stack": 900, "bet": 0, "status": "playing", "missed": []},
    "5": {"player": "luis", "stack": 400, "bet": 0, "status": "playing", "missed": []},
}


def state(
    table_id: str,
    msg_seq: int,
    table: dict[str, Any] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A table's state message as the table sends it (``messages.state_message``)."""
    body = {"hand": 12, "phase": "flop", "pot_total": 45, "seats": SEATS, "clock": None}
    message = state_message(
        TableTopics("casino", "lv", table_id),
        body | fields,
        seq=msg_seq,
        stamp=Stamp.now(),
        table=NINE_SEAT_NLHE if table is None else table,
    )
    return json.loads(message.payload) | {"msg_seq": msg_seq}


def status(table_id: str, **fields: Any) -> dict[str, Any]:
    """A table's retained link status (``messages.status_payload``)."""
    fields = {"reason": None, "unsent": 0} | fields
    payload = status_payload(TableTopics("casino", "lv", table_id), stamp=Stamp.now(), **fields)
    return dict(json.loads(payload))


def topic(payload: dict[str, Any]) -> str:
    kind = "state" if payload["kind"] == "state" else "status"
    return f"casino/lv/table/{payload['table_id']}/{kind}"


def send(broker: LocalBroker, *payloads: dict[str, Any]) -> None:
    publish(broker, [(topic(p), json.dumps(p)) for p in payloads])


# -- item 10: the push due is the table's ------------------------------------------------


def test_the_card_takes_the_push_from_the_table_not_the_boards_default() -> None:
    board = Board("lv", push_minutes=30)
    push_1 = NINE_SEAT_NLHE | {"push_minutes": 1}
    due = state(
        "T4", 1, table=push_1, dealer="204", shift={"number": 1, "open": True, "push_due": True}
    )
    assert_valid([due])
    board.apply(due, 0)
    card = board.card("T4", 1 * S)
    assert card is not None
    # the board first heard the dealer now (0+ MIN): the table says the push is due
    assert (card["dealer_ms"], card["push_due"], card["push_after_ms"]) == (1000, True, 60_000)
    # a table whose push is 40 minutes: not due at the board's 30, whatever the board's own
    board.apply(
        state(
            "T4",
            2,
            table=NINE_SEAT_NLHE | {"push_minutes": 40},
            dealer="311",
            shift={"number": 1, "open": True, "push_due": False},
        ),
        1 * MIN,
    )
    card = board.card("T4", 35 * MIN)
    assert card is not None
    assert (card["dealer"], card["push_due"], card["push_after_ms"]) == ("311", False, 2_400_000)
    # a table without push reminders (push_minutes null): the board counts no push
    board.apply(
        state("T4", 3, table=NINE_SEAT_NLHE | {"push_minutes": None}, dealer="311"), 36 * MIN
    )
    card = board.card("T4", 90 * MIN)
    assert card is not None and (card["push_due"], card["push_after_ms"]) == (False, None)
    # an older table that says neither: the board's own board.push_minutes
    older = Board("lv", push_minutes=30)
    older.apply(state("T5", 1, dealer="204"), 0)
    card = older.card("T5", 31 * MIN)
    assert card is not None and (card["push_due"], card["push_after_ms"]) == (True, 1_800_000)


# -- the page ----------------------------------------------------------------------------


@pytest.fixture
def board(broker: LocalBroker) -> Iterator[BoardServer]:
    server = lv_board(broker, push_minutes=30)
    server.start()
    assert server.wait_broker(WAIT)
    yield server
    server.stop()


@pytest.mark.slow
def test_the_page_shows_the_tables_push_due(
    broker: LocalBroker,
    board: BoardServer,
    browser: Any,  # noqa: F811 - the fixture
) -> None:
    """Seen: the table showed PUSH DUE, the card `DEALER 204 · 0+ MIN`."""
    shift = {"number": 1, "open": True, "push_due": True}
    table = NINE_SEAT_NLHE | {"push_minutes": 1}
    send(broker, state("T1", 1, table=table, dealer="204", shift=shift))
    send(broker, state("T2", 1, table=table, dealer="311", shift=shift | {"push_due": False}))
    browser.get(board.url)
    until(lambda: "DEALER 311" in card_text(browser, "T2", "dealer"), "T2 shown")
    assert card_text(browser, "T1", "dealer") == "DEALER 204 · 0+ MIN · PUSH DUE"
    assert card_text(browser, "T2", "dealer") == "DEALER 311 · 0+ MIN"
    summary = browser.find_element("id", "summary").text
    assert summary.endswith("1 push due"), summary


# -- item 11: a locked table, a link down, a seat's row ---------------------------------


@pytest.mark.slow
def test_a_locked_table_does_not_look_live_and_the_open_seats_agree(
    broker: LocalBroker,
    board: BoardServer,
    browser: Any,  # noqa: F811 - the fixture
) -> None:
    clock = {"seat": 2, "remaining_ms": 50_000, "warning": False}
    send(
        broker,
        state("T1", 1, to_act=2, clock=clock),
        status("T1", link="up", fault="chain_broken", device_faults={}),
        state("T2", 1, to_act=5),
        status("T2", link="down", reason="connection lost", will=True),
        state("T3", 1),
    )
    browser.get(board.url)
    until(lambda: "CHAIN BROKEN" in card_text(browser, "T1", "alarms"), "T1 locked")
    until(lambda: "LINK DOWN" in card_text(browser, "T2", "alarms"), "T2 down")
    assert card_text(browser, "T1", "hand") == "HAND 12 · FLOP · PLAY LOCKED"
    assert card_text(browser, "T1", "to-act") == ""
    first = card_text(browser, "T1", "clock")
    assert first == "CLOCK SEAT 2: 50 S STOPPED", first
    import time

    time.sleep(1.5)  # a running clock would be down a second or two
    assert card_text(browser, "T1", "clock") == first
    # the room counts T3's seven open seats only; T1's and T2's cards say why not theirs
    until(lambda: "T3 (7)" in browser.find_element("id", "room").text, "the room")
    room = browser.find_element("id", "room").text
    assert "T2" not in room and "T1" not in room, room
    assert card_text(browser, "T2", "open-seats") == "OPEN SEATS: NOT KNOWN (LINK DOWN)"
    assert card_text(browser, "T1", "open-seats") == "OPEN SEATS: NONE WHILE PLAY IS LOCKED"
    assert card_text(browser, "T3", "open-seats") == "OPEN SEATS: 1 3 4 6 7 8 9"


@pytest.mark.slow
def test_a_seats_stack_is_never_broken_over_two_lines(
    broker: LocalBroker,
    board: BoardServer,
    browser: Any,  # noqa: F811 - the fixture
) -> None:
    long = "Maximiliano Bartolomé de la Santísima Trinidad"
    seats = {
        str(s): {
            "player": long if s % 2 else f"p{s}",
            "stack": 1_234_567_890 + s,
            "bet": 0,
            "status": "all_in" if s == 3 else "playing",
            "missed": ["big"] if s == 3 else [],
        }
        for s in range(1, 10)
    }
    send(broker, state("T1", 1, seats=seats))
    browser.get(board.url)
    until(lambda: "p2" in card_text(browser, "T1", "seats-list"), "T1 shown")
    rows = browser.execute_script(
        """
        return [...document.querySelectorAll('#card-T1 .seats-list li')].map(li => {
          const stack = li.querySelector('.stack');
          const player = li.querySelector('.player');
          if (!stack || !player) return {text: li.textContent};
          const range = document.createRange();
          range.selectNodeContents(stack);
          const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
          return {stack: stack.textContent, player: player.textContent, lines: lines.size,
                  apart: player.getBoundingClientRect().right <=
                         stack.getBoundingClientRect().left + 0.5 ||
                         player.getBoundingClientRect().bottom <=
                         stack.getBoundingClientRect().top + 0.5};
        });
        """
    )
    assert len(rows) == 9
    for seat, row in zip(range(1, 10), rows, strict=True):
        assert row.get("stack") == str(1_234_567_890 + seat), row
        assert row["player"] == (long[:40] if seat % 2 else f"p{seat}"), row
        assert row["lines"] == 1 and row["apart"], row
    assert "ALL-IN" in card_text(browser, "T1", "seats-list")
    browser.find_element("id", "card-T1").click()  # the detail's rows: the same parts
    until(lambda: "1234567899" in browser.find_element("id", "detail").text, "T1's detail")
    stacks = browser.execute_script(
        "return [...document.querySelectorAll('#detail .detail-seats li')].map(li => {"
        "  const s = li.querySelector('.stack'); if (!s) return null;"
        "  const r = document.createRange(); r.selectNodeContents(s);"
        "  return [s.textContent, new Set([...r.getClientRects()].map(x => Math.round(x.top))).size];"
        "});"
    )
    assert stacks == [[str(1_234_567_890 + seat), 1] for seat in range(1, 10)]


# -- item 12: one table's message never blanks the board ---------------------------------


def cards_json(board: BoardServer) -> dict[str, dict[str, Any]]:
    with urllib.request.urlopen(board.url + "cards.json", timeout=WAIT) as answer:
        return {c["table_id"]: c for c in json.loads(answer.read())["cards"]}


def test_a_seat_key_int_cannot_read_never_blanks_the_board() -> None:
    """`"²".isdigit()` is true and `int("²")` fails: seen, every card (and every
    browser's first snapshot) failed for all tables."""
    board = Board("lv")
    board.apply(state("T1", 1), 0)
    odd = {"\u00b2": {"player": "x", "stack": 1}, **SEATS}
    board.apply(state("T2", 1, seats=odd), 0)
    board.apply(state("T3", 1, phase=7, hand="twelve", pot_total=[1], to_act={"a": 1}), 0)
    cards = {c["table_id"]: c for c in board.cards(1 * S)}
    assert sorted(cards) == ["T1", "T2", "T3"]
    assert [row["seat"] for row in cards["T2"]["seat_rows"]] == [2, 5]
    assert (cards["T3"]["phase"], cards["T3"]["hand"], cards["T3"]["pot"]) == (None, None, None)
    assert cards["T3"]["to_act"] is None


def test_a_card_that_cannot_be_made_is_shown_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever else a table's message holds that no one foresaw: that card says it
    cannot be shown, and the others are shown."""
    from controller.floor import board as board_module

    board = Board("lv")
    for table_id in ("T1", "T2", "T3"):
        board.apply(state(table_id, 1), 0)
    real = board_module.seat_rows

    def fails_for_t2(state: dict[str, Any]) -> list[dict[str, Any]]:
        if state.get("pot_total") == 46:
            raise RuntimeError("nobody foresaw this")
        return real(state)

    monkeypatch.setattr(board_module, "seat_rows", fails_for_t2)
    board.apply(state("T2", 2, pot_total=46), 0)
    cards = {c["table_id"]: c for c in board.cards(1 * S)}
    assert sorted(cards) == ["T1", "T2", "T3"]
    assert cards["T1"]["pot"] == 45 and cards["T3"]["pot"] == 45
    assert cards["T2"]["alarms"] == [
        {"code": "card_unreadable", "level": "alarm", "text": "CARD CANNOT BE SHOWN: RuntimeError"}
    ]
    assert board.card("T2", 1 * S) == cards["T2"]


@pytest.mark.slow
def test_the_page_shows_every_other_table_after_a_bad_one(
    broker: LocalBroker,
    board: BoardServer,
    browser: Any,  # noqa: F811 - the fixture
) -> None:
    odd = {"\u00b2": {"player": "x", "stack": 1}, **SEATS}
    send(broker, state("T1", 1), state("T2", 1, seats=odd), state("T3", 1, hand=13))
    until(lambda: sorted(cards_json(board)) == ["T1", "T2", "T3"], "cards.json")
    browser.get(board.url)
    until(lambda: "HAND 13" in card_text(browser, "T3", "hand"), "T3 after T2")
    assert "luis" in card_text(browser, "T2", "seats-list")
    # a card the page itself cannot draw (here: handed to it directly) says so, and
    # the cards after it in the same snapshot are drawn
    browser.execute_script(
        "put({table_id: 'T7', alarms: 'no list'});"
        "put({...cards.get('T3').data, table_id: 'T8', hand: 99});"
    )
    until(lambda: "HAND 99" in card_text(browser, "T8", "hand"), "T8 drawn")
    assert card_text(browser, "T7", "table-id") == "T7"
    assert "CARD CANNOT BE SHOWN" in browser.find_element("id", "card-T7").text
