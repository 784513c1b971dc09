"""Many more random streams than the test suite runs: the rules core's invariants
(``tests/rules_fuzz.py``, ``check_invariants``: chips conserved, refusals change nothing,
heads-up the button posts the small blind, ...) on small tables, under both button
methods and every betting structure; on random tables (every setting drawn, up to nine
seats: ``random_stream``, which found a misdeal losing a kept-in seat's chips at seed 64
that the small tables never reach); and the table-rule oracle's sessions
(``tests/test_table_rules_properties.py``). Prints each failure's seed and a count per
setting, and how many streams took antes (``game.ante``, drawn with the rest: each
player's, or the big blind's).

    python bench/rules_soak.py [--streams 200] [--steps 400] [--sessions 100]
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.rules.settings import GameSettings  # noqa: E402
from tests.rules_fuzz import RandomChooser, play_stream, random_stream  # noqa: E402
from tests.test_table_rules_properties import session  # noqa: E402

BUTTONS = ("dead", "moving")
STRUCTURES = ("no_limit", "pot_limit", "fixed_limit")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=200, help="streams per setting")
    parser.add_argument("--steps", type=int, default=400, help="events per stream")
    parser.add_argument("--sessions", type=int, default=100, help="oracle sessions per setting")
    args = parser.parse_args()
    failures: collections.Counter[str] = collections.Counter()
    events = hands = 0
    antes: collections.Counter[str] = collections.Counter()  # streams per ante form
    start = time.monotonic()
    for button in BUTTONS:
        for structure in STRUCTURES:
            for seed in range(args.streams):
                name = f"stream {button} {structure}"
                try:
                    chooser = RandomChooser(random.Random(seed))
                    table, _ = play_stream(
                        chooser, args.steps, 2 + seed % 3, button=button, structure=structure
                    )
                    _count_antes(antes, table.settings.game)
                except AssertionError as error:
                    failures[name] += 1
                    print(f"{name} seed {seed}: {str(error).splitlines()[0][:160]}")
                events += args.steps
            for seed in range(args.sessions):
                name = f"session {button} {structure}"
                try:
                    oracle = session(
                        random.Random(seed), 40, 1.0, 4, button=button, structure=structure
                    )
                    hands += len(oracle.history)
                except AssertionError as error:
                    failures[name] += 1
                    print(f"{name} seed {seed}: {str(error).splitlines()[0][:160]}")
    for seed in range(6 * args.streams):  # as many streams as the small tables had
        try:
            settings, _ = random_stream(RandomChooser(random.Random(seed)), args.steps)
            _count_antes(antes, settings.game)
        except AssertionError as error:
            failures["stream random table"] += 1
            print(f"stream random table seed {seed}: {str(error).splitlines()[0][:160]}")
        events += args.steps
    seconds = time.monotonic() - start
    print(f"{events} events, {hands} oracle hands in {seconds:.0f} s; failures: {dict(failures)}")
    print(f"streams with antes (of those that ended): {dict(antes)}")
    return 1 if failures else 0


def _count_antes(antes: collections.Counter[str], game: GameSettings) -> None:
    antes[game.ante_form if game.ante else "none"] += 1


if __name__ == "__main__":
    raise SystemExit(main())
