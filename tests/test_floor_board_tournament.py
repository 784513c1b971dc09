"""The floor board's card of a tournament table, in Debian's headless Chromium (a real
Mosquitto, the board's own subscriber and page): the level line counting down, and the
room's players left at the tournament tables, whose seats are never offered."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from controller.config import load_config_text
from controller.floor.clock import Stamp
from controller.floor.messages import state_message, table_info
from controller.floor.topics import TableTopics
from tests.daemon_helpers import WAIT
from tests.floor_board_helpers import LEVEL_6, NINE_SEAT_NLHE, lv_board
from tests.localbroker import LocalBroker
from tests.test_floor_board import browser as browser  # the fixture  # noqa: F401
from tests.test_floor_board import card_text, until

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def _publish(
    broker: LocalBroker,
    table_id: str,
    players: int,
    level: dict[str, Any] | None,
    info: dict[str, Any] | None = None,
    seq: int = 40,
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
    info = info or {**NINE_SEAT_NLHE, "tournament": level is not None}
    message = state_message(topics, state, seq=seq, stamp=Stamp.now(), table=info)
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        payload = message.payload[:-1] + f',"msg_seq":{seq - 39}}}'
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
    _publish(broker, "T4", 3, {**level, "break": True, "paused": True})  # a break held
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
        assert card_text(browser, "T4", "level") == (
            "BREAK 10:00 PAUSED \u00b7 NEXT LEVEL 6 150/300 A300 \u00b7 3 LEFT"
        )
        room = until(
            lambda: [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#room li")],
            "the room",
        )
        assert room == [
            "NL HOLD'EM 5/10: 5 open T3 (5)",
            "TOURNAMENT: 14 left T1 (6) T2 (5) T4 (3)",
        ]
    finally:
        board.stop()


def _named(tournament_id: str | None) -> dict[str, Any]:
    """The ``table`` a tournament table sends, from a real configuration naming its
    tournament ``tournament_id`` (or none)."""
    text = (ROOT / "config" / "tournament.example.yaml").read_text()
    text = text.replace("  id: SAT-1 ", f"  id: {tournament_id} " if tournament_id else "  # ")
    return table_info(load_config_text(text, "t.yaml").rules)


def test_the_room_counts_the_players_left_per_tournament(broker: LocalBroker, browser: Any) -> None:
    """Tables name their tournament (``tournament.id``): the room counts the players left
    per tournament across its tables, each on its line in name order, the tables that
    name none last; and a table moving to another tournament moves its count."""
    from selenium.webdriver.common.by import By

    assert _named("SUN-500")["tournament_id"] == "SUN-500"
    assert _named(None)["tournament_id"] is None
    _publish(broker, "T1", 6, LEVEL_6, _named("SUN-500"))
    _publish(broker, "T2", 4, LEVEL_6, _named("MON-100"))
    _publish(broker, "T4", 5, {**LEVEL_6, "paused": True}, _named("SUN-500"))
    _publish(broker, "T5", 3, LEVEL_6, _named(None))
    _publish(broker, "T3", 4, None)  # a cash table: its open seats are offered
    board = lv_board(broker)
    board.start()
    try:
        assert board.wait_broker(WAIT)
        browser.get(board.url)

        def room() -> list[str]:
            return [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#room li")]

        def shows(mon_100: str, sun_500: str) -> None:
            expected = [
                "NL HOLD'EM 5/10: 5 open T3 (5)",
                f"TOURNAMENT MON-100: {mon_100}",
                f"TOURNAMENT SUN-500: {sun_500}",
                "TOURNAMENT: 3 left T5 (3)",
            ]
            until(lambda: room() == expected or None, f"the room {expected}")

        shows("4 left T2 (4)", "11 left T1 (6) T4 (5)")
        _publish(broker, "T4", 5, LEVEL_6, _named("MON-100"), seq=41)  # the table renamed
        shows("9 left T2 (4) T4 (5)", "6 left T1 (6)")
        with urllib.request.urlopen(board.url.rstrip("/") + "/cards.json", timeout=WAIT) as got:
            cards = json.loads(got.read())
        ids = {c["table_id"]: (c["tournament"] or {}).get("id") for c in cards["cards"]}
        assert ids == {"T1": "SUN-500", "T2": "MON-100", "T3": None, "T4": "MON-100", "T5": None}
    finally:
        board.stop()
