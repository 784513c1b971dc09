"""The floor board as a supervisor uses it, in Debian's headless Chromium (Selenium, a
real Mosquitto, the board's own subscriber and HTTP server): a room of 15 tables on two
sites, fed the floor messages tables send, over 40 minutes of the board's clock. The
card answers who sits where with what, the last action, the dealer and minutes down
(push due), hands per hour, the shift's drop and tips, the alarms now and cleared; a
table that needs someone sorts first, in red; the open seats of the room by game; the
filters in the page and in the address; the wall display; a table's detail with its
last hands; a phone's screen. Screenshots go to docs/board/ (FLOOR_BOARD_SCREENSHOTS,
tests/test_floor_board.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from controller.floor.board_server import BoardServer, board_filter
from controller.floor.clock import Stamp
from controller.floor.messages import state_message
from controller.floor.topics import TableTopics
from tests.daemon_helpers import WAIT
from tests.floor_board_helpers import NINE_SEAT_NLHE, viewport
from tests.floor_schema import assert_valid
from tests.localbroker import LocalBroker
from tests.test_floor_board import browser as browser  # the fixture  # noqa: F401
from tests.test_floor_board import card_classes, card_text, shot, until

__all__ = ["shot"]  # the fixture, imported for the tests below

MIN = 60 * 1_000_000_000
NL_1_2 = {**NINE_SEAT_NLHE, "small_blind": 1, "big_blind": 2}
TRIPLE_DRAW = {
    "seats": 6,
    "structure": "fixed_limit",
    "form": "triple_draw",
    "small_blind": 10,
    "big_blind": 20,
}
GAMES = {"T": NINE_SEAT_NLHE, "U": NL_1_2, "V": TRIPLE_DRAW}
PLAYERS = ["ana", "luis", "marta", "rosa", "juan", "eva", "ines", "pablo", "sofia"]
LV = [f"T{n}" for n in range(1, 7)] + ["U7", "U8", "U9", "V10", "V11", "V12"]
EAST = ["E1", "E2", "E3"]


def seats(table_id: str) -> dict[str, dict[str, Any]]:
    """A few players at each table: T1 with one away owing a blind and one all-in."""
    n = int(table_id[1:])
    count = 2 + n % 5
    found = {
        str(s): {
            "player": PLAYERS[(n + s) % len(PLAYERS)],
            "stack": 500 + 37 * n * s,
            "bet": 0,
            "status": "playing",
            "missed": [],
        }
        for s in range(1, count + 1)
    }
    if table_id == "T1":
        found["2"] |= {"status": "sitting_out", "missed": ["big"]}
        found["3"] |= {"status": "all_in", "stack": 0, "bet": 400}
    return found


class Room:
    """The tables' messages to the broker, numbered as each table numbers them, at a
    board clock the test moves on (`minutes`)."""

    def __init__(self, broker: LocalBroker) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        self.msg_seq: dict[str, int] = {}
        self.count: dict[str, int] = {}  # messages sent per table
        self.sent: list[dict[str, Any]] = []
        self.offset_ns = 0

    def now(self) -> int:
        return time.monotonic_ns() + self.offset_ns

    def minutes(self, minutes: int, board: BoardServer) -> None:
        """The board's clock on to `minutes`, once the board has every message sent."""
        until(
            lambda: all(
                (board.board.card(t, self.now()) or {}).get("version") == count
                for t, count in self.count.items()
            ),
            "the board has every message",
        )
        self.offset_ns = minutes * MIN

    def close(self) -> None:
        self.client.disconnect()  # first: the network thread then ends at once
        self.client.loop_stop()

    def topics(self, table_id: str) -> TableTopics:
        return TableTopics("casino", "east" if table_id in EAST else "lv", table_id)

    def publish(self, topic: str, payload: dict[str, Any], retain: bool = False) -> None:
        self.sent.append(payload)
        self.count[payload["table_id"]] = self.count.get(payload["table_id"], 0) + 1
        self.client.publish(topic, json.dumps(payload), qos=1, retain=retain).wait_for_publish(WAIT)

    def number(self, table_id: str) -> int:
        self.msg_seq[table_id] = self.msg_seq.get(table_id, 0) + 1
        return self.msg_seq[table_id]

    def state(self, table_id: str, hand: int, dealer: str, **fields: Any) -> None:
        """The table's state: its seats, the dealer signed in, the shift's meters
        (none from V12, an older table)."""
        topics = self.topics(table_id)
        table_seats = seats(table_id)
        state = {
            "hand": hand,
            "phase": "flop",
            "button": 1,
            "to_act": 1,
            "pot_total": 40 + 15 * hand % 400,
            "seats": table_seats,
            "clock": None,
            "play_stopped": [],
            "dealer": dealer,
            "meters": {
                "hands": hand,
                "rake": 3 * hand,
                "jackpot": hand,
                "time_fees": 0,
                "tips": 2 * hand,
                "buy_ins": 5000,
                "cash_outs": 1000,
            },
        } | fields
        if table_id == "V12":
            del state["meters"]
        message = state_message(
            topics, state, seq=hand, stamp=Stamp.now(), table=GAMES.get(table_id[0], NL_1_2)
        )
        payload = json.loads(message.payload) | {"msg_seq": self.number(table_id)}
        self.publish(message.topic, payload, retain=True)

    def send(self, table_id: str, leaf: str, kind: str, **body: Any) -> None:
        topics = self.topics(table_id)
        stamp = Stamp.now()
        payload = {
            "kind": kind,
            "v": 1,
            "table_id": table_id,
            "site": topics.site,
            "ts": stamp.iso,
            "ts_ns": stamp.wall_ns,
            "clock_synced": True,
            "seq": self.msg_seq.get(table_id, 0) + 1,
            **body,
            "msg_seq": self.number(table_id),
        }
        self.publish(topics.leaf(leaf), payload)

    def hand(self, table_id: str, hand: int) -> None:
        """A hand's play-by-play: dealt, bets, the pot awarded, the end."""
        common = {"button": 1, "small_blind": 5, "big_blind": 10}
        self.send(
            table_id,
            "hands",
            "hand_start",
            hand=hand,
            dealt_in=[1, 3, 4],
            players={"1": "luis", "3": "rosa", "4": "juan"},
            stacks={"1": 1000, "3": 400, "4": 900},
            posts={},
            dead_money=0,
            **common,
        )
        for seat, player, action, to in ((3, "rosa", "bet", 40), (4, "juan", "raise", 120)):
            self.send(
                table_id,
                "actions",
                "action",
                hand=hand,
                phase="flop",
                seat=seat,
                player=player,
                action=action,
                amount=to,
                to=to,
                all_in=False,
                stack=500,
                cause="act",
                by=None,
            )
        self.send(
            table_id,
            "actions",
            "award",
            hand=hand,
            pots=[{"index": 0, "amount": 175, "winners": [4], "shares": {"4": 175}}],
            ended_by="fold",
            ranking=None,
            returned={},
            fees={"rake": 5, "jackpot": 0},
            by=None,
        )
        self.send(
            table_id,
            "hands",
            "hand_end",
            hand=hand,
            ended_by="fold",
            void=False,
            players={"1": "luis", "3": "rosa", "4": "juan"},
            pot_total=180,
            pots=[],
            bets={},
            fees={"rake": 5, "jackpot": 0},
            awards={"4": 175},
            stacks={"4": 1075},
            reconciled=True,
            **common,
        )

    def fault(self, table_id: str, fault: str, device: str, active: bool) -> None:
        self.send(
            table_id,
            "faults",
            "fault",
            fault=fault,
            device=device,
            active=active,
            detail=f"{device} on /dev/ttyUSB0 was lost" if active else None,
        )

    def will(self, table_id: str) -> None:
        """The broker's last will for a table it lost."""
        topics = self.topics(table_id)
        stamp = Stamp.now()
        payload = {
            "kind": "status",
            "v": 1,
            "table_id": table_id,
            "site": topics.site,
            "ts": stamp.iso,
            "ts_ns": stamp.wall_ns,
            "clock_synced": True,
            "link": "down",
            "reason": "connection lost",
            "unsent": None,
            "will": True,
            "fault": None,
            "device_faults": None,
            "tray_discrepancy": None,
            "outbox": None,
        }
        self.publish(topics.status, payload, retain=True)


