"""The shared worked example (../shared/examples) through the real `tablectl replay`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "examples"
LOCAL = Path(__file__).resolve().parents[1] / "docs" / "samples"


def _examples_dir() -> Path:
    if (EXAMPLES / "sample-hand.jsonl").exists():
        return EXAMPLES
    pytest.skip("../shared/examples is not beside this checkout")


def _comparable(line: dict) -> dict:
    """Drop what the contract leaves to the project: display wording, error wording,
    extra state keys."""
    line = json.loads(json.dumps(line))
    if "error" in line:
        line["error"] = {}
    return line


def test_sample_hand_matches_expected_output() -> None:
    examples = _examples_dir()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller",
            "replay",
            "--config",
            str(examples / "table.yaml"),
            str(examples / "sample-hand.jsonl"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    got = [json.loads(line) for line in result.stdout.splitlines()]
    expected = [
        json.loads(line) for line in (examples / "sample-hand.out.jsonl").read_text().splitlines()
    ]
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected, strict=True):
        mine, theirs = _comparable(mine), _comparable(theirs)
        if "state" in theirs:
            theirs["state"].pop("display")
            mine["state"] = {k: v for k, v in mine["state"].items() if k in theirs["state"]}
        assert mine == theirs
