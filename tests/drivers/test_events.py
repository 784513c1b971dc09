from __future__ import annotations

import dataclasses

import pytest

from drivers.events import (
    KEYS,
    DeviceCleared,
    DeviceFault,
    KeyPressed,
    PuckFault,
    PuckMoved,
    TrayCounts,
)


def test_the_keypad_has_exactly_the_keys_of_the_rules() -> None:
    """The seam between the layers: the shell passes a ``KeyPressed`` key to the rules
    as it is, so the device's keys are the replay contract's, in the same order. (Two
    definitions, one a layer: the dependency rule of docs/architecture.md keeps the
    drivers and the rules core from importing each other.)"""
    from controller.rules.keypad import KEYS as RULES_KEYS

    assert KEYS == RULES_KEYS


def test_events_check_themselves() -> None:
    with pytest.raises(ValueError, match="unknown keypad key 'fold'"):
        KeyPressed(key="fold")
    with pytest.raises(ValueError, match="puck seat 0 is not a seat number"):
        PuckMoved(seat=0)
    with pytest.raises(ValueError, match="at least two seats"):
        PuckFault(seats=(3,))
    with pytest.raises(ValueError, match="bad tray count -1 of chips worth 5"):
        TrayCounts(counts={5: -1})


def test_events_are_frozen_and_keyword_only() -> None:
    event = KeyPressed(key="BET")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.key = "FOLD"  # type: ignore[misc]
    with pytest.raises(TypeError):
        DeviceFault("keypad", "gone")  # type: ignore[misc]
    assert DeviceCleared(device="tray") == DeviceCleared(device="tray")


def test_tray_counts_keep_their_own_copy() -> None:
    counts = {5: 100}
    event = TrayCounts(counts=counts)
    counts[5] = 0
    assert event.counts == {5: 100}
