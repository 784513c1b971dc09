"""Actions per second: our rules core against PokerKit on the same random hands.

The hands come from the differential oracle (``tests/pokerkit_oracle.py``): random
no-limit and fixed-limit hands, 2-9 players, random stacks, actions chosen from our
``legal``, and only hands on which both engines agree. Each engine then replays every
hand from scratch, timed: ours from the replay events (sit, start_hand, act, award) to
the paid pots, PokerKit from a new state through the same operations (dealing, the
same actions, its automated showdown and payout). Actions are the betting actions.

    python bench/rules_throughput.py [--hands 3000] [--seed 3] [--repeat 7] [--gc]
                                     [--session-hands 300]

Also printed: our core fed JSON lines through ``parse_event`` (what replay does), and
PokerKit with its hand evaluation memoized, which isolates its betting logic. Times
are CPU times of this process, best of ``--repeat`` rounds in which the engines take
turns (each round's own ratio is printed too), so a busy machine disturbs the figures
less; the garbage collector is paused while timing,
as ``timeit`` does (``--gc`` leaves it on: PokerKit, which allocates more, then loses
more to it).

The whole-process figure: ``tablectl replay`` run as a process (Python's start, the
imports, the configuration, JSON in and out included) over a session of
``--session-hands`` six-handed no-limit hands at one table, random legal actions
(``tests/rules_fuzz.py``), its CPU time against PokerKit's in-process rate per betting
action measured above: the process runs three times in each round, between PokerKit's
passes (best of all, and each round's own ratio). Target: at least 5x. The process runs
as installed (``installed_tablectl``): pip's ``tablectl`` script, the program found on a
plain path as a wheel installed on the board is, not through the editable install's
import hook. Printed under it: PokerKit's rate on the session's own hands
(``session_in_pokerkit``), higher there because nearly every hand of this session shows
down and PokerKit's showdown dominates its time; the target is held to the figure above.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.rules import Table, parse_event  # noqa: E402
from controller.rules.events import Event  # noqa: E402
from tests.pokerkit_oracle import (  # noqa: E402
    Outcome,
    memoized_evaluation,
    play_hand,
    pokerkit_state,
)


def collect(hands: int, seed: int) -> list[Outcome]:
    import random

    rng = random.Random(seed)
    kept = []
    with memoized_evaluation():
        for number in range(hands):
            outcome = play_hand(rng, "no_limit" if number % 2 == 0 else "fixed_limit")
            if outcome.kind == "agree":
                kept.append(outcome)
    return kept


def ours(hands: list[Outcome]) -> float:
    prepared = [(h.settings, [parse_event(e) for e in h.events]) for h in hands]
    started = time.process_time()
    for settings, events in prepared:
        assert settings is not None
        table = Table(settings)
        for event in events:
            table.apply(event)
    return time.process_time() - started


def ours_from_json(hands: list[Outcome]) -> float:
    started = time.process_time()
    for hand in hands:
        assert hand.settings is not None
        table = Table(hand.settings)
        for obj in hand.events:
            event: Event = parse_event(obj)
            table.apply(event)
    return time.process_time() - started


def pokerkit(hands: list[Outcome]) -> float:
    started = time.process_time()
    for hand in hands:
        assert hand.settings is not None
        state: Any = pokerkit_state(hand.settings, hand.stacks)
        for name, *args in hand.operations:
            getattr(state, name)(*args)
        assert not state.status
    return time.process_time() - started


def timed_rounds(
    rounds: int,
    runs: dict[str, Callable[[list[Outcome]], float]],
    hands: list[Outcome],
    collect_garbage: bool = False,
) -> dict[str, list[float]]:
    """CPU times of each run, round after round, the engines taking turns so that a busy
    moment of the machine falls on all of them."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            gc.collect()
            if not collect_garbage:
                gc.disable()  # as timeit does
            try:
                times[name].append(run(hands))
            finally:
                gc.enable()
    return times


def pokerkit_memoized(hands: list[Outcome]) -> float:
    with memoized_evaluation():
        return pokerkit(hands)


SESSION_CONFIG = """\
table: {id: BENCH, seats: 6}
game: {structure: no_limit, smallest_chip: 1, small_blind: 1, big_blind: 2}
"""