def play_the_room(room: Room, board: BoardServer) -> None:
    """40 minutes of a room on the board's clock: the dealers of every table but T3
    pushed at minute 25; T5's tray lost and back, then its keypad lost; U9's link lost;
    T1's last hands."""
    tables = LV + EAST
    for n, table_id in enumerate(tables):
        room.state(table_id, 20 + n, f"D1{n:02}")
    room.minutes(25, board)
    for n, table_id in enumerate(tables):
        room.state(table_id, 25 + n, f"D1{n:02}" if table_id == "T3" else f"D2{n:02}")
    room.fault("T5", "tray_lost", "tray", True)
    room.minutes(27, board)
    room.fault("T5", "tray_lost", "tray", False)
    room.minutes(40, board)
    for hand in (41, 42, 43):
        room.hand("T1", hand)
    for n, table_id in enumerate(tables):
        clock = {"seat": 1, "remaining_ms": 45_000, "warning": False}
        room.state(
            table_id,
            43 if table_id == "T1" else 30 + n,
            f"D1{n:02}" if table_id == "T3" else f"D2{n:02}",
            clock=clock if table_id == "T2" else None,
        )
    room.fault("T5", "keypad_lost", "keypad", True)
    room.will("U9")
    until(
        lambda: (
            len(board.board.cards(room.now())) == len(tables)
            and board.board.card("U9", room.now())["alarm"]  # type: ignore[index]
            and board.board.card("T5", room.now())["alarm"]  # type: ignore[index]
        ),
        "the room on the board",
    )


