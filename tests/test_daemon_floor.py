"""The daemon's floor link against a real Mosquitto on 127.0.0.1 (simulated devices):
the retained state queued at start-up, tray discrepancies, device faults and clears,
and the link's trouble on the dealer display and in the system log. Every wait is on
a condition, with a timeout."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.floor.consumer import Collector, FloorMessage, Subscriber
from controller.journal import Journal, LogKind
from tests.daemon_helpers import (
    WAIT,
    journal_events,
    press,
    running,
    seat_players,
    shown,
    view,
    wait_for,
    write_config,
)
from tests.localbroker import LocalBroker
from tests.test_floor_publisher import _first_copies, back_office

__all__ = ["back_office"]  # a pytest fixture, used by name

TOPIC = "casino/lv/table/T1"


def floor_config(tmp_path: Path, broker: LocalBroker, extra: str = "") -> Path:
    config = write_config(tmp_path)
    config.write_text(
        config.read_text()
        + extra
        + f"floor: {{site: lv, host: {broker.host}, port: {broker.port}}}\n"
    )
    return config


def delivered(
    collector: Collector, condition: Callable[[dict[str, Any]], bool], what: str
) -> dict[str, Any]:
    """The first message (duplicates dropped) that meets ``condition``."""
    found: list[dict[str, Any]] = []

    def check(_: list[FloorMessage]) -> bool:
        found[:] = [p for p in _first_copies(collector.messages) if condition(p)]
        return bool(found)

    assert collector.wait_for(check, WAIT), f"no {what} within {WAIT} s"
    return found[0]


def link_alert(daemon: Any) -> str | None:
    """The link indicator, on whichever line of the dealer display it is."""
    lines = shown(daemon)
    return next((line for line in (lines.line1, lines.line2) if line.startswith("LINK")), None)


def outbox_ids(state_dir: Path) -> int:
    with contextlib.closing(sqlite3.connect(state_dir / "journal.sqlite3")) as conn:
        return int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM outbox").fetchone()[0])


def test_state_at_start_tray_alarm_and_device_faults_reach_the_floor(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    # The tray opens with 5,000 (1,000 chips of 5) and sells 2,000 to the two players:
    # it should hold 3,000. The simulated tray reads empty.
    config = floor_config(tmp_path, broker, "tray: {float: {5: 1000}, stable_seconds: 0.2}\n")
    with running(config) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis"})
        # the link's coming up is logged by the loop once the publisher says so: a stop
        # before that (seen once, on a fast run) left the first start without its entry
        wait_for(lambda: floor_links_up(tmp_path / "state") == 1, what="the link up logged")
    with Journal.open_readonly(tmp_path / "state") as journal:
        last_seq = journal.last_seq  # at the stop (the tray's first reading may be in it)
    before_restart = outbox_ids(tmp_path / "state")

    with running(config) as daemon:
        assert daemon.publisher is not None and daemon.devices is not None
        # 1. Start-up: the recovered state, retained, with the journal's last seq.
        start = delivered(
            back_office,
            lambda p: p["kind"] == "state" and p["msg_seq"] > before_restart,
            "start-up state",
        )
        assert start["seq"] == last_seq
        assert sorted(start["state"]["seats"]) == ["2", "5"]
        late = Collector()
        subscriber = Subscriber(broker.host, broker.port, f"{TOPIC}/state", late)
        subscriber.start()
        try:
            assert late.wait_for(lambda ms: any(m.retain for m in ms), WAIT)
            retained = next(m for m in late.messages if m.retain)
            assert retained.payload is not None and retained.payload["seq"] == last_seq
        finally:
            subscriber.stop()

        # 2. The tray reads 0 where 3,000 is expected: once the reading has held, the
        # discrepancy is published; counting right clears it.
        alarm = delivered(back_office, lambda p: p["kind"] == "tray" and p["alarm"], "tray alarm")
        assert (alarm["discrepancy"], alarm["resolved"]) == (-3000, False)
        assert alarm["report"]["expected"] == 3000 and alarm["report"]["counted"] == 0
        assert back_office.wait_for(
            lambda ms: any(  # and the retained status says it
                m.payload
                and m.payload.get("kind") == "status"
                and m.payload.get("tray_discrepancy") == -3000
                for m in ms
            ),
            WAIT,
        )
        sim = daemon.devices.sim
        assert sim is not None and sim.tray is not None and sim.keypad is not None
        sim.tray.set_counts({5: 600})
        cleared = delivered(
            back_office, lambda p: p["kind"] == "tray" and p["resolved"], "tray alarm cleared"
        )
        assert cleared["msg_seq"] > alarm["msg_seq"] and cleared["discrepancy"] == 0

        # 3. A device fault and its clear: a journalled `device` event each (the
        # messages carry its seq), their own messages, one each way with the stable code, the driver's words in `detail` (the driver
        # reports the unplug and then the failed reopen: still one fault).
        keypad = daemon.devices.keypad
        assert keypad is not None
        sim.keypad.unplug()
        fault = delivered(
            back_office, lambda p: p["kind"] == "fault" and p["active"], "keypad fault"
        )
        assert (fault["fault"], fault["device"]) == ("keypad_lost", "keypad")
        assert sim.keypad.path in fault["detail"]
        wait_for(lambda: "missing" in (keypad.fault or ""), what="the reopen fails")
        # the retained link status says which faults are in force, for a consumer that
        # arrives after the fault message
        assert back_office.wait_for(
            lambda ms: any(
                m.payload
                and m.payload.get("kind") == "status"
                and m.payload.get("device_faults") == {"keypad": "keypad_lost"}
                and m.payload.get("unsent") is None
                for m in ms
            ),
            WAIT,
        )  # no new backlog
        sim.keypad.replug()
        clear = delivered(
            back_office, lambda p: p["kind"] == "fault" and not p["active"], "keypad clear"
        )
        assert (clear["fault"], clear["device"], clear["detail"]) == ("keypad_lost", "keypad", None)
        assert clear["msg_seq"] > fault["msg_seq"]
        back = [  # the device event journalled at the return: the clear carries its seq
            e.seq
            for e in journal_events(tmp_path / "state")
            if e.event == {"type": "device", "device": "keypad", "status": "back"}
        ]
        assert [clear["seq"]] == back
        late = Collector()
        subscriber = Subscriber(broker.host, broker.port, f"{TOPIC}/status", late)
        subscriber.start()
        try:
            assert late.wait_for(
                lambda ms: any(
                    m.retain
                    and m.payload
                    and m.payload.get("device_faults") == {}
                    and m.payload.get("tray_discrepancy") is None
                    for m in ms
                ),
                WAIT,
            )
        finally:
            subscriber.stop()
        assert daemon.publisher.wait_drained(WAIT)
        faults = [p for p in _first_copies(back_office.messages) if p["kind"] == "fault"]
        assert [(p["fault"], p["active"]) for p in faults] == [
            ("keypad_lost", True),
            ("keypad_lost", False),
        ]
    assert floor_links_up(tmp_path / "state") >= 2  # up at each start


def floor_links_up(state: Path) -> int:
    """The system log's entries of the floor link coming up."""
    with Journal.open_readonly(state) as journal:
        entries = journal.iter_system_log(kinds=[LogKind.FLOOR_LINK])
        return sum(entry.detail.get("link") == "up" for entry in entries)


