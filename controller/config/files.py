"""The files and devices a configuration names, checked on this machine.

``tablectl check-config`` runs this after the file itself is valid (the loader stays
free of such checks: it also reads configurations recorded in the journal, on another
machine or years later). A name that does not exist is:

- an **error** when nothing will make it appear by itself: the floor's password and TLS
  files (the floor link would not start), the Pi's own UART (``/dev/serial0``,
  ``ttyAMA*``, ``ttyS*``: the serial port is off in ``raspi-config``);
- a **warning** when it may appear later: a USB serial adapter not plugged in yet (its
  ``/dev/serial/by-id/...`` link appears when it is), the supervisor PIN file (written
  by the first ``tablectl pin set``; until then every PIN typed is answered ``NO:
  PIN CHECK NOT AVAILABLE: CALL TECH``).

Relative paths are taken from the current directory, as the daemon takes them from its
own (``/var/lib/table-controller`` under the service).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node

from controller.config.settings import Settings
from controller.supervisor_pins import unavailable_words
from drivers.settings import UART_PORTS

UART_PREFIXES = ("/dev/ttyAMA", "/dev/ttyS")


@dataclass(frozen=True)
class NamedPath:
    """One path named by the configuration."""

    option: str  # dotted: floor.password_file
    path: Path
    may_appear_later: bool
    missing: str  # what a missing one means, and what to do


def is_uart(port: str) -> bool:
    return port in UART_PORTS or port.startswith(UART_PREFIXES)


def named_paths(settings: Settings) -> list[NamedPath]:
    """Every file and device the configuration names that the daemon will open."""
    found: list[NamedPath] = []
    floor = settings.floor
    if floor is not None:
        if floor.password_file is not None:
            found.append(
                NamedPath(
                    "floor.password_file",
                    floor.password_file,
                    False,
                    "the floor link will not start (LINK ERROR)",
                )
            )
        tls = floor.tls
        for key in ("ca_file", "cert_file", "key_file"):
            value = getattr(tls, key, None) if tls is not None else None
            if value is not None:
                found.append(
                    NamedPath(
                        f"floor.tls.{key}",
                        Path(value),
                        False,
                        "the floor link will not start (LINK ERROR)",
                    )
                )
    pin_file = settings.supervisor.pin_file
    if pin_file is not None:
        found.append(
            NamedPath(
                "supervisor.pin_file",
                pin_file,
                True,
                f"no supervisor PINs yet: every PIN typed is answered `{unavailable_words()}` "
                "until `tablectl pin set` writes this file",
            )
        )
    hardware = settings.hardware
    if hardware is not None and not hardware.simulated:
        for name in ("keypad", "tray", "display"):
            device = getattr(hardware, name)
            if not device.enabled or device.simulated or device.port is None:
                continue
            if is_uart(device.port):
                found.append(
                    NamedPath(
                        f"hardware.{name}.port",
                        Path(device.port),
                        False,
                        "the Pi's serial port is off: turn it on in raspi-config (Interface "
                        "Options, Serial Port: login shell no, hardware yes) and reboot "
                        "(docs/install.md)",
                    )
                )
            else:
                found.append(
                    NamedPath(
                        f"hardware.{name}.port",
                        Path(device.port),
                        True,
                        f"the {name} adapter is not plugged in (or not this one): the daemon "
                        f"shows a {name} fault until it appears",
                    )
                )
    return found


def check_named_paths(
    settings: Settings, exists: Callable[[str], bool] = os.path.exists
) -> tuple[list[str], list[str]]:
    """``(errors, warnings)`` as ``FILE:LINE:COL: message`` lines for missing paths."""
    errors: list[tuple[tuple[int, int], str]] = []
    warnings: list[tuple[tuple[int, int], str]] = []
    places = _option_places(settings.config_text)
    for named in named_paths(settings):
        if exists(str(named.path)):
            continue
        line, column = places.get(named.option, (1, 1))
        message = f"{named.option}: {named.path} does not exist: {named.missing}"
        if named.may_appear_later:
            warnings.append(
                ((line, column), f"{settings.source}:{line}:{column}: warning: {message}")
            )
        else:
            errors.append(((line, column), f"{settings.source}:{line}:{column}: {message}"))
    return [text for _, text in sorted(errors)], [text for _, text in sorted(warnings)]


def _option_places(text: str) -> dict[str, tuple[int, int]]:
    """Dotted option -> (line, column) of its value in the YAML text."""
    places: dict[str, tuple[int, int]] = {}
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return places

    def walk(node: Node, prefix: str) -> None:
        if not isinstance(node, MappingNode):
            return
        for key, value in node.value:
            path = f"{prefix}{key.value}"
            mark = value.start_mark
            places[path] = (mark.line + 1, mark.column + 1)
            walk(value, f"{path}.")

    if root is not None:
        walk(root, "")
    return places