@pytest.fixture
def room_board(broker: LocalBroker) -> Iterator[tuple[Room, BoardServer]]:
    room = Room(broker)
    topic_filter, site = board_filter(None, prefix="casino", site=None, all_sites=True)
    board = BoardServer(
        host=broker.host,
        port=broker.port,
        topic_filter=topic_filter,
        site=site,
        http_port=0,
        now_ns=room.now,
        push_minutes=30,
    )
    board.start()
    try:
        assert board.wait_broker(WAIT)
        play_the_room(room, board)
        yield room, board
    finally:
        board.stop()
        room.close()
    assert assert_valid(room.sent) > 50  # what the room sent holds to the floor's contract


def card_ids(driver: Any, shown_only: bool = False) -> list[str]:
    from selenium.webdriver.common.by import By

    return [
        str(e.get_attribute("data-table"))
        for e in driver.find_elements(By.CSS_SELECTOR, "main .card")
        if not shown_only or e.is_displayed()
    ]


def test_a_supervisors_room(
    room_board: tuple[Room, BoardServer],
    browser: Any,  # noqa: F811
    shot: Callable[[Any, str], None],
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    room, board = room_board
    viewport(browser, 1920, 1080)
    browser.get(board.url)
    until(lambda: len(card_ids(browser)) == 15, "15 cards")
    # The tables that need someone first, red, labelled; then the tables in order.
    assert card_ids(browser)[:2] == ["T5", "U9"]
    assert card_ids(browser)[2:] == sorted(card_ids(browser)[2:], key=lambda t: (t[0], int(t[1:])))
    for table_id in ("T5", "U9"):
        assert "alarm" in card_classes(browser, table_id)
        assert card_text(browser, table_id, "needs") == "NEEDS SOMEONE"
    assert card_text(browser, "T5", "alarms").startswith("KEYPAD LOST: CALL TECH SINCE ")
    assert "CHIP TRAY LOST: CALL TECH" in card_text(browser, "T5", "alarm-log")
    assert "LINK DOWN" in card_text(browser, "U9", "alarms")
    assert not browser.find_element(By.CSS_SELECTOR, "#card-T1 .needs").is_displayed()
    # Every seat: player, stack, away, all-in, owes a blind.
    seat_rows = browser.find_elements(By.CSS_SELECTOR, "#card-T1 .seats-list li")
    assert [r.get_attribute("class") for r in seat_rows] == [
        "seat",
        "seat away owes",
        "seat all-in",
    ]
    assert seat_rows[1].text.startswith("2 rosa ") and seat_rows[1].text.endswith("AWAY OWES")
    assert seat_rows[2].text.endswith("0 ALL-IN")
    # The last action, the dealer and his minutes down, the pace, the shift's money.
    assert card_text(browser, "T1", "last-action") == "LAST: SEAT 4 juan RAISE TO 120"
    until(lambda: "PUSH DUE" in card_text(browser, "T3", "dealer"), "T3 push due")
    assert card_text(browser, "T3", "dealer").startswith("DEALER D102 \u00b7 40+ MIN")
    assert "push-due" in card_classes(browser, "T3")
    assert card_text(browser, "T4", "dealer") == "DEALER D203 \u00b7 15 MIN"
    assert card_text(browser, "T4", "pace") == "15 HANDS/HOUR"  # 10 hands in 40 minutes
    assert card_text(browser, "T4", "money") == "SHIFT DROP 132 \u00b7 TIPS 66"
    assert card_text(browser, "V12", "money") == ""  # an older table: no meters, nothing
    assert card_text(browser, "T2", "clock").startswith("CLOCK SEAT 1: ")
    assert "2 push due" not in browser.find_element(By.ID, "summary").text
    assert "1 push due" in browser.find_element(By.ID, "summary").text
    # The open seats of the room by game, for the waitlist (a table whose link is down
    # is left out: nobody can seat a player there).
    lines = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#room li")]
    assert lines[0].startswith("FL TRIPLE DRAW 10/20: ")
    assert any(line.startswith("NL HOLD'EM 1/2: ") for line in lines)
    assert "U9" not in " ".join(lines)
    t1_open = 9 - 3
    assert f"T1 ({t1_open})" in " ".join(lines)
    overflow = browser.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth;"
    )
    assert overflow <= 0
    shot(browser, "room_1920.png")

    # Filters: needs someone, then a game, mirrored in the address; a site by address.
    browser.find_element(By.ID, "f-needs").click()
    until(lambda: card_ids(browser, shown_only=True) == ["T5", "U9"], "only those in need")
    assert "needs=1" in browser.current_url
    browser.find_element(By.ID, "f-needs").click()
    Select(browser.find_element(By.ID, "f-game")).select_by_value("FL TRIPLE DRAW 10/20")
    until(lambda: card_ids(browser, shown_only=True) == ["V10", "V11", "V12"], "one game")
    assert "game=FL+TRIPLE+DRAW+10%2F20" in browser.current_url
    assert "(3 shown)" in browser.find_element(By.ID, "summary").text
    wall_link = browser.find_element(By.ID, "wall-link").get_attribute("href")
    assert "game=FL+TRIPLE+DRAW+10%2F20" in wall_link and "wall=1" in wall_link
    browser.get(board.url + "?site=east")
    until(lambda: card_ids(browser, shown_only=True) == EAST, "site east by address")
    assert Select(browser.find_element(By.ID, "f-site")).first_selected_option.text == "east"

    # A click on a table opens its detail: seats, alarms, last hands (newest first).
    viewport(browser, 1280, 800)
    browser.get(board.url)
    until(lambda: len(card_ids(browser)) == 15, "15 cards")
    shot(browser, "room_1280.png")
    browser.find_element(By.ID, "card-T1").click()
    detail = browser.find_element(By.ID, "detail")
    until(lambda: detail.is_displayed(), "the detail of T1")
    until(lambda: "TABLE T1" in detail.text, "T1's detail")
    hands = detail.find_elements(By.CSS_SELECTOR, ".detail-hand")
    assert [h.get_attribute("data-hand") for h in hands] == ["43", "42", "41"]
    assert "SEAT 4 juan RAISE TO 120" in hands[0].text
    assert "HAND 43 ENDED (fold): POT 180, RAKE 5" in hands[0].text
    assert "2 rosa" in detail.find_element(By.CSS_SELECTOR, ".detail-seats").text
    facts = detail.find_element(By.CSS_SELECTOR, ".detail-game").text
    assert facts.startswith("NL HOLD'EM 5/10 \u00b7 DEALER D200 15 MIN \u00b7 ")
    assert "HANDS/HOUR \u00b7 SHIFT DROP 172, TIPS 86" in facts
    shot(browser, "detail.png")
    room.hand("T1", 44)  # the open detail follows its table
    until(lambda: "HAND 44 ENDED" in detail.text, "T1's next hand in its detail")
    browser.find_element(By.ID, "detail-close").click()
    until(lambda: not detail.is_displayed(), "the detail closed")
    # from the keyboard: Enter on a table opens its detail, Escape closes it
    from selenium.webdriver.common.keys import Keys

    browser.find_element(By.ID, "card-T2").send_keys(Keys.ENTER)
    until(lambda: "TABLE T2" in detail.text, "T2's detail from the keyboard")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    until(lambda: not detail.is_displayed(), "the detail closed by Escape")

    # The wall display: no controls, no detail on a click, every card in sight.
    viewport(browser, 1920, 1080)
    browser.get(board.url + "?wall=1&needs=1")
    until(lambda: card_ids(browser, shown_only=True) == ["T5", "U9"], "the wall, filtered")
    assert not browser.find_element(By.ID, "controls").is_displayed()
    browser.get(board.url + "?wall=1")
    until(lambda: len(card_ids(browser, shown_only=True)) == 15, "the wall")
    browser.find_element(By.ID, "card-T1").click()
    time.sleep(0.3)
    assert not browser.find_element(By.ID, "detail").is_displayed()
    assert not browser.find_element(By.CSS_SELECTOR, "#card-T1 .seats-list").is_displayed()
    assert browser.execute_script(
        "return document.documentElement.scrollHeight <= document.documentElement.clientHeight;"
    )
    size = browser.execute_script(
        "return parseFloat(getComputedStyle(document.querySelector('#card-T1 .table-id'))"
        ".fontSize);"
    )
    assert size >= 28, f"the wall's table ids in {size} px"
    shot(browser, "room_wall.png")