@pytest.mark.slow  # waits for the link to be seen lost (1.1 s)
def test_a_lost_link_is_shown_to_the_dealer_and_logged(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    config = floor_config(tmp_path, broker)
    with running(config) as daemon:
        publisher = daemon.publisher
        assert publisher is not None
        assert publisher.wait_for(lambda s: s.link == "up", WAIT)
        seat_players(daemon, {2: "ana"})
        wait_for(lambda: link_alert(daemon) is None, what="no link alert")
        assert publisher.wait_drained(WAIT)
        broker.stop()
        wait_for(lambda: link_alert(daemon) == "LINK DOWN", what="LINK DOWN shown")
        seat_players(daemon, {5: "luis"})  # the table plays on; the message waits
        # the event, the seat taken, the new state
        wait_for(lambda: link_alert(daemon) == "LINK DOWN 3 QUEUED", what="the backlog shown")
        broker.start()
        assert publisher.wait_for(lambda s: s.link == "up" and s.unsent == 0, WAIT)
        wait_for(lambda: link_alert(daemon) is None, what="link alert gone")
        delivered(
            back_office,
            lambda p: p["kind"] == "event" and p["event"].get("player") == "luis",
            "the event made while down",
        )
    with Journal.open_readonly(tmp_path / "state") as journal:
        links = [
            entry.detail for entry in journal.iter_system_log() if entry.kind == LogKind.FLOOR_LINK
        ]
    assert [entry["link"] for entry in links] == ["up", "down", "up"], links
    assert links[1]["reason"]


def test_a_supervisors_transfer_keyed_at_the_table_reaches_the_floor(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    """FUNC 0 7 on the simulated keypad: the transfer is journalled under the
    supervisor's id, written to the system log as a correction, and published as a
    `transfer` message on the hands topic."""
    from controller import supervisor_pins
    from tests.daemon_helpers import journal_events, press, view

    pin_path = tmp_path / "pins"
    supervisor_pins.save_pins(pin_path, {"1042": supervisor_pins.hash_pin("2468")})
    config = floor_config(tmp_path, broker, f"supervisor: {{pin_file: {pin_path}}}\n")
    with running(config) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis", 8: "marta"})
        keys = "NEXT CHECK CHECK CHECK " + "CHECK " * 9 + "5 ENTER ENTER"  # seat 5, wrongly
        press(daemon, *keys.split())
        wait_for(
            lambda: view(daemon)["phase"] == "idle" and view(daemon)["hand"] == 1,
            what="the hand paid",
        )
        assert view(daemon)["seats"]["5"]["stack"] == 1020
        transfer = "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 7 5 ENTER 8 ENTER 3 0 ENTER 1 ENTER"
        press(daemon, *transfer.split())
        wait_for(lambda: view(daemon)["seats"]["8"]["stack"] == 1020, what="the transfer")
        assert view(daemon)["seats"]["5"]["stack"] == 990
        sent = delivered(back_office, lambda p: p["kind"] == "transfer", "transfer message")
        assert sent["from"] == 5 and sent["to"] == 8 and sent["amount"] == 30
        assert sent["reason"] == "wrong_payout" and sent["by"] == "1042"
        assert sent["stacks"] == {"5": 990, "8": 1020}
        assert sent["players"] == {"5": "luis", "8": "marta"}
        assert daemon.publisher is not None and daemon.publisher.wait_drained(WAIT)
    events = journal_events(tmp_path / "state")
    last = events[-1]
    assert last.event == {"type": "key", "key": "ENTER"} and last.by == "1042"
    assert sent["seq"] == last.seq
    with Journal.open_readonly(tmp_path / "state") as journal:
        corrections = [e.detail for e in journal.iter_system_log() if e.kind == LogKind.CORRECTION]
    assert corrections == [
        {
            "kind": "transfer",
            "seq": last.seq,
            "supervisor": "1042",
            "from": 5,
            "to": 8,
            "amount": 30,
            "reason": "wrong_payout",
        }
    ]


def test_a_hand_keyed_at_the_table_reaches_the_floor_in_poker_terms(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    """Keys on the simulated keypad, the real daemon, a real Mosquitto: the floor reads
    each action, the clock, the award with its winners and the real cause of the end;
    every message validates against docs/floor.schema.json (the fixture checks)."""
    config = floor_config(tmp_path, broker)
    with running(config) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis", 8: "marta"})
        press(daemon, "FUNC", "8", "1", "7", "ENTER")  # dealer 17 signs in
        press(daemon, "NEXT", "BET", "3", "0", "ENTER", "FOLD", "CLOCK", "CHECK")
        press(daemon, "CHECK", "CHECK", "CHECK", "CHECK", "CHECK", "CHECK")
        wait_for(lambda: view(daemon)["phase"] == "showdown", what="showdown")
        press(daemon, "2", "ENTER")  # seat 2 folded: refused, and the floor hears of it
        press(daemon, "CLEAR", "8", "ENTER", "ENTER")
        end = delivered(back_office, lambda p: p["kind"] == "hand_end", "hand end")
        assert daemon.publisher is not None and daemon.publisher.wait_drained(WAIT)
    assert end["ended_by"] == "award" and end["awards"] == {"8": 65}
    payloads = _first_copies(back_office.messages)
    actions = [
        (p["seat"], p["action"], p["amount"], p["by"]) for p in payloads if p["kind"] == "action"
    ]
    assert actions[:3] == [(8, "raise", 30, "17"), (2, "fold", 0, "17"), (5, "call", 20, "17")]
    clock = [p for p in payloads if p["kind"] == "clock"]
    assert [(c["clock"], c["seat"], c["by"]) for c in clock] == [("called", 5, "17")]
    (award,) = [p for p in payloads if p["kind"] == "award"]
    assert award["pots"][0]["winners"] == [8] and award["ranking"] == [[8]]
    (refusal,) = [p for p in payloads if p["kind"] == "refusal"]
    assert refusal["keying"] == "award" and refusal["by"] == "17"
    assert {p["kind"] for p in payloads} >= {"event", "seat", "hand_start", "state"}


def test_a_memory_fault_is_said_in_the_link_status(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    """A locked journal takes no new outbox rows, but the link status still says the
    table's play is locked, so the floor board shows it."""
    config = floor_config(tmp_path, broker)
    with running(config) as daemon:
        seat_players(daemon, {2: "ana"})
        assert daemon.publisher is not None and daemon.publisher.wait_drained(WAIT)
    with contextlib.closing(sqlite3.connect(tmp_path / "state" / "journal.sqlite3")) as conn:
        conn.execute("UPDATE events SET event = replace(event, 'ana', 'eve')")  # tampered
        conn.commit()
    with running(config) as daemon:
        assert daemon.controller is not None and daemon.controller.fault is not None
        code = daemon.controller.fault.code
        statuses: list[dict[str, Any]] = []

        def said(messages: list[FloorMessage]) -> bool:
            statuses[:] = [
                dict(m.payload)
                for m in messages
                if m.payload is not None
                and m.payload.get("kind") == "status"
                and m.payload.get("fault")
            ]
            return bool(statuses)

        assert back_office.wait_for(said, WAIT), "no status with the fault"
    assert statuses[0]["fault"] == code == "chain_broken" and statuses[0]["link"] == "up"


def test_a_full_outbox_clears_by_itself_once_its_backlog_is_sent(
    tmp_path: Path, broker: LocalBroker
) -> None:
    """The link is down long enough for the outbox to fill (bound 100): the dealer
    display says `FLOOR OUTBOX FULL`; once the broker is back and the whole backlog has
    been sent the display goes back to normal by itself (nothing was lost, nobody has
    to acknowledge it), and the journal system log keeps when it was full."""
    config = write_config(tmp_path)
    config.write_text(
        config.read_text() + f"floor: {{site: lv, host: {broker.host}, "
        f"port: {broker.port}, outbox_max_messages: 100}}\n"
    )
    with running(config) as daemon:
        publisher = daemon.publisher
        assert publisher is not None
        assert publisher.wait_for(lambda s: s.link == "up", WAIT)
        broker.stop()
        assert publisher.wait_for(lambda s: s.link == "down", WAIT)
        for n in range(40):  # the table plays on
            seat_players(daemon, {2: f"p{n}"})
            assert daemon.submit({"type": "leave", "seat": 2}).ok
        lines = lambda: (shown(daemon).line1, shown(daemon).line2)  # noqa: E731
        wait_for(lambda: "FLOOR OUTBOX FULL" in lines(), what="FLOOR OUTBOX FULL shown")
        broker.start()
        assert publisher.wait_drained(WAIT)
        wait_for(
            lambda: not any("FLOOR" in line or "LINK" in line for line in lines()),
            what="the display back to normal",
        )
        status = publisher.status()
        assert not status.overflowed and status.unsent == 0 and status.sent > 100
    with Journal.open_readonly(tmp_path / "state") as journal:
        full = [
            entry.detail["overflowed"]
            for entry in journal.iter_system_log()
            if entry.kind == LogKind.FLOOR_LINK
        ]
    assert True in full and full[-1] is False, full


def test_the_puck_warning_stays_on_the_floor_until_the_puck_is_moved(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    """Puck `warn`: a hand dealt with the puck on seat 3 while the button is seat 8.
    The retained status says so (`puck`) between hands and on during the hand, until
    the puck is on seat 8; the floor board shows it as a warning in the dealer's words."""
    from controller.floor.board import Board
    from tests.test_at_the_table import sim, table_config

    config = table_config(tmp_path, puck="{mismatch: warn}")
    config.write_text(
        config.read_text() + f"floor: {{site: lv, host: {broker.host}, port: {broker.port}}}\n"
    )
    warning = {"status": "moved", "expected": 8, "seen": [3]}

    def statuses() -> list[dict[str, Any]]:
        return [
            m.payload
            for m in back_office.messages
            if m.payload and m.payload.get("kind") == "status"
        ]

    def last_puck() -> object:
        """The last status message's ``puck``; a marker before any status arrived (the
        wait then goes on: the first status can come after the puck is placed)."""
        found = statuses()
        return found[-1].get("puck", 0) if found else "no status yet"

    with running(config) as daemon:
        puck = sim(daemon).puck
        assert puck is not None
        seat_players(daemon, {2: "ana", 5: "luis", 8: "marta"})
        puck.place(3)
        wait_for(lambda: last_puck() == warning, what="the warning said")
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["phase"] == "preflop", what="the hand dealt")
        press(daemon, "FOLD")  # the hand goes on, and so does the warning
        wait_for(lambda: view(daemon)["to_act"] == 2, what="seat 2 to act")
        assert daemon.publisher is not None and daemon.publisher.wait_drained(WAIT)
        assert last_puck() == warning
        board = Board("lv")
        for message in back_office.messages:
            board.apply(message.payload, 0)
        card = board.card("T1", 0)
        assert card is not None
        assert {"code": "puck", "level": "warn", "text": "MOVE BUTTON TO SEAT 8"} in card["alarms"]
        puck.place(8)
        wait_for(lambda: last_puck() is None, what="the warning cleared")
        assert view(daemon)["phase"] == "preflop"
