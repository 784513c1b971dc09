"""Small helpers for the keypad, lights, puck and tray tests: a table driven by events."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import yaml

from controller.config import Settings, load_config_text
from controller.rules import Refusal, Table, parse_event
from tests.scenario_runner import merged_config

THREE = [
    {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
    {"type": "sit", "seat": 5, "player": "luis", "chips": 600},
    {"type": "sit", "seat": 8, "player": "marta", "chips": 1500},
]


def settings(config: dict[str, Any] | None = None) -> Settings:
    return load_config_text(yaml.safe_dump(merged_config(config)), "<test config>")


def keys(text: str, **extra: Any) -> list[dict[str, Any]]:
    return [{"type": "key", "key": key, **extra} for key in text.split()]


def table(
    events: Iterable[dict[str, Any]] = (),
    config: dict[str, Any] | None = None,
    pin_verifier: Callable[[str, str], bool] | None = None,
) -> Table:
    """A table after ``events``, every one of which must be accepted."""
    t = Table(settings(config).rules, pin_verifier=pin_verifier)
    feed(t, events)
    return t


def feed(t: Table, events: Iterable[dict[str, Any]]) -> list[Any]:
    out: list[Any] = []
    for event in events:
        try:
            out += t.apply(parse_event(event))
        except Refusal as refusal:
            raise AssertionError(f"{event} refused: {refusal}") from None
    return out
