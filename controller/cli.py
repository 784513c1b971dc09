"""`tablectl`: one entry point, one module per subcommand in ``controller.commands``.

Each module there defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int``. Adding a subcommand means adding a module; nothing here changes.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from controller import commands


def _command_modules() -> dict[str, str]:
    found = {}
    for info in pkgutil.iter_modules(commands.__path__):
        if not info.name.startswith("_"):
            found[info.name.replace("_", "-")] = f"{commands.__name__}.{info.name}"
    return dict(sorted(found.items()))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablectl", description="Casino poker table controller."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in _command_modules().items():
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args._run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
