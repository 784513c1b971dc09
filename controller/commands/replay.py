"""`tablectl replay`: run the rules core over a file of events (the replay contract).

Answers are flushed line by line for standard input (``-``: a driver on the other end,
docs/replay.md); for a named file, whenever replay is about to read more of it, which may
wait for its writer (a named pipe), and at the end (docs/replay.md)."""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from controller.commands._settings import read_settings
from controller.lines import read_lines
from controller.replay import answers, dumps, ok_text

HELP = "run the rules over a JSONL file of events, one JSON result line per event"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="the table's YAML configuration")
    parser.add_argument("--state-dir", help="go through the durable journal in this folder")
    parser.add_argument("events", help="JSONL event file, or - for standard input")


def run(args: argparse.Namespace) -> int:
    settings = read_settings(args.config, "replay")
    if settings is None:
        return 2
    try:
        source = _open_events(args.events)
    except OSError as error:
        print(f"tablectl replay: cannot read {args.events}: {error.strerror}", file=sys.stderr)
        return 2
    with source:
        if args.state_dir:
            from controller.durable import durable_replay

            return durable_replay(settings, args.state_dir, read_lines(source), sys.stdout)
        out = sys.stdout
        if args.events == "-":  # a driver on the other end: each answer at once
            for seq, line in answers(settings.rules, read_lines(source)):
                out.write(_text(seq, line))
                out.flush()
            return 0
        # a file, or a pipe named like one: the answers to what was read are written
        # together whenever reading may wait, and at the end
        pending: list[str] = []

        def write_pending() -> None:
            out.write("".join(pending))
            pending.clear()
            out.flush()

        for seq, line in answers(settings.rules, read_lines(source, before_read=write_pending)):
            pending.append(_text(seq, line))
        write_pending()
    return 0


def _text(seq: int, line: dict[str, Any] | None) -> str:
    """An answer from ``answers`` as the line replay prints."""
    return f"{ok_text(seq) if line is None else dumps(line)}\n"


def _open_events(name: str) -> IO[bytes]:
    """The event file, or standard input for ``-`` (closing it is harmless), as bytes:
    a line that is not UTF-8 is refused on its own (``controller.lines``)."""
    if name == "-":
        return sys.stdin.buffer
    return open(name, "rb")  # noqa: SIM115 - closed by the caller's `with`
