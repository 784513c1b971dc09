"""Every dataclass of the program says what it is in a docstring of its own.

Besides the reader, the start pays for one missing: ``dataclass`` then writes the
class's ``__doc__`` from ``inspect.signature(cls)``, which costs every start a little
for each record (the program makes some eighty of them as it starts).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from types import ModuleType

import controller
import drivers


def program_modules() -> list[ModuleType]:
    names = [
        info.name
        for package in (controller, drivers)
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
        if not info.name.endswith("__main__")  # running it runs the command line
    ]
    return [importlib.import_module(name) for name in names]


def test_every_dataclass_has_a_docstring_of_its_own() -> None:
    checked, missing = 0, []
    for module in program_modules():
        for value in vars(module).values():
            if not (isinstance(value, type) and dataclasses.is_dataclass(value)):
                continue
            if value.__module__ != module.__name__:
                continue
            checked += 1
            generated = f"{value.__name__}("  # what dataclass writes in place of one
            if not value.__doc__ or value.__doc__.startswith(generated):
                missing.append(f"{module.__name__}.{value.__qualname__}")
    assert checked > 100, checked  # the walk found the program's records
    assert missing == []
