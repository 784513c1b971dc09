"""The floor board's HTTP side against what a hostile page or client sends: host names
it does not serve (DNS rebinding), a GET with a body on a kept-alive connection.
Real BoardServer, real Mosquitto, raw sockets (what a browser or attacker sends)."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.config import ConfigError
from controller.floor.board_server import BoardServer, host_allowed, load_board_config
from tests.daemon_helpers import WAIT
from tests.floor_board_helpers import lv_board
from tests.localbroker import LocalBroker


@pytest.fixture
def board(broker: LocalBroker) -> Iterator[BoardServer]:
    server = lv_board(broker, hosts=("floor-board.casino.local",))
    server.start()
    assert server.wait_broker(WAIT)
    yield server
    server.stop()


def exchange(board: BoardServer, request: bytes, answers: int = 1) -> list[tuple[int, bytes]]:
    """Send raw bytes on one connection; the (status, body) of each answer read."""
    address = board._httpd.server_address
    with socket.create_connection((str(address[0]), int(address[1])), timeout=WAIT) as conn:
        conn.sendall(request)
        reader = conn.makefile("rb")
        got: list[tuple[int, bytes]] = []
        for _ in range(answers):
            line = reader.readline()
            if not line:
                break
            status = int(line.split()[1])
            length = 0
            while (header := reader.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = header.decode().partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            got.append((status, reader.read(length)))
        return got


def get(path: str, host: str | None, extra: str = "") -> bytes:
    host_line = f"Host: {host}\r\n" if host is not None else ""
    return f"GET {path} HTTP/1.1\r\n{host_line}{extra}\r\n".encode()


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:8470",
        "localhost:8470",
        "LOCALHOST",
        "[::1]:8470",
        "10.2.0.7",
        "floor-board.casino.local",
        "Floor-Board.Casino.Local.:8470",
    ],
)
def test_the_board_answers_its_own_host_names(board: BoardServer, host: str) -> None:
    [(status, body)] = exchange(board, get("/cards.json", host))
    assert status == 200 and "cards" in json.loads(body)


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:8470",
        "evil.example",
        "localhost.evil.example",
        "127.0.0.1.nip.io",
        "floor-board.casino.local.evil.example",
        "[not-an-address]",
        "",
        None,
    ],
)
def test_a_rebound_host_name_gets_no_table_data(
    board: BoardServer, host: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    """DNS rebinding: a page at evil.example whose name now points at the board's
    address is refused (421, no cards), and the log says which name, once."""
    caplog.set_level(logging.WARNING, logger="controller.floor.board_server")
    for path in ("/cards.json", "/events", "/"):
        [(status, body)] = exchange(board, get(path, host))
        assert status == 421, (path, body)
        assert b"board.hosts" in body and b"cards" not in body
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refused) == 1 and "board.hosts" in refused[0]


def test_host_allowed_ignores_the_port_and_case() -> None:
    names = frozenset({"board.lv"})
    assert host_allowed("BOARD.LV:80", names) and host_allowed("192.168.1.4:8470", names)
    assert not host_allowed("board.lv.attacker", names) and not host_allowed(None, names)


def test_a_get_body_on_a_kept_alive_connection_is_not_a_request(board: BoardServer) -> None:
    """The body of a GET is read and dropped: the next request on the connection is
    the one that follows it, not the body (which here smuggles a request for another
    host name)."""
    smuggled = get("/cards.json", "evil.example")
    request = get("/cards.json", "127.0.0.1", f"Content-Length: {len(smuggled)}\r\n")
    last = get("/cards.json", "localhost", "Connection: close\r\n")
    answers = exchange(board, request + smuggled + last, 3)
    assert [status for status, _ in answers] == [200, 200], answers


def test_a_get_body_that_cannot_be_skipped_closes_the_connection(board: BoardServer) -> None:
    """Chunked, or larger than the board reads: answered, then the connection ends."""
    chunked = get("/cards.json", "localhost", "Transfer-Encoding: chunked\r\n")
    answers = exchange(board, chunked + b"5\r\nhello\r\n0\r\n\r\n" + get("/", "localhost"), 3)
    assert [status for status, _ in answers] == [200]
    big = get("/cards.json", "localhost", "Content-Length: 10000000\r\n")
    assert [status for status, _ in exchange(board, big + b"x" * 100, 3)] == [200]


def test_board_hosts_in_the_board_file(tmp_path: Path) -> None:
    path = tmp_path / "board.yaml"
    path.write_text(
        "floor:\n  site: lv\n  host: 127.0.0.1\nboard:\n"
        "  hosts: [floor-board.casino.local, Board2.]\n"
    )
    assert load_board_config(path)[1].hosts == ("floor-board.casino.local", "board2")
    path.write_text(
        "floor:\n  site: lv\n  host: 127.0.0.1\nboard:\n  hosts: [ok.name, 'evil host', {a: 1}]\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_board_config(path)
    text = "\n".join(caught.value.problems)
    assert "board.hosts[1]" in text and "'evil host'" in text and "board.hosts[2]" in text
    assert f"{path}:5:" in text
