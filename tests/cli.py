"""`tablectl` as a subprocess, the way an operator runs it: one helper for the tests."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]


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


def tablectl_in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """`tablectl ARGS` run in this process (``controller.cli.main``, which takes a caller
    in the same process), its exit status and output as `tablectl` gives them: for a
    test of what a command finds and says. A test of the program itself (its start,
    what it loads, signals, a closed output, its logging) runs `tablectl`: a launch
    costs about a quarter of a second of CPU, most of it importing the program."""
    from controller.cli import main  # not at import: the helpers above load nothing

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(["tablectl", *args], code, out.getvalue(), err.getvalue())


def tablectl_bytes(
    *args: str, stdin: bytes | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """`tablectl ARGS` run from the project's folder, fed ``stdin`` (none: this
    process's), its output captured as bytes (for output that need not be UTF-8)."""
    return subprocess.run(
        tablectl_command(*args),
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=timeout,
        check=False,
    )


def daemon_env() -> dict[str, str]:
    """The environment for a daemon a test or benchmark starts: the package importable,
    and no systemd notify socket or watchdog inherited from whatever runs the tests."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NOTIFY_SOCKET", None)
    env.pop("WATCHDOG_USEC", None)
    return env


def start_console(
    config: Path, log: IO[bytes]
) -> tuple[subprocess.Popen[bytes], list[dict[str, Any]], threading.Thread]:
    """`tablectl run --stdin-events` with ``config``, its log to ``log``: the process
    (lines go to its stdin), the list its answers are appended to as they come, and
    the thread reading them (it ends with the process's stdout)."""
    proc = subprocess.Popen(
        tablectl_command("run", "--config", str(config), "--stdin-events"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        cwd=ROOT,
        env=daemon_env(),
    )
    answers: list[dict[str, Any]] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            answers.append(json.loads(line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return proc, answers, reader
