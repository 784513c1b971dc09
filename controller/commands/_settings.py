"""Reading a command's configuration file, with the problems told the technician's way."""

from __future__ import annotations

import sys

from controller.config import ConfigError, Settings, load_config


def read_settings(path: str, command: str) -> Settings | None:
    """The settings in ``path``, or None once every problem has been printed to stderr
    (`FILE:LINE:COL: message` lines, or one line saying the file cannot be read)."""
    try:
        return load_config(path)
    except ConfigError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
    except OSError as error:
        print(f"tablectl {command}: cannot read {path}: {error.strerror or error}", file=sys.stderr)
    return None
