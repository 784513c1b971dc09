"""The supervisor menu's secrets (issue 13 items 6 and 8), with the daemon running on
simulated devices, a real PIN file, real SQLite and a real Mosquitto floor link:

- only the daemon's own PIN check opens the menu: a ``"pin_ok": true`` handed in by the
  console, a durable replay file or any event is dropped, never believed;
- no PIN digit is stored or sent in any state of the menu, the lock-out included: not
  in the journal, its system log, the service's log, nor on the floor feed."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from controller import supervisor_pins
from controller.floor.consumer import Collector
from controller.journal import Journal
from controller.rules.keypad import HIDDEN_DIGIT
from tests.cli import tablectl
from tests.daemon_helpers import running, seat_players, view, wait_for, write_config
from tests.localbroker import LocalBroker
from tests.test_at_the_table import key_in
from tests.test_floor_publisher import back_office

__all__ = ["back_office"]  # a pytest fixture, used by name

ROOT = Path(__file__).resolve().parents[1]
SUPERVISOR = "1042"
PIN = "97538"  # no digit of the supervisor id, nor of any other key these tests type
MENU = {"mode": "supervisor", "step": "menu"}


def config_with_pins(tmp_path: Path, extra: str = "") -> Path:
    pin_file = tmp_path / "pins"
    supervisor_pins.save_pins(pin_file, {SUPERVISOR: supervisor_pins.hash_pin(PIN)})
    config = write_config(tmp_path)
    config.write_text(config.read_text() + f"supervisor: {{pin_file: {pin_file}}}\n" + extra)
    return config


def entry(daemon: object) -> dict[str, object] | None:
    keypad = view(daemon)["keypad"]  # type: ignore[arg-type]
    found = keypad["entry"]
    return None if found is None else {k: v for k, v in found.items() if k in ("mode", "step")}


def keys(text: str, **extra: object) -> list[dict[str, object]]:
    return [{"type": "key", "key": key, **extra} for key in text.split()]


# -- item 8: pin_ok from input is never believed ----------------------------------------


def test_a_console_pin_ok_true_never_opens_the_supervisor_menu(tmp_path: Path) -> None:
    with running(config_with_pins(tmp_path)) as daemon:
        for event in keys(f"FUNC 0 {' '.join(SUPERVISOR)} ENTER 1 1 1 1"):
            assert daemon.submit(event).ok
        outcome = daemon.submit({"type": "key", "key": "ENTER", "pin_ok": True})
        assert entry(daemon) is None  # a wrong PIN: the menu stays shut
        assert outcome.event["pin_ok"] is False  # the daemon's verdict was recorded
        # pin_ok on any key, outside a PIN, is dropped too
        assert "pin_ok" not in daemon.submit({"type": "key", "key": "CLEAR", "pin_ok": True}).event
        # and a right PIN sent with "pin_ok": false still opens it: the check decides
        for event in keys(f"FUNC 0 {' '.join(SUPERVISOR)} ENTER {' '.join(PIN)}"):
            assert daemon.submit(event).ok
        assert daemon.submit({"type": "key", "key": "ENTER", "pin_ok": False}).ok
        assert entry(daemon) == MENU
    with Journal.open_readonly(tmp_path / "state") as journal:
        verdicts = [r.event["pin_ok"] for r in journal.iter_events() if "pin_ok" in r.event]
    assert verdicts == [False, True]


def durable_replay(
    config: Path, events: Path, lines: list[dict[str, Any]]
) -> subprocess.CompletedProcess[str]:
    """`tablectl replay --state-dir` of ``lines`` written to ``events`` (the state
    directory beside it)."""
    events.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return tablectl(
        "replay",
        "--config",
        str(config),
        "--state-dir",
        str(events.parent / "state"),
        str(events),
        cwd=ROOT,
    )


def test_a_durable_replay_file_cannot_open_the_menu_with_pin_ok(tmp_path: Path) -> None:
    config = config_with_pins(tmp_path)
    lines = keys(f"FUNC 0 {' '.join(SUPERVISOR)} ENTER * * * *")
    lines += [{"type": "key", "key": "ENTER", "pin_ok": True}, {"type": "state"}]
    done = durable_replay(config, tmp_path / "forged.jsonl", lines)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    state = answers[-1]["state"]
    assert state["keypad"]["entry"] is None or state["keypad"]["entry"]["step"] != "menu"
    assert answers[-2]["ok"] is False or state["keypad"]["notice"] is not None
    with Journal.open_readonly(tmp_path / "state") as journal:
        enter = [r.event for r in journal.iter_events() if r.event.get("key") == "ENTER"]
    assert all(e.get("pin_ok") is not True for e in enter)


def test_a_durable_replay_judges_a_pin_typed_in_the_file(tmp_path: Path) -> None:
    """`tablectl replay --state-dir` goes through the daemon's journal and PIN check:
    a right PIN typed in the file opens the menu whatever its pin_ok says, a wrong one
    is a wrong PIN (never PIN CHECK NOT AVAILABLE while the PIN file is there), and the
    journal holds each verdict and no digit of the PIN."""
    config = config_with_pins(tmp_path)
    lines = keys(f"FUNC 0 {' '.join(SUPERVISOR)} ENTER 1 1 1 1")
    lines += [{"type": "key", "key": "ENTER", "pin_ok": True}, {"type": "state"}]
    lines += keys(f"FUNC 0 {' '.join(SUPERVISOR)} ENTER {' '.join(PIN)}")
    lines += [{"type": "key", "key": "ENTER", "pin_ok": False}, {"type": "state"}]
    done = durable_replay(config, tmp_path / "typed.jsonl", lines)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(a["ok"] for a in answers), [a for a in answers if not a["ok"]]
    wrong, right = [a["state"]["keypad"] for a in answers if "state" in a]
    assert wrong["notice"] == "WRONG PIN: 2 TRIES LEFT" and wrong["entry"] is None
    assert {k: right["entry"][k] for k in ("mode", "step")} == MENU
    with Journal.open_readonly(tmp_path / "state") as journal:
        verdicts = [r.event["pin_ok"] for r in journal.iter_events() if "pin_ok" in r.event]
    assert verdicts == [False, True]
    assert digits_recorded(tmp_path / "state").count(HIDDEN_DIGIT) == 4 + len(PIN)


# -- item 6: no PIN digit anywhere, the lock-out included ------------------------------


def digits_recorded(state_dir: Path) -> str:
    """Every single-character key in the journal, in order (a PIN would show here)."""
    with Journal.open_readonly(state_dir) as journal:
        return "".join(
            r.event["key"]
            for r in journal.iter_events()
            if r.event.get("type") == "key" and len(r.event["key"]) == 1
        )


def keys_in(texts: list[str]) -> list[str]:
    """The keys of every key event found in JSON texts (journal rows, floor payloads)."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            if value.get("type") == "key" and isinstance(value.get("key"), str):
                found.append(value["key"])
            for child in value.values():
                walk(child)
        elif isinstance(value, list):
            for child in value:
                walk(child)

    for text in texts:
        try:
            walk(json.loads(text))
        except ValueError:
            continue
    return found


