"""`tablectl floor board`: the floor board served to browsers, live from the broker.

Theory of operation. One MQTT subscriber (`consumer.Subscriber`, paho's own network
thread, reconnecting by itself) folds every message of the site into a `Board`; a
standard-library `ThreadingHTTPServer` serves

    /             the page (`board_page.PAGE`: HTML, CSS and a little JavaScript, no build)
    /events       server-sent events: `snapshot` (every card) at once, then `card` (one
                  table changed), `broker` (the board's own link up or down), and a
                  comment every 10 s so proxies keep the stream open
    /cards.json   every card now (scripts, monitoring)
    /table/T7.json  one table's card with its last hands' play-by-play (the page's
                  detail panel); 404 for a table the board does not show

Each browser has its own queue; the subscriber's thread puts the changed card on every
queue (encoded once for all), the browser's HTTP thread writes out what has piled up in
one go. A browser that falls behind by more than `QUEUE_MAX` changes is marked behind:
nothing more is queued for it (a browser that never reads costs the others nothing)
until it reads again, when it is sent a fresh snapshot instead. The page
reconnects by itself (EventSource) when the board restarts, and shows when the board
has lost its broker; the subscriber resubscribes after a broker restart and the retained
`state` and `status` of every table come again.

Configuration (`--config FILE`): a board file with the `floor:` section of a table's
configuration (broker, TLS, credentials, site, topic prefix) and an optional `board:`
section (`listen`, `port`, `hosts`), or a table's own configuration (its `floor:` section).

Host names. A request is answered only when its `Host` header (port aside) is an IP
address, `localhost`, or one of `board.hosts`: a web page elsewhere whose own name an
attacker points at 127.0.0.1 (DNS rebinding) gets 421 and no table data.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import json
import logging
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from controller.floor.board import PUSH_MINUTES, Board, problem
from controller.floor.board_page import PAGE
from controller.floor.consumer import Deduplicator, FloorLinkError, FloorMessage, Subscriber
from controller.floor.settings import FloorSettings
from controller.floor.topics import subscription

log = logging.getLogger(__name__)

QUEUE_MAX = 1000
SEND_BUFFER = 64 * 1024
SET_ASIDE_MAX = 1000
HEARTBEAT_S = 10.0
SOCKET_TIMEOUT_S = 60.0
BODY_SKIP_MAX = 64 * 1024  # a GET's body up to this is read and dropped; past it: close
DEFAULT_LISTEN = "127.0.0.1"
DEFAULT_HTTP_PORT = 8470


@dataclass(frozen=True, kw_only=True)
class BoardSettings:
    """Where the board listens (`board:` section)."""

    listen: str = DEFAULT_LISTEN
    port: int = DEFAULT_HTTP_PORT
    hosts: tuple[str, ...] = ()  # names browsers may use besides IP addresses, localhost
    max_tables: int = Deduplicator.MAX_TABLES  # cards kept; more: the longest silent goes
    push_minutes: int = PUSH_MINUTES  # older tables' push: a dealer down this long, PUSH DUE


HOST_NAME = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?"


def host_allowed(header: str | None, names: frozenset[str]) -> bool:
    """Whether a request's `Host` header names this board: an IP address (a page
    cannot rebind those), `localhost`, or one of `names` (lower case, no dot at the end)."""
    if not header:
        return False
    host = header.strip().lower()
    if host.startswith("["):  # [::1]:8470
        host = host[1:].split("]", 1)[0]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return False
        return True
    host = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    host = host.rstrip(".")
    return host == "localhost" or host in names


def _read_hosts(board: Any) -> tuple[str, ...]:
    """`board.hosts`: a list of host names (or one name)."""
    import re

    from yaml.nodes import ScalarNode, SequenceNode

    node = board.get_node("hosts")
    if node is None:
        return ()
    items = node.value if isinstance(node, SequenceNode) else [node]
    names: list[str] = []
    for index, item in enumerate(items):
        text = item.value if isinstance(item, ScalarNode) else None
        if not isinstance(text, str) or not re.fullmatch(HOST_NAME, text):
            board.fail(
                "hosts",
                f"expected a host name (letters, digits, '-', '.'), got {text!r}"
                if text is not None
                else "expected a list of host names",
                where=item,
                name=f"{board.path_of('hosts')}[{index}]",
            )
            continue
        names.append(text.lower().rstrip("."))
    return tuple(names)


def load_board_config(path: Path) -> tuple[FloorSettings | None, BoardSettings]:
    """The floor and board settings of a board file, or of a table's configuration
    (which has no `board:` section). `ConfigError` (FILE:LINE:COL per problem) for a
    file that is wrong, `OSError` for one that cannot be read."""
    import yaml

    from controller.config import ConfigError, load_config
    from controller.config.floor import read_floor
    from controller.config.loader import _compose  # the loader's own YAML reading
    from controller.config.reader import START, Report, Section

    text = Path(path).read_bytes().decode("utf-8", errors="replace")
    try:
        plain = yaml.safe_load(text)
    except yaml.YAMLError:
        plain = None
    if isinstance(plain, dict) and "table" in plain:  # a table's configuration
        settings = load_config(path)
        floor = FloorSettings.adapt(settings.floor) if settings.floor is not None else None
        return floor, BoardSettings()
    report = Report(str(path))
    node = _compose(text, report)
    report.raise_if_failed()
    root = Section(report, "", node, START)
    floor_section = root.get_section("floor")
    floor_config = read_floor(floor_section)
    if not floor_section.present:
        report.error(
            START,
            "floor: required section is missing (the broker to watch: floor.site, floor.host)",
        )
    board = root.get_section("board")
    settings_board = BoardSettings(
        listen=board.get_text(
            "listen",
            DEFAULT_LISTEN,
            pattern=r"[A-Za-z0-9_.:\[\]-]{1,253}",
            pattern_help="a host name or IP address to listen on",
        ),
        port=board.get_int("port", DEFAULT_HTTP_PORT, 1, 65535),
        hosts=_read_hosts(board),
        max_tables=board.get_int("max_tables", Deduplicator.MAX_TABLES, 1, 100_000),
        push_minutes=board.get_int("push_minutes", PUSH_MINUTES, 1, 24 * 60),
    )
    report.check_unknown()
    report.raise_if_failed()
    if floor_config is None:
        raise ConfigError(report.problems() or [f"{path}:1:1: floor: section missing"])
    return FloorSettings.adapt(floor_config), settings_board


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that went away (a reload, a tab closed, one that stopped reading)
        is routine: a debug line. Anything else is logged, never printed raw."""
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError | TimeoutError):
            log.debug("floor board http: %s went away: %s", client_address[0], error)
        else:
            log.exception("floor board http: a request from %s failed", client_address[0])


