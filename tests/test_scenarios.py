"""Every scenario in tests/scenarios/ replays with the results it names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.scenario_runner import SCENARIOS, load, load_text, run

FILES = sorted(SCENARIOS.glob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    problems = run(load(path))
    assert not problems, "\n".join(problems)


@pytest.mark.slow  # 2.2 s of the edit loop at 0.3.0 (measured with --durations)
def test_every_scenario_names_a_rule() -> None:
    for path in FILES:
        data = load(path)
        assert str(data.get("rule", "")) and path.stem.startswith(str(data["rule"])), path.name


HOUSE_LIMITS = SCENARIOS / "house_limits_buy_in_and_absence.yaml"


def _with_last_expect(seats: str) -> dict[str, Any]:
    """The house-limits scenario, its last expectation's seats replaced."""
    text = HOUSE_LIMITS.read_text(encoding="utf-8")
    head, _, _ = text.rpartition("  - type: state")
    text = head + f"  - type: state\n    expect: {{seats: {seats}}}\n"
    return load_text(text)


def test_a_claimed_absence_can_fail() -> None:
    """Seat 7 is freed after max_absent_hands; claiming seat 5 absent must fail."""
    assert not run(_with_last_expect('{"7": !absent }'))
    problems = run(_with_last_expect('{"5": !absent }'))
    assert problems and "expected absent" in problems[0]


def test_an_exact_seat_set_can_fail() -> None:
    exact = '!exactly {"1": {player: ana}, "3": {player: bob}, "5": {player: cy}}'
    assert not run(_with_last_expect(exact))
    problems = run(_with_last_expect('!exactly {"1": {player: ana}, "3": {player: bob}}'))
    assert problems and "unexpected keys ['5']" in problems[0]
    # the plain form matches a subset, as before
    assert not run(_with_last_expect('{"1": {player: ana}}'))


def test_a_listing_of_every_seat_must_say_exactly() -> None:
    """A plain listing of every seat taken is refused: it reads as "these are the
    seats" but would pass with one more; ``!exactly`` says it."""
    problems = run(_with_last_expect('{"1": {player: ana}, "3": {player: bob}, "5": {player: cy}}'))
    assert problems and "write it as !exactly" in problems[0]
