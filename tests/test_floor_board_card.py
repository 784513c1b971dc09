"""What a floor board's card tells a supervisor (the model, `controller/floor/board.py`
and `board_log.py`): every seat with its player, stack and status, the last action, the
dealer and minutes down (push due), hands per hour, the shift's drop and tips, the last
ten alarms with their times, the last hands' play-by-play (bounded per table), and a
table's detail over HTTP. The page itself: tests/test_floor_board_room.py."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from controller.floor import board_log
from controller.floor.board import Board
from controller.floor.board_server import load_board_config
from tests.daemon_helpers import WAIT
from tests.floor_board_helpers import LEVEL_6, NINE_SEAT_NLHE, lv_board
from tests.floor_schema import assert_valid
from tests.localbroker import LocalBroker

S = 1_000_000_000
MIN = 60 * S
ENVELOPE = {
    "v": 1,
    "table_id": "T4",
    "site": "lv",
    "ts": "2025-03-01T21:00:00.000Z",
    "ts_ns": 1740862800000000000,
    "clock_synced": True,
}
SEATS = {
    "2": {"player": "ana", "stack": 900, "bet": 0, "status": "sitting_out", "missed": ["big"]},
    "5": {"player": "luis", "stack": 0, "bet": 100, "status": "all_in", "missed": []},
    "8": {"player": "marta", "stack": 1470, "bet": 100, "status": "playing", "missed": []},
}


class Table:
    """One table's messages, numbered as a table numbers them."""

    def __init__(self, board: Board, table_id: str = "T4") -> None:
        self.board, self.table_id, self.msg_seq = board, table_id, 0
        self.sent: list[dict[str, Any]] = []

    def send(self, at_ns: int, kind: str, **body: Any) -> None:
        self.msg_seq += 1
        payload = {
            **ENVELOPE,
            "table_id": self.table_id,
            "kind": kind,
            "seq": self.msg_seq,
            "msg_seq": self.msg_seq,
            **body,
        }
        self.sent.append(payload)
        self.board.apply(payload, at_ns)

    def state(self, at_ns: int, **fields: Any) -> None:
        body = {"hand": 1, "phase": "flop", "pot_total": 200, "seats": SEATS, "clock": None}
        self.send(at_ns, "state", state=body | fields, table=NINE_SEAT_NLHE)

    def action(self, at_ns: int, hand: int, seat: int, action: str, to: int) -> None:
        self.send(
            at_ns,
            "action",
            hand=hand,
            phase="flop",
            seat=seat,
            player="marta",
            action=action,
            amount=to,
            to=to,
            all_in=False,
            stack=1000,
            cause="act",
            by=None,
        )

    def fault(self, at_ns: int, active: bool) -> None:
        detail = "keypad on /dev/ttyUSB0 was lost" if active else None
        self.send(
            at_ns, "fault", fault="keypad_lost", device="keypad", active=active, detail=detail
        )


def card(board: Board, now_ns: int) -> dict[str, Any]:
    found = board.card("T4", now_ns)
    assert found is not None
    return found


def test_every_seat_with_its_player_stack_and_status() -> None:
    board = Board("lv")
    table = Table(board)
    table.state(1 * S)
    assert card(board, 2 * S)["seat_rows"] == [
        {
            "seat": 2,
            "player": "ana",
            "stack": 900,
            "status": "sitting_out",
            "away": True,
            "all_in": False,
            "owes": True,
        },
        {
            "seat": 5,
            "player": "luis",
            "stack": 0,
            "status": "all_in",
            "away": False,
            "all_in": True,
            "owes": False,
        },
        {
            "seat": 8,
            "player": "marta",
            "stack": 1470,
            "status": "playing",
            "away": False,
            "all_in": False,
            "owes": False,
        },
    ]
    # odd seats never break the card: a key that is no seat, a seat that is no mapping
    table.state(3 * S, seats={"x": {}, "3": "ana", "4": {"player": 7, "missed": "big"}})
    assert card(board, 4 * S)["seat_rows"] == [
        {
            "seat": 4,
            "player": "",
            "stack": None,
            "status": None,
            "away": False,
            "all_in": False,
            "owes": False,
        }
    ]
    assert_valid(table.sent[:1])


