"""Every scenario in tests/scenarios/ replays with the results it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenario_runner import SCENARIOS, load, run

FILES = sorted(SCENARIOS.glob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    problems = run(load(path))
    assert not problems, "\n".join(problems)


def test_every_scenario_names_a_rule() -> None:
    for path in FILES:
        data = load(path)
        assert str(data.get("rule", "")) and path.stem.startswith(str(data["rule"])), path.name
