"""`tablectl tray`: the chip tray's shift report (float, movements, discrepancy).

From the daemon's journal (``--state-dir DIR``; the configuration recorded there, or
``--config``), or from a replay file (``--events FILE --config FILE``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller import supervisor_pins, tray
from controller.config import ConfigError, Settings, load_config, load_config_text
from controller.lines import read_lines
from controller.replay import decode, event_lines
from controller.rules import BadEvent

HELP = "print the chip tray's shift report: float, buy-ins, fills, credits, difference"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--state-dir", help="the daemon's journal directory")
    source.add_argument("--events", help="a JSONL replay file (needs --config)")
    parser.add_argument("--config", help="the table's YAML configuration")
    parser.add_argument("--pins", help="PIN file to check PINs the journal did not record")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def _fail(message: str) -> int:
    print(f"tablectl tray: {message}", file=sys.stderr)
    return 2


def _file_events(path: str) -> Iterator[dict[str, Any]]:
    with open(path, "rb") as source:
        for text in event_lines(read_lines(source)):
            try:
                yield decode(text)
            except BadEvent:
                yield {}  # not an event: refused on replay, like in `tablectl replay`


def run(args: argparse.Namespace) -> int:
    pin_path = Path(args.pins) if args.pins else supervisor_pins.default_path()
    verifier = supervisor_pins.PinFile(pin_path) if pin_path.exists() else None
    try:
        if verifier is not None:
            verifier.check()  # unsafe or unreadable: said in one line, never a traceback
    except (supervisor_pins.PinFileError, OSError) as error:
        return _fail(f"the PIN file cannot be used: {error}")
    try:
        if args.state_dir:
            return _from_journal(args, verifier)
        if not args.config:
            return _fail("--events needs --config")
        settings = load_config(args.config)
        table, buy_ins = tray.fold(settings.rules, _file_events(args.events), verifier)
    except ConfigError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        return 2
    except OSError as error:
        return _fail(f"cannot read {error.filename}: {error.strerror}")
    return _print(args, settings, table, buy_ins)


def _from_journal(args: argparse.Namespace, verifier: supervisor_pins.PinFile | None) -> int:
    from controller.journal import Journal, JournalError

    try:
        journal = Journal.open_readonly(args.state_dir)
    except JournalError as error:
        return _fail(f"cannot open the journal in {args.state_dir}: {error}")
    with journal:
        records = list(journal.iter_events())
        configs = {c.id: c.text for c in journal.configs()}
        current = journal.config_text
    cache: dict[int, Settings] = {}

    def settings_of(config_id: int) -> Settings:
        if config_id not in cache:
            cache[config_id] = load_config_text(configs[config_id], f"<journal config {config_id}>")
        return cache[config_id]

    settings = load_config(args.config) if args.config else load_config_text(current, "<journal>")
    rules = settings_of(records[0].config_id).rules if records else settings.rules
    table, buy_ins = tray.fold(
        rules,
        (r.event for r in records),
        verifier,
        settings_for=lambda n: settings_of(records[n - 1].config_id).rules,
        recorded=True,
    )
    if records and records[0].seq > 1:
        print(
            f"note: the journal starts at seq {records[0].seq} (older events pruned); "
            "the figures cover only what it holds",
            file=sys.stderr,
        )
    return _print(args, settings, table, buy_ins)


def _print(args: argparse.Namespace, settings: Settings, table: Any, buy_ins: list[Any]) -> int:
    if args.json:
        figures = tray.status(table.state, settings.tray).as_dict()
        figures.update(buy_ins=buy_ins, moves=table.state.tray_moves, acks=table.state.tray_acks)
        figures["tips"] = table.state.tips_total  # the toke box, not the tray
        print(json.dumps(figures))
    else:
        for line in tray.report(
            table.state, settings.tray, table_id=settings.rules.table_id, buy_ins=buy_ins
        ):
            print(line)
    return 0
