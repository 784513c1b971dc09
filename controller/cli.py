"""`tablectl`: one entry point, one module per subcommand in ``controller.commands``.

Each module there defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int``. Adding a subcommand means adding a module; nothing here changes.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import importlib
import os
import pkgutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from controller import commands


@functools.cache
def _command_modules() -> dict[str, str]:
    found = {}
    for info in pkgutil.iter_modules(commands.__path__):
        if not info.name.startswith("_"):
            found[info.name.replace("_", "-")] = f"{commands.__name__}.{info.name}"
    return dict(sorted(found.items()))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("table-controller")
    except PackageNotFoundError:
        number = "not installed"
    return f"tablectl {number} from {Path(commands.__file__).resolve().parents[1]}"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only`` (a command name), only that command's module is
    imported, so a command loads what it needs and nothing else (gpiozero, pyserial,
    paho-mqtt and the bench screen cost a Pi's start-up tens of milliseconds)."""
    parser = argparse.ArgumentParser(prog="tablectl", description="Casino poker table controller.")
    parser.add_argument(
        "--version",
        action="store_true",
        help="the version and the checkout this tablectl runs from (a command missing from "
        "its list, 'invalid choice', means an older checkout or install answered)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in _command_modules().items():
        if only is not None and name != only:
            continue  # the command line names ``only``: no other choice is looked at
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The command named on the line (the first argument not an option), if it is one."""
    names = _command_modules()
    for argument in argv:
        if argument.startswith("-"):
            return None  # `tablectl --help` and the like: the full parser
        return argument if argument in names else None
    return None


#: Long-running commands: their threads keep the plain standard output.
UNGUARDED = frozenset({"run", "bench"})


class OutputClosed(BaseException):
    """Standard output's reader went away (``tablectl tray | head``). A BaseException,
    like KeyboardInterrupt, so that no command's ``except OSError`` takes it for a file
    it could not read."""


class OutputFailed(BaseException):
    """Standard output cannot be written (a full disk, an I/O error): a BaseException
    for the same reason as ``OutputClosed``; ``main`` says so in one line."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))


class _GuardedOutput:
    """Standard output that turns a broken pipe into ``OutputClosed`` and any other
    failure to write into ``OutputFailed``, once, after pointing the descriptor at
    /dev/null so that nothing more (the exit's flush included) can fail."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as error:
            self._closed(error)
            return 0

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            self._closed(error)

    def _closed(self, error: OSError) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())
        os.close(devnull)
        if isinstance(error, BrokenPipeError):
            raise OutputClosed
        raise OutputFailed(error)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def _start_kept() -> Iterator[None]:
    """No collection while a command loads; then what the start made is moved out of
    the collector's sight (``gc.freeze``, as the ``gc`` docs advise before a fork)."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    """`tablectl` with ``argv`` (default: the command line); the exit status.

    Run as the program (no ``argv``), the start's objects (modules, classes, the
    command line's parser) live until exit: ``_start_kept`` spares the collector
    walking them again and again, the walk at exit included (a tenth of a short
    replay's time, issue 14). A caller in the same process (tests, tools) passes
    ``argv`` and keeps its collector as it was."""
    stdout = sys.stdout
    if not isinstance(stdout, _GuardedOutput):
        sys.stdout = _GuardedOutput(stdout)
    try:
        arguments = list(sys.argv[1:] if argv is None else argv)
        with _start_kept() if argv is None else contextlib.nullcontext():
            parser = build_parser(only=_chosen_command(arguments))
            args = parser.parse_args(arguments)
        if getattr(args, "command", None) in UNGUARDED:
            sys.stdout = stdout
        if args.version:
            print(_version())
            return 0
        if not getattr(args, "_run", None):
            parser.print_help(sys.stderr)
            return 2
        status = int(args._run(args))
        sys.stdout.flush()  # what is still buffered (a named file's last answers), here
        return status  # where a failure to write it is told
    except KeyboardInterrupt:
        return 130
    except (BrokenPipeError, OutputClosed):
        return 0  # piped into head: it has what it wanted
    except OutputFailed as failed:
        print(f"tablectl: cannot write the output: {failed}", file=sys.stderr)
        return 1
    finally:
        if sys.stdout is not stdout:
            with contextlib.suppress(OutputClosed, OutputFailed):  # told above, if at all
                sys.stdout.flush()
            sys.stdout = stdout