def session_events(hands: int, seed: int) -> tuple[list[dict[str, Any]], int]:
    """A six-handed no-limit session of ``hands`` hands with random legal actions:
    (the events, the betting actions among them)."""
    import random

    from controller.config import load_config_text
    from controller.rules import Refusal
    from tests.rules_fuzz import RandomChooser, legal_action

    rng = random.Random(seed)
    chooser = RandomChooser(rng)
    table = Table(load_config_text(SESSION_CONFIG).rules)
    events: list[dict[str, Any]] = []
    actions = 0

    def apply(event: dict[str, Any]) -> bool:
        try:
            table.apply(parse_event(event))
        except Refusal:
            return False
        events.append(event)
        return True

    for seat in range(1, 7):
        apply({"type": "sit", "seat": seat, "player": f"p{seat}", "chips": 400})
    played = 0
    while played < hands:
        state = table.state
        if state.phase == "idle":
            for seat, occupant in sorted(state.seats.items()):
                if occupant.stack == 0:
                    apply({"type": "chips", "seat": seat, "amount": 400})
            if apply({"type": "start_hand"}):
                played += 1
            continue
        if state.phase == "showdown":
            hand = state.hand
            live = [s for s in (hand.dealt if hand else []) if state.seats[s].live]
            rng.shuffle(live)
            apply({"type": "award", "ranking": [[seat] for seat in live]})
            continue
        action = legal_action(chooser, table)
        if action is not None and apply(action):
            actions += 1
    while table.state.phase != "idle":  # finish the last hand
        if table.state.phase == "showdown":
            hand = table.state.hand
            live = [s for s in (hand.dealt if hand else []) if table.state.seats[s].live]
            apply({"type": "award", "ranking": [[seat] for seat in live]})
        else:
            action = legal_action(chooser, table)
            if action is not None and apply(action):
                actions += 1
    return events, actions


def session_in_pokerkit(events: list[dict[str, Any]], seed: int) -> tuple[list[Outcome], int]:
    """The session's hands as PokerKit plays them, for its in-process rate on the same
    hands: (the hands it plays as ours did, the hands left out).

    Our table replays the session; each hand is set up in PokerKit with the seats dealt
    in (in dealing order, PokerKit's player order), their stacks before the blinds and
    random cards, and takes the same actions (``Acted``: a fold, a check or call, or a
    bet or raise to the same total), PokerKit dealing the boards, showing down and
    paying. A hand PokerKit's model cannot play as ours did (a dead or missed blind
    posted, so the bets after the blinds differ; an action it refuses) is left out,
    as the oracle leaves out hands the engines disagree on."""
    import random
    import warnings

    from controller.config import load_config_text
    from controller.rules.effects import Acted
    from controller.rules.events import Act, StartHand
    from tests.pokerkit_oracle import (
        HOLDEM,
        Recording,
        act_in_pokerkit,
        shuffled_deck,
        skip_idle_checks,
    )

    rng = random.Random(seed)
    settings = load_config_text(SESSION_CONFIG).rules
    table = Table(settings)
    kept: list[Outcome] = []
    left_out = 0
    pk: Any = None  # the hand in PokerKit, None when it is left out or over
    order: list[int] = []
    actions = 0
    deal: Callable[[Any], None] = HOLDEM.dealer(rng, [])  # burns and deals the boards

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for obj in events:
            event = parse_event(obj)
            stacks = {seat: s.stack for seat, s in table.state.seats.items()}
            effects = table.apply(event)
            try:
                if isinstance(event, StartHand):
                    hand = table.state.hand
                    assert hand is not None
                    order = list(hand.dealt)
                    starting = [stacks[seat] for seat in order]
                    pk = Recording(HOLDEM.state(settings, starting))
                    actions = 0
                    if list(pk.bets) != [table.state.seats[seat].bet for seat in order]:
                        raise ValueError("blinds PokerKit does not post")
                    deck = shuffled_deck(rng)
                    for index in range(len(order)):
                        pk.deal_hole([deck.pop(), deck.pop()], index)
                    deal = HOLDEM.dealer(rng, deck)
                    deal(pk)
                elif isinstance(event, Act) and pk is not None:
                    skip_idle_checks(pk, deal, order.index(event.seat))
                    if pk.actor_index != order.index(event.seat):
                        raise ValueError("another seat to act")
                    act_in_pokerkit(pk, next(e for e in effects if isinstance(e, Acted)))
                    actions += 1
                    deal(pk)
                if pk is not None and table.state.phase in ("idle", "showdown"):
                    skip_idle_checks(pk, deal, None)
                    deal(pk)
                    if table.state.phase == "idle":
                        if pk.status:
                            raise ValueError("PokerKit's hand is not over")
                        kept.append(
                            Outcome(
                                "agree",
                                actions,
                                operations=pk.operations,
                                stacks=starting,
                                settings=settings,
                            )
                        )
                        pk = None
            except (ValueError, AssertionError):
                left_out += 1
                pk = None
    return kept, left_out


