"""The floor link against a real Mosquitto on 127.0.0.1: order, outages, crashes,
credentials, ACL and TLS. Every wait is on a condition, with a timeout."""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.floor import outbox
from controller.floor.consumer import Collector, FloorLinkError, FloorMessage, Subscriber
from controller.floor.messages import fault_message, messages_for
from controller.floor.publisher import LinkStatus, Publisher
from controller.floor.settings import FloorSettings, TlsSettings
from controller.floor.topics import TableTopics, subscription
from tests.floor_schema import assert_valid
from tests.localbroker import LocalBroker
from tests.stalling_link import StallingLink
from tests.system_tools import require
from tests.waiting import eventually

MOSQUITTO_PURPOSE = "the floor-link tests against a real broker"

ROOT = Path(__file__).resolve().parents[1]
WAIT = 20.0  # seconds: generous, every wait ends as soon as its condition holds


def _eventually(condition: Callable[[], bool], timeout: float = WAIT) -> bool:
    return eventually(condition, timeout)


def _settings(broker: LocalBroker, **fields: Any) -> FloorSettings:
    return FloorSettings(site="lv", host=broker.host, port=broker.port, **fields)


def _publisher(
    settings: FloorSettings, db: Path, table_id: str = "T1", **options: Any
) -> Publisher:
    options = {"backoff_min": 0.05, "backoff_max": 0.5, **options}
    return Publisher(settings, table_id=table_id, db_path=db, **options)


def _journal_events(db: Path, first_seq: int, count: int, table_id: str = "T1") -> None:
    """What the daemon does per event: its floor messages in the same transaction."""
    topics = TableTopics("casino", "lv", table_id)
    with contextlib.closing(outbox.connect(db)) as conn:
        for seq in range(first_seq, first_seq + count):
            before = {"hand": 0, "phase": "idle", "seats": {"1": {"player": "ana", "stack": seq}}}
            after = {
                "hand": 0,
                "phase": "idle",
                "seats": {"1": {"player": "ana", "stack": seq + 5}},
            }
            event = {"type": "chips", "seat": 1, "amount": 5}
            messages = messages_for(
                {"seq": seq, "event": event}, {"ok": True}, before, after, topics=topics
            )
            conn.execute("BEGIN IMMEDIATE")
            outbox.enqueue(conn, messages, seq=seq)
            conn.execute("COMMIT")


def _rows(db: Path) -> dict[int, tuple[int, int]]:
    """id -> (journal seq, sent) of every outbox row."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return {r[0]: (r[1], r[2]) for r in conn.execute("SELECT id, seq, sent FROM outbox")}


def _wire_bytes_at_least(db: Path, rows: int) -> int:
    """A lower bound of the bytes the first ``rows`` outbox rows take on the wire (their
    topics and payloads; a packet's header adds to it)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        [(total,)] = conn.execute(
            "SELECT sum(length(CAST(topic AS BLOB)) + length(CAST(payload AS BLOB))) FROM"
            " (SELECT topic, payload FROM outbox ORDER BY id LIMIT ?)",
            (rows,),
        )
    return int(total)


