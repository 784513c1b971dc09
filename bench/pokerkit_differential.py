"""The PokerKit differential test with more hands (the test runs 2,000).

Plays random no-limit and fixed-limit hands in our rules core and in PokerKit with the
same seats, stacks, actions and cards (``tests/pokerkit_oracle.py``), and prints how
many agree, how many were excluded under each named, known PokerKit difference, and
the first mismatches in full. Exits 1 if any hand mismatched.

    python bench/pokerkit_differential.py [--hands 50000] [--seed 1] [--show 3]
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

from tests.pokerkit_oracle import EXCLUSIONS, run  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=3, help="mismatches to print in full")
    args = parser.parse_args()
    started = time.perf_counter()
    tally, mismatches = run(args.hands, args.seed)
    elapsed = time.perf_counter() - started
    excluded = sum(tally[kind] for kind in EXCLUSIONS)
    print(f"{args.hands} hands (seed {args.seed}) in {elapsed:.0f} s: "
          f"{tally['agree']} agree, {excluded} excluded "
          f"({100 * excluded / args.hands:.1f}%), {len(mismatches)} mismatches")
    for kind in sorted(EXCLUSIONS, key=lambda k: -tally[k]):
        print(f"  {tally[kind]:6d}  {kind}: {EXCLUSIONS[kind]}")
    for outcome in mismatches[: args.show]:
        print(f"\nMISMATCH: {outcome.detail}")
        for event in outcome.events:
            print("  " + json.dumps(event))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
