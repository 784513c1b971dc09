"""`config/mosquitto-acl.example` against a real Mosquitto (issue 13 item 9): a table
writes only its own subtree, never under another site nor another table's (their
retained `state` included); and the user names check-config refuses are the ones that
would widen the single-site pattern line."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.config import ConfigError, load_config_text
from tests.daemon_helpers import WAIT
from tests.localbroker import LocalBroker
from tests.system_tools import require

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "config" / "mosquitto-acl.example"
USERS = {"T7": "t7-pw", "T8": "t8-pw", "floor-system": "floor-pw", "T8/x": "x-pw"}


def pattern_acl() -> str:
    """The example's single-site alternative: its floor accounts and the pattern line."""
    text = EXAMPLE.read_text()
    line = next(line for line in text.splitlines() if "pattern write" in line)
    return "user floor-system\ntopic read casino/#\n\n" + line.lstrip("#").strip() + "\n"


def secured(tmp_path: Path, acl: str) -> LocalBroker:
    require("mosquitto", "the floor ACL tests against a real broker")
    passwd = require("mosquitto_passwd", "the floor ACL tests against a real broker")
    passwords = tmp_path / "passwords"
    for index, (user, password) in enumerate(USERS.items()):
        create = ["-c"] if index == 0 else []
        subprocess.run(
            [passwd, *create, "-b", str(passwords), user, password],
            check=True,
            capture_output=True,
            timeout=60,
        )
    (tmp_path / "acl").write_text(acl)
    return LocalBroker(
        tmp_path / "broker",
        listener_options=(
            f"allow_anonymous false\npassword_file {passwords}\nacl_file {tmp_path / 'acl'}"
        ),
    )


class Client:
    """A plain MQTT v5 client: publishes at QoS 1 and keeps each PUBACK's reason."""

    def __init__(self, broker: LocalBroker, user: str, subscribe: str | None = None) -> None:
        self.acks: dict[int, str] = {}
        self.received: dict[str, bytes] = {}
        self.ready = threading.Event()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"acl-{user}", protocol=mqtt.MQTTv5
        )
        self.client.username_pw_set(user, USERS[user])
        self.client.on_connect = lambda c, u, f, reason, p: (
            c.subscribe(subscribe, qos=1) if subscribe else self.ready.set()
        )
        self.client.on_subscribe = lambda c, u, mid, reasons, p: self.ready.set()
        self.client.on_publish = lambda c, u, mid, reason, p: self.acks.__setitem__(
            mid, str(reason)
        )
        self.client.on_message = lambda c, u, m: self.received.__setitem__(m.topic, m.payload)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()
        assert self.ready.wait(WAIT), f"{user} could not connect"

    def publish(self, topic: str, *, retain: bool = True) -> str:
        """The broker's answer to one retained QoS 1 message."""
        info = self.client.publish(topic, b'{"forged": true}', qos=1, retain=retain)
        deadline = time.monotonic() + WAIT
        while info.mid not in self.acks and time.monotonic() < deadline:
            time.sleep(0.01)
        answer = self.acks.get(info.mid, "no answer")
        return "Success" if answer == "No matching subscribers" else answer  # taken either way

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def example_broker(tmp_path: Path) -> Iterator[LocalBroker]:
    broker = secured(tmp_path, EXAMPLE.read_text())
    broker.start()
    yield broker
    broker.kill()


def retained(broker: LocalBroker, topic_filter: str) -> dict[str, bytes]:
    """What a new floor-system subscriber gets as retained messages."""
    reader = Client(broker, "floor-system", subscribe=topic_filter)
    # The broker sends the retained messages right after its SUBACK, and answers one
    # client in order: once a second SUBSCRIBE is answered, they have all come.
    answered = threading.Event()
    reader.client.on_subscribe = lambda c, u, mid, reasons, p: answered.set()
    reader.client.subscribe("casino/retained-probe", qos=0)
    assert answered.wait(WAIT), "the broker did not answer a second SUBSCRIBE"
    reader.close()
    return reader.received


@pytest.mark.slow  # a real broker's ACL: out of the edit loop
def test_the_example_acl_keeps_a_table_to_its_own_site_and_subtree(
    example_broker: LocalBroker,
) -> None:
    t7 = Client(example_broker, "T7")
    try:
        assert t7.publish("casino/east/table/T7/state") == "Success"
        assert t7.publish("casino/east/table/T7/events", retain=False) == "Success"
        for forged in (
            "casino/west/table/T7/state",  # itself, under another site
            "casino/east/table/T8/state",  # another table's retained state
            "casino/east/table/T8/status",
            "casino/west/table/T8/state",
            "casino/east/table/T7x/state",  # a longer id
            "casino/east/table/state",
            "other/east/table/T7/state",
        ):
            assert t7.publish(forged) == "Not authorized", forged
    finally:
        t7.close()
    kept = retained(example_broker, "#")
    assert set(kept) == {"casino/east/table/T7/state"}


@pytest.mark.slow  # a secured Mosquitto with hashed passwords (2 s)
def test_a_user_name_holding_a_slash_would_widen_the_pattern_line(tmp_path: Path) -> None:
    """Why check-config refuses such names: under the single-site pattern line a user
    named ``T8/x`` writes inside table T8's subtree."""
    broker = secured(tmp_path, pattern_acl())
    broker.start()
    try:
        t7 = Client(broker, "T7")
        intruder = Client(broker, "T8/x")
        try:
            assert t7.publish("casino/east/table/T7/state") == "Success"
            assert t7.publish("casino/west/table/T7/state") == "Not authorized"
            assert t7.publish("casino/east/table/T8/state") == "Not authorized"
            assert intruder.publish("casino/east/table/T8/x/state") == "Success"
        finally:
            t7.close()
            intruder.close()
    finally:
        broker.kill()
    text = (
        "table: {id: T8, seats: 9}\ngame: {structure: no_limit, big_blind: 10}\n"
        "floor: {site: east, host: 127.0.0.1, username: %s}\n"
    )
    for name in ("T8/x", "T8+", "'#'", "'$SYS'", "'T8 '", "T%u"):
        with pytest.raises(ConfigError, match="floor.username: expected a user name") as bad:
            load_config_text(text % name, "<t>")
        assert "would widen what the table may write" in str(bad.value.problems)
    assert load_config_text(text % "T8", "<t>").floor is not None