# every text on a phone's screen in at least this size (CSS px at a device scale of 1)
PHONE_MIN_FONT_PX = 12.0
SMALL_TEXT = """
const found = [];
for (const e of document.querySelectorAll("body *")) {
  const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
  if (!own || !e.getClientRects().length) continue;
  const size = parseFloat(getComputedStyle(e).fontSize);
  if (size < arguments[0]) found.push((e.className || e.tagName) + " " + size + "px");
}
return found;
"""


def test_the_board_on_a_phone(
    room_board: tuple[Room, BoardServer],
    browser: Any,  # noqa: F811
    shot: Callable[[Any, str], None],
) -> None:
    """A supervisor's handheld (390x844, a phone's own viewport): no sideways
    scrolling, no text below 12 px, the table in need first, its detail on the screen."""
    from selenium.webdriver.common.by import By

    _, board = room_board
    viewport(browser, 390, 844, mobile=True)
    browser.get(board.url)
    until(lambda: len(card_ids(browser)) == 15, "15 cards")
    assert browser.execute_script("return window.innerWidth;") == 390

    def sideways() -> int:
        return int(
            browser.execute_script(
                "return document.documentElement.scrollWidth - "
                "document.documentElement.clientWidth;"
            )
        )

    assert sideways() <= 0, f"{sideways()} px of sideways scrolling"
    assert browser.execute_script(SMALL_TEXT, PHONE_MIN_FONT_PX) == []
    assert card_ids(browser)[0] == "T5"
    shot(browser, "phone.png")
    browser.find_element(By.ID, "card-T1").click()
    detail = browser.find_element(By.ID, "detail")
    until(lambda: "HAND 43" in detail.text, "T1's detail on the phone")
    assert detail.rect["x"] >= 0 and detail.rect["width"] <= 390
    assert sideways() <= 0
    assert browser.execute_script(SMALL_TEXT, PHONE_MIN_FONT_PX) == []
    shot(browser, "phone_detail.png")


