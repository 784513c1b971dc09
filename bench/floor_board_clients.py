"""Floor board benchmark: browsers that never read must not slow the ones that do.

Prints figures; asserts nothing. A local Mosquitto, the floor board (`BoardServer`),
one browser that reads (a raw server-sent-events client) and `--idle` browsers that
connect to `/events` and never read a byte. A flood of `--messages` state messages
(40 tables) goes through the broker; the figure is the time from the first message
published to the reading browser having the last one, without idle browsers and with
them, and their ratio (1.0: the idle browsers cost nothing).

    python bench/floor_board_clients.py [--idle 200] [--messages 5000]
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.floor.clock import Stamp  # noqa: E402
from controller.floor.messages import state_message  # noqa: E402
from controller.floor.topics import TableTopics  # noqa: E402
from tests.floor_board_helpers import NINE_SEAT_NLHE, lv_board  # noqa: E402
from tests.localbroker import LocalBroker  # noqa: E402


def flood_delay(broker: LocalBroker, idle: int, messages: int) -> float:
    """Seconds from the first message published to the reading browser having the last."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    board = lv_board(broker)
    board.start()
    assert board.wait_broker(10)
    host, port = "127.0.0.1", int(board.url.rsplit(":", 1)[1].strip("/"))
    request = f"GET /events HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    sleepers = []
    for _ in range(idle):
        sleeper = socket.socket()
        sleeper.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sleeper.connect((host, port))
        sleeper.sendall(request)
        sleepers.append(sleeper)
    last = f'"hand":{messages},'.encode()
    done: list[float] = []

    def read() -> None:
        with socket.create_connection((host, port)) as reader:
            reader.sendall(request)
            tail = b""
            while data := reader.recv(1 << 16):
                if last in tail + data:
                    done.append(time.monotonic())
                    return
                tail = data[-64:]

    threading.Thread(target=read, daemon=True).start()
    time.sleep(1.0)
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect(broker.host, broker.port)
    client.loop_start()
    seats = {
        str(s): {"player": f"player{s}", "stack": 1000, "bet": 0, "status": "playing", "missed": []}
        for s in range(1, 10)
    }
    started = time.monotonic()
    for n in range(1, messages + 1):
        message = state_message(
            TableTopics("casino", "lv", f"T{n % 40 + 1}"),
            {
                "hand": n,
                "phase": "flop",
                "to_act": 1,
                "pot_total": n,
                "seats": seats,
                "clock": None,
            },
            seq=n,
            stamp=Stamp.now(),
            table=NINE_SEAT_NLHE,
        )
        client.publish(message.topic, message.payload[:-1] + f',"msg_seq":{n}}}', qos=1)
    deadline = time.monotonic() + 300
    while not done and time.monotonic() < deadline:
        time.sleep(0.05)
    client.loop_stop()
    client.disconnect()
    for sleeper in sleepers:
        sleeper.close()
    board.stop()
    return done[0] - started if done else float("inf")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle", type=int, default=200)
    parser.add_argument("--messages", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        broker = LocalBroker(Path(workdir) / "broker")
        broker.start()
        try:
            alone = flood_delay(broker, 0, args.messages)
            crowded = flood_delay(broker, args.idle, args.messages)
        finally:
            broker.kill()
    print(
        f"{args.messages} messages, 40 tables: the reading browser has the last after "
        f"{alone:.2f} s alone, {crowded:.2f} s beside {args.idle} browsers that never "
        f"read: ratio {crowded / alone:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
