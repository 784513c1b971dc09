"""controller.supervisor_pins and `tablectl pin`: salted scrypt hashes in a 0600 file."""

from __future__ import annotations

import importlib.util
import io
import stat
from pathlib import Path

import pytest

from controller import supervisor_pins
from controller.cli import main

FAST = {"n": 2**4, "r": 1, "p": 1}  # cheap parameters: these tests check logic, not cost


def test_hash_and_verify() -> None:
    encoded = supervisor_pins.hash_pin("2468")
    assert encoded.startswith(
        f"scrypt${supervisor_pins.N}${supervisor_pins.R}${supervisor_pins.P}$"
    )
    assert "2468" not in encoded
    assert supervisor_pins.verify_pin("2468", encoded)
    assert not supervisor_pins.verify_pin("2469", encoded)
    assert supervisor_pins.hash_pin("2468", **FAST) != supervisor_pins.hash_pin(
        "2468", **FAST
    )  # fresh salt


@pytest.mark.parametrize("pin", ["123", "12a4", "", "1234567890123"])
def test_a_pin_is_4_to_12_digits(pin: str) -> None:
    with pytest.raises(ValueError, match="4 to 12 digits"):
        supervisor_pins.hash_pin(pin)


def test_the_file_is_written_0600_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "etc" / "pins"
    supervisor_pins.save_pins(path, {"1042": supervisor_pins.hash_pin("2468", **FAST)})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert list(supervisor_pins.load_pins(path)) == ["1042"]
    assert supervisor_pins.load_pins(tmp_path / "missing") == {}
    path.write_text("1042 plain-text-pin\n", encoding="utf-8")
    with pytest.raises(supervisor_pins.PinFileError, match="not a scrypt PIN hash"):
        supervisor_pins.load_pins(path)


def test_the_verifier_reads_the_file_when_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "pins"
    verify = supervisor_pins.PinFile(path)
    with pytest.raises(supervisor_pins.PinFileMissing, match="sudo tablectl pin set"):
        verify("1042", "2468")  # no file: no verdict (PIN CHECK NOT AVAILABLE), not wrong
    supervisor_pins.save_pins(path, {"1042": supervisor_pins.hash_pin("2468", **FAST)})
    assert verify("1042", "2468")
    assert verify("1042", "2468")  # remembered
    assert not verify("1042", "1111")
    assert not verify("7", "2468")
    supervisor_pins.save_pins(path, {"1042": supervisor_pins.hash_pin("1357", **FAST)})
    assert not verify("1042", "2468")
    assert verify("1042", "1357")


def test_tablectl_pin_set_list_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pins"
    monkeypatch.setenv(supervisor_pins.ENV_PATH, str(path))
    monkeypatch.setattr("sys.stdin", io.StringIO("2468\n"))
    assert main(["pin", "set", "1042", "--stdin"]) == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert supervisor_pins.PinFile(path)("1042", "2468")
    assert main(["pin", "list"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1042"
    monkeypatch.setattr("sys.stdin", io.StringIO("24\n"))
    assert main(["pin", "set", "1042", "--stdin"]) == 2
    assert "4 to 12 digits" in capsys.readouterr().err
    assert main(["pin", "set", "ana", "--stdin"]) == 2
    assert main(["pin", "remove", "1042"]) == 0
    assert supervisor_pins.load_pins(path) == {}
    assert main(["pin", "remove", "1042"]) == 1


def test_tablectl_pin_asks_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter(["2468", "2469"])
    monkeypatch.setattr("getpass.getpass", lambda prompt: next(answers))
    assert main(["pin", "set", "1042", "--file", str(tmp_path / "pins")]) == 1
    assert not (tmp_path / "pins").exists()


@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_a_pin_file_that_is_not_a_file_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    """A FIFO, a folder or a device where the PIN file should be (a wrong
    supervisor.pin_file, say): refused in one line, never a hang (a FIFO blocks an open
    for reading until someone writes it; /dev/zero never ends)."""
    import os
    import subprocess
    import sys

    path = tmp_path / "pins"
    if kind == "fifo":
        os.mkfifo(path, 0o600)
    elif kind == "folder":
        path.mkdir(mode=0o700)
    else:
        path = Path("/dev/zero")
    code = (
        "import sys\nfrom controller import supervisor_pins\n"
        "try:\n    supervisor_pins.PinFile(sys.argv[1]).check()\n"
        "except supervisor_pins.PinFileError as error:\n    print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        timeout=20,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        f"{path} is not a regular file (a folder, a device or a pipe): point "
        "supervisor.pin_file at the file sudo tablectl pin set writes"
    ), done.stdout


def test_the_supervisor_pins_are_not_named_like_the_gpio_pins() -> None:
    """``drivers/pins.py`` is the GPIO pin factory; the supervisor PINs' module has a
    name of its own, so nobody edits one for the other (issue 16, item 7)."""
    assert importlib.util.find_spec("controller.pins") is None
    assert importlib.util.find_spec("controller.supervisor_pins") is not None
    assert importlib.util.find_spec("drivers.pins") is not None


# -- longer PINs by configuration (supervisor.pin_digits; issue 32, item 9) -----------

TABLE = """\
table: {{id: T1, seats: 9}}
game: {{structure: no_limit, smallest_chip: 5, small_blind: 5, big_blind: 10}}
supervisor: {{pin_file: {pins}, pin_digits: {digits}}}
"""


def test_check_config_takes_pin_digits_from_4_to_12(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.yaml"
    config.write_text(TABLE.format(pins=tmp_path / "pins", digits=8))
    assert main(["check-config", str(config)]) == 0
    for digits in (3, 13):
        config.write_text(TABLE.format(pins=tmp_path / "pins", digits=digits))
        assert main(["check-config", str(config)]) == 1
        (line,) = [x for x in capsys.readouterr().err.splitlines() if "pin_digits" in x]
        column = len(f"supervisor: {{pin_file: {tmp_path / 'pins'}, pin_digits: ") + 1
        assert line == (
            f"{config}:3:{column}: supervisor.pin_digits: must be from 4 to 12, got {digits}"
        )


def test_pin_set_with_the_configuration_refuses_a_shorter_pin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pins = tmp_path / "pins"
    config = tmp_path / "table.yaml"
    config.write_text(TABLE.format(pins=pins, digits=6))
    monkeypatch.setattr("sys.stdin", io.StringIO("2468\n"))
    assert main(["pin", "set", "1042", "--stdin", "--config", str(config)]) == 2
    assert capsys.readouterr().err == (
        "tablectl pin: a PIN is 6 to 12 digits (the keypad has only digits; "
        "supervisor.pin_digits is 6); nothing changed\n"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("24681357\n"))
    assert main(["pin", "set", "1042", "--stdin", "--config", str(config)]) == 0
    assert supervisor_pins.PinFile(pins, 6)("1042", "24681357")  # the configured file


def test_a_pin_shorter_than_configured_is_wrong_whatever_the_file_says(tmp_path: Path) -> None:
    path = tmp_path / "pins"
    supervisor_pins.save_pins(path, {"1042": supervisor_pins.hash_pin("2468", **FAST)})
    assert supervisor_pins.PinFile(path)("1042", "2468")
    assert not supervisor_pins.PinFile(path, 6)("1042", "2468")
