"""Issue 13 item 14: a runaway configuration file is checked fast and small. Measured as
what is built and reported (bounded), never as a timed assertion; bench figures are in
docs/configuration.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import ConfigError, load_config, load_config_text
from controller.config.loader import MAX_CONFIG_BYTES
from controller.config.reader import UNKNOWN_SHOWN

HEAD = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"


def test_a_file_of_100000_unknown_keys_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text(HEAD + "".join(f"unknown_{i}: {i}\n" for i in range(100_000)))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert len(caught.value.problems) == 1
    assert "larger than 262,144 bytes" in caught.value.problems[0]
    with pytest.raises(ConfigError, match="refused unread"):
        load_config_text(path.read_text(), "huge.yaml")


@pytest.mark.slow  # a 26,000-key file parsed (1 s)
def test_many_unknown_keys_are_listed_up_to_a_bound_then_counted() -> None:
    text = HEAD + "".join(f"k{i}: 1\n" for i in range(26_000))
    assert len(text) <= MAX_CONFIG_BYTES
    with pytest.raises(ConfigError) as caught:
        load_config_text(text, "t.yaml")
    problems = caught.value.problems
    assert len(problems) == UNKNOWN_SHOWN + 1
    assert problems[0] == (
        "t.yaml:4:1: unknown section k0; valid sections: table, game, "
        "clock, fees, dealer, tournament, hardware, journal, display, lights, supervisor, floor, "
        "puck, tray, logging, software"
    )
    assert problems[-1] == (
        f"t.yaml:{4 + UNKNOWN_SHOWN}:1: ... and {26_000 - UNKNOWN_SHOWN} "
        f"more unknown key(s) from here on; fix the ones above first"
    )


def test_a_syntax_error_keeps_its_exact_place_with_the_fast_parser() -> None:
    with pytest.raises(ConfigError) as caught:
        load_config_text(HEAD + "clock: {seconds: 60\n", "t.yaml")
    assert caught.value.problems[0].startswith(  # where the '{' never closed starts
        "t.yaml:4:8: YAML syntax error: the flow mapping '{' started here is not closed "
        "(at line 5, column 1: "
    )
