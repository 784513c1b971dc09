"""Handlers that hide mistakes stay out of the firmware (issue 16, item 3).

- An ``except ImportError`` around an import of the project's own modules turns a
  renamed or broken module into a feature that quietly goes missing (a daemon without
  supervisor PINs, without the floor link) instead of an error at start.
- An ``except (JournalError, OSError, Exception)`` reads as if it caught three things and
  catches everything: say ``except Exception`` and why, or name what is meant.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OWN = ("controller", "drivers")


def _sources() -> Iterator[tuple[Path, ast.Module]]:
    for package in OWN:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path, ast.parse(path.read_text(), str(path))


def _names(handler: ast.ExceptHandler) -> list[str]:
    kind = handler.type
    items = kind.elts if isinstance(kind, ast.Tuple) else [kind] if kind is not None else []
    return [ast.unparse(item) for item in items]


def _own_imports(body: list[ast.stmt]) -> list[str]:
    found = []
    for node in body:
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and inner.module and inner.level == 0:
                modules = [inner.module]
            elif isinstance(inner, ast.Import):
                modules = [alias.name for alias in inner.names]
            else:
                continue
            found += [m for m in modules if m.split(".")[0] in OWN]
    return found


def test_no_import_error_guard_on_the_projects_own_modules() -> None:
    guarded = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Try):
                continue
            catches = {name for h in node.handlers for name in _names(h)}
            if catches & {"ImportError", "ModuleNotFoundError"}:
                guarded += [
                    f"{path.relative_to(ROOT)}:{node.lineno}: {module}"
                    for module in _own_imports(node.body)
                ]
    assert guarded == []


def test_no_handler_lists_exception_beside_other_types() -> None:
    redundant = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler):
                names = _names(node)
                if len(names) > 1 and ({"Exception", "BaseException"} & set(names)):
                    redundant.append(f"{path.relative_to(ROOT)}:{node.lineno}: {names}")
    assert redundant == []
