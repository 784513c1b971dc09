"""Power cuts during configuration reloads (issue 22 item 3): SIGKILL ``tablectl run``
while a new configuration file is being written, reloaded (SIGHUP), held for the hand's
end or put in force, restart it, and check that the journal and the configuration agree.

Each round starts the daemon (simulated devices, events on its standard input), deals a
hand, and rewrites the configuration file: either whole by a rename, or in place in two
parts (the first lines, valid on their own but without the rest of the file, then the
rest up to 1.5 s later, as an editor or a slow copy leaves it) with SIGHUP sent after
the first part. The hand is ended (two folds) at a random moment, and the daemon is
killed with SIGKILL at another. After each kill:

* the journal opens read-only and passes the whole check (``verify()``);
* ``tablectl state`` folds it without a fault (no ``replay_diverged``);
* every configuration the journal recorded is a whole file that was written: a
  half-written file is never put in force.

At the end the daemon starts once more and must come to run the file on disk (the
journal's configuration is the file's) with a clean stop.

    python bench/reload_killloop.py              # 100 kills
    python bench/reload_killloop.py --kills 20

``tests/test_reload_killloop.py`` runs :func:`kill_loop` with a few kills.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.journal import Journal  # noqa: E402

CONFIG = """\
table: {{id: T1, seats: 9}}
game: {{structure: no_limit, smallest_chip: 5, small_blind: 5, big_blind: {big_blind}}}
clock: {{seconds: 60, warning: 10}}
hardware:
  simulated: true
  pin_factory: mock
  lights: {{pins: {{1: 16, 2: 17, 3: 18, 4: 19, 5: 20, 6: 21, 7: 22, 8: 23, 9: 24}}}}
journal: {{state_dir: {state_dir}}}
logging: {{level: INFO}}
{fees}"""
FEES = ("", "fees: {mode: rake, rake_percent: 5, rake_cap: 10}\n")
SITS = [{"type": "sit", "seat": s, "player": f"p{s}", "chips": 100_000} for s in (2, 5, 8)]
# The hand ends when two of the three fold: a fold out of turn, or with no hand, is refused.
FOLDS = [{"type": "act", "seat": s, "action": "fold"} for s in (2, 5, 8, 2, 5, 8)]
WAIT = 30.0


@dataclass
class Report:
    kills: int = 0
    reloads: int = 0
    written_in_two_parts: int = 0
    killed_within_2s_of_sighup: int = 0
    configs_recorded: int = 0
    texts: set[str] = field(default_factory=set)


class Daemon:
    """``tablectl run --stdin-events`` as a process; its answers are counted."""

    def __init__(self, config: Path, log: IO[str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller", "run", "--config", str(config), "--stdin-events"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            cwd=ROOT,
        )
        self.answers: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.append(json.loads(line))

    def ask(self, *events: dict[str, Any]) -> list[dict[str, Any]]:
        """Send ``events`` and wait for their answers."""
        assert self.proc.stdin is not None
        before = len(self.answers)
        for event in events:
            self.proc.stdin.write(json.dumps(event) + "\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + WAIT
        while len(self.answers) < before + len(events):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"no answer to {events} (exit {self.proc.poll()})")
            time.sleep(0.005)
        return self.answers[before:]

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(WAIT)


def config_text(state_dir: Path, rng: random.Random) -> str:
    return CONFIG.format(
        big_blind=rng.choice((10, 20, 40)), state_dir=state_dir, fees=rng.choice(FEES)
    )


def rewrite(config: Path, text: str, daemon: Daemon, rng: random.Random, report: Report) -> None:
    """The new file, whole by a rename or in place in two parts, with SIGHUP."""
    if rng.random() < 0.5:
        temp = config.with_suffix(".new")
        temp.write_text(text)
        os.replace(temp, config)
        daemon.proc.send_signal(signal.SIGHUP)
    else:
        cut = text.index("hardware:")  # the rules written, the rest not yet
        with config.open("w") as file:
            file.write(text[:cut])
        daemon.proc.send_signal(signal.SIGHUP)
        time.sleep(rng.uniform(0, 1.5))
        with config.open("a") as file:
            file.write(text[cut:])
        report.written_in_two_parts += 1
    report.reloads += 1


def one_round(config: Path, state: Path, log: IO[str], rng: random.Random, report: Report) -> None:
    daemon = Daemon(config, log)
    try:
        view = daemon.ask({"type": "state"})[0]
        if not view.get("ok", True) and "fault" in json.dumps(view):
            raise AssertionError(f"the daemon started locked: {view}")
        daemon.ask(*SITS)  # refused once seated: harmless
        daemon.ask({"type": "start_hand"})
        text = config_text(state, rng)
        report.texts.add(text)
        sighup = time.monotonic()
        rewrite(config, text, daemon, rng, report)
        time.sleep(rng.uniform(0, 1.5))
        daemon.ask(*FOLDS)  # the hand ends: a held change may take effect
        time.sleep(rng.uniform(0, 2.5))
        if time.monotonic() - sighup < 2.0:
            report.killed_within_2s_of_sighup += 1
    finally:
        daemon.kill()
    report.kills += 1


def check(state: Path, report: Report) -> None:
    with Journal.open_readonly(state) as journal:
        verdict = journal.verify(log=False)
        assert verdict.ok, [problem.message for problem in verdict.problems]
        recorded = [record.text for record in journal.configs()]
    half = [text for text in recorded if text not in report.texts]
    assert not half, f"a configuration that was never written whole is recorded: {half[0]!r}"
    report.configs_recorded = len(recorded)
    state_run = subprocess.run(
        [sys.executable, "-m", "controller", "state", "--state-dir", str(state)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    assert state_run.returncode == 0, state_run.stdout + state_run.stderr


def final(config: Path, state: Path, log: IO[str]) -> None:
    """A last start: the file on disk comes into force, and the daemon stops cleanly."""
    daemon = Daemon(config, log)
    try:
        daemon.ask(*FOLDS)  # a hand left in progress ends
        wanted = config.read_text()
        deadline = time.monotonic() + WAIT
        while True:
            with Journal.open_readonly(state) as journal:
                if journal.configs()[-1].text == wanted:
                    break
            if time.monotonic() > deadline:
                raise AssertionError("the file on disk never came into force")
            time.sleep(0.05)
        daemon.proc.send_signal(signal.SIGTERM)
        assert daemon.proc.wait(WAIT) == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.kill()


def kill_loop(work: Path, kills: int, seed: int = 22) -> Report:
    rng = random.Random(seed)
    state = work / "state"
    config = work / "table.yaml"
    report = Report()
    first = config_text(state, rng)
    report.texts.add(first)
    config.write_text(first)
    with (work / "daemon.log").open("a") as log:
        for _ in range(kills):
            one_round(config, state, log, rng, report)
            check(state, report)
        final(config, state, log)
    text = (work / "daemon.log").read_text()
    assert "Traceback" not in text, text[text.index("Traceback") :][:2000]
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-reload-kill-") as folder:
        report = kill_loop(Path(folder), args.kills, args.seed)
    print(
        f"{report.kills} SIGKILLs over {report.reloads} reloads ({report.written_in_two_parts} "
        f"files written in place in two parts, {report.killed_within_2s_of_sighup} kills "
        f"within 2 s of the SIGHUP): every journal whole and folded without a fault, "
        f"{report.configs_recorded} configurations recorded, none half-written; the file on "
        f"disk in force after the last start ({time.monotonic() - started:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
