"""`tablectl floor watch` against a real Mosquitto: one JSON line per message."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.floor.publisher import Publisher
from controller.floor.settings import FloorSettings
from tests.localbroker import LocalBroker
from tests.system_tools import require
from tests.test_floor_publisher import MOSQUITTO_PURPOSE, WAIT, _journal_events
from tests.thread_signals import other_threads, signal_thread
from tests.waiting import eventually

ROOT = Path(__file__).resolve().parents[1]


def _watch(*arguments: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller", "floor", "watch", *arguments],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _started(process: subprocess.Popen[str]) -> str:
    """The first line on standard error: `watching ...` once subscribed, or the error."""
    assert process.stderr is not None
    return process.stderr.readline()


def _lines(process: subprocess.Popen[str]) -> list[dict[str, Any]]:
    out, _ = process.communicate(timeout=WAIT)
    assert process.returncode == 0
    return [json.loads(line) for line in out.splitlines()]


def test_watch_prints_a_tables_messages_one_json_line_each(
    broker: LocalBroker, tmp_path: Path
) -> None:
    db = tmp_path / "journal.sqlite3"
    publisher = Publisher(
        FloorSettings(site="lv", host=broker.host, port=broker.port), table_id="T1", db_path=db
    )
    publisher.start()
    try:
        # the link up first: a row queued before it would be a backlog, whose end the
        # publisher says in a status of its own (live, were the watch already there)
        assert publisher.wait_for(lambda s: s.link == "up", WAIT)
        _journal_events(db, 1, 1)  # before the watch: its state is retained
        assert publisher.wait_drained(WAIT)
        watch = _watch(
            "--host", broker.host, "--port", str(broker.port), "--table", "T1", "--count", "4"
        )
        assert _started(watch) == (f"watching casino/+/table/T1/# on {broker.host}:{broker.port}\n")
        _journal_events(db, 2, 1)
        publisher.notify()
        lines = _lines(watch)
    finally:
        publisher.stop()
    retained = sorted(line["topic"] for line in lines if line["retain"])
    assert retained == ["casino/lv/table/T1/state", "casino/lv/table/T1/status"]
    live = [line for line in lines if not line["retain"]]
    assert [line["topic"] for line in live] == [
        "casino/lv/table/T1/events",
        "casino/lv/table/T1/state",
    ]
    assert [(m["message"]["seq"], m["message"]["msg_seq"]) for m in live] == [(2, 3), (2, 4)]
    assert all(m["message"]["table_id"] == "T1" for m in lines)


def test_watch_reads_the_broker_and_table_from_a_configuration(
    broker: LocalBroker, tmp_path: Path
) -> None:
    config = tmp_path / "table.yaml"
    config.write_text(
        'table: {id: "T9", seats: 9}\ngame: {big_blind: 10}\n'
        f"floor: {{site: east, host: {broker.host}, port: {broker.port}}}\n"
    )
    watch = _watch("--config", str(config), "--timeout", "0.5")
    assert _started(watch) == f"watching casino/east/table/T9/# on {broker.host}:{broker.port}\n"
    assert _lines(watch) == []


def test_watch_says_what_is_wrong(
    broker: LocalBroker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["floor", "watch", "--host", broker.host, "--port", str(broker.port)]) == 2
    assert "give --table ID or --all" in capsys.readouterr().err

    config = tmp_path / "table.yaml"
    config.write_text(
        'table: {id: "T9", seats: 9}\ngame: {big_blind: 10}\n'
        "floor: {site: east, host: broker, prot: 1}\n"
    )
    assert main(["floor", "watch", "--config", str(config)]) == 2
    assert f"{config}:3:" in capsys.readouterr().err

    require("mosquitto", MOSQUITTO_PURPOSE)
    secured = LocalBroker(tmp_path / "secured", listener_options="allow_anonymous false")
    secured.start()
    try:
        assert (
            main(["floor", "watch", "--host", secured.host, "--port", str(secured.port), "--all"])
            == 1
        )
        assert capsys.readouterr().err == (
            "tablectl floor watch: refused by the broker: Not authorized\n"
        )
    finally:
        secured.kill()


@pytest.mark.slow  # a broker stopped and started again (1.3 s)
def test_watch_prints_each_message_once_across_a_broker_restart(
    broker: LocalBroker, tmp_path: Path
) -> None:
    """A reconnect brings the retained state and status again: the watch drops them by
    `(table_id, msg_seq)` (the status: the same bytes again), as consumers should."""
    db = tmp_path / "journal.sqlite3"
    settings = FloorSettings(site="lv", host=broker.host, port=broker.port)
    publisher = Publisher(settings, table_id="T1", db_path=db)
    publisher.start()
    _journal_events(db, 1, 1)
    assert publisher.wait_drained(WAIT)
    publisher.stop()  # retained: the state, and the status "down, stopped"
    watch = _watch(
        "--host", broker.host, "--port", str(broker.port), "--table", "T1", "--count", "5"
    )
    assert _started(watch).startswith("watching")

    def watchers_connected() -> int:
        return sum(
            "as floor-watch-" in line
            for line in broker.log_path.read_text(errors="replace").splitlines()
        )

    assert eventually(lambda: watchers_connected() == 1, WAIT)
    broker.restart()
    assert eventually(lambda: watchers_connected() == 2, WAIT), broker.log_tail()
    again = Publisher(settings, table_id="T1", db_path=db)
    again.start()
    try:
        _journal_events(db, 2, 1)
        again.notify()
        lines = _lines(watch)
    finally:
        again.stop()
    kinds = [(m["message"]["kind"], m["retain"]) for m in lines]
    assert kinds[:2] in ([("state", True), ("status", True)], [("status", True), ("state", True)])
    assert sorted(kinds[2:]) == [("event", False), ("state", False), ("status", False)], kinds
    keys = [m["message"].get("msg_seq") for m in lines if "msg_seq" in m["message"]]
    assert len(keys) == len(set(keys)) == 3


@pytest.mark.parametrize("command", ["watch", "board"])
def test_a_configuration_that_cannot_be_used_is_told_alike_by_watch_and_board(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both read `--config` through one helper: its problems, or that it cannot be read."""
    missing = tmp_path / "missing.yaml"
    assert main(["floor", command, "--config", str(missing)]) == 2
    assert capsys.readouterr() == ("", f"{missing}: cannot read: No such file or directory\n")
    config = tmp_path / "table.yaml"
    config.write_text(
        'table: {id: "T9", seats: 9}\ngame: {big_blind: 10}\n'
        "floor: {site: east, host: broker, prot: 1}\n"
    )
    assert main(["floor", command, "--config", str(config)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"{config}:3:") and "prot" in err


def _floor_command(broker: LocalBroker, command: str, *extra: str) -> subprocess.Popen[str]:
    """`tablectl floor COMMAND` on ``broker``, its standard error a pipe to read."""
    return subprocess.Popen(
        [sys.executable, "-m", "controller", "floor", command]
        + ["--host", broker.host, "--port", str(broker.port), *extra],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow  # a broker stopped and started again (1.3 s)
@pytest.mark.parametrize("command", ["watch", "board"])
def test_watch_and_board_say_when_they_lose_and_regain_the_broker(
    broker: LocalBroker, command: str
) -> None:
    """A supervisor's screen that went quiet must say whether the floor did or the broker
    did: each loss and each return of the broker is one line with its time."""
    import re

    extra = ["--table", "T1"] if command == "watch" else ["--site", "lv", "--http-port", "0"]
    process = _floor_command(broker, command, *extra)
    assert process.stderr is not None
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(x) for x in process.stderr], daemon=True)
    reader.start()
    try:
        start = lines.get(timeout=WAIT)
        assert start.startswith("watching" if command == "watch" else "floor board on"), start
        if command == "board":  # the page is served at once, the broker is watched after
            url = start.split()[3] + "cards.json"
            assert eventually(lambda: json.load(urllib.request.urlopen(url))["broker"], WAIT)
        stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
        where = f"tablectl floor {command}: broker {broker.host}:{broker.port}"
        broker.stop()
        lost = lines.get(timeout=WAIT)
        assert re.fullmatch(f"{stamp} {re.escape(where)} lost: retrying\n", lost), lost
        broker.start()
        back = lines.get(timeout=WAIT)
        assert re.fullmatch(
            f"{stamp} {re.escape(where)} back: showing live messages again\n", back
        ), back
    finally:
        process.terminate()
        process.wait(WAIT)


