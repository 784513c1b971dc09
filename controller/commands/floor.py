"""`tablectl floor ...`: the floor link, seen from a technician's laptop.

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
import sys
import threading
from pathlib import Path
from typing import Any

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

HELP = "the casino floor link: watch a table's live messages"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="floor_command", metavar="SUBCOMMAND", required=True)
    watch = sub.add_parser(
        "watch", help="print live floor messages, one JSON line each",
        description="Print live floor messages of one table or of all tables, one JSON "
        "line each, until interrupted (or --count / --timeout).",
    )
    source = watch.add_argument_group("broker")
    source.add_argument("--config", type=Path, metavar="FILE",
                        help="a table configuration: its floor: section and table id")
    source.add_argument("--host", help="broker host (default: the config's, else 127.0.0.1)")
    source.add_argument("--port", type=int, help="broker port (default 1883, 8883 with TLS)")
    source.add_argument("--site", help="only this site (default: the config's, else all)")
    source.add_argument("--prefix", help="topic prefix (default: the config's, else casino)")
    source.add_argument("--ca-file", type=Path, help="the casino's CA certificate: use TLS")
    source.add_argument("--cert-file", type=Path, help="client certificate (PEM)")
    source.add_argument("--key-file", type=Path, help="client private key (PEM)")
    source.add_argument("--username")
    source.add_argument("--password-file", type=Path,
                        help="a file holding the password (never the password itself)")
    which = watch.add_mutually_exclusive_group()
    which.add_argument("--table", metavar="ID", help="this table (default: the config's)")
    which.add_argument("--all", action="store_true", help="every table")
    watch.add_argument("--count", type=int, metavar="N", help="exit after N messages")
    watch.add_argument("--timeout", type=float, metavar="SECONDS",
                       help="exit after this long (status 0)")
    watch.add_argument("--duplicates", action="store_true",
                       help="also print messages already printed (same table_id, msg_seq)")
    watch.set_defaults(_floor_run=_watch)


def run(args: argparse.Namespace) -> int:
    return int(args._floor_run(args))


def _load_config(path: Path) -> tuple[FloorSettings | None, str]:
    """The table's floor settings (None without a `floor:` section) and table id."""
    settings = load_config(path)
    floor = FloorSettings.adapt(settings.floor) if settings.floor is not None else None
    return floor, settings.rules.table_id


def _watch(args: argparse.Namespace) -> int:
    try:
        settings, config_table = _load_config(args.config) if args.config else (None, None)
    except ConfigError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{args.config}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        tls = settings.tls if settings else None
        if args.ca_file or args.cert_file or args.key_file:
            tls = TlsSettings(
                ca_file=args.ca_file or (tls.ca_file if tls else None),
                cert_file=args.cert_file or (tls.cert_file if tls else None),
                key_file=args.key_file or (tls.key_file if tls else None),
            )
        username = args.username or (settings.username if settings else None)
        password_file = args.password_file or (
            settings.password_file if settings and not args.username else None
        )
        if password_file is not None and username is None:
            print("tablectl floor watch: --password-file needs --username", file=sys.stderr)
            return 2
        host = args.host or (settings.host if settings else "127.0.0.1")
        port = args.port or (
            settings.port if settings and settings.port else
            DEFAULT_TLS_PORT if tls else DEFAULT_PORT
        )
        site = args.site or (settings.site if settings else None)
        prefix = args.prefix or (settings.topic_prefix if settings else "casino")
        table = None if args.all else args.table or config_table
        if not args.all and table is None:
            print("tablectl floor watch: give --table ID or --all (or a --config with "
                  "table.id)", file=sys.stderr)
            return 2
        topic_filter = subscription(prefix, site, table)
    except (FloorConfigError, TopicError) as exc:
        print(f"tablectl floor watch: {exc}", file=sys.stderr)
        return 2

    done = threading.Event()
    lock = threading.Lock()
    dedupe = Deduplicator()
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
                body = {"raw": message.raw.decode("utf-8", errors="replace")}
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
        subscriber = Subscriber(
            host, port, topic_filter, show, tls=tls, username=username,
            password_file=password_file,
        )
        subscriber.start()
    except (FloorLinkError, FloorConfigError) as exc:
        print(f"tablectl floor watch: {exc}", file=sys.stderr)
        return 1
    print(f"watching {topic_filter} on {host}:{port}", file=sys.stderr, flush=True)
    try:
        done.wait(args.timeout)
    finally:
        subscriber.stop()
    return 0