class _Browser:
    """One browser's queue of frames (see `BoardServer._broadcast`)."""

    def __init__(self) -> None:
        self.frames: deque[bytes] = deque()
        self.behind = False  # fell QUEUE_MAX frames behind: a snapshot is due instead
        self.closed = False
        self.ready = threading.Condition()

    def put(self, frame: bytes) -> None:
        with self.ready:
            if self.behind or self.closed:
                return
            if len(self.frames) >= QUEUE_MAX:
                self.frames.clear()
                self.behind = True
            else:
                self.frames.append(frame)
            self.ready.notify()

    def close(self) -> None:
        with self.ready:
            self.closed = True
            self.ready.notify()

    def take(self, timeout: float) -> tuple[list[bytes], bool]:
        """The frames waiting (none after `timeout`) and whether a snapshot is due."""
        with self.ready:
            if not (self.frames or self.behind or self.closed):
                self.ready.wait(timeout)
            frames, behind = list(self.frames), self.behind
            self.frames.clear()
            self.behind = False
            return frames, behind


class BoardServer:
    """The board: `start()`, the URL in `url`, `stop()`."""

    def __init__(
        self,
        *,
        host: str,
        port: int,
        topic_filter: str,
        site: str | None,
        listen: str = DEFAULT_LISTEN,
        http_port: int = DEFAULT_HTTP_PORT,
        subscriber_options: dict[str, Any] | None = None,
        now_ns: Callable[[], int] = time.monotonic_ns,
        hosts: tuple[str, ...] = (),
        max_tables: int = Deduplicator.MAX_TABLES,
        on_broker: Callable[[bool], None] | None = None,
        push_minutes: int = PUSH_MINUTES,
    ) -> None:
        self.board = Board(site, max_tables=max_tables, push_minutes=push_minutes)
        self._on_broker = on_broker  # hears each loss of the broker and each return
        self._hosts = frozenset(h.lower().rstrip(".") for h in hosts)
        self._broker = (host, port)
        self._filter = topic_filter
        self._subscriber_options = subscriber_options or {}
        self._now = now_ns
        self._clients: list[_Browser] = []
        self._clients_lock = threading.Lock()
        self._stopping = threading.Event()
        self._subscriber: Subscriber | None = None
        self._connector: threading.Thread | None = None
        self._httpd = _HTTPServer((listen, http_port), self._handler())
        self._http_thread: threading.Thread | None = None
        self.last_error: str | None = None
        self._set_aside_topics: set[str] = set()
        self._refused_hosts: set[str] = set()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        return f"http://{name}:{port}/"

    def start(self) -> None:
        self._http_thread = threading.Thread(
            target=self._httpd.serve_forever,
            # how soon ``stop`` is answered (the default, 0.5 s, held every stop that
            # long); ten wake-ups a second of an idle select cost nothing
            kwargs={"poll_interval": 0.1},
            name="floor-board-http",
            daemon=True,
        )
        self._http_thread.start()
        self._connector = threading.Thread(
            target=self._connect, name="floor-board-broker", daemon=True
        )
        self._connector.start()

    def stop(self) -> None:
        self._stopping.set()
        with self._clients_lock:
            for client in self._clients:
                client.close()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._connector is not None:
            self._connector.join(5)
        if self._subscriber is not None:
            self._subscriber.stop()

    def wait_broker(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.board.broker_up:
                return True
            time.sleep(0.05)
        return False

    # -- the broker ------------------------------------------------------------------

    def _connect(self) -> None:
        """Subscribe, retrying until the broker answers (it may be down at start);
        afterwards paho reconnects by itself and the subscription is renewed."""
        while not self._stopping.is_set():
            subscriber = Subscriber(
                *self._broker,
                self._filter,
                self._on_message,
                on_link=self._on_link,
                **self._subscriber_options,
            )
            try:
                subscriber.start()
            except FloorLinkError as error:
                if error.args and error.args[0] != self.last_error:
                    log.warning("floor board: %s; retrying", error)
                self.last_error = str(error)
                self._stopping.wait(2.0)
                continue
            self._subscriber = subscriber
            self.last_error = None
            return

    def _on_link(self, up: bool) -> None:
        if up != self.board.broker_up:
            log.info("floor board: broker %s", "up" if up else "lost")
        if self._on_broker is not None:
            self._on_broker(up)
        self.board.set_broker(up)
        self._broadcast("broker", {"up": up})

    def _on_message(self, message: FloorMessage) -> None:
        received = self._now()
        if message.payload is not None:
            why = problem(message.payload, message.topic)
            if why is not None:
                self._set_aside(message.topic, why)
                return
        try:
            dropped = self.board.dropped
            table_id = self.board.apply(message.payload, received, message.topic)
            card = self.board.card(table_id, received) if table_id is not None else None
        except Exception:  # a message nobody foresaw must not end the board
            log.exception("floor board: a message on %s could not be shown", message.topic)
            return
        if self.board.dropped != dropped:  # a card went: the pages get every card anew
            self._broadcast("snapshot", self.snapshot())
        elif card is not None:
            self._broadcast("card", card)

    def _set_aside(self, topic: str, why: str) -> None:
        """Say once per topic (at most `SET_ASIDE_MAX` topics) that its messages are
        not shown, and why: a hostile publisher cannot fill the log."""
        if topic in self._set_aside_topics or len(self._set_aside_topics) >= SET_ASIDE_MAX:
            return
        self._set_aside_topics.add(topic)
        log.warning("floor board: a message on %s is not shown: %s", topic[:200], why)

    def _refused_host(self, host: str | None, client: str) -> None:
        """Say once per host name (at most `SET_ASIDE_MAX`) that it was refused."""
        name = (host or "")[:100]
        if name in self._refused_hosts or len(self._refused_hosts) >= SET_ASIDE_MAX:
            return
        self._refused_hosts.add(name)
        log.warning(
            "floor board: refused requests for host %r (first from %s): not an IP "
            "address, localhost or one of board.hosts",
            name,
            client,
        )

    # -- the browsers ----------------------------------------------------------------

    def _broadcast(self, event: str, data: Any) -> None:
        frame = _frame(event, data)
        with self._clients_lock:
            clients = list(self._clients)
        for client in clients:
            client.put(frame)

    def snapshot(self) -> dict[str, Any]:
        return {"broker": self.board.broker_up, "cards": self.board.cards(self._now())}

    def _stream(self) -> Iterator[bytes]:
        client = _Browser()
        with self._clients_lock:
            self._clients.append(client)
        try:
            yield _frame("snapshot", self.snapshot())
            while not self._stopping.is_set():
                frames, behind = client.take(HEARTBEAT_S)
                if client.closed:
                    return
                if behind:  # what it missed is in the snapshot
                    yield _frame("snapshot", self.snapshot())
                elif frames:
                    yield b"".join(frames)
                else:
                    yield b": still here\n\n"
        finally:
            with self._clients_lock:
                self._clients.remove(client)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # a browser that stops reading (or never sends its request) is dropped after
            # this long instead of holding a thread for ever
            timeout = SOCKET_TIMEOUT_S

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                log.debug("floor board http: " + format, *args)

            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                path = self.path.split("?", 1)[0]
                if not _skip_body(self.headers, self.rfile):
                    self.close_connection = True
                host = self.headers.get("Host")
                if not host_allowed(host, server._hosts):
                    server._refused_host(host, self.client_address[0])
                    self.close_connection = True
                    self._send(
                        421,
                        "text/plain; charset=utf-8",
                        b"this board does not serve that host name: add it to "
                        b"board.hosts in the board's configuration\n",
                    )
                elif path == "/":
                    self._send(200, "text/html; charset=utf-8", PAGE.encode())
                elif path == "/cards.json":
                    self._send(200, "application/json", json.dumps(server.snapshot()).encode())
                elif path == "/events":
                    self._events()
                elif path.startswith("/table/") and path.endswith(".json"):
                    detail = server.board.detail(
                        path[len("/table/") : -len(".json")], server._now()
                    )
                    if detail is None:
                        self._send(404, "text/plain; charset=utf-8", b"no such table here\n")
                    else:
                        self._send(200, "application/json", json.dumps(detail).encode())
                else:
                    self._send(404, "text/plain; charset=utf-8", b"not found\n")

            def _send(self, status: int, kind: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                if self.close_connection:
                    self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)

            def _events(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                # a browser that stops reading blocks its writer after this much, not
                # after the megabytes the kernel would otherwise buffer for it
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
                with contextlib.suppress(OSError):
                    for frame in server._stream():
                        self.wfile.write(frame)
                        self.wfile.flush()

        return Handler


def _skip_body(headers: Message, rfile: io.BufferedIOBase) -> bool:
    """A GET has no use for a body: one of up to `BODY_SKIP_MAX` bytes is read and
    dropped; anything else (chunked, larger, a bad length) is not read, and False says
    the connection ends after the answer. Never read as the next request."""
    length = headers.get("Content-Length")
    chunked = "chunked" in (headers.get("Transfer-Encoding") or "").lower()
    if length is None and not chunked:
        return True
    try:
        size = int(length) if length is not None and not chunked else -1
    except ValueError:
        size = -1
    if not 0 <= size <= BODY_SKIP_MAX:
        return False
    while size > 0:
        data = rfile.read(min(size, 65536))
        if not data:
            break
        size -= len(data)
    return True


def _frame(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def board_filter(
    floor: FloorSettings | None, *, prefix: str | None, site: str | None, all_sites: bool
) -> tuple[str, str | None]:
    """The subscription and the site the board shows (None: every site)."""
    prefix = prefix or (floor.topic_prefix if floor else "casino")
    chosen = None if all_sites else (site or (floor.site if floor else None))
    return subscription(prefix, chosen, None), chosen
