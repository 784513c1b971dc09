"""The seat lights' patterns as a configuration names them (`lights:`): the pattern of
each seat condition, ``LightPatterns``. Which condition holds for a seat, and so which
pattern it shows, is ``controller.lights``; the names live here on their own so that
reading a configuration does not load the display's machinery (the rules' messages).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from drivers.interfaces import Pattern

#: The patterns a seat condition may ask for: the drivers' (``drivers.interfaces.Pattern``)
#: but ``wink``, which is what a light without PWM shows of ``pulse``.
PATTERN_NAMES = tuple(pattern.value for pattern in Pattern if pattern is not Pattern.WINK)


@dataclass(frozen=True, slots=True, kw_only=True)
class LightPatterns:
    """The pattern of each seat condition (``controller.lights`` gives their order of
    precedence)."""

    fault: str = "fast_blink"
    puck: str = "fast_blink"
    clock_warning: str = "fast_blink"
    clock: str = "slow_blink"
    to_act: str = "on"
    all_in: str = "pulse"
    missed_blind: str = "slow_blink"
    waiting: str = "pulse"
    sitting_out: str = "off"
    seated: str = "off"
    empty: str = "off"

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if value not in PATTERN_NAMES:
                raise ValueError(
                    f"lights pattern {item.name}: {value!r} is not one of {', '.join(PATTERN_NAMES)}"
                )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> LightPatterns:
        known = {item.name for item in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown lights pattern {unknown[0]!r}; known: {', '.join(sorted(known))}"
            )
        return cls(**{name: str(value) for name, value in data.items()})


DEFAULT_PATTERNS = LightPatterns()
