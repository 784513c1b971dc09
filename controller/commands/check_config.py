"""`tablectl check-config FILE`: the daemon's own configuration checks, without a daemon.

Exit 0 and `FILE: OK` with a one-line summary when the file is good (warnings, if any,
on standard error: a state directory this user may not write is one); exit 1 (a state
directory that cannot work as it is, on this machine, is a problem too: a file in the
way, a read-only filesystem) with one `FILE:LINE:COL: message` line per problem on
standard error when it is not; exit 2 when the file cannot be read at all.

A valid file's named files and ports are then checked on this machine
(`controller.config.files`): a missing one that will not appear by itself (the floor's
password file) is a problem, one that may (a USB adapter not plugged in) a warning.
"""

from __future__ import annotations

import argparse
import sys

from controller import statedir
from controller.config import ConfigError, load_config
from controller.config.broker_reach import broker_warning
from controller.config.files import check_named_paths

HELP = "check a configuration file and list every problem in it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the YAML configuration to check")


def run(args: argparse.Namespace) -> int:
    filename: str = args.file
    try:
        settings = load_config(filename)
    except ConfigError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        return 1
    except OSError as error:
        print(f"{filename}: cannot read: {error.strerror or error}", file=sys.stderr)
        return 2
    errors, warnings = statedir.findings(settings.journal.state_dir)
    missing, may_appear = check_named_paths(settings)
    if errors:
        for problem in errors:
            print(f"{filename}: journal.state_dir: {problem}", file=sys.stderr)
        for line in missing:
            print(line, file=sys.stderr)
        return 1
    reach = broker_warning(settings.floor.host) if settings.floor else None
    for warning in [
        *settings.warnings,
        *([f"{filename}: warning: floor.host: {reach}"] if reach else []),
        *(f"{filename}: warning: journal.state_dir: {w}" for w in warnings),
        *may_appear,
        *missing,
    ]:
        print(warning, file=sys.stderr)
    if missing:
        return 1
    print(f"{filename}: OK")
    print(f"  {settings.summary()}")
    return 0