@pytest.mark.slow  # two commands started and ended (about 2 s)
@pytest.mark.parametrize(
    ("command", "ending"),
    [("watch", "count"), ("watch", "ctrl-c"), ("board", "timeout"), ("board", "ctrl-c")],
)
def test_watch_and_board_ending_say_no_broker_lost(
    broker: LocalBroker, command: str, ending: str
) -> None:
    """Issue 31 item 14: the command's own disconnect at its end was said as a lost
    broker (`broker ... lost: retrying`), as if the floor had gone away."""
    extra = ["--all"] if command == "watch" else ["--site", "lv", "--http-port", "0"]
    if ending == "count":
        extra += ["--count", "1"]
    if ending == "timeout":
        extra += ["--timeout", "1"]
    process = _floor_command(broker, command, *extra)
    try:
        rest = _ended(process, broker, command, ending)
    finally:  # a command that did not end is not left running after the test
        process.kill()
        process.communicate()
    assert "lost" not in rest and "retrying" not in rest, rest
    assert "Traceback" not in rest, rest


def _ended(process: subprocess.Popen[str], broker: LocalBroker, command: str, ending: str) -> str:
    """What ``process`` said after its first line, once ``ending`` ended it."""
    assert process.stderr is not None
    start = process.stderr.readline()
    assert start.startswith("watching" if command == "watch" else "floor board on"), start
    if command == "board":  # the broker is subscribed to after the page is served
        url = start.split()[3] + "cards.json"
        assert eventually(lambda: json.load(urllib.request.urlopen(url))["broker"], WAIT)
    else:
        import time

        time.sleep(0.5)  # subscribed: the line is said once the subscription is made
    if ending == "count":
        subprocess.run(
            ["mosquitto_pub", "-h", broker.host, "-p", str(broker.port)]
            + ["-t", "casino/lv/table/T1/events", "-m", "{}"],
            check=True,
            timeout=WAIT,
        )
    if ending == "ctrl-c":
        process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=WAIT)
    return rest


@pytest.mark.parametrize("thread", ["main", "another"])
def test_a_ctrl_c_stops_the_watch_whichever_thread_the_kernel_gives_it_to(
    broker: LocalBroker, thread: str
) -> None:
    """A Ctrl-C the kernel gave to the broker link's thread stopped nothing: the main
    thread waited on the watch's end alone, and Python runs the handler there only."""
    watch = _watch("--host", broker.host, "--port", str(broker.port), "--table", "T1")
    try:
        assert _started(watch).startswith("watching ")
        others = other_threads(watch.pid)
        assert others  # the broker link's
        signal_thread(watch.pid, watch.pid if thread == "main" else others[0], signal.SIGINT)
        assert watch.wait(WAIT) == 130  # as a shell counts an interrupted command
    finally:
        watch.kill()
        watch.communicate()
