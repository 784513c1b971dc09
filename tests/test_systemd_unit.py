"""The unit file, checked by the real systemd-analyze (verify and security)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from controller import software
from tests.system_tools import find, needs

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "table-controller.service"
MODULES = ROOT / "systemd" / "table-controller.modules-load.conf"
INSTALLED_BINARY = "/opt/table-controller/current/.venv/bin/python"
MAX_EXPOSURE = 1.5

SYSTEMD_ANALYZE = find("systemd-analyze")
needs_systemd_analyze = needs("systemd-analyze", "the unit file's checks")


def unit_settings(text: str) -> dict[str, list[str]]:
    """``Section.Key`` → every value given (systemd allows repeated keys)."""
    settings: dict[str, list[str]] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        settings.setdefault(f"{section}.{key.strip()}", []).append(value.strip())
    return settings


def run_analyze(*args: str) -> subprocess.CompletedProcess[str]:
    assert SYSTEMD_ANALYZE is not None
    return subprocess.run(
        [SYSTEMD_ANALYZE, "--no-pager", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def installable_copy(directory: Path, unit_text: str) -> Path:
    """The unit with ExecStart's binary replaced by an existing executable, same arguments.

    ``systemd-analyze verify`` insists that the binary exists and is executable; the
    program is not installed under /opt on a development machine.
    """
    fake = directory / "bin" / "tablectl"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    assert INSTALLED_BINARY in unit_text
    unit = directory / "table-controller.service"
    unit.write_text(unit_text.replace(INSTALLED_BINARY, str(fake)))
    return unit


def test_unit_declares_what_the_design_requires() -> None:
    settings = unit_settings(UNIT.read_text())
    expected = {
        "Service.Type": ["notify"],
        "Service.NotifyAccess": ["main"],
        "Service.Restart": ["on-failure"],
        "Service.User": ["tablectl"],
        "Service.SupplementaryGroups": ["gpio dialout"],
        "Service.StateDirectory": ["table-controller"],
        "Service.ConfigurationDirectory": ["table-controller"],
        "Service.PrivateDevices": ["no"],
        "Service.DevicePolicy": ["closed"],
        "Install.WantedBy": ["multi-user.target"],
    }
    for key, value in expected.items():
        assert settings.get(key) == value, key
    (start,) = settings["Service.ExecStart"]
    assert shlex.split(start) == [
        INSTALLED_BINARY,
        *software.ISOLATED_FLAGS,
        "-c",
        software.ISOLATED_START,
        "run",
        "--config",
        "/etc/table-controller/table.yaml",
    ]
    assert settings["Service.WatchdogSec"], "a watchdog interval is required"
    # The state directory is the service's home: no user site folder (usercustomize).
    assert "PYTHONNOUSERSITE=1" in " ".join(settings["Service.Environment"]).split()
    allowed = set(settings["Service.DeviceAllow"])
    assert {"char-gpiochip rw", "char-ttyUSB rw", "char-ttyACM rw"} <= allowed


def test_modules_load_file_names_the_serial_drivers_the_unit_allows() -> None:
    modules = {
        line.strip()
        for line in MODULES.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert modules == {"usbserial", "cdc_acm"}


@needs_systemd_analyze
def test_systemd_analyze_verify_is_clean(tmp_path: Path) -> None:
    unit = installable_copy(tmp_path, UNIT.read_text())
    result = run_analyze("verify", str(unit))
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == ""
    assert result.stdout.strip() == ""


@needs_systemd_analyze
def test_systemd_analyze_verify_would_catch_a_broken_unit(tmp_path: Path) -> None:
    # Guards the test above against passing vacuously.
    broken = UNIT.read_text().replace("Type=notify", "Type=notifyy")
    result = run_analyze("verify", str(installable_copy(tmp_path, broken)))
    assert "notifyy" in result.stderr


@needs_systemd_analyze
def test_security_exposure_is_at_most_1_5() -> None:
    result = run_analyze("security", "--offline=true", str(UNIT))
    output = result.stdout + result.stderr
    match = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", output)
    assert match, output
    exposure = float(match.group(1))
    assert exposure <= MAX_EXPOSURE, output