def test_the_dealer_minutes_down_and_the_push_due() -> None:
    board = Board("lv", push_minutes=30)
    table = Table(board)
    table.state(0, dealer=None)  # an older table, or nobody signed in: nothing shown
    assert card(board, 1 * S)["dealer"] is None and card(board, 1 * S)["dealer_ms"] is None
    table.state(1 * MIN, dealer="D204")
    down = card(board, 20 * MIN)
    assert (down["dealer"], down["dealer_ms"], down["push_due"]) == ("D204", 19 * 60_000, False)
    assert down["dealer_change_seen"] is True
    table.state(25 * MIN, dealer="D204", hand=2)  # the same dealer: the minutes go on
    assert card(board, 31 * MIN)["push_due"] is True
    table.state(32 * MIN, dealer="D311")  # the push: a new dealer, from 0
    pushed = card(board, 33 * MIN)
    assert (pushed["dealer"], pushed["dealer_ms"], pushed["push_due"]) == ("D311", 60_000, False)
    # a board that starts while a dealer is down cannot know since when: it says so
    later = Board("lv")
    Table(later).state(5 * MIN, dealer="D311")
    assert card(later, 6 * MIN)["dealer_change_seen"] is False
    # a table without the field (before the dealer sign-in) shows nothing
    older = Board("lv")
    Table(older).state(0)
    assert card(older, 1 * S)["dealer"] is None


def test_hands_per_hour_from_the_hand_numbers_seen() -> None:
    board = Board("lv")
    table = Table(board)
    table.state(0, hand=10)
    assert card(board, 1 * MIN)["hands_per_hour"] is None  # one hand seen: no pace yet
    table.state(1 * MIN, hand=11)
    assert card(board, 2 * MIN)["hands_per_hour"] is None  # two hands a minute apart: none
    for n in range(1, 31):  # a hand every 2 minutes: 30 an hour
        table.state(n * 2 * MIN, hand=10 + n)
    assert card(board, 60 * MIN)["hands_per_hour"] == 30.0
    assert card(board, 90 * MIN)["hands_per_hour"] == 15.0  # half an hour idle: it falls
    assert card(board, 121 * MIN)["hands_per_hour"] == 0.0
    assert len(table.board._cards["T4"].history.pace) <= board_log.PACE_SAMPLES
    table.state(121 * MIN, hand=1)  # a new journal counts from 1: the pace starts again
    table.state(122 * MIN, hand=2)
    assert card(board, 140 * MIN)["hands_per_hour"] == 3.2  # 1 hand in 19 minutes


def test_the_shifts_drop_and_tips_from_the_meters() -> None:
    board = Board("lv")
    table = Table(board)
    table.state(0)
    assert card(board, 1 * S)["money"] is None  # a table without meters: nothing
    meters = {"hands": 40, "rake": 120, "jackpot": 40, "time_fees": 10, "tips": 35}
    table.state(2 * S, meters=meters | {"buy_ins": 3000, "cash_outs": 1200})
    assert card(board, 3 * S)["money"] == {"drop": 170, "tips": 35}


