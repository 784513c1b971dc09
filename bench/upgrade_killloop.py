"""Kill-loop over the journal format upgrade: a journal written by the first release
(the events in its WAL, or closed), opened by this one, SIGKILLed at random moments of
the open that upgrades it, one to three times in a row; then opened as the daemon does.

Each trial copies the first release's journal, runs a process that opens it with this
program (``Journal.open``: the new columns, the log's chain, the ack mark's new layout
and its mirror) and, once its imports are done, kills it with SIGKILL after a random
delay within the length of an uninterrupted open (or its first third, where the
upgrade's writes are). It holds when the journal then opens with no fault, verifies, holds
every event in order and every floor message unchanged.

The first release comes from this repository's history (``git archive``), so this runs
in a clone with its history only.

    python bench/upgrade_killloop.py                 # 300 trials
    python bench/upgrade_killloop.py --trials 40 --seed 3

``tests/test_journal_upgrade.py`` kills 12 opens of the same journal, at growing delays.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.journal import Journal  # noqa: E402
from tests.test_journal_upgrade import (  # noqa: E402
    CONFIG,
    EVENTS,
    FIRST_RELEASE,
    floor_messages,
    legacy_journal,
)

# The test's opener, saying when its imports are done: the kills land in the open.
OPENER = """
import sys
from pathlib import Path
from controller.journal import Journal
print("ready", flush=True)
Journal.open(Path(sys.argv[1]), sys.argv[2], allow_config_change=True, table_id="T1").close()
"""


@dataclass
class Report:
    trials: int = 0
    kills: int = 0
    found_after_kill: Counter[str] = field(default_factory=Counter)
    open_seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        out = [
            f"{self.trials} trials, {self.kills} SIGKILLs of the upgrading open "
            f"(an uninterrupted open takes {self.open_seconds * 1000:.0f} ms after the imports), {self.seconds:.0f} s"
        ]
        out += [
            f"  left after a kill: {what}: {n}" for what, n in sorted(self.found_after_kill.items())
        ]
        out.append(f"  faults, losses or changed floor messages after a kill: {len(self.failures)}")
        out += [f"  FAILURE {failure}" for failure in self.failures[:20]]
        return out


def first_release(into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", FIRST_RELEASE, "controller"],
        capture_output=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _state(directory: Path) -> str:
    """How far the upgrade had gone, from outside: the new columns, the ack mark's
    layout and its mirror."""
    with sqlite3.connect(f"{(directory / 'journal.sqlite3').as_uri()}?mode=ro", uri=True) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(events)")}
    db.close()
    size = (directory / "journal.ack").stat().st_size
    mirror = (directory / "journal.ack.mirror").exists()
    return (
        f"columns {'added' if 'outbox_sha256' in columns else 'not yet'}, ack mark "
        f"{size} bytes, mirror {'there' if mirror else 'not yet'}"
    )


def _check(directory: Path, expected: list[tuple[int, str]]) -> str | None:
    with Journal.open(directory, CONFIG, allow_config_change=True, table_id="T1") as journal:
        if journal.fault is not None:
            return f"fault {journal.fault.code}: {journal.fault.message}"
        result = journal.verify()
        if not result.ok:
            return f"verify: {result.summary()}"
        players = [
            (json.loads(r.event) if isinstance(r.event, str) else r.event)["player"]
            for r in journal.iter_events()
        ]
    if players != [f"p{s}" for s in range(1, EVENTS + 1)]:
        return f"{len(players)} events, not the {EVENTS} written"
    if floor_messages(directory) != expected:
        return "floor messages changed"
    return None


def _opener(directory: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """The opening process, once its imports are done."""
    opener = subprocess.Popen(
        [sys.executable, "-c", OPENER, str(directory), CONFIG],
        env=env, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert opener.stdout is not None and opener.stdout.readline() == "ready\n"
    return opener


def kill_loop(work: Path, trials: int, rng: random.Random) -> Report:
    started = time.monotonic()
    report = Report()
    release = first_release(work / "first-release")
    templates = {}
    for how in ("crash", "close"):
        templates[how] = work / f"template-{how}"
        legacy_journal(release, templates[how], how)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    timing = work / "timing"
    shutil.copytree(templates["crash"], timing)
    opener = _opener(timing, env)
    began = time.monotonic()
    if opener.wait(timeout=60) != 0:
        raise AssertionError("the first release's journal does not open")
    report.open_seconds = time.monotonic() - began
    for trial in range(1, trials + 1):
        how = rng.choice(("crash", "close"))
        directory = work / f"trial-{trial}"
        shutil.copytree(templates[how], directory)
        expected = floor_messages(templates[how])
        for _ in range(rng.choice((1, 1, 2, 3))):
            opener = _opener(directory, env)
            time.sleep(rng.uniform(0, report.open_seconds * rng.choice((0.3, 1.2))))
            opener.send_signal(signal.SIGKILL)
            opener.wait(timeout=60)
            report.kills += 1
            report.found_after_kill[_state(directory)] += 1
        why = _check(directory, expected)
        if why is not None:
            report.failures.append(f"trial {trial} ({how}): {why}")
        report.trials += 1
        shutil.rmtree(directory, ignore_errors=True)
        if trial % 25 == 0:
            print(f"{trial} trials, {len(report.failures)} failures", file=sys.stderr, flush=True)
    report.seconds = time.monotonic() - started
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    with tempfile.TemporaryDirectory(prefix="upgrade-killloop-") as temp:
        report = kill_loop(Path(temp), args.trials, random.Random(seed))
    print(f"seed {seed}:")
    print("\n".join(report.lines()))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
