"""`tablectl bench [--config config/bench.yaml]`: the daemon on simulated devices, drawn in
the terminal (``controller.bench``; docs/bench.md is the technician's guide).

The same daemon as ``tablectl run`` (loop, journal, recovery, drivers) with every
device simulated, and a curses screen whose keys act as the dealer keypad, move the
puck, change the tray and pull cables. The journal goes in the configuration's state
folder (``./state`` for config/bench.yaml) and stays there: the next start resumes the
game. ``--demo`` and ``--script FILE`` run without a screen and print the table as
text (tests, CI, a quick look over a pipe).

Exit status: 0 after ``q`` (or a finished script or demo), 1 when the daemon cannot
start or the demo or script fails, 2 for an unusable configuration or arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import IO, Any

from controller import statedir
from controller.commands._settings import read_settings

HELP = "bench mode: the daemon on simulated devices, drawn in the terminal (keys play it)"
DEFAULT_CONFIG = Path("config/bench.yaml")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        help=f"the table's YAML configuration (default: {DEFAULT_CONFIG}, from the current folder)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--demo",
        action="store_true",
        help="no screen: play the demo's hands, print the table, stop",
    )
    mode.add_argument(
        "--script",
        metavar="FILE",
        help="no screen: run the bench commands in FILE (see docs/bench.md), print the table, stop",
    )
    parser.add_argument(
        "--start-demo",
        action="store_true",
        help="on the screen, start the demo at once (as the d key)",
    )
    parser.add_argument("--hands", type=int, default=3, help="hands the demo plays (default 3)")
    parser.add_argument(
        "--pace",
        type=float,
        default=None,
        help="seconds between the demo's actions (default 0.8 on the screen, 0 without one)",
    )
    parser.add_argument(
        "--state-dir",
        help="the journal's folder (default: the "
        "configuration's journal.state_dir; needed with a configuration "
        "of real hardware, whose journal is the table's record)",
    )
    parser.add_argument(
        "--log", help="the daemon's log file (default: bench.log in the state folder)"
    )


def _fail(message: str, status: int = 2) -> int:
    print(f"tablectl bench: {message}", file=sys.stderr)
    return status


def _config_path(args: argparse.Namespace) -> Path | None:
    if args.config:
        return Path(args.config)
    return DEFAULT_CONFIG if DEFAULT_CONFIG.is_file() else None


def _stop_on_signal(number: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + number)


def run(args: argparse.Namespace) -> int:

    path = _config_path(args)
    if path is None:
        return _fail(
            f"no --config given and there is no {DEFAULT_CONFIG} in the current "
            f"folder ({Path.cwd()}): run it from the project's folder, or give "
            "--config FILE"
        )
    interactive = not (args.demo or args.script)
    if interactive and not (sys.stdin.isatty() and sys.stdout.isatty()):
        return _fail("the screen needs a terminal; --demo or --script FILE run without one")
    if args.hands < 0 or (args.pace is not None and args.pace < 0):
        return _fail("--hands and --pace cannot be negative")
    settings = read_settings(str(path), "bench")
    if settings is None:
        return 2
    hardware = settings.hardware
    if hardware is None:
        return _fail(
            f"{path} has no hardware: section, so there are no devices to "
            "simulate; add one (hardware: {simulated: true} is enough)"
        )
    if args.state_dir is None and not hardware.simulated:
        return _fail(
            f"{path} is a configuration of real hardware, whose journal "
            f"({settings.journal.state_dir}) is the table's record: bench play "
            "does not go there. Give the bench its own folder: --state-dir DIR"
        )
    script: list[str] = []
    if args.script:
        try:
            script = Path(args.script).read_text(encoding="utf-8").splitlines()
        except OSError as error:
            return _fail(f"cannot read {args.script}: {error.strerror}")
    return _run_bench(args, settings, str(path), script, interactive)


def _run_bench(
    args: argparse.Namespace, settings: Any, path: str, script: list[str], interactive: bool
) -> int:
    from controller.bench.session import Bench
    from controller.daemon.process import setup_logging
    from controller.daemon.service import StartError

    state_dir = Path(args.state_dir) if args.state_dir else Path(settings.journal.state_dir)
    unusable = statedir.problem(state_dir)  # said as `tablectl run` says it
    if unusable is not None:
        if args.state_dir:
            unusable = unusable.replace(statedir.FIX, "or give --state-dir a folder you may write")
        return _fail(f"cannot start: {unusable}", 1)
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        statedir.mark_bench(state_dir)  # `tablectl run` keeps out of the bench's game
        log_path = Path(args.log) if args.log else state_dir / "bench.log"
        log_file = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 (closed below)
    except OSError as error:
        return _fail(f"cannot write the log in {state_dir}: {error.strerror}", 1)
    with log_file:
        _log_to(log_file, settings.logging.level, setup_logging)
        for number in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, _stop_on_signal)
        bench = Bench(settings, config_path=path, state_dir=state_dir)
        try:
            bench.start()
        except StartError as error:
            bench.close()
            return _fail(f"cannot start: {error}", 1)
        try:
            if interactive:
                status = _screen(args, bench, log_file)
            else:
                status = _headless(args, bench, script)
        finally:
            bench.close()
    with contextlib.suppress(OSError):  # the terminal may be gone (SSH hung up)
        print(
            f"bench stopped: the game stays in {state_dir}/ for the next start (log: {log_path})",
            file=sys.stderr,
        )
    return status


def _log_to(stream: IO[str], level: str, setup_logging: Any) -> None:
    """The daemon's log to the file, with times; the rest of Python's logging too (a
    warning on the terminal would tear the screen)."""
    setup_logging(level, stream=stream)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    for name in ("table-controller", ""):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
    logging.captureWarnings(True)


def _screen(args: argparse.Namespace, bench: Any, log_file: IO[str]) -> int:
    from controller.bench import tui

    pace = 0.8 if args.pace is None else args.pace
    with contextlib.redirect_stderr(log_file):  # stray tracebacks from threads go to the log
        tui.run(bench, tui.DemoOptions(hands=args.hands, pace=pace), start_demo=args.start_demo)
    return 0


def _headless(args: argparse.Namespace, bench: Any, script: list[str]) -> int:
    from controller.bench.demo import Demo
    from controller.bench.script import ScriptError, run_script, screen_text, settle

    if args.demo:
        demo = Demo(
            bench,
            hands=args.hands,
            pace=args.pace or 0.0,
            report=lambda line: print(line, flush=True),
        )
        demo.run()
        settle(bench)
        sys.stdout.write(screen_text(bench))
        return 0 if demo.error is None else 1
    try:
        run_script(bench, script, sys.stdout)
    except ScriptError as error:
        print(f"tablectl bench: {args.script}: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(screen_text(bench))
    return 0
