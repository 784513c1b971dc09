"""The arm64 board's digest through emulation (issue 32, item 1): ``release/build.py
--board-root`` on an arm64 Debian root run under qemu-user prints the digest, and the
bundle installed into a copy of that root by its ``release/install.sh`` gives the same
with ``tablectl verify-software`` there and with the inspector's ``software.py`` from
outside (bench/board_digest.py). Minutes of emulation: run with
``TABLE_CONTROLLER_EMULATION=1`` as root, on the roots ``bench/qemu_boot.sh`` (Bookworm)
and ``bench/board_digest.py``'s docstring (Trixie) make; and the Bookworm root booted
for real (``bench/qemu_boot.sh``, item 7)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_gpio_wheels import emulation
from tests.test_unit_sandbox import needs_root

ROOT = Path(__file__).resolve().parent.parent
ROOTS = Path(os.environ.get("TABLE_CONTROLLER_ROOTS", "/var/tmp/table-controller-qemu"))

pytestmark = [pytest.mark.slow, needs_root, emulation]


@pytest.mark.parametrize("suite", ["bookworm", "trixie"])
def test_an_arm64_boards_digest_is_the_builds(suite: str) -> None:
    board = ROOTS / f"{suite}-arm64" / "root"
    if not (board / "usr/bin/python3").exists():
        pytest.skip(f"no arm64 {suite} root at {board} (bench/board_digest.py says how)")
    ran = subprocess.run(
        [sys.executable, str(ROOT / "bench/board_digest.py"), "--arch", "arm64"]
        + ["--board-root", str(board)],
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    lines = ran.stdout.splitlines()
    python = "3.11" if suite == "bookworm" else "3.13"
    assert f"(sha256, Python {python}." in lines[0], lines
    assert lines[-1].startswith("one digest; total "), lines


def test_the_arm64_board_boots_installs_and_reaches_ready_with_the_builds_digest(
    tmp_path: Path,
) -> None:
    """bench/qemu_boot.sh: Debian's arm64 kernel in qemu-system-aarch64, the bundle
    installed offline at the first boot, READY unlocked, verify-software the build's."""
    board = ROOTS / "bookworm-arm64" / "root"
    if not list(board.glob("boot/vmlinuz-*")):
        pytest.skip(f"no arm64 Bookworm root with a kernel at {board} (bench/qemu_boot.sh)")
    built = subprocess.run(
        [sys.executable, str(ROOT / "bench/board_digest.py"), "--arch", "arm64"]
        + ["--board-root", str(board), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    digest = built.stdout.splitlines()[0].split()[-1]
    [bundle] = tmp_path.glob("*-arm64.tar.gz")
    booted = subprocess.run(
        [str(ROOT / "bench/qemu_boot.sh"), str(bundle), digest],
        capture_output=True,
        text=True,
        timeout=7200,
        check=False,
    )
    assert booted.returncode == 0, booted.stdout + booted.stderr
    assert "qemu-boot: the build's digest: yes" in booted.stdout.splitlines()
