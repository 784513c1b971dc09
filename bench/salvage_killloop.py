"""Kill-loop over the salvage: SIGKILL ``tablectl journal salvage`` at random moments,
run it again, and check it ends with what an uninterrupted salvage keeps (issue 22).

A damaged journal is written once: EVENTS events, then one byte of ``journal.sqlite3``
changed in the event at about a tenth of them, so the chain breaks there. An
uninterrupted salvage of a copy is the reference (its kept events, seqs and hashes).
Each trial copies the damaged journal and runs ``tablectl journal salvage --state-dir
DIR --config FILE`` as a technician does, killing it with SIGKILL one to three times in
a row, each time at a moment chosen one of two ways:

* ``time``: after a random delay within the length of an uninterrupted run;
* ``step``: as soon as the salvage reaches a step, seen from outside by polling the
  directory (the private copy made, the new journal built beside, the marker written,
  the damaged folder made, the database moved away, the new one renamed into place),
  plus a random delay of up to 2 ms.

Between the kills and the last run the adversary may also (one trial in four each)
delete ``journal.sqlite3.new`` or change one byte of an event in it, or start the service (``Journal.open`` as the daemon
does; it must then be a fault, or the salvage already complete). The last run is never
killed. The trial holds when:

* the journal verifies and holds exactly the reference's kept events (seq and hash),
  its ack mark at the last kept seq: never fewer, never an empty journal;
* the damaged folder holds the damaged database and ack mark byte for byte;
* no marker, no ``journal.sqlite3.new`` and no private copy is left behind.

    python bench/salvage_killloop.py                 # 200 trials, 1,200 events
    python bench/salvage_killloop.py --trials 50 --seed 3

``tests/test_salvage_killloop.py`` runs :func:`kill_loop` with 12 trials of 300 events,
the first kill of each at each step in turn.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.journal import Journal, JournalError  # noqa: E402

CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"
TABLE = "T1"
DB = "journal.sqlite3"
EVIDENCE = (DB, "journal.ack", "journal.ack.mirror")


def _steps(directory: Path) -> dict[str, Callable[[], bool]]:
    """The salvage's steps as seen from outside (see the module's docstring)."""
    damaged = directory / "damaged"
    return {
        "private copy": lambda: any(directory.glob("salvage-*")),
        "new journal built": lambda: (directory / f"{DB}.new").exists(),
        "marker written": lambda: (directory / "salvage.pending").exists(),
        "damaged folder made": lambda: damaged.exists() and any(damaged.iterdir()),
        "database moved": lambda: not (directory / DB).exists(),
        "new journal in place": lambda: (
            not (directory / f"{DB}.new").exists() and (directory / "salvage.pending").exists()
        ),
    }


@dataclass
class Report:
    trials: int = 0
    kills: int = 0
    kill_moments: Counter[str] = field(default_factory=Counter)
    found_after_kill: Counter[str] = field(default_factory=Counter)
    adversary: Counter[str] = field(default_factory=Counter)
    reference_kept: int = 0
    reference_seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures

    def lines(self) -> list[str]:
        out = [
            f"{self.trials} trials, {self.kills} SIGKILLs of the salvage, {self.seconds:.0f} s; "
            f"an uninterrupted salvage keeps {self.reference_kept} events "
            f"({self.reference_seconds:.2f} s)"
        ]
        out += [f"  killed at {what}: {n}" for what, n in sorted(self.kill_moments.items())]
        out += [
            f"  left after a kill: {what}: {n}" for what, n in sorted(self.found_after_kill.items())
        ]
        out += [f"  adversary: {what}: {n}" for what, n in sorted(self.adversary.items())]
        out.append(
            f"  trials ending with fewer events, an empty journal, lost evidence or "
            f"leftovers: {len(self.failures)}"
        )
        out += [f"  FAILURE {failure}" for failure in self.failures[:20]]
        return out


def damaged_journal(directory: Path, events: int) -> int:
    """``events`` events, then one byte changed in the event of seq events // 10 + 3."""
    with Journal.open(directory, CONFIG, table_id=TABLE) as journal:
        for n in range(1, events + 1):
            journal.append(
                {"type": "sit", "seat": n % 9 + 1, "player": f"p{n:05d}", "chips": 1000},
                accepted=True,
                by="dealer-7",
                hand=n // 10,
                snapshot=json.dumps({"after": n}) if n % 50 == 0 else None,
                outbox=[("casino/s/table/T1/events", json.dumps({"seq": n}))] if n % 3 == 0 else (),
            )
    broken = events // 10 + 3
    db = directory / DB
    data = bytearray(db.read_bytes())
    at = data.index(f'"player":"p{broken:05d}"'.encode()) + 12
    data[at] ^= 0x01
    db.write_bytes(bytes(data))
    return broken


