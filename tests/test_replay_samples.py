"""The sample event files of docs/replay.md replay to the outputs printed beside them.

Each ``docs/samples/NAME.jsonl`` runs through the real ``tablectl replay`` (as
``python -m controller replay``) with ``NAME.yaml``; its output must match
``NAME.out.jsonl`` as parsed JSON: ``seq``, ``ok``, the refusal codes and every state
field the sample shows. Refusal messages and the display's wording are the project's
own (the display may be translated), and state fields the sample leaves out are not
compared.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SAMPLES = Path(__file__).resolve().parents[1] / "docs" / "samples"
NAMES = sorted(p.name.removesuffix(".out.jsonl") for p in SAMPLES.glob("*.out.jsonl"))


def _comparable(line: dict[str, Any], keys: set[str] | None) -> dict[str, Any]:
    line = json.loads(json.dumps(line))
    if "error" in line:
        line["error"] = line["error"]["code"]
    if "state" in line:
        line["state"].pop("display", None)
        if keys is not None:
            line["state"] = {k: v for k, v in line["state"].items() if k in keys}
    return line


def test_there_are_samples() -> None:
    assert {"side-pot", "fixed-limit", "clock", "lowball"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_sample_replays_to_its_output(name: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "controller", "replay", "--config",
         str(SAMPLES / f"{name}.yaml"), str(SAMPLES / f"{name}.jsonl")],
        capture_output=True, text=True, check=True,
    )
    got = [json.loads(line) for line in result.stdout.splitlines()]
    expected = [json.loads(line)
                for line in (SAMPLES / f"{name}.out.jsonl").read_text().splitlines()]
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected, strict=True):
        keys = set(theirs["state"]) if "state" in theirs else None
        assert _comparable(mine, keys) == _comparable(theirs, None)
