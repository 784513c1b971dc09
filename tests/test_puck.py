"""controller.puck: where the button must be, what the sensor says, warn or block."""

from __future__ import annotations

import pytest

from controller.config import PuckCheckSettings
from controller.puck import check, expected_button, start_guard
from controller.rules import Refusal, Table, parse_event
from controller.rules.text import msg
from tests.keypad_tables import THREE, feed, keys, settings, table

WARN = PuckCheckSettings(mismatch="warn")
BLOCK = PuckCheckSettings(mismatch="block")


def test_the_button_for_the_next_hand_comes_from_the_rules() -> None:
    t = table(THREE)
    assert expected_button(t.state, t.settings) == 8  # first_button: last_seat
    feed(t, keys("NEXT FOLD FOLD"))
    assert expected_button(t.state, t.settings) == 2
    feed(t, keys("NEXT"))
    assert expected_button(t.state, t.settings) is None  # a hand is on: no check
    assert check(t.state, t.settings, BLOCK).status == "unknown"


def test_puck_on_the_right_seat_the_wrong_seat_lifted_or_seen_twice() -> None:
    t = table(THREE + [{"type": "puck", "seat": 8}])
    assert check(t.state, t.settings, WARN).status == "ok"
    feed(t, [{"type": "puck", "seat": 5}])
    result = check(t.state, t.settings, WARN)
    assert (result.status, result.expected, result.blocks) == ("moved", 8, False)
    assert result.light_seats == (5, 8)
    assert result.message == msg("puck.move", seat=8)
    assert check(t.state, t.settings, BLOCK).blocks
    feed(t, [{"type": "puck", "seat": None}])
    result = check(t.state, t.settings, WARN)
    assert (result.status, result.light_seats) == ("lifted", (8,))
    result = check(t.state, t.settings, WARN, seen=(3, 8))
    assert result.status == "two_seats" and result.message == msg("puck.two_seats", seats="3 8")


def test_block_holds_the_next_hand_until_the_puck_is_moved() -> None:
    guard = start_guard(BLOCK)
    assert start_guard(WARN) is None
    t = Table(settings().rules, start_guard=guard)
    feed(t, THREE + [{"type": "puck", "seat": 5}])
    with pytest.raises(Refusal, match="MOVE BUTTON TO SEAT 8 FIRST"):
        t.apply(parse_event({"type": "key", "key": "NEXT"}))
    feed(t, [{"type": "puck", "seat": 8}] + keys("NEXT"))
    assert t.state.hand_number == 1


def test_first_button_puck_always_agrees() -> None:
    t = Table(settings({"game": {"first_button": "puck"}}).rules, start_guard=start_guard(BLOCK))
    feed(t, THREE + [{"type": "puck", "seat": 5}])
    assert check(t.state, t.settings, BLOCK).status == "ok"
    feed(t, keys("NEXT"))
    assert t.state.positions.button == 5
