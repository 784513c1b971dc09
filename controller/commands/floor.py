"""`tablectl floor ...`: the floor link, seen from a technician's laptop.

`tablectl floor board` serves the floor board (`controller/floor/board_server.py`):
every table of a site live in a browser.

`tablectl floor watch` subscribes to one table (or every table) and prints each message
as one JSON line: `{"topic": ..., "retain": ..., "message": {...}}`. Duplicates (same
`table_id` and `msg_seq`, retained copies included: a reconnect brings the retained
state again; for the link status, which has no `msg_seq`, the same status again) are
dropped unless `--duplicates`. With `--config`, the
broker, TLS files, site, prefix and table id come from the table's YAML configuration;
options given on the command line win (a watcher account's `--username` and
`--password-file`, say: a table's own credentials may only publish).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from controller.config import ConfigError, load_config
from controller.floor.consumer import Deduplicator, FloorLinkError, FloorMessage, Subscriber
from controller.floor.settings import (
    DEFAULT_PORT,
    DEFAULT_TLS_PORT,
    FloorConfigError,
    FloorSettings,
    TlsSettings,
)
from controller.floor.topics import TopicError, subscription
from controller.lines import decode_document
from controller.rules import BadEvent

T = TypeVar("T")


class BrokerLinkLines:
    """A subscriber's `on_link` that says on standard error, with the UTC time, each
    loss of the broker and each return after one (the first subscription, or the
    failure to make it, is said by the command itself). Once the command is ending
    (``end()``) nothing more is said: its own disconnect is no lost broker."""

    def __init__(self, command: str, host: str, port: int) -> None:
        self.command, self.host, self.port = command, host, port
        self.known: bool | None = None  # the link as last said (None: not up yet)
        self.ending = False

    def end(self) -> None:
        self.ending = True

    def __call__(self, up: bool) -> None:
        known = self.known
        if self.ending or known is None or up == known:
            if not self.ending:
                self.known = True if up else known  # nothing to say before the first link
            return
        self.known = up
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        what = "back: showing live messages again" if up else "lost: retrying"
        where = f"tablectl floor {self.command}: broker {self.host}:{self.port}"
        print(f"{stamp} {where} {what}", file=sys.stderr)
        sys.stderr.flush()


HELP = "the casino floor link: watch a table's live messages, serve the floor board"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="floor_command", metavar="SUBCOMMAND", required=True)
    watch = sub.add_parser(
        "watch",
        help="print live floor messages, one JSON line each",
        description="Print live floor messages of one table or of all tables, one JSON "
        "line each, until interrupted (or --count / --timeout).",
    )
    source = _broker_arguments(watch, "a table configuration: its floor: section and table id")
    which = watch.add_mutually_exclusive_group()
    which.add_argument("--table", metavar="ID", help="this table (default: the config's)")
    which.add_argument("--all", action="store_true", help="every table")
    watch.add_argument("--count", type=int, metavar="N", help="exit after N messages")
    watch.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="exit after this long (status 0)"
    )
    watch.add_argument(
        "--duplicates",
        action="store_true",
        help="also print messages already printed (same table_id, msg_seq)",
    )
    watch.add_argument(
        "--max-tables",
        type=_positive_int,
        metavar="N",
        default=Deduplicator.MAX_TABLES,
        help="tables remembered to drop duplicates; one more forgets the "
        f"one silent the longest (default {Deduplicator.MAX_TABLES})",
    )
    watch.set_defaults(_floor_run=_watch)
    del source

    board = sub.add_parser(
        "board",
        help="serve the floor board: every table of a site, live, in a browser",
        description="Serve a live web page showing every table of a site (one card each) "
        "from the floor broker, until interrupted. Open the printed address in a browser.",
    )
    _broker_arguments(
        board,
        "a board file (floor: and board: sections) or a table configuration (its floor: section)",
    )
    board.add_argument("--all-sites", action="store_true", help="every site, not only one")
    board.add_argument(
        "--listen",
        metavar="ADDRESS",
        help="address to serve the page on (default: the board: section's, "
        "else 127.0.0.1; 0.0.0.0 for every interface)",
    )
    board.add_argument(
        "--http-port",
        type=int,
        metavar="PORT",
        help="port to serve the page on (default: the board: section's, else 8470)",
    )
    board.add_argument("--timeout", type=float, metavar="SECONDS", help=argparse.SUPPRESS)
    board.set_defaults(_floor_run=_board)


def _broker_arguments(parser: argparse.ArgumentParser, config_help: str) -> Any:
    source = parser.add_argument_group("broker")
    source.add_argument("--config", type=Path, metavar="FILE", help=config_help)
    source.add_argument("--host", help="broker host (default: the config's, else 127.0.0.1)")
    source.add_argument("--port", type=int, help="broker port (default 1883, 8883 with TLS)")
    source.add_argument("--site", help="only this site (default: the config's, else all)")
    source.add_argument("--prefix", help="topic prefix (default: the config's, else casino)")
    source.add_argument("--ca-file", type=Path, help="the casino's CA certificate: use TLS")
    source.add_argument("--cert-file", type=Path, help="client certificate (PEM)")
    source.add_argument("--key-file", type=Path, help="client private key (PEM)")
    source.add_argument("--username")
    source.add_argument(
        "--password-file", type=Path, help="a file holding the password (never the password itself)"
    )
    return source


def run(args: argparse.Namespace) -> int:
    return int(args._floor_run(args))


def _load_config(path: Path) -> tuple[FloorSettings | None, str]:
    """The table's floor settings (None without a `floor:` section) and table id."""
    settings = load_config(path)
    floor = FloorSettings.adapt(settings.floor) if settings.floor is not None else None
    return floor, settings.rules.table_id