def stored_texts(state_dir: Path) -> list[str]:
    """The system log's details and the outbox's payloads, as stored."""
    with closing(sqlite3.connect(state_dir / "journal.sqlite3")) as conn:
        rows = conn.execute("SELECT detail FROM system_log").fetchall()
        rows += conn.execute("SELECT payload FROM outbox").fetchall()
    return [str(row[0]) for row in rows]


def no_pin_digit(keys_seen: list[str]) -> None:
    assert PIN not in "".join(keys_seen)
    assert not set(PIN) & set(keys_seen), keys_seen


def lock_the_menu(daemon: object) -> None:
    for _ in range(3):
        key_in(daemon, f"FUNC 0 {' '.join(SUPERVISOR)} ENTER 1 1 1 1 ENTER")  # type: ignore[arg-type]
    assert view(daemon)["keypad"]["supervisor_locked_ms"] > 0  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_pin_typed_while_the_menu_is_locked_is_never_stored_or_sent(
    tmp_path: Path,
    broker: LocalBroker,
    back_office: Collector,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    config = config_with_pins(
        tmp_path, f"floor: {{site: lv, host: {broker.host}, port: {broker.port}}}\n"
    )
    state = tmp_path / "state"
    with running(config) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis"})
        lock_the_menu(daemon)
        # the supervisor, not knowing, types the id and the right PIN
        key_in(daemon, f"FUNC 0 {' '.join(SUPERVISOR)} ENTER {' '.join(PIN)} ENTER")
        assert view(daemon)["keypad"]["supervisor_locked_ms"] > 0
        key_in(daemon, "CLEAR")
        assert entry(daemon) is None
        # the keypad works as before once CLEAR is pressed
        key_in(daemon, "FUNC 4")  # the leave menu (no PIN digit typed, see below)
        found = entry(daemon)
        assert found is not None and found["mode"] != "supervisor"
        key_in(daemon, "CLEAR")
        # a restart in the middle of the locked typing goes on hiding the digits
        key_in(daemon, "FUNC 0 1 0")
    with running(config) as daemon:
        key_in(daemon, f"4 2 ENTER {' '.join(PIN)} ENTER CLEAR")
        assert daemon.controller is not None and daemon.controller.fault is None
        wait_for(
            lambda: any(
                "luis" in (m.raw or b"").decode(errors="replace") for m in back_office.messages
            ),
            what="the floor feed",
        )
    recorded = digits_recorded(state)
    assert PIN not in recorded and not set(PIN) & set(recorded), recorded
    assert recorded.count(HIDDEN_DIGIT) >= 2 * len(PIN)
    stored = stored_texts(state)
    # the PIN as a value of its own: not inside a longer number or hash that happens to
    # hold its digits (a millisecond time like 1764597538123, a chain head)
    alone = re.compile(rf"(?<![0-9A-Za-z]){PIN}(?![0-9A-Za-z])")
    assert not [text for text in stored if alone.search(text)]
    no_pin_digit(keys_in(stored))
    logged = caplog.text
    assert PIN not in logged
    assert not any(f"key {digit} " in logged for digit in PIN)
    feed = [(m.raw or b"").decode(errors="replace") for m in back_office.messages]
    assert not any(PIN in text for text in feed)
    no_pin_digit(keys_in(feed))
