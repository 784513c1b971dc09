"""The floor board against hostile publishers: a real Mosquitto, the board's own
subscriber and HTTP server, payloads any client allowed to publish could send."""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.floor import board_log
from controller.floor.board_server import BoardServer
from controller.floor.clock import Stamp
from controller.floor.messages import state_message
from controller.floor.topics import TableTopics
from tests.daemon_helpers import WAIT
from tests.floor_board_helpers import NINE_SEAT_NLHE, floor_watch_command, lv_board
from tests.localbroker import LocalBroker
from tests.test_floor_board import browser  # noqa: F401 - the fixture
from tests.waiting import eventually

# slow, out of the edit loop (README, Tests): a real browser (headless Chromium)
pytestmark = pytest.mark.slow


@pytest.fixture
def board(broker: LocalBroker) -> Iterator[BoardServer]:
    server = lv_board(broker)
    server.start()
    assert server.wait_broker(WAIT)
    yield server
    server.stop()


def publish(broker: LocalBroker, messages: list[tuple[str, bytes | str]]) -> None:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        for topic, payload in messages:
            client.publish(topic, payload, qos=1).wait_for_publish(WAIT)
    finally:
        client.disconnect()  # before loop_stop: it would wait out the loop's 1 s select
        client.loop_stop()
        client.disconnect()


def state(
    table_id: str, msg_seq: int, *, seats: Any = 9, hand: int = 1, topic_table: str | None = None
) -> tuple[str, str]:
    """A state message of `table_id` (on the topic of `topic_table`, if given)."""
    message = state_message(
        TableTopics("casino", "lv", table_id),
        {"hand": hand, "phase": "preflop", "seats": {}, "clock": None},
        seq=msg_seq,
        stamp=Stamp.now(),
        table={
            "seats": seats,
            "structure": "no_limit",
            "form": "flop",
            "small_blind": 5,
            "big_blind": 10,
        },
    )
    topic = TableTopics("casino", "lv", topic_table).state if topic_table else message.topic
    return topic, message.payload[:-1] + f',"msg_seq":{msg_seq}}}'


def cards(board: BoardServer) -> dict[str, dict[str, Any]]:
    with urllib.request.urlopen(board.url + "cards.json", timeout=WAIT) as answer:
        return {c["table_id"]: c for c in json.loads(answer.read())["cards"]}


def until_card(board: BoardServer, table_id: str, **expected: Any) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while True:
        card = cards(board).get(table_id)
        if card is not None and all(card.get(k) == v for k, v in expected.items()):
            return card
        assert time.monotonic() < deadline, f"{table_id} {expected}: {card}"
        time.sleep(0.05)


