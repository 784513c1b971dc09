"""The floor board in a real browser: Debian's headless Chromium driven by Selenium
through Debian's chromedriver, a real Mosquitto, simulated tables (the real daemon on
simulated devices) playing. The page shows the right tables, a called clock counts
down, an unplugged keypad turns its card red and back, and the page recovers after the
broker restarts. Screenshots of those moments go to docs/board/ (for docs/floor.md)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.floor.messages import state_message, status_payload
from controller.floor.publisher import Publisher
from controller.floor.settings import FloorSettings
from controller.journal import Journal
from tests.daemon_helpers import WAIT, press, running, seat_players, view, wait_for, write_config
from tests.floor_board_helpers import NINE_SEAT_NLHE, lv_board, viewport
from tests.floor_schema import assert_valid
from tests.localbroker import LocalBroker

# slow, out of the edit loop (README, Tests): a real browser (headless Chromium)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
# The screenshots in docs/board/ are made by this file: FLOOR_BOARD_SCREENSHOTS=docs/board
# python -m pytest tests/test_floor_board.py. Otherwise they go to a scratch folder (a
# test run leaves the checkout as it was).
SHOTS_ENV = "FLOOR_BOARD_SCREENSHOTS"
CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None
)


def _need_browser() -> None:
    missing = [
        name
        for name, path in (("chromium", CHROMIUM), ("chromium-driver", CHROMEDRIVER))
        if path is None
    ]
    if not missing:
        return
    message = (
        f"the floor board test needs Debian's {' and '.join(missing)} "
        f"(apt-get install chromium chromium-driver)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message + ": required in CI")
    pytest.skip(message)


@pytest.fixture
def browser() -> Iterator[Any]:
    _need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,800",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    viewport(driver, 1280, 800)  # a laptop's page, exactly (the window has a frame)
    try:
        yield driver
    finally:
        driver.quit()


def table_config(tmp_path: Path, broker: LocalBroker, table_id: str) -> Path:
    directory = tmp_path / table_id
    directory.mkdir()
    config = write_config(directory)
    config.write_text(
        config.read_text().replace("id: T1", f"id: {table_id}")
        + f"floor: {{site: lv, host: {broker.host}, port: {broker.port}}}\n"
    )
    return config


def until(condition: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """The first truthy value of `condition` within `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except Exception:  # the page is re-rendering: look again
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)


def card_text(driver: Any, table_id: str, part: str) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.CSS_SELECTOR, f"#card-{table_id} .{part}").text)


def card_classes(driver: Any, table_id: str) -> set[str]:
    from selenium.webdriver.common.by import By

    card = driver.find_element(By.ID, f"card-{table_id}")
    return set(str(card.get_attribute("class")).split())


@pytest.fixture
def shot(tmp_path: Path) -> Callable[[Any, str], None]:
    folder = Path(os.environ.get(SHOTS_ENV) or tmp_path / "board")
    folder.mkdir(parents=True, exist_ok=True)

    def save(driver: Any, name: str) -> None:
        assert driver.save_screenshot(str(folder / name)), name

    return save


def test_the_floor_board_in_a_browser(
    tmp_path: Path, broker: LocalBroker, browser: Any, shot: Callable[[Any, str], None]
) -> None:
    from selenium.webdriver.common.by import By

    # A table of another site publishes too: the board of site lv never shows it.
    west = Publisher(
        FloorSettings(site="west", host=broker.host, port=broker.port),
        table_id="W1",
        db_path=tmp_path / "west.sqlite3",
    )
    west.start()
    west.enqueue(
        [state_message(west.topics, {"hand": 0, "phase": "idle", "seats": {}}, seq=0)], seq=0
    )
    assert west.wait_drained(WAIT)
    seen: list[Any] = []
    board = lv_board(broker)
    original = board._on_message
    board._on_message = lambda message: (
        seen.append(message.payload),  # type: ignore[method-assign]
        original(message),
    )
    with contextlib.ExitStack() as stack:
        stack.callback(west.stop)
        stack.callback(board.stop)
        board.start()
        assert board.wait_broker(WAIT)
        tables = {
            t: stack.enter_context(running(table_config(tmp_path, broker, t)))
            for t in ("T1", "T2", "T3")
        }
        seat_players(tables["T1"], {2: "ana", 5: "luis", 8: "marta"})
        seat_players(tables["T2"], {1: "rosa", 4: "juan", 9: "eva"})
        seat_players(tables["T3"], {3: "ines", 6: "pablo"})
        browser.get(board.url)

        # 1. The right tables: the three of site lv, in order, each with game and stakes.
        until(
            lambda: (
                [
                    e.get_attribute("id")
                    for e in browser.find_elements(By.CSS_SELECTOR, "main .card")
                ]
                == ["card-T1", "card-T2", "card-T3"]
            ),
            "the three tables of site lv",
        )
        assert browser.find_elements(By.ID, "card-W1") == []
        until(lambda: card_text(browser, "T1", "game") == "NL HOLD'EM 5/10", "game and stakes")
        until(
            lambda: "OPEN SEATS: 1 3 4 6 7 9" in card_text(browser, "T1", "open-seats"),
            "open seats",
        )
        press(tables["T1"], "NEXT", "BET", "3", "0", "ENTER")
        until(lambda: card_text(browser, "T1", "pot") == "POT 45", "the pot of T1")
        until(lambda: card_text(browser, "T1", "to-act") == "SEAT 2 TO ACT (ana)", "to act")
        assert card_text(browser, "T1", "hand") == "HAND 1 \u00b7 PREFLOP"
        shot(browser, "tables.png")

        # 2. A called clock counts down on the page.
        press(tables["T2"], "NEXT", "CLOCK")
        wait_for(lambda: view(tables["T2"])["clock"] is not None, what="the clock called")
        first = until(lambda: card_text(browser, "T2", "clock"), "the clock shown")
        assert first.startswith("CLOCK SEAT ") and first.endswith(" S")
        clock = browser.find_element(By.CSS_SELECTOR, "#card-T2 .clock")
        start = int(until(lambda: clock.get_attribute("data-remaining"), "remaining"))
        assert 50_000 < start <= 60_000
        until(
            lambda: int(clock.get_attribute("data-remaining")) <= start - 1500,
            "the clock counting down",
        )
        assert card_text(browser, "T2", "clock") != first
        shot(browser, "clock.png")

        # 3. An unplugged keypad turns its card red, in the dealer's words; and back.
        sim = tables["T3"].devices.sim  # type: ignore[union-attr]
        sim.keypad.unplug()
        until(lambda: "alarm" in card_classes(browser, "T3"), "T3 red")
        # the state saying play stopped may come a moment before the fault message
        until(
            lambda: "KEYPAD LOST: CALL TECH" in card_text(browser, "T3", "alarms"),
            "the keypad lost, in the dealer's words",
        )
        assert "alarm" not in card_classes(browser, "T1")
        shot(browser, "keypad_lost.png")
        sim.keypad.replug()
        until(lambda: "alarm" not in card_classes(browser, "T3"), "T3 back to normal")
        assert card_text(browser, "T3", "alarms") == ""

        # 4. The broker restarts: the page says so, then recovers and goes on updating.
        broker.stop()
        until(
            lambda: browser.find_element(By.ID, "broker").is_displayed(), "the broker lost, shown"
        )
        shot(browser, "broker_lost.png")
        broker.start()
        until(
            lambda: not browser.find_element(By.ID, "broker").is_displayed(),
            "the board back on its broker",
            timeout=2 * WAIT,
        )
        press(tables["T1"], "FOLD")
        until(
            lambda: card_text(browser, "T1", "to-act") == "SEAT 5 TO ACT (luis)",
            "T1 updating after the restart",
            timeout=2 * WAIT,
        )
        assert {
            e.get_attribute("id") for e in browser.find_elements(By.CSS_SELECTOR, "main .card")
        } == {"card-T1", "card-T2", "card-T3"}
        until(  # the room's open seats again (none while every link was down)
            lambda: "T1 (6)" in browser.find_element(By.ID, "room").text, "the open seats"
        )
        shot(browser, "recovered.png")

        # The page's own view agrees with the board's JSON.
        with urllib.request.urlopen(board.url + "cards.json", timeout=WAIT) as reply:
            cards = json.load(reply)["cards"]
        assert [c["table_id"] for c in cards] == ["T1", "T2", "T3"]
        for daemon in tables.values():
            assert daemon.publisher is not None and daemon.publisher.wait_drained(WAIT)
    # Every message the board received holds to the floor's contract.
    assert assert_valid(p for p in seen) > 20
    with Journal.open_readonly(tmp_path / "T3" / "state") as journal:
        assert [
            e.detail["code"] for e in journal.iter_system_log() if e.kind == "device_fault"
        ] == ["keypad_lost"]


def test_the_board_command_serves_the_page_and_says_what_is_wrong(
    tmp_path: Path, broker: LocalBroker, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tablectl floor board` as a technician starts it: the page and its JSON served,
    the configuration checked like a table's, a taken port refused."""
    import signal
    import subprocess
    import sys

    from controller.cli import main

    config = tmp_path / "board.yaml"
    config.write_text(
        f"floor: {{site: lv, host: {broker.host}, port: {broker.port}}}\n"
        "board: {listen: 127.0.0.1, port: 1}\n"
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller",
            "floor",
            "board",
            "--config",
            str(config),
            "--http-port",
            "0",
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert line.startswith("floor board on http://127.0.0.1:"), line
        assert line.rstrip().endswith(
            f"watching casino/lv/table/+/# on {broker.host}:{broker.port}"
        )
        url = line.split()[3]
        with urllib.request.urlopen(url, timeout=WAIT) as reply:
            assert b"<title>Floor board</title>" in reply.read()
        until(
            lambda: json.load(urllib.request.urlopen(url + "cards.json", timeout=WAIT))["broker"],
            "the board on its broker",
        )
        process.send_signal(signal.SIGTERM)
        assert process.wait(WAIT) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    config.write_text("floor: {site: lv, host: x}\nboard: {lisen: 0.0.0.0}\n")
    assert main(["floor", "board", "--config", str(config)]) == 2
    assert (
        f"{config}:2:9: unknown option board.lisen (did you mean board.listen?)"
        in capsys.readouterr().err
    )
    with contextlib.closing(__import__("socket").socket()) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert (
            main(
                [
                    "floor",
                    "board",
                    "--host",
                    broker.host,
                    "--port",
                    str(broker.port),
                    "--site",
                    "lv",
                    "--http-port",
                    str(port),
                ]
            )
            == 1
        )
        assert (
            f"tablectl floor board: cannot serve the page on 127.0.0.1:{port}: "
            "Address already in use (another port: --http-port or board.port; "
            "another address: --listen or board.listen)\n"
        ) in capsys.readouterr().err


def test_the_cards_alarms_from_the_feed() -> None:
    """The board's model alone: what turns a card red and what clears it."""
    from controller.floor.board import Board

    board = Board("lv")
    envelope = {
        "v": 1,
        "table_id": "T4",
        "site": "lv",
        "ts": "2025-03-01T21:00:00.000Z",
        "ts_ns": 0,
        "clock_synced": True,
    }

    def alarms() -> list[str]:
        card = board.card("T4", 0)
        assert card is not None
        return [a["text"] for a in card["alarms"]]

    state = {
        "hand": 3,
        "phase": "flop",
        "to_act": 2,
        "pot_total": 80,
        "clock": {"seat": 2, "remaining_ms": 30_000, "warning": False},
        "seats": {"2": {"player": "ana"}, "5": {"player": "luis"}},
    }
    board.apply(
        {
            **envelope,
            "kind": "state",
            "seq": 9,
            "msg_seq": 20,
            "state": state,
            "table": {
                "seats": 6,
                "structure": "pot_limit",
                "form": "flop",
                "small_blind": 1,
                "big_blind": 2,
            },
        },
        1_000_000_000,
    )
    card = board.card("T4", 3_000_000_000)
    assert card is not None
    assert (card["game"], card["open_seats"], card["to_act_player"]) == (
        "PL HOLD'EM 1/2",
        [1, 3, 4, 6],
        "ana",
    )
    assert card["clock"] == {"seat": 2, "remaining_ms": 28_000, "warning": False, "running": True}
    # an older state (a retained copy arriving late) changes nothing
    assert (
        board.apply(
            {**envelope, "kind": "state", "seq": 5, "msg_seq": 11, "state": {**state, "hand": 2}}, 0
        )
        == "T4"
    )
    assert board.card("T4", 0)["hand"] == 3  # type: ignore[index]
    # the same message twice is taken once
    assert (
        board.apply({**envelope, "kind": "state", "seq": 9, "msg_seq": 20, "state": state}, 0)
        is None
    )
    board.apply(
        {
            **envelope,
            "kind": "fault",
            "seq": 9,
            "msg_seq": 21,
            "fault": "tray_lost",
            "device": "tray",
            "active": True,
            "detail": "/dev/x",
        },
        0,
    )
    board.apply(
        {
            **envelope,
            "kind": "tray",
            "seq": 9,
            "msg_seq": 22,
            "discrepancy": -20,
            "alarm": True,
            "resolved": False,
            "report": {},
            "event": {},
        },
        0,
    )
    board.apply(
        {
            **envelope,
            "kind": "status",
            "link": "up",
            "reason": None,
            "unsent": 0,
            "will": False,
            "fault": "chain_broken",
        },
        0,
    )
    assert alarms() == ["CHAIN BROKEN: CALL TECH", "CHIP TRAY LOST: CALL TECH", "TRAY OFF BY -20"]
    assert board.card("T4", 0)["alarm"] is True  # type: ignore[index]
    board.apply(
        {
            **envelope,
            "kind": "fault",
            "seq": 9,
            "msg_seq": 23,
            "fault": "tray_lost",
            "device": "tray",
            "active": False,
            "detail": None,
        },
        0,
    )
    tray_resolved = {
        **envelope,
        "kind": "tray",
        "seq": 9,
        "msg_seq": 24,
        "discrepancy": 0,
        "alarm": False,
        "resolved": True,
        "report": {},
        "event": {},
    }
    board.apply(tray_resolved, 0)
    board.apply(
        {
            **envelope,
            "kind": "status",
            "link": "down",
            "reason": "connection lost",
            "unsent": None,
            "will": True,
            "fault": None,
        },
        0,
    )
    assert alarms() == ["LINK DOWN"]
    board.apply(
        {
            **envelope,
            "kind": "status",
            "link": "up",
            "reason": None,
            "unsent": 2,
            "will": False,
            "fault": None,
            "device_faults": {},
            "tray_discrepancy": None,
        },
        0,
    )
    assert alarms() == ["SENDING BACKLOG 2"]
    assert board.card("T4", 0)["alarm"] is False  # type: ignore[index]
    # a status sent again while the link stays up (the faults changed) says no backlog:
    # the one given when the link came up goes on draining
    board.apply(
        {
            **envelope,
            "kind": "status",
            "link": "up",
            "reason": None,
            "unsent": None,
            "will": False,
            "fault": None,
            "device_faults": {},
            "tray_discrepancy": None,
        },
        0,
    )
    assert alarms() == ["SENDING BACKLOG 2"]
    board.apply(
        {
            **envelope,
            "kind": "event",
            "seq": 10,
            "msg_seq": 25,
            "event": {},
            "hand": 3,
            "phase": "flop",
            "changes": {},
        },
        0,
    )
    # the backlog may begin with a row the broker had before the link broke: sent again
    board.apply(tray_resolved, 0)  # the very same row
    assert alarms() == []
    # the retained status alone (a board started late) says the faults in force
    board.apply(
        {
            **envelope,
            "kind": "status",
            "link": "up",
            "reason": None,
            "unsent": 0,
            "will": False,
            "fault": None,
            "device_faults": {"keypad": "keypad_lost"},
            "tray_discrepancy": 40,
        },
        0,
    )
    assert alarms() == ["KEYPAD LOST: CALL TECH", "TRAY OFF BY 40"]
    board.apply(
        {
            **envelope,
            "kind": "status",
            "link": "down",
            "reason": "connection lost",
            "unsent": None,
            "will": True,
            "fault": None,
            "device_faults": None,
            "tray_discrepancy": None,
        },
        0,
    )
    assert alarms() == ["KEYPAD LOST: CALL TECH", "TRAY OFF BY 40", "LINK DOWN"]
    # another site's table never shows
    assert (
        board.apply(
            {
                **envelope,
                "table_id": "W1",
                "site": "west",
                "kind": "state",
                "seq": 1,
                "msg_seq": 1,
                "state": state,
            },
            0,
        )
        is None
    )


def test_odd_messages_never_break_a_card() -> None:
    """Anything a client allowed to publish could put on the broker: the card shows
    what it can and the board goes on."""
    from controller.floor.board import Board

    board = Board(None)
    odd: list[Any] = [
        None,
        {"table_id": 7},
        {"table_id": "T9", "kind": "state", "state": "x"},
        {
            "table_id": "T9",
            "kind": "state",
            "msg_seq": 1,
            "state": {
                "seats": ["a"],
                "to_act": 3,
                "clock": {"remaining_ms": "soon"},
                "hand": "<b>1</b>",
            },
            "table": {"seats": "nine"},
        },
        {
            "table_id": "T9",
            "kind": "state",
            "msg_seq": 2,
            "state": {"seats": {"3": "ana"}, "to_act": 3, "clock": {"remaining_ms": 5}},
        },
        {"table_id": "T9", "kind": "fault", "msg_seq": 3, "active": True},
        {"table_id": "T9", "kind": "status", "link": None, "unsent": "many"},
        {"table_id": "T9", "kind": "tray", "msg_seq": 4, "alarm": True},
    ]
    for payload in odd:
        board.apply(payload, 1)
        assert json.dumps(board.cards(2))  # always a page to show
    card = board.card("T9", 2)
    assert card is not None and card["alarm"] is True


def test_forty_tables_on_a_wall_display_and_a_laptop(
    tmp_path: Path, broker: LocalBroker, browser: Any, shot: Callable[[Any, str], None]
) -> None:
    """40 tables' retained states and link statuses on the broker (a board started
    after a fault was raised still shows it): every card on the page, no sideways
    scrolling, on a 1920x1080 wall display (`?wall=1`: every card in sight) and a
    1280x800 laptop; the table that needs someone first."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion
    from selenium.webdriver.common.by import By

    from controller.floor.clock import Stamp
    from controller.floor.topics import TableTopics

    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        for n in range(1, 41):
            topics = TableTopics("casino", "lv", f"T{n}")
            seats = {
                str(s): {
                    "player": f"p{n}-{s}",
                    "stack": 1000,
                    "bet": 0,
                    "status": "playing",
                    "missed": [],
                }
                for s in range(1, 1 + n % 9)
            }
            state = {
                "hand": n,
                "phase": "flop",
                "to_act": 1,
                "pot_total": 10 * n,
                "seats": seats,
                "clock": None,
            }
            message = state_message(
                topics,
                state,
                seq=n,
                stamp=Stamp.now(),
                table=NINE_SEAT_NLHE,
            )
            payload = message.payload[:-1] + ',"msg_seq":1}'
            client.publish(message.topic, payload, qos=1, retain=True).wait_for_publish(WAIT)
            status = status_payload(
                topics,
                link="up",
                reason=None,
                unsent=0,
                stamp=Stamp.now(),
                device_faults={"tray": "tray_lost"} if n == 7 else {},
            )
            client.publish(topics.status, status, qos=1, retain=True).wait_for_publish(WAIT)
    finally:
        client.disconnect()  # before loop_stop: it would wait out the loop's 1 s select
        client.loop_stop()
        client.disconnect()
    board = lv_board(broker)
    board.start()
    try:
        assert board.wait_broker(WAIT)
        for name, (width, height) in (("wall", (1920, 1080)), ("laptop", (1280, 800))):
            viewport(browser, width, height)
            browser.get(board.url + ("?wall=1" if name == "wall" else ""))
            until(
                lambda: len(browser.find_elements(By.CSS_SELECTOR, "main .card")) == 40,
                f"40 cards on the {name}",
            )
            overflow = browser.execute_script(
                "return document.documentElement.scrollWidth - "
                "document.documentElement.clientWidth;"
            )
            assert overflow <= 0, f"{name}: {overflow} px of sideways scrolling"
            if name == "wall":  # every card in sight, no scrolling at all
                until(
                    lambda: browser.execute_script(
                        "return document.documentElement.scrollHeight <= "
                        "document.documentElement.clientHeight;"
                    ),
                    "40 cards on one screen",
                )
            until(lambda: "alarm" in card_classes(browser, "T7"), "T7 red")
            order = [
                e.get_attribute("id") for e in browser.find_elements(By.CSS_SELECTOR, "main .card")
            ]
            assert order == ["card-T7"] + [f"card-T{n}" for n in range(1, 41) if n != 7]
            shot(browser, f"{name}.png")
        assert "40 tables" in browser.find_element(By.ID, "summary").text
    finally:
        board.stop()


@pytest.mark.parametrize("thread", ["main", "another"])
def test_the_board_stops_on_a_sigterm_whichever_thread_the_kernel_gives_it_to(
    tmp_path: Path, broker: LocalBroker, thread: str
) -> None:
    """systemd's SIGTERM given to the page server's or the broker link's thread stopped
    nothing: the main thread waited on its stop alone, and Python runs the handler there
    only (the board stayed up until systemd's SIGKILL)."""
    import signal
    import subprocess
    import sys

    from tests.thread_signals import other_threads, signal_thread

    config = tmp_path / "board.yaml"
    config.write_text(f"floor: {{site: lv, host: {broker.host}, port: {broker.port}}}\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "controller", "floor", "board", "--config", str(config)]
        + ["--http-port", "0"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        assert process.stderr.readline().startswith("floor board on http://")
        others = other_threads(process.pid)
        assert len(others) >= 2  # the page server's, the broker link's
        signal_thread(process.pid, process.pid if thread == "main" else others[-1], signal.SIGTERM)
        assert process.wait(WAIT) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