def _unsent(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return outbox.count_unsent(conn)


def _table_payloads(messages: list[FloorMessage], table_id: str = "T1") -> list[dict[str, Any]]:
    return [
        dict(m.payload)
        for m in messages
        if m.payload and m.payload.get("table_id") == table_id and "msg_seq" in m.payload
    ]


def _first_copies(messages: list[FloorMessage]) -> list[dict[str, Any]]:
    """The consumer's de-duplication by (table_id, msg_seq), keeping arrival order."""
    seen: set[tuple[str, int]] = set()
    kept = []
    for payload in _table_payloads(messages):
        key = (payload["table_id"], payload["msg_seq"])
        if key not in seen:
            seen.add(key)
            kept.append(payload)
    return kept


def _assert_complete_and_in_order(collector: Collector, db: Path) -> None:
    rows = _rows(db)
    delivered = _first_copies(collector.messages)
    assert [p["msg_seq"] for p in delivered] == sorted(rows), "lost or out of order"
    assert all(p["seq"] == rows[p["msg_seq"]][0] for p in delivered)
    assert all(sent == 1 for _, sent in rows.values())


def _wait_delivered(collector: Collector, count: int) -> None:
    # Copies are counted only once there can be enough of them: a predicate evaluated
    # on every arrival must stay cheap.
    assert collector.wait_for(
        lambda ms: len(ms) >= count and len(_first_copies(ms)) >= count, WAIT
    ), f"{len(_first_copies(collector.messages))} of {count} delivered"


def _wait_status(publisher: Publisher, condition: Callable[[LinkStatus], bool]) -> LinkStatus:
    assert publisher.wait_for(condition, WAIT), publisher.status()
    return publisher.status()


@pytest.fixture
def back_office(broker: LocalBroker) -> Iterator[Collector]:
    """A floor-system consumer with a persistent session: what is published while it
    is away (the broker restarting) waits for it."""
    collector = Collector()
    subscriber = Subscriber(
        broker.host,
        broker.port,
        subscription("casino"),
        collector,
        client_id="back-office",
        persistent=True,
    )
    subscriber.start()
    yield collector
    subscriber.stop()
    # Every message the test made a table send is held to the floor's contract.
    assert_valid(message.payload for message in collector.messages)


def test_events_arrive_in_order_with_their_sequence_numbers(
    broker: LocalBroker, back_office: Collector, tmp_path: Path
) -> None:
    db = tmp_path / "journal.sqlite3"
    publisher = _publisher(_settings(broker), db)
    publisher.start()
    try:
        for seq in range(1, 201):
            _journal_events(db, seq, 1)
            publisher.notify()
        assert publisher.wait_drained(WAIT)
        _wait_delivered(back_office, 400)
        payloads = _table_payloads(back_office.messages)
        assert [p["msg_seq"] for p in payloads] == list(range(1, 401))  # not even a duplicate
        assert [p["seq"] for p in payloads] == [seq for seq in range(1, 201) for _ in (0, 1)]
        assert [p["kind"] for p in payloads[:2]] == ["event", "state"]
        status = _wait_status(publisher, lambda s: s.unsent == 0)
        assert (status.link, status.sent, status.alarm, status.indicator()) == (
            "up",
            400,
            False,
            "LINK OK",
        )

        # A fault is no event: the daemon queues its message on its own.
        fault = fault_message(
            publisher.topics,
            "tray_lost",
            device="tray",
            active=True,
            detail="tray is missing: nothing at /dev/ttyUSB1",
            seq=200,
        )
        assert publisher.enqueue([fault], seq=200) == [401]
        _wait_delivered(back_office, 401)
        last = _table_payloads(back_office.messages)[-1]
        assert (last["kind"], last["fault"], last["seq"], last["msg_seq"]) == (
            "fault",
            "tray_lost",
            200,
            401,
        )

        late = Collector()  # a consumer arriving now gets the retained state and status
        subscriber = Subscriber(broker.host, broker.port, "casino/lv/table/T1/#", late)
        subscriber.start()
        try:
            assert late.wait_for(lambda ms: len([m for m in ms if m.retain]) == 2, WAIT)
            retained = {m.topic: dict(m.payload or {}) for m in late.messages if m.retain}
            assert retained["casino/lv/table/T1/state"]["state"]["seats"]["1"]["stack"] == 205
            assert retained["casino/lv/table/T1/status"]["link"] == "up"
            publisher.stop()
            assert late.wait_for(
                lambda ms: any(m.payload and m.payload.get("link") == "down" for m in ms), WAIT
            )
            down = [m.payload for m in late.messages if m.topic.endswith("/status")][-1]
            assert down is not None and (down["reason"], down["will"]) == ("stopped", False)
        finally:
            subscriber.stop()
    finally:
        publisher.stop()


def test_an_event_journalled_while_the_publisher_starts_is_sent(
    broker: LocalBroker,
    back_office: Collector,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The daemon journals events while the publisher's thread is still finding where
    the outbox's unsent rows begin. An event committed between that thread's reads of
    the first unsent row (none yet) and of the last row once made both of its rows
    count as sent: never published, the link saying `LINK OK` with nothing unsent."""
    db = tmp_path / "journal.sqlite3"
    outbox.connect(db).close()
    connect = outbox.connect
    reached, committed = threading.Event(), threading.Event()

    def commit_at_the_last_rows_read(statement: str) -> None:
        if "MAX(id)" in statement and not reached.is_set():
            reached.set()
            _journal_events(db, 1, 1)  # on its own connection, as the daemon does
            committed.set()

    def publishers_connection(path: Path) -> sqlite3.Connection:
        conn = connect(path)
        if threading.current_thread().name.startswith("floor-publisher"):
            conn.set_trace_callback(commit_at_the_last_rows_read)
        return conn

    monkeypatch.setattr(outbox, "connect", publishers_connection)
    publisher = _publisher(_settings(broker), db)
    publisher.start()
    try:
        assert committed.wait(WAIT)
        _journal_events(db, 2, 1)
        publisher.notify()
        assert publisher.wait_drained(WAIT)
        _wait_delivered(back_office, 4)
        payloads = _table_payloads(back_office.messages)
        assert [(p["seq"], p["msg_seq"]) for p in payloads] == [(1, 1), (1, 2), (2, 3), (2, 4)]
    finally:
        publisher.stop()


@pytest.mark.slow  # a broker stopped mid-stream: out of the edit loop
def test_stopping_the_broker_mid_stream_loses_nothing_and_duplicates_nothing(
    broker: LocalBroker, back_office: Collector, tmp_path: Path
) -> None:
    db = tmp_path / "journal.sqlite3"
    outbox.connect(db).close()
    publisher = _publisher(_settings(broker), db)
    publisher.start()
    playing = threading.Event()
    playing.set()
    played = [0]

    def table_keeps_playing() -> None:
        while playing.is_set():
            played[0] += 1
            _journal_events(db, played[0], 1)
            publisher.notify()
            time.sleep(0.002)  # a busy table's pace, not a wait for anything

    feeder = threading.Thread(target=table_keeps_playing)
    feeder.start()
    try:
        _wait_delivered(back_office, 100)
        broker.stop()
        _wait_status(publisher, lambda s: s.link == "down")
        _wait_status(publisher, lambda s: s.unsent >= 100)  # the table plays on, offline
        assert publisher.status().indicator().startswith("LINK DOWN")
        broker.start()
        _wait_status(publisher, lambda s: s.link == "up")
        resumed = len(_first_copies(back_office.messages))
        _wait_delivered(back_office, resumed + 100)
    finally:
        playing.clear()
        feeder.join()
    try:
        assert publisher.wait_drained(WAIT)
        _wait_delivered(back_office, len(_rows(db)))
        _assert_complete_and_in_order(back_office, db)
    finally:
        publisher.stop()


PUBLISHER_PROCESS = """
import signal, sys
from pathlib import Path
from controller.floor.publisher import Publisher
from controller.floor.settings import FloorSettings

signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
settings = FloorSettings(site="lv", host="127.0.0.1", port=int(sys.argv[2]))
publisher = Publisher(settings, table_id="T1", db_path=Path(sys.argv[1]),
                      backoff_min=0.05, backoff_max=0.3)
publisher.start()
print("started", flush=True)
signal.sigwait({signal.SIGTERM})
publisher.stop()
"""


@contextlib.contextmanager
def _publisher_process(db: Path, port: int) -> Iterator[subprocess.Popen[str]]:
    """The publisher in a process of its own, to the broker on 127.0.0.1:``port``."""
    process = subprocess.Popen(
        [sys.executable, "-c", PUBLISHER_PROCESS, str(db), str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == "started\n"
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_a_back_office_back_from_a_break_gets_what_it_missed_once_and_in_order(
    broker: LocalBroker, tmp_path: Path
) -> None:
    """Its kept session holds the messages published while it was away; reconnecting
    must not also replay the retained state, whose copy of a later message would
    overtake the queued ones (a retained copy arrives flagged ``retain``)."""
    collector = Collector()

    def back_office() -> Subscriber:
        return Subscriber(
            broker.host,
            broker.port,
            subscription("casino"),
            collector,
            client_id="back-office",
            persistent=True,
        )

    away = back_office()
    away.start()
    away.stop()  # the session and its subscription stay on the broker
    db = tmp_path / "journal.sqlite3"
    publisher = _publisher(_settings(broker), db)
    publisher.start()
    try:
        _journal_events(db, 1, 5)  # an event and the retained state each
        publisher.notify()
        assert publisher.wait_drained(WAIT)
        back = back_office()
        back.start()
        try:
            _wait_delivered(collector, 10)
            _journal_events(db, 6, 1)  # after anything the subscription itself brought
            publisher.notify()
            _wait_delivered(collector, 12)
        finally:
            back.stop()
    finally:
        publisher.stop()
    payloads = _table_payloads(collector.messages)
    assert [p["msg_seq"] for p in payloads] == list(range(1, 13))  # no copy, no reorder
    assert not any(m.retain for m in collector.messages)


@pytest.mark.slow  # a publisher killed: out of the edit loop
def test_a_killed_publisher_sends_its_unsent_rows_after_restart(
    broker: LocalBroker, back_office: Collector, tmp_path: Path
) -> None:
    db = tmp_path / "journal.sqlite3"
    outbox.connect(db).close()
    with _publisher_process(db, broker.port) as first:
        _journal_events(db, 1, 50)
        _wait_delivered(back_office, 100)
        assert _eventually(lambda: _unsent(db) == 0)
        broker.stop()
        _journal_events(db, 51, 100)  # nowhere to send these
        assert _unsent(db) == 200
        first.send_signal(signal.SIGKILL)
        assert first.wait(WAIT) == -signal.SIGKILL
    assert _unsent(db) == 200
    broker.start()
    with _publisher_process(db, broker.port) as second:
        _wait_delivered(back_office, 300)
        assert _eventually(lambda: _unsent(db) == 0)
        second.terminate()
        assert second.wait(WAIT) == 0
    _assert_complete_and_in_order(back_office, db)


@pytest.mark.slow  # a publisher killed: out of the edit loop
def test_a_publisher_killed_mid_stream_resends_from_the_first_unacknowledged_row(
    broker: LocalBroker, back_office: Collector, tmp_path: Path
) -> None:
    db = tmp_path / "journal.sqlite3"
    _journal_events(db, 1, 1500)  # a backlog: 3000 rows
    # Its link stalls after the bytes of about 600 rows, so the kill finds it mid-stream
    # however late a loaded machine lets the test look (unstalled, it once sent the
    # whole backlog first): some rows acknowledged, some in flight, the rest unsent.
    with (
        StallingLink(broker.port, _wire_bytes_at_least(db, 600)) as link,
        _publisher_process(db, link.port) as first,
    ):
        _wait_delivered(back_office, 300)
        assert _eventually(lambda: _unsent(db) <= 3000 - 300), "acknowledged rows not marked"
        first.send_signal(signal.SIGKILL)
        assert first.wait(WAIT) == -signal.SIGKILL
    assert 0 < _unsent(db) <= 3000 - 300
    with _publisher_process(db, broker.port):
        _wait_delivered(back_office, 3000)
        assert _eventually(lambda: _unsent(db) == 0)
    _assert_complete_and_in_order(back_office, db)


def test_a_full_outbox_keeps_every_unsent_row_and_raises_the_alarm(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite3"
    require("mosquitto", MOSQUITTO_PURPOSE)
    broker = LocalBroker(tmp_path / "broker")  # not started yet: the floor is down
    settings = _settings(broker, outbox_max_messages=100, outbox_alarm_percent=50)
    publisher = _publisher(settings, db, housekeeping_interval=0.1)
    publisher.start()
    try:
        status = _wait_status(publisher, lambda s: s.last_error is not None)
        assert "cannot connect to 127.0.0.1" in str(status.last_error)
        assert (status.link, status.indicator()) == ("down", "LINK DOWN")

        _journal_events(db, 1, 30)
        publisher.notify()
        status = _wait_status(publisher, lambda s: s.unsent == 60)
        assert (status.alarm, status.overflowed, status.indicator()) == (
            True,
            False,
            "FLOOR OUTBOX 60%",
        )

        _journal_events(db, 31, 25)  # 110 rows: past the bound, and all of them unsent
        publisher.notify()
        status = _wait_status(publisher, lambda s: s.unsent == 110)
        assert (status.overflowed, status.indicator()) == (True, "FLOOR OUTBOX FULL")
        assert len(_rows(db)) == 110  # nothing unsent was deleted

        broker.start()
        try:
            # Full clears by itself once the whole backlog is sent (nothing was lost;
            # the daemon's journal system log records both changes).
            status = _wait_status(publisher, lambda s: s.unsent == 0 and s.link == "up")
            status = _wait_status(publisher, lambda s: not s.overflowed)
            assert (status.alarm, status.unsent, status.indicator()) == (False, 0, "LINK OK")
            # The bound is kept by deleting the oldest sent rows.
            assert _eventually(lambda: sorted(_rows(db)) == list(range(11, 111)))
            assert publisher.prune_sent(keep=10) == 90
            assert sorted(_rows(db)) == list(range(101, 111))
        finally:
            broker.kill()
    finally:
        publisher.stop()


# -- credentials and ACL ---------------------------------------------------------------

ACL = """\
# the floor system reads everything; a table writes only under its own subtree
user floor
topic read casino/#

pattern write casino/+/table/%u/#
"""


def _secret(path: Path, text: str) -> Path:
    path.write_text(text + "\n")
    path.chmod(0o600)
    return path


@pytest.fixture
def secured_broker(tmp_path: Path) -> Iterator[LocalBroker]:
    require("mosquitto", MOSQUITTO_PURPOSE)
    passwd = require("mosquitto_passwd", MOSQUITTO_PURPOSE)
    passwords = tmp_path / "passwords"
    for index, (user, password) in enumerate(
        [("T1", "t1-secret"), ("T2", "t2-secret"), ("floor", "floor-secret")]
    ):
        create = ["-c"] if index == 0 else []
        subprocess.run(
            [passwd, *create, "-b", str(passwords), user, password], check=True, capture_output=True
        )
    (tmp_path / "acl").write_text(ACL)
    local = LocalBroker(
        tmp_path / "broker",
        listener_options=f"allow_anonymous false\npassword_file {passwords}\n"
        f"acl_file {tmp_path / 'acl'}",
    )
    local.start()
    yield local
    local.kill()


@pytest.fixture
def floor_system(secured_broker: LocalBroker, tmp_path: Path) -> Iterator[Collector]:
    """The floor system's account: it may read every table."""
    collector = Collector()
    subscriber = Subscriber(
        secured_broker.host,
        secured_broker.port,
        "casino/#",
        collector,
        username="floor",
        password_file=_secret(tmp_path / "floor.pw", "floor-secret"),
    )
    subscriber.start()
    yield collector
    subscriber.stop()


def test_clients_without_the_right_credentials_are_refused(
    secured_broker: LocalBroker,
    floor_system: Collector,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    broker = secured_broker
    with pytest.raises(FloorLinkError, match="refused by the broker: Not authorized"):
        Subscriber(broker.host, broker.port, "casino/#", Collector()).start()

    db = tmp_path / "journal.sqlite3"
    _journal_events(db, 1, 5)
    wrong = _publisher(
        _settings(broker, username="T1", password_file=_secret(tmp_path / "x", "guess")), db
    )
    wrong.start()
    try:
        status = _wait_status(wrong, lambda s: s.last_error is not None)
        assert "refused by the broker" in str(status.last_error)
        assert (status.link, status.sent) == ("down", 0)
    finally:
        wrong.stop()
    assert _unsent(db) == 10

    right = _publisher(
        _settings(broker, username="T1", password_file=_secret(tmp_path / "t1.pw", "t1-secret")), db
    )
    right.start()
    try:
        assert right.wait_drained(WAIT)
        _wait_delivered(floor_system, 10)
    finally:
        right.stop()
    assert "refused by the broker" in caplog.text
    for secret in ("t1-secret", "guess", "floor-secret"):
        assert secret not in caplog.text


def test_the_acl_keeps_a_table_to_its_own_topics(
    secured_broker: LocalBroker, floor_system: Collector, tmp_path: Path
) -> None:
    db = tmp_path / "t2.sqlite3"
    _journal_events(db, 1, 3, table_id="T2")
    # Table T1's credentials, publishing as table T2: the broker refuses the first
    # message (the link status) and, being Mosquitto, drops the connection.
    impostor = _publisher(
        _settings(
            secured_broker, username="T1", password_file=_secret(tmp_path / "t1.pw", "t1-secret")
        ),
        db,
        table_id="T2",
    )
    impostor.start()
    try:
        status = _wait_status(impostor, lambda s: "Not authorized" in str(s.last_error))
        assert status.last_error == "broker refused casino/lv/table/T2/status: Not authorized"
        assert (status.sent, status.unsent) == (0, 6)
    finally:
        impostor.stop()
    assert _unsent(db) == 6  # kept, to be sent once the ACL is put right
    assert not [m for m in floor_system.messages if "/T2/" in m.topic]


# -- TLS -----------------------------------------------------------------------------------


def _openssl(*arguments: str, cwd: Path) -> None:
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True)


def _make_ca(directory: Path, name: str) -> None:
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        f"{name}.key",
        "-out",
        f"{name}.pem",
        "-days",
        "2",
        "-subj",
        f"/CN={name}",
        # a CA as RFC 5280 makes one: Python 3.13 checks certificates strictly
        # (VERIFY_X509_STRICT) and refuses a CA without its key usage
        "-addext",
        "basicConstraints = critical, CA:TRUE",
        "-addext",
        "keyUsage = critical, keyCertSign, cRLSign",
        cwd=directory,
    )


def _make_cert(directory: Path, ca: str, name: str, common_name: str, san: str = "") -> None:
    _openssl(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        f"{name}.key",
        "-out",
        f"{name}.csr",
        "-subj",
        f"/CN={common_name}",
        cwd=directory,
    )
    extensions = directory / f"{name}.ext"
    extensions.write_text(
        (f"subjectAltName = {san}\n" if san else "basicConstraints = CA:FALSE\n")
        + "authorityKeyIdentifier = keyid, issuer\nsubjectKeyIdentifier = hash\n"
    )
    _openssl(
        "x509",
        "-req",
        "-in",
        f"{name}.csr",
        "-CA",
        f"{ca}.pem",
        "-CAkey",
        f"{ca}.key",
        "-CAcreateserial",
        "-out",
        f"{name}.pem",
        "-days",
        "2",
        "-extfile",
        str(extensions),
        cwd=directory,
    )
    (directory / f"{name}.key").chmod(0o600)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("openssl", "making a test CA")
    directory = tmp_path_factory.mktemp("pki")
    _make_ca(directory, "casino-ca")
    _make_ca(directory, "other-ca")
    _make_cert(directory, "casino-ca", "broker", "127.0.0.1", "IP:127.0.0.1, DNS:localhost")
    _make_cert(directory, "casino-ca", "t1", "T1")
    _make_cert(directory, "casino-ca", "floor", "floor")
    return directory


@pytest.mark.slow  # a TLS broker and certificates made for the test (1.3 s)
def test_tls_with_the_casinos_ca_and_a_client_certificate_per_table(
    certificates: Path, tmp_path: Path
) -> None:
    pki = certificates
    (tmp_path / "acl").write_text(ACL)
    require("mosquitto", MOSQUITTO_PURPOSE)
    broker = LocalBroker(
        tmp_path / "broker",
        listener_options=f"cafile {pki / 'casino-ca.pem'}\ncertfile {pki / 'broker.pem'}\n"
        f"keyfile {pki / 'broker.key'}\nrequire_certificate true\n"
        f"use_identity_as_username true\nallow_anonymous false\nacl_file {tmp_path / 'acl'}",
    )
    broker.start()
    try:
        floor = Collector()
        subscriber = Subscriber(
            broker.host,
            broker.port,
            "casino/#",
            floor,
            tls=TlsSettings(
                ca_file=pki / "casino-ca.pem",
                cert_file=pki / "floor.pem",
                key_file=pki / "floor.key",
            ),
        )
        subscriber.start()
        try:
            db = tmp_path / "journal.sqlite3"
            _journal_events(db, 1, 10)
            table = _publisher(
                _settings(
                    broker,
                    tls=TlsSettings(
                        ca_file=pki / "casino-ca.pem",
                        cert_file=pki / "t1.pem",
                        key_file=pki / "t1.key",
                    ),
                ),
                db,
            )
            table.start()
            try:
                assert table.wait_drained(WAIT)
                _wait_delivered(floor, 20)
                _assert_complete_and_in_order(floor, db)
            finally:
                table.stop()
        finally:
            subscriber.stop()

        _journal_events(db, 11, 1)
        for name, tls, problem in [
            ("no client certificate", TlsSettings(ca_file=pki / "casino-ca.pem"), ""),
            (
                "a broker signed by another CA",
                TlsSettings(
                    ca_file=pki / "other-ca.pem", cert_file=pki / "t1.pem", key_file=pki / "t1.key"
                ),
                "certificate verify failed",
            ),
        ]:
            refused = _publisher(_settings(broker, tls=tls), db)
            refused.start()
            try:
                status = _wait_status(refused, lambda s: s.last_error is not None)
                assert problem in str(status.last_error), name
                assert not refused.wait_for(lambda s: s.link == "up", 0.5), name
                assert _unsent(db) == 2, name
            finally:
                refused.stop()
    finally:
        broker.kill()


def test_the_real_journals_outbox_is_drained(
    broker: LocalBroker, back_office: Collector, tmp_path: Path
) -> None:
    from controller.journal import Journal

    topics = TableTopics("casino", "lv", "T1")
    with Journal.open(tmp_path / "state", 'table: {id: "T1", seats: 9}\n') as journal:
        publisher = _publisher(_settings(broker), tmp_path / "state" / "journal.sqlite3")
        publisher.start()
        try:
            state: dict[str, Any] = {"hand": 0, "phase": "idle", "seats": {}}
            for seat in range(1, 4):
                event = {"type": "sit", "seat": seat, "player": f"p{seat}", "chips": 100}
                after = {
                    **state,
                    "seats": {
                        **state["seats"],
                        str(seat): {
                            "player": f"p{seat}",
                            "stack": 100,
                            "bet": 0,
                            "status": "waiting",
                            "missed": [],
                        },
                    },
                }
                record = {"seq": journal.last_seq + 1, "event": event}
                rows = messages_for(record, {"ok": True}, state, after, topics=topics)
                assert journal.append(event, accepted=True, by="d1", outbox=rows) == record["seq"]
                publisher.notify()
                state = after
            assert publisher.wait_drained(WAIT)
            _wait_delivered(back_office, 6)
            assert [p["seq"] for p in _first_copies(back_office.messages)] == [1, 1, 2, 2, 3, 3]
        finally:
            publisher.stop()
        assert journal.verify().problems == ()


def test_importing_the_floor_link_starts_nothing() -> None:
    # The daemon creates a Publisher only when `settings.floor` is set; importing
    # controller.floor starts no thread and opens no connection.
    code = "import controller.floor.publisher, threading; print(threading.active_count())"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    )
    assert result.stdout.strip() == "1"