def _flip_an_event(path: Path) -> None:
    data = bytearray(path.read_bytes())
    at = data.find(b'"player":"p00002"')
    if at >= 0:
        data[at + 12] ^= 0x01
        path.write_bytes(bytes(data))


def rows(directory: Path) -> list[tuple[int, bytes]]:
    conn = sqlite3.connect(f"{(directory / DB).as_uri()}?mode=ro", uri=True)
    try:
        return [
            (int(s), bytes(h)) for s, h in conn.execute("SELECT seq, hash FROM events ORDER BY seq")
        ]
    finally:
        conn.close()


def salvage_command(directory: Path, config: Path) -> list[str]:
    return [
        sys.executable, "-m", "controller", "journal", "salvage",
        "--state-dir", str(directory), "--config", str(config),
    ]  # fmt: skip


def _kill_at_a_step(process: subprocess.Popen[str], directory: Path, step: str,
                    rng: random.Random, limit: float) -> str:  # fmt: skip
    reached = _steps(directory)[step]
    deadline = time.monotonic() + limit
    while process.poll() is None and time.monotonic() < deadline:
        if reached():
            time.sleep(rng.uniform(0, 0.002))
            process.send_signal(signal.SIGKILL)
            return step
        time.sleep(0.0005)
    process.send_signal(signal.SIGKILL)
    return f"{step} (not seen: the end)"


def _left(directory: Path) -> str:
    names = [name for name in (DB, f"{DB}.new", "salvage.pending") if (directory / name).exists()]
    return "+".join(names) or "nothing"


def _run_killed(
    directory: Path, config: Path, rng: random.Random, report: Report, step: str | None = None
) -> None:
    process = subprocess.Popen(
        salvage_command(directory, config), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
    )  # fmt: skip
    if step is None and rng.random() < 0.4:
        delay = rng.uniform(0, report.reference_seconds * 1.1)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        moment = "time"
    else:
        step = step or rng.choice(list(_steps(directory)))
        moment = _kill_at_a_step(process, directory, step, rng, report.reference_seconds * 3)
    process.wait()
    report.kills += 1
    report.kill_moments[moment] += 1
    report.found_after_kill[_left(directory)] += 1


def _start_the_service(directory: Path, expected: list[tuple[int, bytes]]) -> str | None:
    """The service started between two runs: a fault, or the salvage already whole."""
    try:
        journal = Journal.open(directory, CONFIG, allow_config_change=True, table_id=TABLE)
    except JournalError as error:
        return f"refused ({type(error).__name__})"
    with journal:
        if journal.fault is None:
            journal.verify()
        if journal.fault is not None:
            return f"fault ({journal.fault.code})"
        if journal.last_seq != expected[-1][0]:
            raise AssertionError(
                f"the service started OK on a journal ending at seq {journal.last_seq}"
            )
    return "started on the finished salvage"


