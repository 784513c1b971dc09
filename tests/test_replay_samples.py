"""The sample event files of docs/replay.md replay to the outputs printed beside them.

Each ``docs/samples/NAME.jsonl`` runs through the real ``tablectl replay`` (as
``python -m controller replay``) with ``NAME.yaml``; its output must be
``NAME.out.jsonl`` byte for byte: every line, every field, every word. After a change
to what replay prints, regenerate them (docs/replay.md, "Samples") and read the diff.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[1] / "docs" / "samples"
NAMES = sorted(p.name.removesuffix(".out.jsonl") for p in SAMPLES.glob("*.out.jsonl"))


def test_there_are_samples() -> None:
    assert {"side-pot", "fixed-limit", "clock", "lowball"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_sample_replays_to_its_output(name: str) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller",
            "replay",
            "--config",
            str(SAMPLES / f"{name}.yaml"),
            str(SAMPLES / f"{name}.jsonl"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = (SAMPLES / f"{name}.out.jsonl").read_text(encoding="utf-8")
    assert result.stdout.splitlines() == expected.splitlines()  # a readable diff first
    assert result.stdout == expected  # then every byte, line ends included
    for line in expected.splitlines():
        json.loads(line)
