"""check-config warns when the floor broker is outside the networks the unit's
`IPAddressAllow=` lets the service reach, and says a host name cannot be checked; the
networks it checks against are the unit's own line.

The command runs in this process (``controller.cli.main`` with its arguments, which
takes a caller in the same process): what is checked here is what it says about the
host; ``tests/test_config.py`` runs ``tablectl check-config`` as a program.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main
from controller.config.broker_reach import ALLOWED, broker_warning
from tests.daemon_helpers import write_config

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "table-controller.service"


def check_config(tmp_path: Path, host: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    config = write_config(tmp_path)
    config.write_text(config.read_text() + f"floor:\n  site: east\n  host: '{host}'\n")
    code = main(["check-config", str(config)])
    errors = capsys.readouterr().err
    assert code == 0, errors
    return [line for line in errors.splitlines() if "floor.host" in line]


@pytest.mark.parametrize("host", ["203.0.113.7", "8.8.8.8", "2001:db8::5", "172.32.0.1"])
def test_a_broker_outside_the_private_networks_is_warned_about(
    tmp_path: Path, host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    [line] = check_config(tmp_path, host, capsys)
    assert line.endswith(
        f"warning: floor.host: {host} is outside the networks the service may reach (the"
        " unit's IPAddressAllow=: private, loopback and link-local): the link will fail until"
        ' a drop-in allows it (docs/install.md, "A floor broker outside the private networks")'
    )


@pytest.mark.parametrize(
    "host",
    ["10.1.2.3", "172.16.0.9", "172.31.255.254", "192.168.1.20", "127.0.0.1", "fd00::1", "::1"],
)
def test_a_broker_on_a_private_network_passes(
    tmp_path: Path, host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_config(tmp_path, host, capsys) == []


def test_a_host_name_is_said_to_be_unchecked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    [line] = check_config(tmp_path, "floor-broker.local", capsys)
    assert "floor.host: floor-broker.local is a host name: whether the service may reach it" in line
    assert "cannot be checked" in line


def test_the_networks_are_the_units_own() -> None:
    [line] = [line for line in UNIT.read_text().splitlines() if line.startswith("IPAddressAllow=")]
    assert line.removeprefix("IPAddressAllow=").split() == list(ALLOWED)
    assert broker_warning("172.15.255.255") is not None  # just below 172.16.0.0/12
