"""Choosing the gpiozero pin factory, by name, without importing any backend.

Factories are looked up in gpiozero's own ``gpiozero_pin_factories`` entry points
(``lgpio``, ``rpigpio``, ``pigpio``, ``native``, ``mock``), as ``GPIOZERO_PIN_FACTORY``
is. The name comes from ``hardware.pin_factory``, else from ``GPIOZERO_PIN_FACTORY``;
with neither and no ``gpiochip``, gpiozero picks its default (lgpio on a Pi).
"""

from __future__ import annotations

import os
from importlib.metadata import entry_points
from typing import Any

from .errors import GpioUnavailable, HardwareConfigError
from .settings import HardwareSettings

FACTORY_GROUP = "gpiozero_pin_factories"


def factory_class(name: str) -> Any:
    """The pin factory class registered under ``name`` (case-insensitive)."""
    found = {entry.name.lower(): entry for entry in entry_points(group=FACTORY_GROUP)}
    entry = found.get(name.lower())
    if entry is None:
        known = ", ".join(sorted(found))
        raise HardwareConfigError([f"pin_factory {name!r} is not a gpiozero pin factory ({known})"])
    return entry.load()


def real_pin_factory(settings: HardwareSettings) -> Any | None:
    """The factory for the table's own pins, or None for gpiozero's default."""
    name = settings.pin_factory or os.environ.get("GPIOZERO_PIN_FACTORY")
    if name is None and settings.gpiochip is None:
        return None
    name = name or "lgpio"
    try:
        cls = factory_class(name)
        if name.lower() == "lgpio" and settings.gpiochip is not None:
            return cls(chip=settings.gpiochip)
        return cls()
    except HardwareConfigError:
        raise
    except Exception as error:  # ImportError (no lgpio), OSError (no gpiochip), ...
        chip = "" if settings.gpiochip is None else f" on gpiochip{settings.gpiochip}"
        raise GpioUnavailable(f"GPIO pin factory {name!r}{chip} cannot start: {error}") from error


def mock_pin_factory(*, pwm: bool) -> Any:
    """A gpiozero ``MockFactory`` (PWM-capable pins when ``pwm``) for simulated pins."""
    return factory_class("mock")(pin_class="mockpwmpin" if pwm else "mockpin")