def test_hostile_table_ids_and_seat_counts_never_break_the_board(
    broker: LocalBroker, board: BoardServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A table id no table can have (a digit `int()` refuses, 5000 digits, HTML), a
    message claiming another table's id on its own topic, a table claiming a million
    seats: each is set aside with a warning naming its topic; the page keeps showing
    every real table, with what they really said."""
    caplog.set_level(logging.WARNING, logger="controller.floor.board_server")
    publish(broker, [state("T1", 1, hand=4)])
    until_card(board, "T1", hand=4)
    html = "<img src=x onerror=alert(1)>"
    publish(
        broker,
        [
            state("T\u00b2", 1),  # '²' is a digit to str.isdigit, not to int()
            state("9" * 5000, 1),  # more digits than int() converts
            state(html, 1),
            state("T1", 2, hand=666, topic_table="T9"),  # T9 pretending to be T1
            state("T2", 1, seats=1_000_000),
            state("T3", 1, hand=7),
        ],
    )
    until_card(board, "T3", hand=7)
    shown = cards(board)
    assert sorted(shown) == ["T1", "T2", "T3"]
    assert shown["T1"]["hand"] == 4
    assert shown["T2"]["open_seats"] == [] and shown["T2"]["seats"] is None
    warned = "\n".join(r.getMessage() for r in caplog.records)
    for topic in (
        "casino/lv/table/T\u00b2/state",
        f"casino/lv/table/{html}/state",
        "casino/lv/table/T9/state",
    ):
        assert topic in warned, warned


def test_a_browser_that_hangs_up_early_is_no_traceback(
    board: BoardServer, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A browser closed while the page or the cards are being sent (a reload, a tab
    closed) is routine: at most a debug line, never a traceback on the board's
    console or journal; the board goes on serving."""
    import socket
    import struct

    caplog.set_level(logging.DEBUG, logger="controller.floor.board_server")
    host, port = board.url.split("//")[1].rstrip("/").split(":")
    for path in ("/", "/cards.json", "/events") * 3:
        client = socket.create_connection((host, int(port)))
        client.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        # close at once with a reset (SO_LINGER 0): the answer finds no one to read it
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()
    # Still serving; and this connection is accepted after the nine, so each of them
    # has its thread by now: wait until all have ended (what they log is then logged).
    assert cards(board) == {}
    assert eventually(
        lambda: not [t for t in threading.enumerate() if "process_request_thread" in t.name],
        WAIT,
    ), [t.name for t in threading.enumerate()]
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception occurred" not in err, err
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_version_names_the_checkout_that_answers(tmp_path: Path) -> None:
    """`tablectl floor board --help` once said "invalid choice: 'board'": the code that
    answered was an older checkout (`python -m controller` imports the `controller`
    package of the current directory first; a venv's tablectl runs the checkout it was
    installed from). `--version` says which checkout answers."""
    import shutil
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    other = tmp_path / "older-checkout"
    shutil.copytree(
        root / "controller", other / "controller", ignore=shutil.ignore_patterns("__pycache__")
    )
    for cwd, expected in ((root, root), (other, other)):
        answer = subprocess.run(
            [sys.executable, "-m", "controller", "--version"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert answer.stdout.strip().endswith(f" from {expected / 'controller'}"), answer
    board = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "board", "--help"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert board.stdout.startswith("usage: tablectl floor board")


def test_a_players_name_is_shown_as_text_inside_its_card(
    broker: LocalBroker,
    board: BoardServer,
    browser: Any,  # noqa: F811 - the fixture
) -> None:
    """A name with HTML in it is shown as the text it is (nothing runs, no element
    made), and a long name wraps inside its card instead of running over the next one
    (headless Chromium)."""
    from selenium.webdriver.common.by import By

    from tests.test_floor_board import until

    evil = "<img src=x onerror=\"document.title='pwned'\">" + "Maximiliano" * 4
    seats = {"2": {"player": evil, "stack": 100, "bet": 0, "status": "playing", "missed": []}}
    for table_id in ("T1", "T2"):
        message = state_message(
            TableTopics("casino", "lv", table_id),
            {
                "hand": 3,
                "phase": "flop",
                "to_act": 2,
                "pot_total": 120,
                "seats": seats,
                "clock": None,
                "dealer": evil,
            },
            seq=1,
            stamp=Stamp.now(),
            table=NINE_SEAT_NLHE,
        )
        publish(broker, [(message.topic, message.payload[:-1] + ',"msg_seq":1}')])
    browser.get(board.url)
    until(
        lambda: "SEAT 2 TO ACT" in browser.find_element(By.CSS_SELECTOR, "#card-T2 .to-act").text,
        "T2 shown",
    )
    assert evil in browser.find_element(By.CSS_SELECTOR, "#card-T1 .to-act").text
    shortened = evil[: board_log.NAME_CHARS]  # in the seats and as the dealer
    assert shortened in browser.find_element(By.CSS_SELECTOR, "#card-T1 .seats-list").text
    assert shortened in browser.find_element(By.CSS_SELECTOR, "#card-T1 .dealer").text
    browser.find_element(By.ID, "card-T1").click()  # the detail: text too
    until(lambda: shortened in browser.find_element(By.ID, "detail").text, "T1's detail")
    assert browser.find_elements(By.CSS_SELECTOR, "img") == []
    assert browser.title == "Floor board"
    overflow = browser.execute_script(
        "const c = document.getElementById('card-T1');"
        "return [c, ...c.querySelectorAll('*')].map(e => e.scrollWidth - e.clientWidth)"
        ".reduce((a, b) => Math.max(a, b), 0);"
    )
    assert overflow <= 0, f"the name runs {overflow} px over its card"


def test_a_browser_that_stops_reading_gets_a_snapshot_when_it_reads_again(
    broker: LocalBroker, board: BoardServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Changes for a browser that stops reading pile up to `QUEUE_MAX` only; then it
    is passed over (it costs the other browsers nothing: `bench/floor_board_clients.py`
    measures it) until it reads again, when a fresh snapshot brings it up to date."""
    import socket

    from controller.floor import board_server

    monkeypatch.setattr(board_server, "QUEUE_MAX", 5)
    monkeypatch.setattr(board_server, "SEND_BUFFER", 4096)
    host, port = board.url.split("//")[1].rstrip("/").split(":")
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.connect((host, int(port)))
    client.sendall(f"GET /events HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    client.settimeout(WAIT)
    head = b""
    while b"event: snapshot" not in head:
        head += client.recv(65536)
    flood = []
    for hand in range(1, 1001):
        message = state_message(
            TableTopics("casino", "lv", "T1"),
            {"hand": hand, "phase": "flop", "seats": {}, "clock": None},
            seq=hand,
            stamp=Stamp.now(),
        )
        flood.append((message.topic, message.payload[:-1] + f',"msg_seq":{hand}}}'))
    publish(broker, flood)
    until_card(board, "T1", hand=1000)
    stream = b""
    while b'"hand":1000' not in stream:
        stream += client.recv(1 << 20)
    client.close()
    frames = [f for f in stream.split(b"\n\n") if f.startswith(b"event: ")]
    kinds = [f.split(b"\n", 1)[0][7:].decode() for f in frames]
    assert kinds[-1] == "snapshot", " ".join(kinds)
    assert len(frames) < 500, f"{len(frames)} frames: the backlog piled up"


def test_the_watch_says_what_is_wrong_with_a_hostile_payload(broker: LocalBroker) -> None:
    """`tablectl floor watch` shows a payload that is no message as a short line: why
    (the decoder's words), how big, and its first KiB, instead of megabytes of it."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    watch = subprocess.Popen(
        floor_watch_command(broker, "--all", "--count", "3", "--timeout", "60"),
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert watch.stderr is not None and watch.stderr.readline().startswith(b"watching")
    topic = "casino/lv/table/T1/events"
    publish(
        broker,
        [
            (topic, b"x" * 2_000_000),
            (topic, b'{"a": "\xff\xfe"}'),
            (topic, "[" * 5000 + "]" * 5000),
        ],
    )
    out, _ = watch.communicate(timeout=WAIT)
    lines = out.decode().splitlines()
    assert len(lines) == 3 and all(len(line) < 2000 for line in lines), [len(x) for x in lines]
    shown = [json.loads(line)["message"] for line in lines]
    assert [m["bytes"] for m in shown] == [2_000_000, 11, 10_000]
    assert all(m["problem"] for m in shown), shown
    assert shown[1]["raw"] == '{"a": "\ufffd\ufffd"}'