def test_the_last_action_and_the_last_hands_bounded() -> None:
    board = Board("lv")
    table = Table(board)
    table.state(0)
    table.send(1 * S, "hand_start", hand=1, button=8, dealt_in=[2, 5, 8])
    table.action(2 * S, 1, 8, "raise", 30)
    assert card(board, 3 * S)["last_action"] == "SEAT 8 marta RAISE TO 30"
    table.send(4 * S, "award", hand=1, pots=[{"index": 0, "amount": 60, "winners": [8]}], fees={})
    table.send(5 * S, "hand_end", hand=1, ended_by="fold", pot_total=60, fees={"rake": 3})
    detail = board.detail("T4", 10 * S)
    assert detail is not None
    assert detail["hands"] == [
        {
            "hand": 1,
            "lines": [
                {"ms_ago": 9000, "text": "HAND 1 DEALT: BUTTON 8, SEATS 2 5 8"},
                {"ms_ago": 8000, "text": "SEAT 8 marta RAISE TO 30"},
                {"ms_ago": 6000, "text": "POT 60 TO SEAT 8"},
                {"ms_ago": 5000, "text": "HAND 1 ENDED (fold): POT 60, RAKE 3"},
            ],
        }
    ]
    assert "hands" not in card(board, 10 * S)  # the cards the page gets stay small
    # however much a table sends, a card keeps HANDS_KEPT hands of LINES_PER_HAND lines
    for hand in range(2, 12):
        for n in range(100):
            table.action((10 + hand) * S, hand, 8, "call", n)
    detail = board.detail("T4", 30 * S)
    assert detail is not None
    assert [h["hand"] for h in detail["hands"]] == [11, 10, 9, 8, 7]
    assert all(len(h["lines"]) == board_log.LINES_PER_HAND for h in detail["hands"])
    long_name = {"player": "x" * 5000}
    table.send(40 * S, "action", hand=11, seat=1, action="fold", **long_name)
    assert len(card(board, 41 * S)["last_action"]) <= board_log.LINE_CHARS


def test_the_last_ten_alarms_with_their_times() -> None:
    board = Board("lv")
    table = Table(board)
    table.state(0)
    table.fault(10 * S, True)
    table.fault(70 * S, False)
    log = card(board, 100 * S)["alarm_log"]
    assert log == [
        {
            "code": "keypad_lost",
            "text": "KEYPAD LOST: CALL TECH",
            "ms_ago": 90_000,
            "cleared_ms_ago": 30_000,
        }
    ]
    table.fault(110 * S, True)  # raised again: a second entry, not cleared
    now = card(board, 120 * S)
    assert [(a["ms_ago"], a["cleared_ms_ago"]) for a in now["alarm_log"]] == [
        (10_000, None),
        (110_000, 50_000),
    ]
    assert now["alarm"] is True
    for n in range(20):
        table.fault((200 + 2 * n) * S, False)
        table.fault((201 + 2 * n) * S, True)
    assert len(card(board, 300 * S)["alarm_log"]) == board_log.ALARMS_KEPT == 10
    assert_valid(table.sent)


def test_a_tables_detail_over_http(broker: LocalBroker) -> None:
    server = lv_board(broker)
    server.start()
    try:
        assert server.wait_broker(WAIT)
        table = Table(server.board)
        table.state(server._now())
        table.action(server._now(), 1, 8, "bet", 20)
        with urllib.request.urlopen(server.url + "table/T4.json", timeout=WAIT) as answer:
            detail = json.load(answer)
        assert detail["table_id"] == "T4"
        assert detail["hands"][0]["lines"][0]["text"] == "SEAT 8 marta BET TO 20"
        for path in ("table/T5.json", "table/..%2Fcards.json", "table/.json"):
            with pytest.raises(urllib.error.HTTPError) as error:
                urllib.request.urlopen(server.url + path, timeout=WAIT)
            assert error.value.code == 404, path
    finally:
        server.stop()