def test_the_test_broker_is_not_part_of_the_firmware() -> None:
    # tests/localbroker.py starts a Mosquitto for the tests and bench/floor.py: the
    # installed packages (controller, drivers) carry no test-only code.
    assert importlib.util.find_spec("controller.floor.localbroker") is None
    firmware = [*(ROOT / "controller").rglob("*.py"), *(ROOT / "drivers").rglob("*.py")]
    importing_tests = [
        str(path.relative_to(ROOT))
        for path in firmware
        if re.search(r"^\s*(from|import) tests\b", path.read_text(), re.MULTILINE)
    ]
    assert importing_tests == []


@pytest.mark.slow  # waits for an idle table's backlog to go (1.2 s)
def test_the_boards_sending_backlog_clears_once_an_idle_tables_backlog_is_sent(
    broker: LocalBroker, back_office: Collector, tmp_path: Path
) -> None:
    """A table that played offline, then went idle: once its backlog is sent, the floor
    hears that nothing is left to send. A board that starts later (or comes back) gets
    the retained status: it said `SENDING BACKLOG 80` for ever on such a table."""
    from controller.floor.board import Board

    db = tmp_path / "journal.sqlite3"
    outbox.connect(db).close()
    broker.stop()
    publisher = _publisher(_settings(broker), db)
    publisher.start()
    try:
        _wait_status(publisher, lambda s: s.link == "down")
        _journal_events(db, 1, 40)
        publisher.notify()
        queued = len(_rows(db))
        _wait_status(publisher, lambda s: s.unsent == queued)
        broker.start()
        assert publisher.wait_drained(WAIT)
        _wait_delivered(back_office, queued)

        def backlog_shown(collector: Collector) -> list[str]:
            board = Board()
            for message in list(collector.messages):
                board.apply(message.payload, time.monotonic_ns(), message.topic)
            card = board.card("T1", time.monotonic_ns())
            assert card is not None
            return [a["text"] for a in card["alarms"] if a["code"] == "backlog"]

        assert _eventually(lambda: not backlog_shown(back_office)), backlog_shown(back_office)
        late = Collector()  # a board started after the backlog was sent
        subscriber = Subscriber(broker.host, broker.port, subscription("casino"), late)
        subscriber.start()
        try:
            assert late.wait_for(lambda ms: any(m.retain for m in ms), WAIT)
            assert backlog_shown(late) == []
        finally:
            subscriber.stop()
    finally:
        publisher.stop()
