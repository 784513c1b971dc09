"""The README's test command on a fresh machine: without the system packages some tests
need (mosquitto, tmux, systemd, chromium), those tests are skipped with a message that
names the package; under CI (``CI=true``, set by ``.ci/run``) they fail instead, and
``.ci/run`` installs every one of them. The fresh machine is played by a private mount
namespace in which the tools are hidden (``/dev/null`` bound over each)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.system_tools import PACKAGES, find, needs, require
from tests.test_unit_sandbox import needs_root

# slow, out of the edit loop (README, Tests): a fresh machine set up from the README, in a private root: minutes
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
CI_RUN = ROOT / ".ci" / "run"

#: The test modules that need a system tool, and the tools hidden to play a fresh machine.
MODULES = [
    "tests/test_floor_publisher.py",
    "tests/test_daemon_floor.py",
    "tests/test_floor_watch.py",
    "tests/test_bench_tui.py",
    "tests/test_systemd_unit.py",
    "tests/test_floor_board.py",
    "tests/test_floor_board_http.py",
    "tests/test_floor_board_hostile.py",
    "tests/test_floor_board_card.py",
    "tests/test_floor_board_room.py",
    "tests/test_floor_bounds.py",
    "tests/test_floor_new_stream.py",
    "tests/test_floor_acl.py",
    "tests/test_hostile_lines.py",
    "tests/test_floor_board_screenshot.py",
]
HIDDEN = ["mosquitto", "mosquitto_passwd", "tmux", "systemd-analyze", "chromium", "chromedriver"]


def on_a_fresh_machine(ci: bool) -> subprocess.CompletedProcess[str]:
    unshare = require("unshare", "the fresh-machine test")
    hide = " ".join(
        f'mount --bind /dev/null "{path}";' for name in HIDDEN if (path := find(name)) is not None
    )
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [
            unshare,
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            f'{hide} exec "$0" -m pytest -q -rs -p no:cacheprovider "$@"',
            sys.executable,
            *MODULES,
            *(["-x"] if ci else []),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
        check=False,
    )


@needs_root
@needs("unshare", "the fresh-machine test")
def test_without_the_system_packages_those_tests_skip_and_name_the_package() -> None:
    result = on_a_fresh_machine(ci=False)
    assert result.returncode == 0, result.stdout[-4000:]
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    for package in ("mosquitto", "tmux", "systemd"):
        assert any(f"apt-get install {package} " in line for line in skipped), skipped
    assert not re.search(r"\d+ (failed|error)", result.stdout), result.stdout[-4000:]


@needs_root
@needs("unshare", "the fresh-machine test")
def test_under_ci_a_missing_system_package_fails() -> None:
    result = on_a_fresh_machine(ci=True)
    assert result.returncode != 0
    assert "is not installed: sudo apt-get install" in result.stdout


def test_ci_installs_every_package_the_tests_name() -> None:
    script = CI_RUN.read_text()
    assert "export CI=true" in script
    for command, package in PACKAGES.items():
        if command in ("mosquitto_passwd",):
            continue  # the mosquitto package
        assert f"need+=({package})" in script, f".ci/run does not install {package}"
