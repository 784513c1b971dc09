"""Choosing the gpiozero pin factory, by name, without importing any backend.

Factories are looked up in gpiozero's own ``gpiozero_pin_factories`` entry points
(``lgpio``, ``rpigpio``, ``pigpio``, ``native``, ``mock``), as ``GPIOZERO_PIN_FACTORY``
is. The name comes from ``hardware.pin_factory``, else from ``GPIOZERO_PIN_FACTORY``;
with neither and no ``gpiochip``, gpiozero's default order is tried (lgpio on a Pi), and a
machine without GPIO gets one error saying what to install.
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


#: Tried in this order when neither the configuration nor ``GPIOZERO_PIN_FACTORY`` names
#: a factory: gpiozero's own order without ``pigpio``, which needs the pigpiod daemon
#: (name it in ``hardware.pin_factory`` to use it).
DEFAULT_FACTORIES = ("lgpio", "rpigpio", "native")

NO_GPIO_HELP = (
    "on a Raspberry Pi install the pin library (Raspberry Pi OS: sudo apt install "
    "python3-lgpio; elsewhere: pip install lgpio in the program's environment); "
    "on a machine without GPIO use --simulated or hardware: {simulated: true}"
)


def default_pin_factory() -> Any:
    """gpiozero's default choice, made quietly: one clear error instead of a warning per
    factory tried."""
    reasons: list[str] = []
    for name in DEFAULT_FACTORIES:
        try:
            return factory_class(name)()
        except Exception as error:  # ImportError (no library), PinUnknownPi (not a Pi), ...
            reasons.append(f"{name}: {error}")
    raise GpioUnavailable(f"no GPIO found ({reasons[0]}): {NO_GPIO_HELP}")


def real_pin_factory(settings: HardwareSettings) -> Any:
    """The factory for the table's own pins."""
    name = settings.pin_factory or os.environ.get("GPIOZERO_PIN_FACTORY")
    if name is None and settings.gpiochip is None:
        return default_pin_factory()
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