def test_two_hundred_tables_arriving_one_by_one_on_the_wall(
    broker: LocalBroker,
    browser: Any,  # noqa: F811
) -> None:
    """The wall display open before 200 tables come on, one message each: every card
    shown within seconds, the text fitted once the tables stop coming. (Each new table
    made the page shrink its text again half a pixel at a time, a layout of every card
    each step: over 120 s of a busy page for 200 tables.)"""
    from selenium.webdriver.common.by import By

    from tests.test_floor_board_hostile import publish, state

    board = BoardServer(
        host=broker.host,
        port=broker.port,
        topic_filter=board_filter(None, prefix="casino", site="lv", all_sites=False)[0],
        site="lv",
        http_port=0,
    )
    board.start()
    try:
        assert board.wait_broker(WAIT)
        viewport(browser, 1920, 1080)
        browser.get(board.url + "?wall=1")
        until(lambda: "0 tables" in browser.find_element(By.ID, "summary").text, "the page")
        started = time.monotonic()
        publish(broker, [state(f"T{n}", 1) for n in range(1, 201)])
        until(lambda: len(card_ids(browser)) == 200, "200 cards", timeout=30)
        until(
            lambda: browser.execute_script(
                "return document.documentElement.scrollHeight <= "
                "document.documentElement.clientHeight + 1 || "
                "parseFloat(document.documentElement.style.fontSize) <= 12;"
            ),
            "the text fitted",
        )
        assert time.monotonic() - started < 30
    finally:
        board.stop()
