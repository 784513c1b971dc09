"""`tablectl` as a subprocess, the way an operator runs it: one helper for the tests."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def tablectl_command(*args: str) -> list[str]:
    """The command line of `tablectl ARGS` (this Python, the package as a module)."""
    return [sys.executable, "-m", "controller", *args]


def tablectl(
    *args: str,
    cwd: Path | None = None,
    timeout: float = 120,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`tablectl ARGS` run to its end, its output captured as text (never raises on a
    non-zero exit: the tests look at ``returncode``)."""
    return subprocess.run(
        tablectl_command(*args),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