def test_board_push_minutes_in_the_board_file(tmp_path: Path) -> None:
    from controller.config import ConfigError

    path = tmp_path / "board.yaml"
    path.write_text("floor: {site: lv, host: 127.0.0.1}\nboard: {push_minutes: 20}\n")
    assert load_board_config(path)[1].push_minutes == 20
    path.write_text("floor: {site: lv, host: 127.0.0.1}\nboard: {push_minutes: 0}\n")
    with pytest.raises(ConfigError, match="push_minutes"):
        load_board_config(path)


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "action", "action": {"x": 1}, "seat": [1] * 1000, "player": 5, "to": None},
        {"kind": "award", "pots": "x"},
        {"kind": "award", "pots": [5, {"winners": 7, "amount": "x" * 10_000}]},
        {"kind": "hand_start", "dealt_in": {"1": 2}, "hand": 10**30},
        {"kind": "hand_end", "fees": [1], "hand": None},
        {"kind": "refusal", "error": "no"},
        {"kind": "clock", "clock": 7},
    ],
)
def test_odd_play_messages_make_short_lines(body: dict[str, Any]) -> None:
    """A message of any shape is a short line of the hand's play-by-play, never an
    error, whatever a publisher sends."""
    board = Board("lv")
    table = Table(board)
    kind = body.pop("kind")
    table.send(1 * S, kind, **({"hand": 1} | body))
    detail = board.detail("T4", 2 * S)
    assert detail is not None
    [line] = detail["hands"][0]["lines"]
    assert 0 < len(line["text"]) <= board_log.LINE_CHARS


@pytest.mark.parametrize(
    ("antes", "game"),
    [
        ({"ante": 5, "ante_form": "each"}, "NL HOLD'EM 5/10 A5"),
        ({"ante": 10, "ante_form": "big_blind"}, "NL HOLD'EM 5/10 BBA10"),
        ({"ante": 0, "ante_form": "each"}, "NL HOLD'EM 5/10"),
    ],
)
def test_the_game_shows_the_ante_beside_the_blinds(antes: dict[str, Any], game: str) -> None:
    """A1, A2: the ante where the card shows the blinds, each player's (A) or the big
    blind's (BBA); the state message that carries it is valid."""
    board = Board("lv")
    table = Table(board)
    body = {"hand": 1, "phase": "flop", "pot_total": 200, "seats": SEATS, "clock": None}
    table.send(1 * S, "state", state=body, table={**NINE_SEAT_NLHE, **antes})
    assert_valid([table.sent[-1]])
    assert card(board, 2 * S)["game"] == game


def test_a_tournament_tables_card_shows_the_level_time_left_and_players_left() -> None:
    """T1, T4: the level and its stakes, the time left counting down from the state's
    (standing still while paused or the link is down), a break, the players left; a
    cash table has none."""
    board = Board("lv")
    table = Table(board)
    table.state(1 * S)
    assert card(board, 2 * S)["tournament"] is None
    level = {**LEVEL_6, "eliminated": [{"player": "eva", "hand": 30, "stack_at_start": 0}]}
    body = {"hand": 31, "phase": "idle", "pot_total": 0, "seats": SEATS, "tournament": level}
    info = {**NINE_SEAT_NLHE, "ante_form": "big_blind", "tournament": True}
    table.send(10 * S, "state", state=body, table=info)
    assert_valid([table.sent[-1]])
    assert card(board, 70 * S)["tournament"] == {
        "level": 6,
        "stakes": "150/300 BBA300",
        "level_ms_left": 540_000,
        "running": True,
        "paused": False,
        "break": False,
        "players_left": 3,
        "out": 1,
        "id": None,
    }
    named = {**info, "tournament_id": "SUN-500"}
    table.send(20 * S, "state", state=body, table=named)
    assert_valid([table.sent[-1]])
    assert card(board, 70 * S)["tournament"]["id"] == "SUN-500"
    table.send(80 * S, "state", state={**body, "tournament": {**level, "paused": True}}, table=info)
    paused = card(board, 200 * S)["tournament"]
    assert (paused["level_ms_left"], paused["running"], paused["paused"]) == (600_000, False, True)
    on_break = {**level, "level": 7, "break": True, "level_ms_left": 300_000}
    table.send(300 * S, "state", state={**body, "tournament": on_break}, table=info)
    table.send(
        301 * S,
        "status",
        link="down",
        reason="connection lost",
        unsent=None,
        will=True,
        fault=None,
        device_faults=None,
        tray_discrepancy=None,
        outbox=None,
    )
    held = card(board, 400 * S)["tournament"]
    assert (held["level"], held["break"], held["running"], held["level_ms_left"]) == (
        7,
        True,
        False,
        299_000,
    )
