"""Hostile input on every input path: what was tried and what held, as counts.

A stream of hostile lines (docs/replay.md, bad lines; issue 13 item 10) is mixed into a
real game (``docs/samples/side-pot.jsonl`` and ``state`` queries) and fed, as bytes,
to the three input paths as real processes:

* ``tablectl replay`` (plain),
* ``tablectl replay --state-dir`` (durable: every line journalled first), then the
  journal is verified and continued by a second run,
* ``tablectl run --stdin-events`` (the daemon's console, simulated devices), stopped
  with SIGTERM at the end.

Kinds of hostile line: integers of 17 to 20,000 digits, numbers past ±2^53 and 1e400,
NaN / Infinity, JSON nested 33 to 100,000 deep, invalid UTF-8, unpaired surrogates,
lines of 64 KiB + 1 up to 10 MB, random bytes, JSON that is not an object, amounts over
10^12. (A forged ``"pin_ok": true`` needs a PIN entry around it:
``tests/test_supervisor_security.py``.) What must hold: every hostile line is refused
with ``bad_event``, every good line gets the same answer as in a clean run, the final state
is the clean run's, no traceback, no sticky fault, the journal verifies and
stays small, and the daemon still answers and stops cleanly.

    python bench/hostile_input.py                  # 2,000 hostile lines per path
    python bench/hostile_input.py --lines 200 --big 1
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.cli import start_console, tablectl_bytes  # noqa: E402

SAMPLE = ROOT / "docs" / "samples" / "side-pot.yaml"
EVENTS = ROOT / "docs" / "samples" / "side-pot.jsonl"
DAEMON_EXTRA = """
hardware:
  simulated: true
  pin_factory: mock
  lights:
    pins: {{1: 16, 2: 17, 3: 18, 4: 19, 5: 20, 6: 21, 7: 22, 8: 23, 9: 24}}
