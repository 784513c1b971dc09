"""The PokerKit differential tests with more hands (the tests run 2,000 hold'em hands
and 1,000 of each draw game).

Plays random hands in our rules core and in PokerKit with the same seats, stacks,
actions and cards, and prints how many agree, how many were excluded under each named,
known PokerKit difference, and the first mismatches in full. Exits 1 if any hand
mismatched. ``--game``: ``holdem`` (no-limit and fixed-limit in turn,
``tests/pokerkit_oracle.py``), ``draw`` (deuce-to-seven single draw, no limit),
``triple_draw`` (deuce-to-seven triple draw, fixed limit), ``draw_limit`` (single draw,
fixed limit) (``tests/pokerkit_draw_oracle.py``), or ``all``. ``--antes``: ``none``,
``each`` (A1: every player antes), ``big_blind`` (A2: the big blind's ante), or ``all``
(each game three times over).

    python bench/pokerkit_differential.py [--game all] [--antes none] [--hands 50000] [--seed 1] [--show 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.rules.settings import AnteForm  # noqa: E402
from tests.pokerkit_draw_oracle import GAMES, run_draw  # noqa: E402
from tests.pokerkit_oracle import ADJUSTMENTS, EXCLUSIONS, run  # noqa: E402

CHOICES = ("holdem", *GAMES, "all")
ANTES: dict[str, AnteForm | None] = {"none": None, "each": "each", "big_blind": "big_blind"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=CHOICES, default="all")
    parser.add_argument("--antes", choices=(*ANTES, "all"), default="none")
    parser.add_argument("--hands", type=int, default=50_000, help="hands of each game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=3, help="mismatches to print in full")
    args = parser.parse_args()
    games = CHOICES[:-1] if args.game == "all" else (args.game,)
    failed = False
    forms = tuple(ANTES) if args.antes == "all" else (args.antes,)
    for game, form in ((g, f) for g in games for f in forms):
        started = time.perf_counter()
        if game == "holdem":
            tally, mismatches = run(args.hands, args.seed, ANTES[form])
        else:
            tally, mismatches = run_draw(args.hands, args.seed, game, ANTES[form])
        elapsed = time.perf_counter() - started
        excluded = sum(tally[kind] for kind in EXCLUSIONS)
        print(
            f"{game}, antes {form}: {args.hands} hands (seed {args.seed}) in {elapsed:.0f} s: "
            f"{tally['agree']} agree, {excluded} excluded "
            f"({100 * excluded / args.hands:.1f}%), {len(mismatches)} mismatches"
        )
        for kind in sorted(EXCLUSIONS, key=lambda k: -tally[k]):
            print(f"  {tally[kind]:6d}  {kind}: {EXCLUSIONS[kind]}")
        for name, text in ADJUSTMENTS.items():
            if form != "none":
                print(f"  {tally['adjusted:' + name]:6d}  compared, PokerKit told our post: {text}")
        for outcome in mismatches[: args.show]:
            print(f"\nMISMATCH: {outcome.detail}")
            for event in outcome.events:
                print("  " + json.dumps(event))
        failed = failed or bool(mismatches)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
