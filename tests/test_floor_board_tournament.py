"""The floor board's card of a tournament table, in Debian's headless Chromium (a real
Mosquitto, the board's own subscriber and page): the level line counting down, and the
room's players left at the tournament tables, whose seats are never offered."""

from __future__ import annotations

from typing import Any

import pytest

from controller.floor.clock import Stamp
from controller.floor.messages import state_message
from controller.floor.topics import TableTopics
from tests.daemon_helpers import WAIT
from tests.floor_board_helpers import LEVEL_6, NINE_SEAT_NLHE, lv_board
from tests.localbroker import LocalBroker
from tests.test_floor_board import browser as browser  # the fixture  # noqa: F401
from tests.test_floor_board import card_text, until

pytestmark = pytest.mark.slow


def _publish(
    broker: LocalBroker, table_id: str, players: int, level: dict[str, Any] | None
) -> None:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    topics = TableTopics("casino", "lv", table_id)
    seats = {
        str(s): {"player": f"p{s}", "stack": 5000, "bet": 0, "status": "playing", "missed": []}
        for s in range(1, players + 1)
    }
    state = {
        "hand": 12,
        "phase": "idle",
        "pot_total": 0,
        "seats": seats,
        "clock": None,
        "tournament": level,
    }
    info = {**NINE_SEAT_NLHE, "tournament": level is not None}
    message = state_message(topics, state, seq=40, stamp=Stamp.now(), table=info)
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        payload = message.payload[:-1] + ',"msg_seq":1}'
        client.publish(message.topic, payload, qos=1, retain=True).wait_for_publish(WAIT)
    finally:
        client.disconnect()
        client.loop_stop()


def test_the_tournament_card_and_the_room(broker: LocalBroker, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    level = LEVEL_6
    _publish(broker, "T1", 6, level)
    _publish(broker, "T2", 5, {**level, "paused": True})
    _publish(broker, "T3", 4, None)  # a cash table: its open seats are offered
    board = lv_board(broker)
    board.start()
    try:
        assert board.wait_broker(WAIT)
        browser.get(board.url)
        first = until(lambda: card_text(browser, "T1", "level"), "T1's level line")
        assert first.startswith("LEVEL 6 150/300 A300 \u00b7 ") and first.endswith(" \u00b7 6 LEFT")
        assert first.split(" \u00b7 ")[1] in ("10:00", "9:59", "9:58")
        until(lambda: card_text(browser, "T1", "level") != first, "the level counting down")
        assert (
            card_text(browser, "T2", "level") == "LEVEL 6 150/300 A300 \u00b7 PAUSED \u00b7 5 LEFT"
        )
        assert card_text(browser, "T3", "level") == ""
        room = until(
            lambda: [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#room li")],
            "the room",
        )
        assert room == ["NL HOLD'EM 5/10: 5 open T3 (5)", "TOURNAMENT: 11 left T1 (6) T2 (5)"]
    finally:
        board.stop()
