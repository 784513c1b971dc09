"""`tablectl state --state-dir DIR`: the state the daemon would resume with.

Prints one JSON line ``{"last_seq": N, "state": {...}}`` (docs/replay.md, "Durable mode"):
the fold of the journal (latest snapshot and the events after it) and the seq of the
last recorded line; ``0`` and ``null`` when nothing was recorded yet. A folder with no
journal is said on stderr as ``tablectl recall`` says it (``no journal in DIR ...``,
exit status 3), after that JSON line (``commands._journal``). That JSON is the
contract programs rely on, so it is what goes to a pipe or a file (and with
``--json``); on a terminal (or with ``--summary``) a person gets a readable summary. Reads only: it
works while the daemon runs. It checks the journal as the daemon's start does (what
follows the verified mark; ``tablectl journal verify`` checks everything). A journal
that fails that check is reported as
``"fault": {"code", "message"}`` (the state the daemon would show: a memory fault,
play locked) and the exit status is 3.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.commands._journal import journal_failed
from controller.daemon.recovery import RulesBook, fold
from controller.faults import Fault
from controller.journal import (
    Journal,
    JournalError,
    JournalIntegrityError,
    JournalNotFound,
)
from controller.replay import dumps
from controller.rules import state_view

HELP = "print the state the daemon would resume with, from the journal in --state-dir"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state-dir", required=True, help="the journal's folder")
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="skip the integrity check (faster on a long journal)",
    )
    form = parser.add_mutually_exclusive_group()
    form.add_argument(
        "--json",
        action="store_true",
        help="the JSON line (the default unless printing to a terminal)",
    )
    form.add_argument(
        "--summary", action="store_true", help="a readable summary (the default on a terminal)"
    )


def _readable(args: argparse.Namespace) -> bool:
    if args.json or args.summary:
        return bool(args.summary)
    return sys.stdout.isatty()


def run(args: argparse.Namespace) -> int:
    try:
        journal = Journal.open_readonly(args.state_dir)
    except JournalNotFound as error:  # a mistyped folder, or a table never started
        if not _readable(args):
            print(dumps({"last_seq": 0, "state": None}))
        return journal_failed("state", args.state_dir, error)
    except JournalError as error:
        return _fault(0, error)
    with journal:
        try:
            if not args.no_verify:
                verdict = journal.verify(log=False, whole=False)  # after the verified mark
                if not verdict.ok:
                    return _fault(journal.last_seq, verdict.problems[0])
            folded = fold(journal, RulesBook(journal))
        except JournalIntegrityError as error:
            return _fault(journal.last_seq, error)
        if folded.last_seq == 0:
            print(
                "nothing recorded yet" if _readable(args) else dumps({"last_seq": 0, "state": None})
            )
            return 0
        view = state_view(folded.table)
        if _readable(args):
            sys.stdout.write(summary(view, folded.last_seq))
        else:
            print(dumps({"last_seq": folded.last_seq, "state": view}))
    return 0


def _seats(seats: list[int]) -> str:
    return " ".join(str(s) for s in seats)


def summary(view: dict[str, Any], last_seq: int) -> str:
    """The state for a person: where the hand stands, the pots, a line per seat."""
    lines = [f"{_where(view)}   (journal seq {last_seq})"]
    if view["button"] is not None:
        sb = f"SB seat {view['small_blind']}" if view["small_blind"] is not None else "SB dead"
        lines.append(f"button seat {view['button']}, {sb}, BB seat {view['big_blind']}")
    antes = view.get("antes") or {}
    if antes:  # A1, A2: dead money, already in the pots
        lines.append("antes: " + ", ".join(f"seat {s} {amount}" for s, amount in antes.items()))
    pots = [
        ("main" if i == 0 else f"side {i}") + f" {p['amount']} [{_seats(p['eligible'])}]"
        for i, p in enumerate(view["pots"])
    ]
    lines.append(f"pot total {view['pot_total']}" + (": " + "; ".join(pots) if pots else ""))
    clock = view.get("clock")
    if clock:
        warning = ", warning" if clock["warning"] else ""
        lines.append(
            f"clock: seat {clock['seat']}, {-(-clock['remaining_ms'] // 1000)} s left{warning}"
        )
    lines.append("display: " + " / ".join(line for line in view["display"] if line))
    lines += _tournament_lines(view)
    lines += _meters_line(view)
    lines.append("")
    lines += _seat_lines(view)
    return "\n".join(lines) + "\n"


def _where(view: dict[str, Any]) -> str:
    """Where the hand stands: between hands, or its phase, who is to act and for what."""
    if view["phase"] == "idle":
        return f"between hands, after hand {view['hand']}" if view["hand"] else "no hand yet"
    where = f"hand {view['hand']}, {view['phase']}"
    if view["to_act"] is None:
        return where
    where += f", seat {view['to_act']} to act"
    legal = view.get("legal") or {}
    if legal:
        choice = "check" if legal.get("check") else f"call {legal.get('call')}"
        if legal.get("min_raise_to") is not None:
            choice += f", raise to {legal['min_raise_to']}-{legal['max_raise_to']}"
        where += f" ({choice})"
    return where


def _tournament_lines(view: dict[str, Any]) -> list[str]:
    """A tournament table's level clock and the players out (rules T1, T4); none at a
    cash table."""
    level = view.get("tournament")
    if not level:
        return []
    seconds = -(-level["level_ms_left"] // 1000)
    left = f"{seconds // 60}:{seconds % 60:02d}"
    stakes = f"{level['small_blind']}/{level['big_blind']} ante {level['ante']}"
    if level["break"]:
        clock = f"on a break, {left} left, then level {level['level']} ({stakes})"
    else:
        clock = f"level {level['level']} ({stakes}), {left} left"
    lines = [f"tournament: {clock}" + (", paused" if level["paused"] else "")]
    for out in level["eliminated"]:
        place = f", place {out['place']}" if "place" in out else ""
        lines.append(
            f"  out: {out['player']} in hand {out['hand']} "
            f"(began it with {out['stack_at_start']}{place})"
        )
    return lines


def _meters_line(view: dict[str, Any]) -> list[str]:
    """The dealer, the shift and its meters (none from a state without meters)."""
    meters = view.get("meters")
    if meters is None:
        return []
    shift = view.get("shift") or {}
    opened = "open" if shift.get("open") else "not open"
    return [
        f"dealer {view.get('dealer') or '(none)'}; shift {shift.get('number', 0)} {opened}: "
        + ", ".join(f"{name.replace('_', ' ')} {value}" for name, value in meters.items())
    ]


def _seat_lines(view: dict[str, Any]) -> list[str]:
    lines = [f"{'seat':>4}  {'player':<16} {'stack':>9} {'bet':>7}  status"]
    for number, seat in view["seats"].items():
        missed = f"  missed {'+'.join(seat['missed'])}" if seat["missed"] else ""
        lines.append(
            f"{number:>4}  {seat['player']:<16.16} {seat['stack']:>9} {seat['bet']:>7}  "
            f"{seat['status'].replace('_', ' ')}{missed}"
        )
    if not view["seats"]:
        lines.append("   (no one seated)")
    return lines


def _fault(last_seq: int, error: JournalError) -> int:
    line: dict[str, Any] = {
        "last_seq": last_seq,
        "state": None,
        "fault": {"code": error.code, "message": error.message},
    }
    print(dumps(line))
    kind = error.kind if isinstance(error, Fault) else "MEMORY FAULT"
    print(f"tablectl state: {kind} ({error.code}): {error.message}", file=sys.stderr)
    return 3
