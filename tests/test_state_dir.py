"""An unusable state directory (issue 13 item 11): a path that is a file, a file where a
parent folder should be, a NUL byte, a read-only filesystem. `tablectl run` and durable
replay say in one line what to fix, never with a traceback; `check-config` catches the
same before any start."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon_helpers import write_config

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "docs" / "samples" / "side-pot.yaml"


def tablectl(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NOTIFY_SOCKET", None)
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def config_with(tmp_path: Path, state_dir: str) -> Path:
    config = write_config(tmp_path)
    text = config.read_text()
    config.write_text(text.replace(f"state_dir: {tmp_path / 'state'}", f"state_dir: {state_dir}"))
    return config


@contextlib.contextmanager
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder on a real read-only filesystem (a tmpfs mounted ro), or a skip."""
    mount_point = tmp_path / "ro"
    mount_point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a read-only filesystem needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], capture_output=True, check=False)


def check_refused(config: Path, state_dir: str, words: str) -> None:
    started = tablectl("run", "--config", str(config))
    assert started.returncode == 1, started.stderr
    assert "Traceback" not in started.stderr
    errors = [line for line in started.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1 and errors[0].startswith("ERROR cannot start: "), started.stderr
    assert words in errors[0] and "state_dir" in errors[0]
    checked = tablectl("check-config", str(config))
    assert checked.returncode == 1 and words in checked.stderr, checked.stderr
    assert "journal.state_dir" in checked.stderr
    replayed = tablectl("replay", "--config", str(SAMPLE), "--state-dir", state_dir, "-")
    assert replayed.returncode == 3 and "Traceback" not in replayed.stderr, replayed.stderr
    assert len(replayed.stderr.splitlines()) == 1 and words in replayed.stderr


@pytest.mark.slow  # three commands started and refused (1.2 s)
def test_a_state_dir_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a folder")
    check_refused(
        config_with(tmp_path, str(tmp_path / "afile")),
        str(tmp_path / "afile"),
        "is a file, not a folder",
    )


@pytest.mark.slow  # three commands started and refused (1.2 s)
def test_a_state_dir_whose_parent_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a folder")
    state = str(tmp_path / "afile" / "state")
    check_refused(config_with(tmp_path, state), state, "cannot be made: move the file away")


@pytest.mark.slow  # a real read-only mount: out of the edit loop
def test_a_state_dir_on_a_read_only_filesystem(tmp_path: Path) -> None:
    with read_only_folder(tmp_path) as folder:
        for state in (folder, folder / "state"):
            check_refused(
                config_with(tmp_path, str(state)), str(state), "is on a read-only filesystem"
            )


def test_a_state_dir_with_a_nul_byte(tmp_path: Path) -> None:
    config = config_with(tmp_path, '"/var/lib/table\\0controller"')
    checked = tablectl("check-config", str(config))
    assert checked.returncode == 1
    assert "journal.state_dir: holds a NUL byte" in checked.stderr
    started = tablectl("run", "--config", str(config))
    assert started.returncode == 2 and "Traceback" not in started.stderr
    assert "journal.state_dir: holds a NUL byte" in started.stderr


def test_a_missing_parent_is_made(tmp_path: Path) -> None:
    """Not a problem: the daemon makes the folders it may (check-config says OK)."""
    config = config_with(tmp_path, str(tmp_path / "new" / "deeper" / "state"))
    checked = tablectl("check-config", str(config))
    assert checked.returncode == 0, checked.stderr
    replayed = tablectl(
        "replay",
        "--config",
        str(SAMPLE),
        "--state-dir",
        str(tmp_path / "new" / "deeper" / "state"),
        "/dev/null",
    )
    assert replayed.returncode == 0, replayed.stderr
