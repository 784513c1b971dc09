"""A table's client id on a real Mosquitto configured as `config/mosquitto.example.conf`
says (issue 22 item 4): another table's login connecting with table T7's client id
must neither knock T7 off the link nor get T7's persistent session; the example ties
each client id to its user (`use_username_as_clientid true`)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.daemon_helpers import WAIT
from tests.localbroker import LocalBroker
from tests.test_floor_acl import EXAMPLE, USERS, secured

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "config" / "mosquitto.example.conf"


def listener_lines() -> str:
    """The example's lines about client ids, as its listeners have them."""
    lines = [line.strip() for line in CONF.read_text().splitlines()]
    return "\n".join(line for line in lines if line.startswith("use_username_as_clientid"))


class Session:
    """One MQTT v5 connection with a persistent session (clean start off), as a table's
    link keeps; remembers its CONNACK and any disconnection."""

    def __init__(self, broker: LocalBroker, user: str, client_id: str) -> None:
        self.connected = threading.Event()
        self.session_present: bool | None = None
        self.reason: str | None = None
        self.dropped: list[str] = []
        self.acked = threading.Event()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5
        )
        self.client.username_pw_set(user, USERS[user])
        self.client.on_connect = self._connected
        self.client.on_disconnect = lambda c, u, flags, reason, p: self.dropped.append(str(reason))
        self.client.on_publish = lambda c, u, mid, reason, p: self.acked.set()
        properties = Properties(PacketTypes.CONNECT)
        properties.SessionExpiryInterval = 3600
        self.client.connect(broker.host, broker.port, clean_start=False, properties=properties)
        self.client.loop_start()
        assert self.connected.wait(WAIT), f"{user} as {client_id}: no CONNACK"

    def _connected(self, client: mqtt.Client, userdata: object, flags, reason, props) -> None:  # type: ignore[no-untyped-def]
        self.session_present = bool(flags.session_present)
        self.reason = str(reason)
        self.connected.set()

    def round_trip(self, topic: str) -> None:
        """One QoS 1 publish answered, or the connection dropped first."""
        self.acked.clear()
        self.client.publish(topic, b"{}", qos=1)
        assert self.acked.wait(WAIT) or self.dropped, "neither PUBACK nor a disconnection"

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def example_broker(tmp_path: Path) -> Iterator[LocalBroker]:
    broker = secured(tmp_path, EXAMPLE.read_text())
    config = broker.config_path.read_text().rstrip("\n")
    broker.config_path.write_text(config + "\n" + listener_lines() + "\n")
    broker.start()
    yield broker
    broker.kill()


def test_another_tables_login_cannot_take_over_a_tables_client_id(
    example_broker: LocalBroker,
) -> None:
    t7 = Session(example_broker, "T7", "T7")
    try:
        t7.round_trip("casino/east/table/T7/status")
        assert not t7.dropped
        # table T8's login asks for T7's client id, three times (a reconnect loop)
        for attempt in range(3):
            intruder = Session(example_broker, "T8", "T7")
            assert intruder.reason == "Success"
            if attempt == 0:  # later attempts find the intruder's own session
                assert intruder.session_present is False, "the intruder got T7's session"
            intruder.close()
        t7.round_trip("casino/east/table/T7/status")  # after the intruders' CONNACKs
        assert t7.dropped == [], f"T7 was knocked off: {t7.dropped}"
        assert t7.client.is_connected()
    finally:
        t7.close()
    # T7 comes back to its own session, kept by the broker
    again = Session(example_broker, "T7", "T7")
    try:
        assert again.session_present is True
    finally:
        again.close()
