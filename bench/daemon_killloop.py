"""Power-cut test of the durable path: SIGKILL ``tablectl replay --state-dir`` at random
moments while events stream in, restart it, and check nothing acknowledged was lost,
nothing was applied twice, and the state equals a reference run's.

Each round starts ``tablectl replay --config CFG --state-dir DIR -`` (the daemon's own
durable step: check, record, apply, acknowledge), feeds it the stream from where the
journal ends, and kills it with SIGKILL after a random delay: sometimes during start-up
(journal open, integrity check, recovery), mostly while lines stream. Then, in this
process:

* the journal opens read-only and ``verify()`` passes (database, chain, snapshots, tail);
* every line acknowledged (an output line was printed) is in the journal, and the
  journal's seq ``i`` holds exactly line ``i`` of the stream: nothing lost, nothing
  recorded twice, nothing invented;
* every acknowledged output line equals the reference (non-durable) replay's line for
  that seq (``state`` queries included, so the folded state is compared as it goes).

At the end the rest of the stream is replayed without a kill and the final state
(``tablectl state``'s fold) must equal the reference replay's final state.

    python bench/daemon_killloop.py              # 1,000 kills
    python bench/daemon_killloop.py --kills 50

``tests/test_daemon_powercut.py`` runs :func:`kill_loop` with 50 kills.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.config import load_config  # noqa: E402
from controller.daemon.recovery import fold  # noqa: E402
from controller.journal import Journal  # noqa: E402
from controller.replay import replay  # noqa: E402
from controller.rules import Refusal, RuleSettings, Table, parse_event, state_view  # noqa: E402

CONFIG = """\
table: {id: KILL, seats: 6}
game: {structure: no_limit, small_blind: 5, big_blind: 10, smallest_chip: 5}
clock: {seconds: 30, warning: 10}
journal: {snapshot_every: 25}
"""


def make_lines(rules: RuleSettings, count: int, rng: random.Random) -> list[str]:
    """A stream of ``count`` event lines: whole hands, with refusals, queries, ticks,
    clock calls and a few lines that are not events at all."""
    table = Table(rules)
    lines: list[str] = []
    names = iter(f"p{n}" for n in range(1_000_000))

    def push(obj: dict[str, Any] | str) -> None:
        if isinstance(obj, str):
            lines.append(obj)
            return
        lines.append(json.dumps(obj))
        with contextlib.suppress(Refusal):
            table.apply(parse_event(obj))

    for seat in range(1, 7):
        push({"type": "sit", "seat": seat, "player": next(names), "chips": 1000})
    while len(lines) < count:
        roll = rng.random()
        if roll < 0.03:
            push({"type": "state"})
            continue
        if roll < 0.05:
            push(rng.choice(["not json", "[1, 2]", '{"type": "act", "seat": 99}']))
            continue
        if roll < 0.08:
            push({"type": "tick", "ms": rng.randrange(1, 4000)})
            continue
        state = table.state
        if state.phase == "idle":
            for seat, info in state.seats.items():
                if info.stack < 10:
                    push({"type": "chips", "seat": seat, "amount": 1000})
            push({"type": "start_hand", "by": "d1"})
        elif state.phase == "showdown":
            hand = state.hand
            assert hand is not None
            live = [s for s in hand.dealt if state.seats[s].live]
            rng.shuffle(live)
            push({"type": "award", "ranking": [[s] for s in live]})
        else:
            legal = table.legal()
            hand = state.hand
            assert legal is not None and hand is not None and hand.to_act is not None
            seat = hand.to_act
            if rng.random() < 0.05 and state.clock is None:
                push({"type": "call_clock"})
                continue
            choice = rng.random()
            if choice < 0.2:
                push({"type": "act", "seat": seat, "action": "fold"})
            elif choice < 0.6 or legal.min_raise_to is None:
                push({"type": "act", "seat": seat, "action": "call"})
            elif choice < 0.95:
                low, high = legal.min_raise_to, legal.max_raise_to or legal.min_raise_to
                to = rng.randrange(low, high + 1, 5) if high > low else low
                push({"type": "act", "seat": seat, "action": "raise", "to": to})
            else:
                push({"type": "act", "seat": (seat % 6) + 1, "action": "check"})  # refused
    return lines[:count]


@dataclass
class Report:
    kills: int = 0
    killed_while_streaming: int = 0
    acknowledged: int = 0
    last_seq: int = 0
    seconds: float = 0.0


def kill_loop(
    directory: Path, *, kills: int, rng: random.Random, lines_count: int = 0, progress: bool = False
) -> Report:
    started = time.monotonic()
    directory.mkdir(parents=True, exist_ok=True)
    config = directory.parent / f"{directory.name}-config.yaml"
    config.write_text(CONFIG)
    settings = load_config(config)
    lines = make_lines(settings.rules, lines_count or max(2000, kills * 60), rng)
    expected = list(replay(settings.rules, lines))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    command = [
        sys.executable,
        "-m",
        "controller",
        "replay",
        "--config",
        str(config),
        "--state-dir",
        str(directory),
        "-",
    ]
    report = Report()
    done = 0
    for round_number in range(kills + 1):
        final = round_number == kills
        if done >= len(lines):
            lines += make_lines(settings.rules, 500, rng)[6:]  # keep streaming (sits dropped)
            expected = list(replay(settings.rules, lines))
        acked: list[dict[str, Any]] = []
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        first = threading.Event()

        def read(
            proc: subprocess.Popen[str] = process,
            box: list[dict[str, Any]] = acked,
            flag: threading.Event = first,
        ) -> None:
            assert proc.stdout is not None
            for out in proc.stdout:
                box.append(json.loads(out))
                flag.set()

        def write(proc: subprocess.Popen[str] = process, feed: list[str] = lines[done:]) -> None:
            assert proc.stdin is not None
            try:
                for text in feed:
                    proc.stdin.write(text + "\n")
                proc.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass

        reader = threading.Thread(target=read, daemon=True)
        writer = threading.Thread(target=write, daemon=True)
        reader.start()
        writer.start()
        if final:
            process.wait(timeout=600)
            assert process.returncode == 0, process.stderr.read() if process.stderr else ""
        else:
            if rng.random() < 0.2:
                time.sleep(rng.uniform(0, 0.4))  # may land in start-up or recovery
            else:
                first.wait(10)
                time.sleep(rng.uniform(0, 0.15))
                report.killed_while_streaming += process.poll() is None
            process.send_signal(signal.SIGKILL)
            process.wait()
            report.kills += 1
        reader.join(10)
        writer.join(10)
        if process.stderr is not None:
            process.stderr.close()
        done = _check(directory, lines, expected, acked, done)
        report.acknowledged += len(acked)
        if progress and round_number % 50 == 0:
            print(f"kill {round_number}: journal at seq {done}", file=sys.stderr)
    _check_final(directory, settings.rules, lines[:done])
    report.last_seq = done
    report.seconds = time.monotonic() - started
    return report


def _check(
    directory: Path,
    lines: list[str],
    expected: list[dict[str, Any]],
    acked: list[dict[str, Any]],
    before: int,
) -> int:
    if not (directory / "journal.sqlite3").exists():
        assert not acked, "lines acknowledged but no journal"
        return 0
    with Journal.open_readonly(directory) as journal:
        verdict = journal.verify(log=False)
        assert verdict.ok, verdict.summary()
        last = journal.last_seq
        for record in journal.iter_events(after_seq=before):
            text = lines[record.seq - 1]
            if record.event.get("type") == "invalid":
                assert record.event["raw"] == text, (record.seq, record.event, text)
            else:
                assert record.event == json.loads(text), (record.seq, record.event, text)
    for line in acked:
        seq = line["seq"]
        assert before < seq <= last, f"acknowledged seq {seq} not in journal 1..{last}"
        assert line == json.loads(json.dumps(expected[seq - 1])), (line, expected[seq - 1])
    if acked:
        assert [line["seq"] for line in acked] == list(range(before + 1, before + 1 + len(acked)))
    assert last >= before, "the journal lost events"
    return last


def _check_final(directory: Path, rules: RuleSettings, lines: list[str]) -> None:
    reference = Table(rules)
    for text in lines:
        try:
            obj = json.loads(text)
            if isinstance(obj, dict):
                reference.apply(parse_event(obj))
        except (ValueError, Refusal):
            pass
    with Journal.open_readonly(directory) as journal:
        folded = fold(journal)
    assert state_view(folded.table) == state_view(reference), "final state differs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--dir", type=Path, default=None, help="state directory parent (default: a temporary one)"
    )
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    with tempfile.TemporaryDirectory(dir=args.dir) as temp:
        report = kill_loop(
            Path(temp) / "state", kills=args.kills, rng=random.Random(seed), progress=True
        )
    print(
        f"seed {seed}: {report.kills} kills ({report.killed_while_streaming} while "
        f"streaming), {report.acknowledged} lines acknowledged, journal at seq "
        f"{report.last_seq}, {report.seconds:.1f} s: nothing acknowledged lost, nothing "
        f"applied twice, final state equals the reference"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