#: The ``tablectl`` script pip writes for ``[project.scripts]`` (pip 23-24).
CONSOLE_SCRIPT = """\
#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from controller.cli import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""


def installed_tablectl(folder: Path) -> str:
    """``tablectl`` as installed: the console script pip writes, in a virtual environment
    whose one ``.pth`` file names this checkout and this environment's site-packages as
    plain paths, as a wheel installed on the board (``systemd/install.sh``) is found.
    (A ``.pth`` file in a folder named this way is not read, so the editable install's
    import hook in this environment's site-packages stays out of the start.)"""
    import site
    import venv

    venv.create(folder, with_pip=False, symlinks=True)
    site_packages = next(folder.glob("lib/python*/site-packages"))
    paths = [str(ROOT), *site.getsitepackages()]
    (site_packages / "table_controller.pth").write_text("".join(f"{p}\n" for p in paths))
    script = folder / "bin" / "tablectl"
    script.write_text(CONSOLE_SCRIPT.format(python=folder / "bin" / "python"))
    script.chmod(0o755)
    return str(script)


@contextmanager
def whole_process(events: list[dict[str, Any]]) -> Iterator[Callable[[], float]]:
    """A run of ``tablectl replay`` as a process over the session, as installed: each
    call of what this yields runs it three times and gives the best CPU seconds (the
    rounds call it between PokerKit's passes, so that both meet the same machine)."""
    import compileall
    import json
    import resource
    import subprocess
    import tempfile

    # An installed program has its bytecode compiled (pip does it); a checkout run with
    # PYTHONDONTWRITEBYTECODE would otherwise compile every module at each start.
    for package in ("controller", "drivers"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as folder:
        config = Path(folder) / "table.yaml"
        config.write_text(SESSION_CONFIG)
        lines = Path(folder) / "session.jsonl"
        lines.write_text("".join(json.dumps(event) + "\n" for event in events))
        tablectl = installed_tablectl(Path(folder) / "venv")

        def run() -> float:
            best = float("inf")
            for _ in range(3):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run(
                    [tablectl, "replay", "--config", str(config), str(lines)],
                    stdout=subprocess.DEVNULL,
                    check=True,
                )
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                best = min(best, spent)
            return best

        yield run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=7, help="rounds (best of)")
    parser.add_argument(
        "--gc", action="store_true", help="leave the garbage collector on while timing"
    )
    parser.add_argument(
        "--session-hands",
        type=int,
        default=300,
        help="hands of the whole-process replay session (0: skip it)",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    hands = collect(args.hands, args.seed)
    actions = sum(h.actions for h in hands)
    print(
        f"{len(hands)} hands both engines agree on, {actions} betting actions "
        f"({actions / len(hands):.1f} per hand), best of {args.repeat}, "
        f"garbage collector {'on' if args.gc else 'off'}"
    )
    runs: dict[str, Callable[[list[Outcome]], float]] = {
        "ours": ours,
        "json": ours_from_json,
        "kit": pokerkit,
        "kit_memo": pokerkit_memoized,
    }
    with ExitStack() as stack:
        if args.session_hands:
            events, session_actions = session_events(args.session_hands, args.seed)
            replay_process = stack.enter_context(whole_process(events))
            runs["whole"] = lambda _: replay_process()
        times = timed_rounds(args.repeat, runs, hands, args.gc)
    best = {name: min(values) for name, values in times.items()}
    rows = [
        ("table-controller rules core", best["ours"]),
        ("  the same, from JSON events", best["json"]),
        ("PokerKit 0.7.7", best["kit"]),
        ("  with hand evaluation memoized", best["kit_memo"]),
    ]
    for name, seconds in rows:
        print(
            f"{name:34s} {actions / seconds:12,.0f} actions/s  "
            f"({1e6 * seconds / actions:7.1f} us/action)"
        )
    # each round's own ratio: the two engines ran within moments of each other
    rounds = sorted(k / o for k, o in zip(times["kit"], times["ours"], strict=True))
    print(
        f"ratio: {best['kit'] / best['ours']:.1f}x PokerKit (best times; rounds "
        f"{rounds[0]:.1f}x-{rounds[-1]:.1f}x, median {statistics.median(rounds):.1f}x), "
        f"{best['kit_memo'] / best['ours']:.1f}x with its evaluation memoized; target 20x"
    )
    if args.session_hands:
        seconds = best["whole"]
        kit_rate = actions / best["kit"]
        rate = session_actions / seconds
        # each round's own ratio: the process ran between PokerKit's passes
        whole_rounds = sorted(
            (session_actions / w) / (actions / k)
            for k, w in zip(times["kit"], times["whole"], strict=True)
        )
        print(
            f"whole process: tablectl replay of {args.session_hands} six-handed no-limit "
            f"hands ({len(events)} events, {session_actions} betting actions, start "
            f"included) {seconds * 1000:.0f} ms CPU = {rate:,.0f} actions/s: "
            f"{rate / kit_rate:.1f}x PokerKit's in-process rate (best times; rounds "
            f"{whole_rounds[0]:.1f}x-{whole_rounds[-1]:.1f}x, median "
            f"{statistics.median(whole_rounds):.1f}x); target 5x"
        )
        played, left_out = session_in_pokerkit(events, args.seed)
        played_actions = sum(h.actions for h in played)
        kit_session = min(timed_rounds(args.repeat, {"kit": pokerkit}, played)["kit"])
        showdowns = sum(1 for event in events if event["type"] == "award")
        print(
            f"  PokerKit on the session's own hands ({len(played)} played as ours, "
            f"{left_out} left out; {showdowns} of {args.session_hands} hands show down): "
            f"{1e6 * kit_session / played_actions:.1f} us/action, so the whole process is "
            f"{rate * kit_session / played_actions:.1f}x that rate (its showdowns weigh more "
            "here; the target is held to the figure above)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
