"""`tablectl recall [N] --state-dir DIR`: the last N hands (default 10) from the journal;
``--hand H`` shows hand H alone.

Every hand with its positions, the seats and stacks at its start, posts, every action
(with its journal seq, who entered it and when), streets, uncalled bets, pots and who
was paid, fees, corrections; the hand in progress with where it stands. ``--json``
prints the same as one JSON document. Reads only: it works while the daemon runs.
Times are the recorded wall times; those recorded before the board's clock was
synchronised are marked ``unsynced`` (see docs/daemon.md, "Time").
"""

from __future__ import annotations

import argparse
import json
import sys

from controller.commands._journal import journal_failed
from controller.daemon.recall import RECALL_HANDS, RecalledHand, as_text, recall
from controller.journal import Journal, JournalError

HELP = "show the last hands (default 10, the one in progress included) from the journal"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "count",
        nargs="?",
        type=int,
        default=RECALL_HANDS,
        metavar="N",
        help=f"how many hands (default {RECALL_HANDS})",
    )
    parser.add_argument("--state-dir", required=True, help="the journal's folder")
    parser.add_argument(
        "--hand", type=int, metavar="H", help="only hand number H (if the journal still holds it)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    if args.count < 1:
        print("tablectl recall: N must be at least 1", file=sys.stderr)
        return 2
    try:
        with Journal.open_readonly(args.state_dir) as journal:
            if args.hand is None:
                hands = recall(journal, args.count)
            else:
                found = _one_hand(journal, args.hand)
                if isinstance(found, str):
                    print(f"tablectl recall: {found}", file=sys.stderr)
                    return 1
                hands = found
    except JournalError as error:
        return journal_failed("recall", args.state_dir, error)
    if args.json:
        print(json.dumps({"hands": [hand.as_dict() for hand in hands]}, indent=1))
    else:
        sys.stdout.write(as_text(hands))
    return 0


def _one_hand(journal: Journal, number: int) -> list[RecalledHand] | str:
    """Hand ``number`` alone, or why it cannot be shown."""
    last = recall(journal, 1)
    if not last or last[-1].hand == 0:  # (hand 0: transfers before the first hand)
        return "no hands recorded yet"
    newest = last[-1].hand
    if not 1 <= number <= newest:
        return f"no hand {number}: the hands played are 1-{newest}"
    hands = [
        hand
        for hand in recall(journal, newest - number + 1)
        if hand.hand == number or (number == 1 and hand.hand == 0)
    ]  # (hand 0 goes
    if not any(hand.hand == number for hand in hands):  # with hand 1)
        hands = []
    if not hands:
        return f"hand {number} is no longer in the journal (retention kept the later hands)"
    return hands
