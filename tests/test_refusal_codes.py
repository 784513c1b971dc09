"""Every refusal code the rules core has is proved by a scenario and documented.

The codes are read from the source (``Refusal("code", ...)`` and ``refuse("code",
...)``), so a new code without a scenario in ``tests/scenarios/`` or a line in
``docs/replay.md`` fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RAISED = re.compile(r"""(?:Refusal|refuse)\(\s*["']([a-z_]+)["']""")
# a guard the engine keeps although no event can reach it: the seat to act always has
# chips (an all-in with none is refused, should it ever come)
UNREACHABLE = {"bad_action"}


def engine_codes() -> set[str]:
    codes = {"bad_event"}  # BadEvent, for a line that is not a well-formed event
    for path in (ROOT / "controller" / "rules").rglob("*.py"):
        codes |= set(RAISED.findall(path.read_text(encoding="utf-8")))
    return codes


def test_every_refusal_code_has_a_scenario() -> None:
    text = "\n".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "tests" / "scenarios").glob("*.yaml")
    )
    proved = set(re.findall(r"refused: *([a-z_]+)", text))
    missing = engine_codes() - UNREACHABLE - proved
    assert not missing, f"refusal codes no scenario proves: {sorted(missing)}"


def test_every_refusal_code_is_documented() -> None:
    doc = (ROOT / "docs" / "replay.md").read_text(encoding="utf-8")
    missing = {code for code in engine_codes() if f"`{code}`" not in doc}
    assert not missing, f"refusal codes missing from docs/replay.md: {sorted(missing)}"
