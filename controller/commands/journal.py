"""`tablectl journal verify|salvage|log --state-dir DIR`: the technician's journal tools.

- ``verify``: the whole integrity check (``PRAGMA quick_check``, the hash chain from
  the start, snapshots, floor messages, the acknowledged tail; the daemon's start checks
  only what follows the verified mark), in flat memory. Read-only; exit 0 when it
  passes, 3 with the problems when it does not.
- ``salvage``: the explicit way out of a memory fault. Stop the service first. The
  damaged files are moved aside (kept byte for byte under ``damaged/``), a journal is
  rebuilt from the longest valid prefix, and the next start works from it. A healthy
  journal is left alone unless ``--force``; one of which nothing can be kept while
  events were acknowledged is left alone unless ``--start-empty``. Killed part-way, it
  is run again and carries on where it stopped.
- ``log``: the system event log: power-ups, orderly and unclean shutdowns, faults and
  clears, configuration loads and changes (with SHA-256), integrity results,
  corrections, retention. Wall times recorded before the clock was synchronised are
  marked (re-dated from the clock-sync entry when the same boot got one).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Any

from controller.commands._journal import journal_failed
from controller.daemon.timekeeping import WallDating
from controller.journal import Journal, JournalError, StorageFault
from controller.journal.anchors import HeadsReport, check_heads, heads_from_lines

HELP = "check, salvage or list the journal's system log (verify | salvage | log)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="journal_command", metavar="SUBCOMMAND", required=True)
    verify = sub.add_parser("verify", help="run the integrity check (read-only)")
    verify.add_argument("--state-dir", required=True, help="the journal's folder")
    verify.add_argument("--json", action="store_true", help="print the result as JSON")
    verify.add_argument(
        "--heads",
        metavar="FILE",
        help="also check the journal against the chain heads the floor "
        "received: hand_end messages (JSON lines) or bare heads",
    )
    salvage = sub.add_parser(
        "salvage",
        help="after a memory fault: keep the valid prefix, "
        "move the damaged files aside (stop the service first)",
    )
    salvage.add_argument("--state-dir", required=True, help="the journal's folder")
    salvage.add_argument(
        "--config",
        help="the configuration to record if the damaged journal has no readable configuration",
    )
    salvage.add_argument(
        "--force", action="store_true", help="rebuild even a journal that passes its checks"
    )
    salvage.add_argument(
        "--before",
        type=int,
        metavar="SEQ",
        help="keep only the events before SEQ (the seq a replay_diverged fault names)",
    )
    salvage.add_argument(
        "--start-empty",
        action="store_true",
        help="when nothing of the journal can be kept although events were acknowledged, "
        "start the table from an empty journal all the same (refused without it)",
    )
    show = sub.add_parser("log", help="print the system event log")
    show.add_argument("--state-dir", required=True, help="the journal's folder")
    show.add_argument("--kind", action="append", help="only entries of this kind (repeatable)")
    show.add_argument("--json", action="store_true", help="one JSON object per line")


def run(args: argparse.Namespace) -> int:
    command = {"verify": _verify, "salvage": _salvage, "log": _log}[args.journal_command]
    try:
        return command(args)
    except JournalError as error:
        status = journal_failed(f"journal {args.journal_command}", args.state_dir, error)
        if args.journal_command == "salvage" and isinstance(error, StorageFault):
            print(
                "tablectl journal salvage: nothing is lost: once the storage is fixed, run "
                "this salvage again before starting the service; it carries on where it "
                "stopped.",
                file=sys.stderr,
            )
        return status


def _verify(args: argparse.Namespace) -> int:
    heads_report = None
    with Journal.open_readonly(args.state_dir) as journal:
        result = journal.verify(log=False)
        if args.heads:
            heads_report = _check_heads(journal, args.heads)
            if heads_report is None:
                return 2
    if args.json:
        summary = result.summary()
        if heads_report is not None:
            summary["heads"] = {
                "matched": heads_report.matched,
                "mismatched": heads_report.mismatched,
                "missing": heads_report.missing,
                "unchecked": heads_report.unchecked,
                "ignored": heads_report.ignored,
            }
        print(json.dumps(summary))
    else:
        print(
            f"{args.state_dir}: {'OK' if result.ok else 'FAILED'}: last seq {result.last_seq}, "
            f"{result.events_checked} event(s) checked from seq {result.checked_from_seq}, "
            f"quick_check {result.quick_check}"
        )
        for warning in result.warnings:
            print(f"warning: {warning}")
        for problem in result.problems:
            print(f"{problem.code}: {problem.message}")
        if heads_report is not None:
            print(
                f"heads: {heads_report.matched} match, {len(heads_report.mismatched)} "
                f"DIFFER, {len(heads_report.missing)} MISSING, "
                f"{len(heads_report.unchecked)} not checkable, "
                f"{heads_report.ignored} line(s) without a head"
            )
            for head, why in heads_report.mismatched[:20]:
                print(f"DIFFERS {head}: {why}")
            for head, why in heads_report.missing[:20]:
                print(f"MISSING {head}: {why}")
            for head, why in heads_report.unchecked[:5]:
                print(f"not checkable {head}: {why}")
    heads_ok = heads_report is None or heads_report.ok
    return 0 if result.ok and heads_ok else 3


def _check_heads(journal: Journal, path: str) -> HeadsReport | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            heads, ignored = heads_from_lines(file)
    except OSError as error:
        print(f"tablectl journal verify: {path}: {error.strerror}", file=sys.stderr)
        return None
    with journal.mutex:
        report = check_heads(journal.connection, heads, journal.chain_base_value, journal.table_id)
    report.ignored = ignored
    return report


def _salvage(args: argparse.Namespace) -> int:
    config_text = None
    table_id = None
    if args.config:
        from controller.config import ConfigError, load_config_text

        with open(args.config, encoding="utf-8") as file:
            config_text = file.read()
        try:
            table_id = load_config_text(config_text, args.config).rules.table_id
        except ConfigError as error:
            print(
                f"tablectl journal salvage: {args.config} is not a valid configuration "
                f"({len(error.problems)} problem(s)); check it with tablectl check-config",
                file=sys.stderr,
            )
            return 2
    report = Journal.salvage(
        args.state_dir,
        config_text,
        force=args.force,
        table_id=table_id,
        before=args.before,
        start_empty=args.start_empty,
    )
    print(f"salvaged {args.state_dir}: the journal now ends at seq {report.kept_last_seq}")
    print(
        f"  events kept: {report.kept_events}; events found beyond the damage and dropped: "
        f"{report.dropped_events}"
    )
    print(f"  damaged files moved to {report.moved_to} (kept as evidence)")
    if report.damaged_last_seq is not None:
        print(f"  the damaged journal ended at seq {report.damaged_last_seq}")
    if report.acknowledged_seq is not None:
        print(f"  seq {report.acknowledged_seq} had been acknowledged")
    print(f"  why it stopped there: {report.reason}")
    print(f"  snapshots kept: {report.snapshots_kept}")
    for note in report.notes:
        print(f"  note: {note}")
    print("Start the service again; it will recover from the salvaged journal.")
    return 0


def _log(args: argparse.Namespace) -> int:
    with Journal.open_readonly(args.state_dir) as journal:
        entries = list(journal.iter_system_log())
    dating = WallDating.from_log(entries)
    for entry in entries:
        if args.kind and entry.kind not in args.kind:
            continue
        stamp = dating.for_log(entry.id, entry.wall_ns, entry.clock_synced, entry.mono_ns)
        if args.json:
            print(
                json.dumps(
                    {
                        "id": entry.id,
                        "kind": entry.kind,
                        "time": stamp.as_json(),
                        "last_seq": entry.last_seq,
                        "detail": entry.detail,
                    }
                )
            )
        else:
            head = f"{entry.id:6d}  {stamp.text()}  {entry.kind}  (seq {entry.last_seq})"
            print(_wrapped(head, _detail(entry.kind, entry.detail)))
    return 0


LINE = 100  # a log line longer than this is wrapped, the rest indented under it
INDENT = " " * 8


def _wrapped(head: str, detail: str) -> str:
    """The entry on one line when it fits, else the detail wrapped under its head."""
    first, *more = detail.split("\n")
    lines = (
        [f"{head}  {first}"]
        if len(head) + 2 + len(first) <= LINE
        else [
            head,
            *textwrap.wrap(
                first, LINE, initial_indent=INDENT, subsequent_indent=INDENT, break_on_hyphens=False
            ),
        ]
    )
    for extra in more:  # a configuration diff: its own lines, each wrapped
        lines += textwrap.wrap(
            extra,
            LINE,
            initial_indent=INDENT,
            subsequent_indent=INDENT + "  ",
            break_on_hyphens=False,
        ) or [""]
    return "\n".join(lines)


def _detail(kind: str, detail: dict[str, Any]) -> str:
    if kind == "integrity":
        problems = detail.get("problems") or []
        if detail.get("ok"):
            return f"ok, {detail.get('events_checked', '?')} event(s) checked"
        return "FAILED: " + "; ".join(f"{p.get('code')}: {p.get('message')}" for p in problems)
    if kind in ("config_loaded", "config_change"):
        diff = detail.get("diff")
        text = f"sha256 {detail.get('sha256')}"
        if kind == "config_change":
            text += f", from seq {detail.get('from_seq')}"
            if detail.get("changed"):
                text += f"\nchanged: {detail['changed']}"
        return text + (f"\n{diff}" if diff else "")
    return json.dumps(detail, sort_keys=True)
