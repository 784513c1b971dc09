"""Corruption run for the journal: damage its files at random, many times, and check that
nothing acknowledged ever vanishes unnoticed (issue 13).

A reference journal is written once, in two states: *closed* (checkpointed, the events
in ``journal.sqlite3``) and *crashed* (the files as a SIGKILL leaves them, the events in
the WAL). Each trial copies one of them and damages it in one way:

* ``delete``    a file (the database, the WAL, either copy of the ack mark), or two at
                once (the WAL with one copy of the ack mark, the probe's 600-event loss);
* ``flip``      one random bit anywhere in a file;
* ``zero``      a random 512-byte block of a file;
* ``truncate``  a file to a random length.

Then it starts the journal as the daemon does (``Journal.open`` with the table's id,
then ``verify()``) and judges:

* **held, intact**: the start is OK and every acknowledged event is there, unchanged
  (a copy of the ack mark lost or damaged is a warning: the other copy still guards);
* **held, fault**: the start reports a sticky fault (which one is counted); then the
  salvage (``--config`` and table id, as a technician runs it; when it refuses because
  nothing can be kept while events were acknowledged, nothing moved, run again with
  ``start_empty``, as the technician does after reporting it) must end without a
  traceback, its rebuilt journal must verify, and the events it kept must be exactly
  the reference's first ones (nothing changed, nothing invented). Kept and dropped
  counts are summed;
* **SILENT LOSS**: the start is OK but an acknowledged event is missing or changed;
* **CRASH**: anything raised that is not a journal error (a traceback).

The run passes when there is no silent loss, no crash and no failed salvage.

    python bench/corruption.py                     # 300 trials, seed 13
    python bench/corruption.py --trials 1000 --seed 7

``tests/test_corruption_run.py`` runs :func:`corruption_run` with 60 trials.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.journal import Journal, JournalError, salvage  # noqa: E402

CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"
TABLE = "T1"
FILES = ("journal.sqlite3", "journal.sqlite3-wal", "journal.ack", "journal.ack.mirror")
ACTIONS = ("delete", "flip", "zero", "truncate", "delete_wal_and_ack")


@dataclass
class Report:
    trials: int = 0
    tried: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    salvaged: int = 0
    refused_empty: int = 0  # nothing kept while events were acknowledged: refused first
    kept: int = 0
    dropped: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def lines(self) -> list[str]:
        out = [f"{self.trials} trials, {sum(self.tried.values())} damages:"]
        out += [f"  tried {what}: {count}" for what, count in sorted(self.tried.items())]
        out += [f"  {verdict}: {count}" for verdict, count in sorted(self.verdicts.items())]
        out += [f"    fault {code}: {count}" for code, count in sorted(self.faults.items())]
        out.append(
            f"  salvaged: {self.salvaged}, events kept {self.kept:,}, dropped {self.dropped:,}"
        )
        out.append(
            f"  of them refused first, nothing kept while events were acknowledged (then "
            f"run with --start-empty): {self.refused_empty}"
        )
        out.append(f"  silent losses, crashes and failed salvages: {len(self.failures)}")
        out += [f"  FAILURE {failure}" for failure in self.failures[:20]]
        return out


def write_reference(base: Path, events: int) -> tuple[Path, Path, list[tuple[int, str, bytes]]]:
    """The closed and the crashed journal, and every acknowledged row (seq, event, hash)."""
    closed, crashed = base / "closed", base / "crashed"
    journal = Journal.open(closed, CONFIG, table_id=TABLE)
    for n in range(1, events + 1):
        journal.append(
            {"type": "sit", "seat": n % 9 + 1, "player": f"p{n:05d}", "chips": 1000},
            accepted=True,
            by="dealer-7",
            hand=n // 10,
            snapshot=json.dumps({"after": n}) if n % 50 == 0 else None,
            outbox=[("casino/s/table/T1/events", json.dumps({"seq": n}))] if n % 3 == 0 else (),
        )
        if n % 40 == 0:
            journal.log_system("device_fault", {"device": "keypad", "n": n})
    crashed.mkdir()
    for name in FILES:
        if (closed / name).exists():
            shutil.copyfile(closed / name, crashed / name)
    journal.close()
    return closed, crashed, rows_of(closed)


def rows_of(directory: Path) -> list[tuple[int, str, bytes]]:
    conn = sqlite3.connect(f"{(directory / 'journal.sqlite3').as_uri()}?mode=ro", uri=True)
    try:
        return [
            (int(s), str(e), bytes(h))
            for s, e, h in conn.execute("SELECT seq, event, hash FROM events ORDER BY seq")
        ]
    finally:
        conn.close()


def damage(directory: Path, rng: random.Random) -> str:
    action = rng.choice(ACTIONS)
    present = [name for name in FILES if (directory / name).exists()]
    if action == "delete_wal_and_ack":
        names = [n for n in ("journal.sqlite3-wal", rng.choice(FILES[2:])) if n in present]
        for name in names:
            (directory / name).unlink()
        return f"delete {' + '.join(names)}"
    weights = {"journal.sqlite3": 3, "journal.sqlite3-wal": 3}
    name = rng.choices(present, [weights.get(n, 1) for n in present])[0]
    path = directory / name
    size = path.stat().st_size
    if action == "delete" or size == 0:
        path.unlink()
        return f"delete {name}"
    data = bytearray(path.read_bytes())
    if action == "flip":
        data[rng.randrange(size)] ^= 1 << rng.randrange(8)
    elif action == "zero":
        at = rng.randrange(size)
        data[at : at + 512] = bytes(len(data[at : at + 512]))
    else:
        del data[rng.randrange(size) :]
    path.write_bytes(bytes(data))
    return f"{action} {name}"


def start(directory: Path) -> tuple[str, str | None]:
    """``(verdict, fault code)`` as a daemon start reports it (verdict ``ok``,
    ``warning`` or ``fault``)."""
    try:
        journal = Journal.open(directory, CONFIG, allow_config_change=True, table_id=TABLE)
    except JournalError as error:
        return "fault", error.code
    try:
        if journal.fault is not None:
            return "fault", journal.fault.code
        result = journal.verify()
        if result.first_problem is not None:
            return "fault", result.first_problem.code
        return ("warning" if result.warnings else "ok"), None
    finally:
        journal.close()


def trial(
    source: Path,
    reference: list[tuple[int, str, bytes]],
    work: Path,
    rng: random.Random,
    report: Report,
) -> None:
    shutil.copytree(source, work)
    done_to = damage(work, rng)
    what = f"{source.name}: {done_to}"
    report.tried[done_to] += 1
    try:
        verdict, code = start(work)
    except Exception as error:  # noqa: BLE001 - a traceback is what is being counted
        report.failures.append(f"{what}: CRASH at start: {type(error).__name__}: {error}")
        return
    if verdict in ("ok", "warning"):
        found = rows_of(work)
        if found[: len(reference)] != reference:
            report.failures.append(
                f"{what}: SILENT LOSS: the start was OK with "
                f"{len(found)} of {len(reference)} events intact"
            )
            return
        report.verdicts["held, intact" + (" (warning logged)" if verdict == "warning" else "")] += 1
        return
    report.verdicts["held, fault"] += 1
    report.faults[code or "?"] += 1
    try:
        try:
            done = salvage(work, CONFIG, table_id=TABLE)
        except JournalError as error:
            if "--start-empty" not in error.message or any((work / "damaged").glob("*/*")):
                raise
            # Nothing could be kept although events were acknowledged: refused, nothing
            # moved; the technician reports it and then starts from an empty journal.
            report.refused_empty += 1
            done = salvage(work, CONFIG, table_id=TABLE, start_empty=True)
    except JournalError as error:
        report.failures.append(f"{what}: the salvage refused: {error.message[:160]}")
        return
    except Exception as error:  # noqa: BLE001
        report.failures.append(f"{what}: CRASH in the salvage: {type(error).__name__}: {error}")
        return
    verdict, code = start(work)
    kept = rows_of(work)
    if verdict not in ("ok", "warning") or kept != reference[: len(kept)]:
        report.failures.append(
            f"{what}: the salvaged journal is wrong ({verdict} {code}, {len(kept)} events)"
        )
        return
    report.salvaged += 1
    report.kept += done.kept_events
    report.dropped += done.dropped_events


def corruption_run(base: Path, trials: int, rng: random.Random, events: int = 600) -> Report:
    closed, crashed, reference = write_reference(base, events)
    report = Report()
    for n in range(trials):
        source = rng.choice((closed, crashed))
        trial(source, reference, base / f"trial-{n}", rng, report)
        shutil.rmtree(base / f"trial-{n}", ignore_errors=True)
        report.trials += 1
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--events", type=int, default=600)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="corruption-") as work:
        report = corruption_run(Path(work), args.trials, random.Random(args.seed), args.events)
    print("\n".join(report.lines()))
    print(f"{time.monotonic() - began:.0f} s, seed {args.seed}")
    sys.exit(0 if report.ok else 1)


if __name__ == "__main__":
    main()
