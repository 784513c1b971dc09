"""Who may read and write the supervisors' PIN file (issue 13 item 7, issue 14 item 5).

- A PIN file others may write, or read, or owned by another user, is refused with a
  message saying the command that fixes it; the daemon says so at start, refuses PINs
  as PIN CHECK NOT AVAILABLE (no try lost) and plays on; fixed, it works at once.
- ``sudo tablectl pin set`` leaves a file the service user reads and no one else
  writes, for a new file and for one a later PIN is added to. Proven with real users:
  scratch accounts made with ``useradd`` and the check run as them (skipped, saying
  why, where that is impossible: not root, no ``useradd``)."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller import supervisor_pins
from controller.cli import main
from controller.journal import Journal
from tests.daemon_helpers import running, write_config

ROOT = Path(__file__).resolve().parents[1]
FAST = {"n": 2**4, "r": 1, "p": 1}
SUPERVISOR, PIN = "1042", "2468"


def pin_file(path: Path, mode: int) -> Path:
    supervisor_pins.save_pins(path, {SUPERVISOR: supervisor_pins.hash_pin(PIN, **FAST)})
    path.chmod(mode)
    return path


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        (0o666, "anyone can write it"),
        (0o664, "its group can write it"),
        (0o620, "its group can write it"),
        (0o644, "anyone can read it"),
        (0o602, "anyone can write it"),
    ],
)
def test_a_pin_file_others_may_write_or_read_is_refused(
    tmp_path: Path, mode: int, words: str
) -> None:
    path = pin_file(tmp_path / "pins", mode)
    with pytest.raises(supervisor_pins.PinFileUnsafe, match=words) as refused:
        supervisor_pins.load_pins(path)
    assert "sudo chmod 0" in str(refused.value) and str(path) in str(refused.value)
    with pytest.raises(supervisor_pins.PinFileUnsafe):
        supervisor_pins.PinFile(path)(SUPERVISOR, PIN)


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o400, 0o440])
def test_a_pin_file_only_its_owner_writes_is_used(tmp_path: Path, mode: int) -> None:
    path = pin_file(tmp_path / "pins", mode)
    assert supervisor_pins.PinFile(path)(SUPERVISOR, PIN)


def test_a_pin_file_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner needs root")
    path = pin_file(tmp_path / "pins", 0o600)
    os.chown(path, 65534, -1)  # nobody: a user who could rewrite it
    with pytest.raises(supervisor_pins.PinFileUnsafe, match="owned by uid 65534"):
        supervisor_pins.load_pins(path)


def test_the_daemon_says_an_unsafe_pin_file_and_plays_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = pin_file(tmp_path / "pins", 0o666)
    config = write_config(tmp_path)
    config.write_text(config.read_text() + f"supervisor: {{pin_file: {path}}}\n")
    with running(config) as daemon:
        assert "supervisor PIN file cannot be used" in caplog.text
        assert "anyone can write it" in caplog.text
        assert daemon.journal is not None
        entries = list(daemon.journal.iter_system_log(kinds=("pin_file",)))
        assert entries and "chmod" in entries[0].detail["problem"]
        for key in f"FUNC 0 {' '.join(SUPERVISOR)} ENTER {' '.join(PIN)}".split():
            assert daemon.submit({"type": "key", "key": key}).ok
        enter = daemon.submit({"type": "key", "key": "ENTER"})
        assert enter.error == {
            "code": "pin_unavailable",
            "message": "PIN CHECK NOT AVAILABLE: CALL TECH",
        }
        assert daemon.submit({"type": "key", "key": "CLEAR"}).ok
        assert daemon.submit({"type": "sit", "seat": 2, "player": "ana", "chips": 500}).ok
        path.chmod(0o600)  # fixed: no restart needed
        for key in f"FUNC 0 {' '.join(SUPERVISOR)} ENTER {' '.join(PIN)} ENTER".split():
            assert daemon.submit({"type": "key", "key": key}).ok
        assert daemon.controller is not None and daemon.controller.recorder is not None
        keypad = daemon.controller.recorder.table.state.keypad
        assert keypad["entry"]["step"] == "menu"
        assert "pin_failures" not in keypad  # the unavailable check cost no try
    with Journal.open_readonly(tmp_path / "state") as journal:
        assert [
            r.event.get("pin_ok")
            for r in journal.iter_events()
            if r.event.get("key") == "ENTER" and "pin_ok" in r.event
        ] == [True]


# -- as the installed system: root sets PINs, the service user reads them ----------------


@dataclass
class Accounts:
    service: pwd.struct_passwd  # the service user (tablectl on a table)
    other: pwd.struct_passwd  # any other local user
    base: Path  # a folder both may enter


PYTHONS = [sys.executable, "/usr/bin/python3"]  # the first one a scratch user may run


def _run_as(user: pwd.struct_passwd, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHONS[0], "-c", code, *args],
        user=user.pw_uid,
        group=user.pw_gid,
        extra_groups=[],
        capture_output=True,
        text=True,
        cwd="/",
        timeout=60,
        check=False,
        env={"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")},
    )


@pytest.fixture
def accounts() -> Iterator[Accounts]:
    if os.geteuid() != 0:
        pytest.skip("making scratch users needs root")
    if shutil.which("useradd") is None or shutil.which("userdel") is None:
        pytest.skip("useradd/userdel are not installed (Debian: the passwd package)")
    names = [f"tcsvc{os.getpid()}", f"tcoth{os.getpid()}"]
    made: list[str] = []
    base = Path(tempfile.mkdtemp(prefix="pinfile-"))
    try:
        for name in names:
            subprocess.run(
                [
                    "useradd",
                    "--system",
                    "--user-group",
                    "--no-create-home",
                    "--shell",
                    "/usr/sbin/nologin",
                    name,
                ],
                check=True,
                capture_output=True,
                timeout=60,
            )
            made.append(name)
        base.chmod(0o755)
        users = Accounts(pwd.getpwnam(names[0]), pwd.getpwnam(names[1]), base)
        problems = []
        for python in list(PYTHONS):
            try:
                probe = _run_as(users.service, "import controller.supervisor_pins")
            except PermissionError as error:
                problems.append(f"{python}: {error.strerror}")
            else:
                if probe.returncode == 0:
                    break
                problems.append(f"{python}: {probe.stderr.strip().splitlines()[-1:]}")
            PYTHONS.pop(0)
        if not PYTHONS:
            pytest.skip(
                f"no Python the scratch user may run imports the project from "
                f"{ROOT}: {'; '.join(problems)}"
            )
        yield users
    finally:
        shutil.rmtree(base, ignore_errors=True)
        for name in made:
            subprocess.run(["userdel", name], check=False, capture_output=True, timeout=60)


READ = (
    "import sys; from controller.supervisor_pins import PinFile; "
    "print(PinFile(sys.argv[1])(sys.argv[2], sys.argv[3]))"
)
WRITE = "import sys; open(sys.argv[1], 'a').close()"


def _pin_set(path: Path, supervisor: str, pin: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(pin + "\n"))
    assert main(["pin", "set", supervisor, "--stdin", "--file", str(path)]) == 0


@pytest.mark.slow  # 1.8 s of the edit loop at 0.3.0 (measured with --durations)
def test_sudo_pin_set_leaves_a_file_the_service_reads_and_no_one_else_writes(
    accounts: Accounts,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service, other = accounts.service, accounts.other
    etc = accounts.base / "etc-table-controller"  # as install.md makes it
    etc.mkdir()
    os.chown(etc, 0, service.pw_gid)
    etc.chmod(0o750)
    path = etc / "pins"

    _pin_set(path, SUPERVISOR, PIN, monkeypatch)  # root, as `sudo tablectl pin set`
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (0, service.pw_gid, 0o640)
    assert _run_as(service, READ, str(path), SUPERVISOR, PIN).stdout.strip() == "True"
    assert _run_as(service, WRITE, str(path)).returncode != 0  # reads, cannot write
    assert _run_as(other, READ, str(path), SUPERVISOR, PIN).returncode != 0  # not even read

    # a later PIN: the file stays readable by the service (issue 14 item 5)
    _pin_set(path, "7", "13579", monkeypatch)
    assert _run_as(service, READ, str(path), "7", "13579").stdout.strip() == "True"
    assert _run_as(service, READ, str(path), SUPERVISOR, PIN).stdout.strip() == "True"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640

    # a file the older install.md made the service user's (tablectl 0600): root adding a
    # PIN keeps it readable by the service, and from then on only root writes it
    os.chown(path, service.pw_uid, service.pw_gid)
    path.chmod(0o600)
    assert _run_as(service, READ, str(path), "7", "13579").stdout.strip() == "True"
    _pin_set(path, "8", "86420", monkeypatch)
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (0, service.pw_gid, 0o640)
    assert _run_as(service, READ, str(path), "8", "86420").stdout.strip() == "True"
    assert _run_as(service, WRITE, str(path)).returncode != 0
    assert grp.getgrgid(info.st_gid).gr_name == service.pw_name
