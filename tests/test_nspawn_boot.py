"""The release booted with systemd (bench/nspawn_boot.py): in a Bookworm container booted
by ``systemd-nspawn -b`` with the bundle installed offline, the service reaches READY,
the watchdog restarts a stopped daemon, and a container killed mid-hand boots again with
the hand as the daemon acknowledged it; then, on the running service, an upgrade from the
next release's bundle, ``install.sh --rollback``, and an upgrade to a release that does
not reach READY, rolled back by itself; and Debian's python3-setuptools installed on the
running board changes neither the digest nor play. About 150 s with a root to copy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.system_tools import UNDER_CI, needs
from tests.test_unit_sandbox import needs_root

ROOT = Path(__file__).resolve().parent.parent
#: The Bookworm root with systemd and Python the bench copies (NSPAWN_TEMPLATE).
TEMPLATE = Path(
    os.environ.get("NSPAWN_TEMPLATE", Path.home() / ".cache/table-controller/nspawn-bookworm")
)

pytestmark = [
    pytest.mark.slow,
    needs_root,
    needs("systemd-nspawn", "booting the release in a container"),
    needs("debootstrap", "making the container's Bookworm root"),
    needs("nsenter", "running systemctl in the booted container"),
]


def test_the_unit_boots_survives_kills_upgrades_and_rolls_back() -> None:
    if not TEMPLATE.exists() and not UNDER_CI:
        pytest.skip(
            f"no Bookworm root at {TEMPLATE}: make one with sudo python3 bench/nspawn_boot.py"
            f" --make-template --template {TEMPLATE} (or set NSPAWN_TEMPLATE)"
        )
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "nspawn_boot.py"), "--template", str(TEMPLATE)]
        + ["--make-template", "--upgrade"],
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("1. READY at boot") for line in lines), lines
    assert any("restarted by the watchdog, READY again" in line for line in lines), lines
    assert any(
        "nothing lost; the kill recorded as a power loss after seq" in line for line in lines
    ), lines
    # built with --board-root (the container's root): the digest the build printed is the
    # one the board's install printed and verify-software gives
    assert any(
        line.startswith("4. upgraded from its bundle to releases/") and "the build's too" in line
        for line in lines
    ), lines
    assert any(line.startswith("5. install.sh --rollback: releases/") for line in lines)
    assert any("rolled back by itself to releases/" in line for line in lines), lines
    # a Debian package on the running board (a .pth in the system's site packages)
    assert any(
        line.startswith("7. python3-setuptools installed on the running board")
        and "the check on demand says verified" in line
        for line in lines
    ), lines
