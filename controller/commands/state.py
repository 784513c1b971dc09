"""`tablectl state --state-dir DIR`: the state the daemon would resume with.

Prints one JSON line ``{"last_seq": N, "state": {...}}`` (DESIGN.md, durable mode):
the fold of the journal (latest snapshot and the events after it) and the seq of the
last recorded line; ``0`` and ``null`` when nothing was recorded yet. Reads only: it
works while the daemon runs. A journal that fails its integrity check is reported as
``"fault": {"code", "message"}`` (the state the daemon would show: a memory fault,
play locked) and the exit status is 3.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.daemon.recovery import RulesBook, fold
from controller.journal import Journal, JournalError, JournalIntegrityError, JournalNotFound
from controller.replay import dumps
from controller.rules import state_view

HELP = "print the state the daemon would resume with, from the journal in --state-dir"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state-dir", required=True, help="the journal's folder")
    parser.add_argument("--no-verify", action="store_true",
                        help="skip the integrity check (faster on a long journal)")


def run(args: argparse.Namespace) -> int:
    try:
        journal = Journal.open_readonly(args.state_dir)
    except JournalNotFound:
        print(dumps({"last_seq": 0, "state": None}))
        return 0
    except JournalError as error:
        return _fault(0, error)
    with journal:
        try:
            if not args.no_verify:
                verdict = journal.verify(log=False)
                if not verdict.ok:
                    return _fault(journal.last_seq, verdict.problems[0])
            folded = fold(journal, RulesBook(journal))
        except JournalIntegrityError as error:
            return _fault(journal.last_seq, error)
        if folded.last_seq == 0:
            print(dumps({"last_seq": 0, "state": None}))
            return 0
        print(dumps({"last_seq": folded.last_seq, "state": state_view(folded.table)}))
    return 0


def _fault(last_seq: int, error: JournalError) -> int:
    line: dict[str, Any] = {"last_seq": last_seq, "state": None,
                            "fault": {"code": error.code, "message": error.message}}
    print(dumps(line))
    print(f"tablectl state: MEMORY FAULT ({error.code}): {error.message}", file=sys.stderr)
    return 3
