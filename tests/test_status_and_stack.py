"""Issue 12, defect 5 (guard): a seat's ``status`` agrees with its stack in every
state the replay contract prints.

The audit reported a seat still ``all_in`` with chips behind after an uncalled bet
came back. It could not be reproduced (see ``docs/rules.md``, "Uncalled bets"); these
tests look for it wherever a state is printed: after every event of every scenario
(each path a bet comes back by: the last fold, all-in callers for less, side pots,
run-outs, pushed chips, the keypad, pot and fixed limit, straddles), and through
durable replay, whose journal is folded again when it is continued.

The rule checked: a seat dealt in and still in the hand shows ``all_in`` exactly when
it has no playing chips behind (R7: an odd remainder below the smallest chip does not
play), and ``playing`` exactly when it has some.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from controller.config import load_config, load_config_text
from controller.durable import durable_replay
from controller.replay import replay
from tests.scenario_runner import (
    SCENARIOS,
    event_lines,
    load,
    merged_config,
    replay_with_pins,
)

FILES = sorted(SCENARIOS.glob("*.yaml"))
STATE = json.dumps({"type": "state"})


def status_problems(state: dict[str, Any], chip: int) -> list[str]:
    """Seats whose status says all-in with chips behind, or playing in a hand with none."""
    problems = []
    in_hand = state["phase"] != "idle"
    for number, seat in state["seats"].items():
        playable = seat["stack"] - seat["stack"] % chip
        if seat["status"] == "all_in" and playable > 0:
            problems.append(f"seat {number} all_in with {seat['stack']} behind")
        if in_hand and seat["status"] == "playing" and playable == 0:
            problems.append(f"seat {number} playing with no chips behind")
    return problems


def with_states(lines: list[str]) -> list[str]:
    """A ``state`` query after every event line."""
    return [text for line in lines for text in (line, STATE)]


def check_lines(output: list[dict[str, Any]], lines: list[str], chip: int) -> list[str]:
    problems = []
    for result, line in zip(output, lines, strict=True):
        if "state" in result:
            problems += [
                f"seq {result['seq']} (after {line}): {p}"
                for p in status_problems(result["state"], chip)
            ]
    return problems


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_state_of_every_scenario_shows_a_status_that_fits_the_stack(path: Path) -> None:
    data = load(path)
    settings = load_config_text(yaml.safe_dump(merged_config(data.get("config"))), path.name)
    lines = with_states(event_lines(data))
    if "pins" in data:
        output = replay_with_pins(settings.rules, lines, data["pins"])
    else:
        output = list(replay(settings.rules, lines))
    problems = check_lines(output, lines, settings.rules.game.smallest_chip)
    assert not problems, "\n".join(problems)


def test_the_check_finds_an_all_in_seat_with_chips_behind() -> None:
    """The check itself can fail (an honest guard)."""
    state = {
        "phase": "flop",
        "seats": {
            "2": {"stack": 700, "status": "all_in"},
            "5": {"stack": 3, "status": "all_in"},
            "8": {"stack": 0, "status": "playing"},
        },
    }
    assert status_problems(state, 5) == [
        "seat 2 all_in with 700 behind",
        "seat 8 playing with no chips behind",
    ]


UNCALLED = [p for p in FILES if p.stem.startswith(("Pots_uncalled", "Pots_keypad_pushed"))]


@pytest.mark.parametrize("path", UNCALLED, ids=[p.stem for p in UNCALLED])
def test_durable_replay_continued_after_the_return_shows_the_same_statuses(
    path: Path, tmp_path: Path
) -> None:
    """Durable replay, stopped right after each uncalled bet came back and continued
    (the journal folded again): the same output lines as the plain replay."""
    data = load(path)
    config = tmp_path / "table.yaml"
    config.write_text(yaml.safe_dump(merged_config(data.get("config"))))
    settings = load_config(config)
    lines = with_states(event_lines(data))
    plain = [json.dumps(line, separators=(", ", ": ")) for line in replay(settings.rules, lines)]
    got: list[str] = []
    start = 0
    # stop after every state in a showdown or idle phase: each moment after a return
    cuts = [
        i + 1
        for i, text in enumerate(plain)
        if '"phase": "showdown"' in text or '"phase": "idle"' in text
    ]
    for cut in [*cuts, len(lines)]:
        if cut <= start:
            continue
        out = io.StringIO()
        assert durable_replay(settings, str(tmp_path / "state"), lines[start:cut], out) == 0
        got += out.getvalue().splitlines()
        start = cut
    assert got == plain
    assert not check_lines(
        [json.loads(text) for text in got], lines, settings.rules.game.smallest_chip
    )
