"""`tablectl meters --state-dir DIR [--shift N] [--json|--csv]`: the shift report.

The report of the shift in progress (or of the last, closed, when none is open), or of
shift N: per table, per seat and per dealer the buy-ins, chips taken away, rake,
jackpot drop, time fees, tips, hands and hands per hour (table time, ``tick``
events), and the float counted at open and close against the chips sold, the tray's
fills and credits. Read from the state the daemon would resume with (the journal's
latest snapshot and the events after it, ``controller.rules.ops``), so it works
after pruning; the state keeps the last ``KEPT_SHIFTS`` closed shifts. Reads only: it
works while the daemon runs.

``--json`` prints the report as one JSON document (the ``report`` of the floor
feed's ``shift`` message); ``--csv`` one row per table, seat and dealer.

At a tournament table (rules T1-T8) the report is the tournament's instead, never
money: entries, players moved in, rebuys, add-ons, eliminations with the players out,
chips coloured up, under the tournament's name (``tournament.id``) when it has one
(``controller.rules.tournament.report``); ``--shift`` does not apply.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Mapping
from typing import Any

from controller.daemon.recovery import RulesBook, fold
from controller.journal import Journal, JournalError, JournalNotFound
from controller.rules import tournament
from controller.rules.meters import METERS
from controller.rules.ops import KEPT_SHIFTS, shift_report
from controller.rules.records import ShiftReport
from controller.rules.state import TableState

HELP = "print a shift's report: buy-ins, cash-outs, rake, tips per table, seat and dealer"

#: The columns of ``--csv``, after ``scope`` and ``name``.
COLUMNS = (*METERS, "hours", "hands_per_hour")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state-dir", required=True, help="the daemon's journal directory")
    parser.add_argument("--shift", type=int, metavar="N", help="the shift's number")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the report as JSON")
    form.add_argument("--csv", action="store_true", help="print one row per table/seat/dealer")


def _fail(message: str) -> int:
    print(f"tablectl meters: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    try:
        journal = Journal.open_readonly(args.state_dir)
    except JournalNotFound:
        return _fail(f"nothing recorded yet in {args.state_dir}")
    except JournalError as error:
        return _fail(f"cannot open the journal in {args.state_dir}: {error}")
    with journal:
        try:
            table = fold(journal, RulesBook(journal)).table
        except JournalError as error:
            return _fail(f"the journal cannot be read: {error}")
    if table.base_settings.tournament is not None:
        return _tournament(tournament.report(table.state, table.base_settings), args)
    report = choose(table.state, args.shift)
    if isinstance(report, str):
        return _fail(report)
    if args.json:
        print(json.dumps(report, sort_keys=True))
    elif args.csv:
        write_csv(report)
    else:
        sys.stdout.write(as_text(report))
    return 0


#: The tournament report's counts, in order (``--csv`` rows, the text's second line).
TOURNAMENT_COUNTS = (
    "entries",
    "moved_in",
    "rebuys",
    "add_ons",
    "eliminations",
    "coloured_up",
    "hands",
    "players_left",
)


def _tournament(report: dict[str, Any], args: argparse.Namespace) -> int:
    if args.shift is not None:
        return _fail("a tournament table keeps no shifts' money: its report has no --shift")
    if args.json:
        print(json.dumps(report, sort_keys=True))
    elif args.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["count", "value"])
        writer.writerows([name, report[name]] for name in TOURNAMENT_COUNTS)
    else:
        sys.stdout.write(tournament_text(report))
    return 0


def tournament_text(report: dict[str, Any]) -> str:
    place = "break before " if report["break"] else ""
    name = f" {report['tournament_id']}" if report.get("tournament_id") else ""
    out = [
        f"TOURNAMENT{name} TABLE {report['table_id']}: {place}level {report['level']} "
        f"({report['stakes']}), players seated {report['players_left']}, "
        f"{report['hands']} hands",
        "entries {entries}, moved in {moved_in}, rebuys {rebuys}, add-ons {add_ons}, "
        "eliminations {eliminations}, chips coloured up {coloured_up}".format(**report),
    ]
    if report["winner"] is not None:
        out.append(f"  place 1: {report['winner']}, the winner")
    for entry in reversed(report["eliminated"]):
        where = f"place {entry['place']}: " if "place" in entry else ""
        out.append(
            f"  {where}{entry['player']} out in hand {entry['hand']} "
            f"(began it with {entry['stack_at_start']})"
        )
    return "\n".join(out) + "\n"


def choose(state: TableState, number: int | None) -> ShiftReport | str:
    """Shift ``number``'s report (None: the one in progress, or the last closed while
    nothing happened since its close); a message saying why there is none."""
    current = state.shift["number"]
    if number is None or number == current:
        report = shift_report(state)
        idle = report["open"] is None and not any(report["table"][name] for name in METERS)
        if number is None and idle and state.shifts:
            return state.shifts[-1]
        return report
    for report in state.shifts:
        if report["shift"] == number:
            return report
    kept = ", ".join(str(r["shift"]) for r in state.shifts) or "none"
    if 0 <= number < current:
        return (
            f"shift {number} is no longer kept (the state keeps the last {KEPT_SHIFTS} "
            f"closed shifts: {kept}); its report went to the floor feed when it closed"
        )
    return f"no shift {number}: the shifts are 0 (before the first open) to {current}"


def _hours(ms: int) -> str:
    return f"{ms / 3_600_000:.2f}"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def as_text(report: ShiftReport) -> str:
    out = _title(report)
    table = report["table"]
    out.append(
        f"table time {_hours(table['ms'])} h, {table['hands']} hands, "
        f"{_rate(table['hands_per_hour'])} hands per hour"
    )
    out.append("")
    out.append(_header("seat"))
    for seat, part in report["seats"].items():
        players = ",".join(part.get("players", []))
        out.append(_row(f"{seat} {players}", part))
    if not report["seats"]:
        out.append("  (no seat took part)")
    out.append(_row("TABLE", table))
    out.append("")
    out.append(_header("dealer"))
    for dealer, mine in report["dealers"].items():
        out.append(
            _row(dealer, mine)
            + f"  {_hours(mine['ms'])} h, {_rate(mine['hands_per_hour'])} hands/h"
        )
    if not report["dealers"]:
        out.append("  (no dealer signed in)")
    out.append("")
    out += _float_lines(report["float"])
    return "\n".join(out) + "\n"


def _title(report: ShiftReport) -> list[str]:
    number = report["shift"]
    opened, closed = report["open"], report["close"]
    start = report.get("start")
    since = (
        f"since shift {number - 1} closed at hand {start['hand']}"
        if start is not None and number > 1
        else "since the journal began"
    )
    if opened is None and number == 0:
        return [f"SHIFT 0: no shift opened yet (the figures {since})"]
    if opened is None:
        return [f"SHIFT {number}: not opened yet (the figures {since})"]
    head = f"SHIFT {number}: opened by {opened['by']} with {opened['witness']} at hand {opened['hand']}"
    if closed is None:
        head += "; open"
    else:
        head += f"; closed by {closed['by']} with {closed['witness']} at hand {closed['hand']}"
    before = report.get("before_open")
    if not before or not any(before.values()):
        return [head]
    counted = ", ".join(f"{name.replace('_', ' ')} {before[name]}" for name in METERS)
    return [head, f"before the opening count ({since}): {counted}"]


def _header(what: str) -> str:
    return (
        f"{what:<22} {'buy-ins':>9} {'taken':>9} {'rake':>7} {'jackpot':>7} "
        f"{'time':>6} {'tips':>6} {'hands':>6}"
    )


def _row(name: str, part: Mapping[str, Any]) -> str:
    def get(key: str) -> str:
        return str(part[key]) if key in part else "-"  # a seat's part has no rake

    return (
        f"{name:<22.22} {get('buy_ins'):>9} {get('cash_outs'):>9} {get('rake'):>7} "
        f"{get('jackpot'):>7} {get('time_fees'):>6} {get('tips'):>6} {get('hands'):>6}"
    )


def _float_lines(check: dict[str, Any]) -> list[str]:
    if check["open"] is None:
        return ["float: not counted (no shift opened)"]
    lines = [
        f"float at open     {check['open']:>10}",
        f"chips sold        {-check['sold']:>+10}",
        f"fills             {check['fills']:>+10}",
        f"credits           {-check['credits']:>+10}",
        f"expected at close {check['expected']:>10}",
    ]
    if check["close"] is None:
        return [*lines, "float at close    (not yet counted: the shift is open)"]
    return [
        *lines,
        f"float at close    {check['close']:>10}",
        f"difference        {check['difference']:>+10}",
    ]


def write_csv(report: ShiftReport) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["shift", "scope", "name", *COLUMNS])
    number = report["shift"]
    table = report["table"]
    writer.writerow([number, "table", "", *_cells(table)])
    for seat, part in report["seats"].items():
        writer.writerow([number, "seat", seat, *_cells(part)])
    for dealer, mine in report["dealers"].items():
        writer.writerow([number, "dealer", dealer, *_cells(mine)])


def _cells(part: Mapping[str, Any]) -> list[Any]:
    ms = part.get("ms")
    rate = part.get("hands_per_hour")
    return [
        *(part.get(name, "") for name in METERS),
        _hours(ms) if ms is not None else "",
        "" if rate is None else rate,
    ]