def _judge(
    directory: Path, evidence: dict[str, bytes], expected: list[tuple[int, bytes]]
) -> str | None:
    """Why the trial's end state is wrong, or None."""
    with Journal.open_readonly(directory) as journal:
        result = journal.verify(log=False)
        if not result.ok:
            return f"verify failed: {result.summary()}"
    got = rows(directory)
    if got != expected:
        return f"kept {len(got)} events (last {got[-1][0] if got else 0}), expected {len(expected)}"
    acks = sorted((directory / "damaged").iterdir())
    holding = [folder for folder in acks if (folder / DB).exists()]
    if len(holding) != 1:
        return f"{len(holding)} damaged folders hold a database"
    for name in EVIDENCE:
        if (holding[0] / name).read_bytes() != evidence[name]:
            return f"the damaged copy's {name} differs from the damaged journal's"
    leftovers = [p.name for p in directory.iterdir() if p.name.startswith(("salvage", f"{DB}.new"))]
    if leftovers:
        return f"left behind: {leftovers}"
    return None


def kill_loop(work: Path, trials: int, rng: random.Random, *, events: int = 1200,
              every_step: bool = False, progress: bool = False) -> Report:  # fmt: skip
    """``trials`` trials (see the module's docstring); with ``every_step`` the first
    kill of trial N is at step N of the salvage, round the list."""
    started = time.monotonic()
    report = Report()
    config = work / "table.yaml"
    config.write_text(CONFIG)
    template = work / "template"
    damaged_journal(template, events)
    reference = work / "reference"
    shutil.copytree(template, reference)
    began = time.monotonic()
    done = subprocess.run(
        salvage_command(reference, config), capture_output=True, text=True, cwd=ROOT
    )
    report.reference_seconds = time.monotonic() - began
    if done.returncode != 0:
        raise AssertionError(f"the reference salvage failed: {done.stderr}")
    expected = rows(reference)
    report.reference_kept = len(expected)
    for trial in range(1, trials + 1):
        directory = work / f"trial-{trial}"
        shutil.copytree(template, directory)
        evidence = {name: (template / name).read_bytes() for name in EVIDENCE}
        steps = list(_steps(directory))
        for kill in range(rng.choice((1, 1, 2, 3))):
            step = steps[(trial - 1) % len(steps)] if every_step and kill == 0 else None
            _run_killed(directory, config, rng, report, step)
        new = directory / f"{DB}.new"
        if rng.random() < 0.25 and new.exists():
            if rng.random() < 0.5:
                new.unlink()
                report.adversary["deleted journal.sqlite3.new"] += 1
            else:
                _flip_an_event(new)
                report.adversary["changed one byte of journal.sqlite3.new"] += 1
        if rng.random() < 0.25:
            try:
                report.adversary[f"service started: {_start_the_service(directory, expected)}"] += 1
            except AssertionError as error:
                report.failures.append(f"trial {trial}: {error}")
            for name in EVIDENCE:
                if (directory / name).exists() and not list(directory.glob(f"damaged/*/{name}")):
                    # The service may write to the damaged journal it found (its start,
                    # the fault, the ack mark): the evidence is what the salvage finds.
                    evidence[name] = (directory / name).read_bytes()
        last = subprocess.run(
            salvage_command(directory, config), capture_output=True, text=True, cwd=ROOT
        )
        if last.returncode != 0 and "passes every integrity check" not in last.stderr:
            report.failures.append(f"trial {trial}: the last salvage failed: {last.stderr.strip()}")
        else:
            why = _judge(directory, evidence, expected)
            if why is not None:
                report.failures.append(f"trial {trial}: {why}")
        report.trials += 1
        shutil.rmtree(directory, ignore_errors=True)
        if progress and trial % 20 == 0:
            print(f"{trial} trials, {len(report.failures)} failures", file=sys.stderr, flush=True)
    report.seconds = time.monotonic() - started
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--events", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    with tempfile.TemporaryDirectory(prefix="salvage-killloop-") as temp:
        report = kill_loop(Path(temp), args.trials, random.Random(seed), events=args.events,
                           progress=True)  # fmt: skip
    print(f"seed {seed}, {args.events} events:")
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