journal: {{state_dir: {state_dir}}}
logging: {{level: INFO}}
"""
COMPARED = ("hand", "phase", "button", "pot_total", "pots", "seats")
SIT = b'{"type": "sit", "seat": 3, "player": "x", "chips": '


def hostile(rng: random.Random, big: int) -> list[tuple[str, bytes]]:
    """One of each kind in turn, ``big`` of them 10 MB lines."""
    kinds: list[tuple[str, bytes]] = [
        ("huge integer", SIT + b"9" * rng.randint(4301, 20000) + b"}"),
        ("integer past 2^53", SIT + str(2**53 + rng.randint(1, 10**6)).encode() + b"}"),
        (
            "float past 2^53",
            b'{"type": "tick", "ms": 1e' + str(rng.randint(17, 400)).encode() + b"}",
        ),
        ("NaN", SIT + rng.choice([b"NaN", b"Infinity", b"-Infinity"]) + b"}"),
        (
            "deep nesting",
            b'{"type": "tick", "ms": ' + b"[" * rng.randint(33, 100000) + b"]" * 2 + b"}",
        ),
        (
            "invalid UTF-8",
            b'{"type": "sit", "seat": 3, "player": "'
            + bytes([rng.randint(0x80, 0xFF)])
            + b'", "chips": 100}',
        ),
        (
            "unpaired surrogate",
            b'{"type": "sit", "seat": 3, "player": "\\udc'
            + f"{rng.randint(0, 255):02x}".encode()
            + b'", "chips": 100}',
        ),
        (
            "line over 64 KiB",
            b'{"type": "state", "x": "' + b"a" * rng.randint(65537, 300000) + b'"}',
        ),
        (
            "random bytes",
            b"!"
            + bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 200)))
            .replace(b"\n", b" ")
            .replace(b"\r", b" "),
        ),  # "!": never blank nor a comment
        ("not an object", rng.choice([b"[1, 2]", b'"text"', b"42", b"null", b"true"])),
        ("amount over 10^12", SIT + str(10**12 + rng.randint(1, 10**6)).encode() + b"}"),
    ]
    lines = kinds[:]
    for _ in range(big):
        lines.append(
            ("10 MB line", b'{"type": "state", "x": "' + b"b" * (10 * 1024 * 1024) + b'"}')
        )
    return lines


def build(count: int, big: int, seed: int) -> tuple[list[bytes], list[str | None], Counter[str]]:
    """The mixed stream, what each line is (None: good), and the hostile kinds' counts."""
    rng = random.Random(seed)
    good = [
        line.encode()
        for line in EVENTS.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    pool: list[tuple[str, bytes]] = []
    while len(pool) < count:
        pool += hostile(rng, big if not pool else 0)
    pool = pool[:count]
    rng.shuffle(pool)
    lines: list[bytes] = []
    kinds: list[str | None] = []
    per_good = max(1, len(pool) // (len(good) + 1))
    for index, item in enumerate(pool):
        if index % per_good == 0 and good:
            lines.append(good.pop(0))
            kinds.append(None)
            lines.append(b'{"type": "state"}')
            kinds.append(None)
        lines.append(item[1])
        kinds.append(item[0])
    for rest in good:
        lines.append(rest)
        kinds.append(None)
    lines.append(b'{"type": "state"}')
    kinds.append(None)
    return lines, kinds, Counter(kind for kind, _ in pool)


def tablectl(*args: str, data: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return tablectl_bytes(*args, stdin=data, timeout=1800)


PEAK = """\
import atexit, sys
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            sys.stderr.write(line)
atexit.register(peak)
from controller.cli import main
sys.exit(main(["replay", "--config", sys.argv[1], "-"]))
"""


def peak_mb(stream: Any) -> float:
    """Peak resident memory of ``tablectl replay`` reading ``stream`` (its own VmHWM: a
    forked child's rusage would count the pages of this process, which holds the
    stream)."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK, str(SAMPLE)],
        stdin=stream,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        text=True,
        timeout=1800,
        check=False,
    )
    found = [line.split()[1] for line in done.stderr.splitlines() if line.startswith("VmHWM")]
    return int(found[-1]) / 1024 if found else float("nan")


def compared(state: dict[str, Any]) -> dict[str, Any]:
    return {key: state.get(key) for key in COMPARED}


class Tally:
    def __init__(self, path: str) -> None:
        self.path = path
        self.counts: Counter[str] = Counter()
        self.failures: list[str] = []

    def check(self, ok: bool, what: str) -> None:
        self.counts["checks"] += 1
        if not ok:
            self.failures.append(what)

    def answers(
        self,
        answers: list[dict[str, Any]],
        kinds: list[str | None],
        reference: list[dict[str, Any]],
    ) -> None:
        self.check(len(answers) == len(kinds), f"{len(answers)} answers to {len(kinds)} lines")
        good = iter(reference)
        for answer, kind in zip(answers, kinds, strict=False):
            if kind is None:
                expected = next(good)
                same = answer.get("ok") == expected.get("ok") and answer.get(
                    "error"
                ) == expected.get("error")
                if "state" in expected and "state" in answer:
                    same = same and compared(answer["state"]) == compared(expected["state"])
                self.counts["good lines as in the clean run"] += same
                self.check(same, f"good line answered {answer} (clean run: {expected})")
            else:
                refused = (
                    answer.get("ok") is False
                    and (answer.get("error") or {}).get("code") == "bad_event"
                )
                self.counts["hostile lines refused (bad_event)"] += refused
                self.check(refused, f"{kind}: {str(answer)[:200]}")

    def line(self) -> str:
        shown = ", ".join(
            f"{name} {value}" for name, value in self.counts.items() if name != "checks"
        )
        verdict = "HELD" if not self.failures else f"FAILED ({len(self.failures)})"
        return f"  {self.path:<34} {verdict}: {shown}"


def plain(lines: list[bytes], kinds: list[str | None], reference: list[dict[str, Any]]) -> Tally:
    tally = Tally("tablectl replay")
    done = tablectl("replay", "--config", str(SAMPLE), "-", data=b"\n".join(lines) + b"\n")
    tally.check(done.returncode == 0, f"exit status {done.returncode}")
    tally.check(b"Traceback" not in done.stderr, "a traceback")
    tally.answers([json.loads(line) for line in done.stdout.splitlines()], kinds, reference)
    return tally


def durable(
    lines: list[bytes], kinds: list[str | None], reference: list[dict[str, Any]], work: Path
) -> Tally:
    tally = Tally("tablectl replay --state-dir")
    state = work / "durable"
    done = tablectl(
        "replay",
        "--config",
        str(SAMPLE),
        "--state-dir",
        str(state),
        "-",
        data=b"\n".join(lines) + b"\n",
    )
    tally.check(done.returncode == 0, f"exit status {done.returncode}: {done.stderr[-300:]!r}")
    tally.check(b"Traceback" not in done.stderr, "a traceback")
    tally.answers([json.loads(line) for line in done.stdout.splitlines()], kinds, reference)
    verify = tablectl("journal", "verify", "--state-dir", str(state))
    tally.check(verify.returncode == 0, f"journal verify: {verify.stdout[-300:]!r}")
    size = sum(path.stat().st_size for path in state.iterdir() if path.is_file())
    tally.counts["journal KB"] = size // 1024
    tally.check(size < 16 * 1024 * 1024, f"journal of {size} bytes")
    again = tablectl(
        "replay",
        "--config",
        str(SAMPLE),
        "--state-dir",
        str(state),
        "-",
        data=b'{"type": "state"}\n',
    )
    answer = json.loads(again.stdout) if again.returncode == 0 else {}
    continued = answer.get("seq") == len(lines) + 1 and compared(
        answer.get("state", {})
    ) == compared(reference[-1]["state"])
    tally.counts["continued after restart"] += continued
    tally.check(continued, f"second run: {again.stdout[-300:]!r} {again.stderr[-300:]!r}")
    return tally


def daemon(
    lines: list[bytes], kinds: list[str | None], reference: list[dict[str, Any]], work: Path
) -> Tally:
    tally = Tally("tablectl run --stdin-events")
    config = work / "table.yaml"
    config.write_text(SAMPLE.read_text() + DAEMON_EXTRA.format(state_dir=work / "daemon"))
    log = (work / "daemon.log").open("wb")
    proc, answers, reader = start_console(config, log)
    assert proc.stdin is not None
    for count, line in enumerate(lines, start=1):  # one at a time, as a console would
        proc.stdin.write(line + b"\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while len(answers) < count and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.001)
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(60)
    reader.join(60)
    log.close()
    text = (work / "daemon.log").read_text(errors="replace")
    tally.check(code == 0, f"exit status {code}")
    tally.check("Traceback" not in text, "a traceback in the log")
    tally.check(
        not any(kind in text for kind in ("MEMORY FAULT", "STORAGE FAULT", "SOFTWARE FAULT")),
        "a fault",
    )
    tally.counts["answers"] = len(answers)
    # the console's answers carry no state: compare ok/error only
    plain_reference = [{k: v for k, v in r.items() if k != "state"} for r in reference]
    tally.answers(answers, kinds, plain_reference)
    state = tablectl("state", "--state-dir", str(work / "daemon"))
    final = json.loads(state.stdout) if state.returncode == 0 else {}
    same = compared(final.get("state", final)) == compared(reference[-1]["state"])
    tally.counts["final state as in the clean run"] += same
    tally.check(same, f"final state {state.stdout[-300:]!r}")
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000, help="hostile lines per path")
    parser.add_argument("--big", type=int, default=3, help="of which 10 MB lines")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    lines, kinds, tried = build(args.lines, args.big, args.seed)
    good = [line for line, kind in zip(lines, kinds, strict=True) if kind is None]
    clean = tablectl("replay", "--config", str(SAMPLE), "-", data=b"\n".join(good) + b"\n")
    reference = [json.loads(line) for line in clean.stdout.splitlines()]
    size = sum(len(line) + 1 for line in lines)
    print(
        f"tried: {sum(tried.values())} hostile lines ({size / 1e6:.1f} MB) among "
        f"{len(good)} good ones, on 3 input paths (seed {args.seed}):"
    )
    for kind, count in sorted(tried.items()):
        print(f"  {count:6d}  {kind}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hostile-") as folder:
        work = Path(folder)
        tallies = [
            plain(lines, kinds, reference),
            durable(lines, kinds, reference, work),
            daemon(lines, kinds, reference, work),
        ]
    with tempfile.TemporaryFile() as stream:
        stream.write(b"\n".join(lines) + b"\n")
        stream.seek(0)
        peak = peak_mb(stream)
    with tempfile.TemporaryFile() as empty:
        baseline = peak_mb(empty)
    print(
        f"held ({time.perf_counter() - started:.1f} s; plain replay of this stream peaked "
        f"at {peak:.1f} MB resident, {baseline:.1f} MB for an empty one):"
    )
    for tally in tallies:
        print(tally.line())
        for failure in tally.failures[:5]:
            print(f"    {failure}")
    return 0 if not any(t.failures for t in tallies) else 1


if __name__ == "__main__":
    sys.exit(main())