def _read_config(path: Path, load: Callable[[Path], T]) -> T | None:
    """What ``load`` takes from the configuration in ``path``, or None once what is wrong
    with it is printed (its problems, `FILE:LINE:COL: message`, or that it cannot be
    read)."""
    try:
        return load(path)
    except ConfigError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
    except OSError as exc:
        print(f"{path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
    return None


def _watch(args: argparse.Namespace) -> int:
    broker = _broker(args, "watch", _load_config, (None, None))
    if broker is None:
        return 2
    settings, config_table, (host, port, options) = broker
    try:
        site = args.site or (settings.site if settings else None)
        prefix = args.prefix or (settings.topic_prefix if settings else "casino")
        table = None if args.all else args.table or config_table
        if not args.all and table is None:
            print(
                "tablectl floor watch: give --table ID or --all (or a --config with table.id)",
                file=sys.stderr,
            )
            return 2
        topic_filter = subscription(prefix, site, table)
    except (FloorConfigError, TopicError) as exc:
        print(f"tablectl floor watch: {exc}", file=sys.stderr)
        return 2

    done = threading.Event()
    lock = threading.Lock()
    dedupe = Deduplicator(max_tables=args.max_tables)
    printed = 0

    def show(message: FloorMessage) -> None:
        nonlocal printed
        with lock:
            if done.is_set():
                return
            if not args.duplicates and not dedupe.first_time(message.payload, message.raw):
                return
            body: Any = message.payload
            if body is None:
                body = _not_a_message(message.raw)
            line = {"topic": message.topic, "retain": message.retain, "message": body}
            try:
                print(json.dumps(line, separators=(",", ":"), ensure_ascii=False), flush=True)
            except BrokenPipeError:
                done.set()
                return
            printed += 1
            if args.count is not None and printed >= args.count:
                done.set()

    try:
        link = BrokerLinkLines("watch", host, port)
        subscriber = Subscriber(host, port, topic_filter, show, on_link=link, **options)
        subscriber.start()
    except (FloorLinkError, FloorConfigError) as exc:
        print(f"tablectl floor watch: {exc}", file=sys.stderr)
        return 1
    print(f"watching {topic_filter} on {host}:{port}", file=sys.stderr, flush=True)
    try:
        wait_in_slices(done, args.timeout)
    finally:
        link.end()
        subscriber.stop()
    return 0


#: seconds: how soon a signal the kernel gave another thread is acted on (``wait_in_slices``)
SIGNAL_SLICE = 0.25


def wait_in_slices(event: threading.Event, timeout: float | None) -> None:
    """Wait for ``event``, at most ``timeout`` seconds, a short slice at a time. Python
    runs a signal's handler in the main thread only, once it runs again; the kernel may
    give a SIGTERM or a Ctrl-C to any thread of the process (here the broker link's or
    the page server's), and a main thread waiting on the event alone never ran it."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = SIGNAL_SLICE if deadline is None else deadline - time.monotonic()
        if left <= 0 or event.wait(min(left, SIGNAL_SLICE)):
            return


RAW_SHOWN = 1024  # bytes of a payload that is no message shown by the watch


def _not_a_message(raw: bytes) -> dict[str, Any]:
    """A payload that is no floor message, as the watch shows it: why, how big, and
    its first `RAW_SHOWN` bytes (a hostile payload may be megabytes)."""
    try:
        decode_document(raw)
        problem = "not a JSON object"
    except BadEvent as refused:
        problem = refused.message
    return {
        "raw": raw[:RAW_SHOWN].decode("utf-8", errors="replace"),
        "bytes": len(raw),
        "problem": problem,
    }


def _broker(
    args: argparse.Namespace,
    command: str,
    load: Callable[[Path], tuple[FloorSettings | None, T]],
    default: tuple[FloorSettings | None, T],
) -> tuple[FloorSettings | None, T, tuple[str, int, dict[str, Any]]] | None:
    """The floor settings and what else ``load`` takes from ``--config`` (``default``
    without one), and the broker's host, port and subscriber options; None once what is
    wrong is printed as `tablectl floor COMMAND: ...`."""
    loaded = _read_config(args.config, load) if args.config else default
    if loaded is None:
        return None
    settings, extra = loaded
    try:
        connection = _connection(args, settings)
    except FloorConfigError as exc:
        print(f"tablectl floor {command}: {exc}", file=sys.stderr)
        return None
    if isinstance(connection, str):
        print(f"tablectl floor {command}: {connection}", file=sys.stderr)
        return None
    return settings, extra, connection


def _connection(
    args: argparse.Namespace, settings: FloorSettings | None
) -> tuple[str, int, dict[str, Any]] | str:
    """The broker's host and port and the subscriber's TLS and credential options, from
    the command line over the configuration; a usage problem as text."""
    tls = _tls(args, settings.tls if settings else None)
    username = args.username or (settings.username if settings else None)
    password_file = args.password_file or (
        settings.password_file if settings and not args.username else None
    )
    if password_file is not None and username is None:
        return "--password-file needs --username"
    host = args.host or (settings.host if settings else "127.0.0.1")
    port = args.port or (settings.port if settings else None)
    port = port or (DEFAULT_TLS_PORT if tls else DEFAULT_PORT)
    return host, port, {"tls": tls, "username": username, "password_file": password_file}


def _tls(args: argparse.Namespace, tls: TlsSettings | None) -> TlsSettings | None:
    """The configuration's TLS settings, each file given on the command line over it."""
    if not (args.ca_file or args.cert_file or args.key_file):
        return tls
    return TlsSettings(
        ca_file=args.ca_file or (tls.ca_file if tls else None),
        cert_file=args.cert_file or (tls.cert_file if tls else None),
        key_file=args.key_file or (tls.key_file if tls else None),
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def _board(args: argparse.Namespace) -> int:
    from controller.floor.board_server import (
        BoardServer,
        BoardSettings,
        board_filter,
        load_board_config,
    )

    broker = _broker(args, "board", load_board_config, (None, BoardSettings()))
    if broker is None:
        return 2
    settings, board_settings, (host, port, options) = broker
    link = BrokerLinkLines("board", host, port)
    try:
        topic_filter, site = board_filter(
            settings, prefix=args.prefix, site=args.site, all_sites=args.all_sites
        )
        server = BoardServer(
            host=host,
            port=port,
            topic_filter=topic_filter,
            site=site,
            listen=args.listen or board_settings.listen,
            http_port=args.http_port if args.http_port is not None else board_settings.port,
            subscriber_options=options,
            hosts=board_settings.hosts,
            max_tables=board_settings.max_tables,
            push_minutes=board_settings.push_minutes,
            on_broker=link,
        )
    except (FloorConfigError, TopicError) as exc:
        print(f"tablectl floor board: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the address is taken or cannot be listened on
        listen = args.listen or board_settings.listen
        http_port = args.http_port if args.http_port is not None else board_settings.port
        print(
            f"tablectl floor board: cannot serve the page on {listen}:{http_port}: "
            f"{exc.strerror or exc} (another port: --http-port or board.port; "
            "another address: --listen or board.listen)",
            file=sys.stderr,
        )
        return 1
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server.start()
    print(
        f"floor board on {server.url} watching {topic_filter} on {host}:{port}",
        file=sys.stderr,
        flush=True,
    )
    try:
        wait_in_slices(stop, args.timeout)
    except KeyboardInterrupt:
        pass
    finally:
        link.end()
        server.stop()
        signal.signal(signal.SIGTERM, previous)
    return 0
