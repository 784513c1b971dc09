"""The floor link starts after the start-up checks (journal, software) have passed: a
table whose checks fail sends its link status with the fault and nothing else; a
healthy table's first message leaves after its checks. Against a real Mosquitto on
127.0.0.1, the daemon in-process with simulated devices."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

from controller.floor.consumer import Collector, FloorMessage
from controller.journal import Journal, LogKind
from tests.daemon_helpers import WAIT, running, seat_players
from tests.localbroker import LocalBroker
from tests.test_daemon_floor import floor_config
from tests.test_floor_publisher import back_office

__all__ = ["back_office"]  # a pytest fixture, used by name


def _payloads(messages: list[FloorMessage]) -> list[dict[str, Any]]:
    return [dict(m.payload) for m in messages if m.payload is not None]


def _stopped(messages: list[FloorMessage]) -> bool:
    """The table's goodbye arrived (MQTT keeps one client's messages in order, so
    whatever the table sent before it has arrived too)."""
    return any(p.get("reason") == "stopped" for p in _payloads(messages))


def _first_run(config: Path, back_office: Collector) -> int:
    """A run that seats a player and sends everything; how many messages arrived."""
    with running(config) as daemon:
        seat_players(daemon, {2: "ana"})
        assert daemon.publisher is not None and daemon.publisher.wait_drained(WAIT)
    assert back_office.wait_for(_stopped, WAIT), "the first run's goodbye"
    return len(back_office.messages)


def _second_run_says_only_its_fault(config: Path, back_office: Collector, start: int) -> str:
    """The second run's messages: one status up with the fault, then the goodbye."""
    with running(config) as daemon:
        assert daemon.controller is not None and daemon.controller.fault is not None
        code = daemon.controller.fault.code
        assert back_office.wait_for(
            lambda ms: any(p.get("fault") == code for p in _payloads(ms[start:])), WAIT
        ), "no status with the fault"
    assert back_office.wait_for(lambda ms: _stopped(ms[start:]), WAIT), "no goodbye"
    said = _payloads(back_office.messages[start:])
    assert [(p["kind"], p["link"], p["fault"]) for p in said] == [
        ("status", "up", code),
        ("status", "down", code),
    ], said
    assert said[1]["reason"] == "stopped"
    return code


def test_a_damaged_journal_sends_one_status_with_its_fault_and_nothing_else(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    """The journal fails its check with a backlog the link never sent: the floor gets
    the fault in the link status, never the backlog of a journal not to be believed
    (before, the publisher sent it)."""
    config = floor_config(tmp_path, broker)
    start = _first_run(config, back_office)
    database = tmp_path / "state" / "journal.sqlite3"
    with contextlib.closing(sqlite3.connect(database)) as conn:
        conn.execute("UPDATE events SET event = replace(event, 'ana', 'eve')")  # tampered
        conn.execute("UPDATE outbox SET sent = 0")  # as if the link had been down
        conn.commit()
    assert _second_run_says_only_its_fault(config, back_office, start) == "chain_broken"
    with contextlib.closing(sqlite3.connect(database)) as conn:  # evidence kept as found
        assert conn.execute("SELECT COUNT(*) FROM outbox WHERE sent != 0").fetchone()[0] == 0


def test_a_journal_that_cannot_be_opened_still_says_so_to_the_floor(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    """A database SQLite cannot read: play locked, and the floor hears it (before,
    nothing at all was sent: the floor saw the table as it last was)."""
    config = floor_config(tmp_path, broker)
    start = _first_run(config, back_office)
    database = tmp_path / "state" / "journal.sqlite3"
    database.write_bytes(b"not a database at all " * 200)
    code = _second_run_says_only_its_fault(config, back_office, start)
    assert code == "journal_corrupt", code


def test_a_healthy_tables_first_message_leaves_after_its_checks(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    """The system log's integrity check and the recovery come before the broker
    receives anything from the table."""
    config = floor_config(tmp_path, broker)
    start = _first_run(config, back_office)
    with running(config):
        assert back_office.wait_for(lambda ms: len(ms) > start, WAIT)
        first = back_office.messages[start]
    with Journal.open_readonly(tmp_path / "state") as journal:
        entries = list(journal.iter_system_log(kinds=[LogKind.POWER_UP, LogKind.INTEGRITY]))
    power_up = max(i for i, e in enumerate(entries) if e.kind == LogKind.POWER_UP)
    checks = [e for e in entries[power_up:] if e.kind == LogKind.INTEGRITY]
    assert checks and checks[0].detail["ok"] is True
    assert checks[0].wall_ns < first.received_ns, (checks[0], first)
    assert first.payload is not None and first.payload["kind"] == "status"
