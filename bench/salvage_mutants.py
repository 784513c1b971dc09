"""The salvage's mutants (issue 30 item 7): each change made by hand to the salvage's
source, the test meant to catch it run, the source restored; prints whether each
mutant was killed (the test failed) or survived.

These are changes the whole suite let through before ``tests/test_salvage_edges.py``:
the marker written before the new journal is built, no directory fsync between the new
journal and the marker, the database moved aside before its side files, a lone
unreadable ack mirror counted as a journal, a failed plan leaving its half-built new
journal, a resumed salvage rebuilding without force or forgetting the interrupted
run's ``--before``, the "acknowledged events not kept" note printed when none were
lost, a forced salvage never carving the raw pages, lost snapshots not counted as
pruned, the log chain's head taken from rows before the base, a marker missing keys
not refused with its own message.

    python bench/salvage_mutants.py [WORDS ...]   # only the mutants whose name holds one

Each source file is written back in a ``finally``; a SIGKILL in the middle of a run
leaves the mutant in place (``git diff`` shows it; ``git checkout`` the file).
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SALVAGE = ROOT / "controller/journal/salvage.py"
MARKER = ROOT / "controller/journal/salvage_marker.py"
TESTS = "tests/test_salvage_edges.py"
_BUILD = "    _build(directory, recovered, options.clock, detail, owner)\n"
_MARK = "    write_marker(directory, marker)\n"
_DB_FILES = '(f"{DB_NAME}-wal", f"{DB_NAME}-shm", f"{DB_NAME}-journal", DB_NAME)'


@dataclass(frozen=True)
class Mutant:
    name: str
    source: Path
    edits: tuple[tuple[str, str], ...]  # (text, replacement), each found exactly once
    test: str  # -k of the test meant to kill it


MUTANTS = (
    Mutant("the marker written before the new journal is built", SALVAGE,
           ((_BUILD, ""), (_MARK, _MARK + _BUILD)), "marker_is_written_once"),
    Mutant("no directory fsync between the new journal and the marker", SALVAGE,
           (("    fsync_directory(directory)  # the new journal's name is durable before "
             "the marker\n", ""),), "marker_is_written_once"),
    Mutant("the database moved aside before its side files", SALVAGE,
           ((_DB_FILES, '(DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", f"{DB_NAME}-journal")'),),
           "side_files"),
    Mutant("a lone unreadable ack mirror counted as a journal", SALVAGE,
           (("present == [ACK_MIRROR_NAME] and read_acks(directory).high is None", "False"),),
           "lone_unreadable"),
    Mutant("a failed plan leaving its half-built new journal", SALVAGE,
           (("                remove_leftovers(directory, NEW_NAME)\n", ""),), "plan_that_fails"),
    Mutant("a resumed salvage rebuilding without force", SALVAGE,
           (("redo = _Options(options.config_text, options.clock, True,",
             "redo = _Options(options.config_text, options.clock, options.force,"),),
           "resumed_forced"),
    Mutant("a resumed salvage forgetting the interrupted run's --before", SALVAGE,
           (('marker.get("before"), options.start_empty)', "options.before, options.start_empty)"),),
           "interrupted_runs_before"),
    Mutant("the 'acknowledged events not kept' note when none were lost", SALVAGE,
           (("if ack is not None and ack.seq > recovered.last_seq:",
             "if ack is not None and ack.seq >= recovered.last_seq:"),), "notes_nothing_lost"),
    Mutant("a forced salvage never carving the raw pages", SALVAGE,
           (("if not recovered.healthy or options.force:", "if not recovered.healthy:"),),
           "carves_events_deleted"),
    Mutant("lost snapshots not counted as pruned", SALVAGE,
           (("max([pruned_through, *lost])", "pruned_through"),), "count_as_pruned"),
    Mutant("the log chain's head taken from rows before the base", SALVAGE,
           (("if row[0] > log_start.id and isinstance(row[7], bytes):",
             "if isinstance(row[7], bytes):"),), "log_chain_goes_on"),
    Mutant("a marker missing keys not refused with its own message", MARKER,
           (("    if missing:\n", "    if False:\n"),), "missing_keys"),
)  # fmt: skip


def killed(mutant: Mutant) -> bool:
    """Whether the test meant for it fails with the mutant in place."""
    original = mutant.source.read_text(encoding="utf-8")
    mutated = original
    for text, replacement in mutant.edits:
        if mutated.count(text) != 1:
            raise SystemExit(f"{mutant.name}: {text!r} is not in {mutant.source} once")
        mutated = mutated.replace(text, replacement)
    mutant.source.write_text(mutated, encoding="utf-8")
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", TESTS,
             "-k", mutant.test],
            cwd=ROOT, capture_output=True, text=True, check=False,
        )  # fmt: skip
    finally:
        mutant.source.write_text(original, encoding="utf-8")
    return run.returncode != 0


def main(words: list[str]) -> int:
    chosen = [m for m in MUTANTS if not words or any(w in m.name for w in words)]
    started = time.monotonic()
    survived = 0
    for mutant in chosen:
        verdict = killed(mutant)
        survived += not verdict
        print(f"{'killed  ' if verdict else 'SURVIVED'} {mutant.name} (-k {mutant.test})")
    print(f"{len(chosen) - survived} of {len(chosen)} killed in {time.monotonic() - started:.0f} s")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
