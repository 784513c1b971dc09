"""The release bundle (``release/build.py``) and its pre-flight check
(``release/preflight.py``): the bundle of this machine's architecture installs with no
network (``unshare -n``) into a scratch root and prints the digest the build printed;
the pre-flight check refuses each bad case with its one line."""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.system_tools import needs, require
from tests.test_install import BOARD_PYTHON, printed_digest, scratch_root
from tests.test_unit_sandbox import needs_root

ROOT = Path(__file__).resolve().parent.parent
PREFLIGHT = ROOT / "release" / "preflight.py"
ARCHES = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "armhf"}
PYENV = Path("/root/.pyenv/versions")


def other_python(minor: int) -> Path:
    found = sorted(PYENV.glob(f"3.{minor}.*/bin/python"))
    if not found:
        pytest.skip(f"no Python 3.{minor} on this machine (pyenv install 3.{minor})")
    return found[0]


def fake_wheel(folder: Path, name: str, *members: str) -> Path:
    wheel = folder / name
    with zipfile.ZipFile(wheel, "w") as archive:
        for member in members:
            archive.writestr(member, "")
    return wheel


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    """A bundle's wheels folder for this machine, with a real-looking lgpio wheel."""
    folder = tmp_path / "wheels"
    folder.mkdir()
    (folder / "ARCH").write_text(ARCHES.get(platform.machine(), "amd64") + "\n")
    fake_wheel(folder, "lgpio-0.2.2.0-cp311-cp311-linux_x86_64.whl", "_lgpio.so", "lgpio.py")
    return folder


def sound_python() -> Path | str:
    """A Python 3.11, which the `wheels` fixture's lgpio wheel is for (the tests may run
    under 3.12 or 3.13, where that wheel is rightly refused)."""
    return sys.executable if sys.version_info[:2] == (3, 11) else other_python(11)


def preflight(
    wheels: Path,
    *extra: str,
    python: Path | str | None = None,
    env: dict[str, str] | None = None,
) -> tuple[int, list[str]]:
    python = sound_python() if python is None else python
    result = subprocess.run(
        [str(python), str(PREFLIGHT), "--wheels", str(wheels), *extra],
        capture_output=True,
        text=True,
        env=env if env is not None else {**os.environ, "PYTHONPATH": ""},
        timeout=60,
    )
    return result.returncode, result.stderr.splitlines()


def test_a_sound_board_passes(wheels: Path) -> None:
    assert preflight(wheels) == (0, [])


def test_another_python_is_refused_with_what_to_do(wheels: Path) -> None:
    code, lines = preflight(wheels, python=other_python(12))
    assert code == 1
    assert lines == [
        "preflight: Python 3.12 found; the release is for Python 3.11 (Debian 12 / Raspberry"
        " Pi OS Bookworm) or 3.13 (Debian 13 / Trixie): install the board with one of those"
        " systems"
    ]


def test_python_3_13_without_a_gpio_wheel_in_the_bundle_is_refused(
    wheels: Path, tmp_path: Path
) -> None:
    """PyPI has no lgpio wheel for 3.13, and the program's environment does not see the
    system's site packages: a python3-lgpio there (a real-looking one here) is no GPIO
    library for it."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "lgpio.py").write_text("def gpiochip_open(chip):\n    return 0\n")
    code, lines = preflight(
        wheels, python=other_python(13), env={**os.environ, "PYTHONPATH": str(site)}
    )
    assert (code, lines) == (
        1,
        [
            "preflight: no GPIO library for Python 3.13: the bundle has no lgpio wheel for it"
            " (the program does not use the system's python3-lgpio): a bundle built with one"
            " (release/build.py --gpio-wheel, docs/install.md)"
        ],
    )


def test_python_3_13_with_a_gpio_wheel_in_the_bundle_passes(wheels: Path) -> None:
    fake_wheel(wheels, "lgpio-0.2.2.0-cp313-cp313-linux_x86_64.whl", "_lgpio.so", "lgpio.py")
    assert preflight(wheels, python=other_python(13)) == (0, [])


@pytest.mark.parametrize(
    "name, members",
    [
        ("lgpio-0.0.0.2-py3-none-any.whl", ("lgpio.py",)),  # what pip download fetches
        ("lgpio-0.2.2.0-cp311-cp311-linux_x86_64.whl", ("lgpio.py",)),  # renamed, still empty
    ],
)
def test_a_placeholder_gpio_wheel_is_refused(wheels: Path, name: str, members: tuple[str]) -> None:
    for wheel in wheels.glob("lgpio-*"):
        wheel.unlink()
    fake_wheel(wheels, name, *members)
    code, lines = preflight(wheels)
    assert (code, lines) == (
        1,
        [f"preflight: {name} is an empty placeholder: rebuild the bundle with release/build.py"],
    )


def test_too_little_free_space_is_refused(wheels: Path, tmp_path: Path) -> None:
    # the journal and its copy beside the release, so the one filesystem is tmp_path's
    # whatever this machine's /var (an installed table's journal, a /tmp in RAM)
    code, lines = preflight(
        wheels,
        *("--prefix", str(tmp_path / "opt"), "--min-free-mb", "99999999"),
        *("--state-dir", str(tmp_path / "state"), "--backups", str(tmp_path / "backups")),
    )
    assert code == 1
    [line] = lines
    assert line.startswith("preflight: only ")
    assert line.endswith(
        f"MB free on {tmp_path}: free at least 99999999 MB there"
        " (the release 99999999 MB, the journal's copy 0 MB)"
    )


@needs_root
@needs("unshare", "mounting small filesystems")
@pytest.mark.parametrize("apart", [False, True])
def test_the_space_checked_covers_the_journals_copy(
    wheels: Path, tmp_path: Path, apart: bool
) -> None:
    """Found filling the backup disk: the copy of the journal taken before the switch
    failed with ``No space left on device`` after the check had said ok. The journal's
    size counts on the filesystem of /var/backups, with the release's when they are one."""
    disk, backups_disk = tmp_path / "disk", tmp_path / "backups-disk"
    disk.mkdir()
    backups_disk.mkdir()
    state, backups = disk / "state", (backups_disk if apart else disk) / "backups"
    script = (
        f"mount -t tmpfs -o size=20m tmpfs {disk} && mount -t tmpfs -o size=10m tmpfs"
        f" {backups_disk} && mkdir {state} && head -c 12582912 /dev/zero >{state}/journal.sqlite"
        ' && exec "$@"'
    )
    python = sound_python()
    result = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"]
        + [str(python), str(PREFLIGHT), "--wheels", str(wheels), "--prefix", str(disk / "opt")]
        + ["--min-free-mb", "1", "--state-dir", str(state), "--backups", str(backups)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
        timeout=60,
    )
    where = backups_disk if apart else disk
    total, what = ("12", "") if apart else ("13", "the release 1 MB, ")
    free = 10 if apart else 8
    assert (result.returncode, result.stderr.splitlines()) == (
        1,
        [
            f"preflight: only {free} MB free on {where}: free at least {total} MB there"
            f" ({what}the journal's copy 12 MB)"
        ],
    )


def test_a_bundle_of_another_architecture_is_refused(wheels: Path) -> None:
    (wheels / "ARCH").write_text("armhf\n")
    code, lines = preflight(wheels)
    assert code == 1
    assert lines == [
        f"preflight: this bundle is for armhf but the board is {ARCHES[platform.machine()]}:"
        f" copy table-controller-*-{ARCHES[platform.machine()]}.tar.gz instead"
    ]


def test_missing_system_commands_are_named_with_their_package(wheels: Path, tmp_path: Path) -> None:
    code, lines = preflight(wheels, env={"PATH": str(tmp_path), "PYTHONPATH": ""})
    assert code == 1
    assert "preflight: the command systemctl is missing: sudo apt install systemd" in lines
    assert "preflight: the command useradd is missing: sudo apt install passwd" in lines


def test_every_command_the_unit_runs_is_checked_before_the_install() -> None:
    """Found booting the release in a minimal Debian (bench/nspawn_boot.py --upgrade):
    it had no ``/bin/kill``, the unit's ``ExecReload=``, so systemd-analyze refused the
    unit and the upgrade stopped half way, after the pre-flight check had said ok. Every
    program the unit names, other than the release's own, is one the check looks for."""
    sys.path.insert(0, str(ROOT / "release"))
    try:
        from preflight import COMMANDS
    finally:
        sys.path.remove(str(ROOT / "release"))
    unit = (ROOT / "systemd" / "table-controller.service").read_text()
    programs = {
        line.split("=", 1)[1].lstrip("-@:+!").split()[0]
        for line in unit.splitlines()
        if line.startswith("Exec") and "=" in line and line.split("=", 1)[1].strip()
    }
    others = {Path(program).name for program in programs if "/table-controller/" not in program}
    assert others and others <= set(COMMANDS), others - set(COMMANDS)


@pytest.mark.slow
@needs_root
@needs("unshare", "installing with no network")
@needs("systemd-analyze", "verifying the installed unit")
def test_the_bundle_installs_offline_with_the_digest_the_build_printed(tmp_path: Path) -> None:
    """Built here (with the package index), installed with no network namespace at all."""
    arch = ARCHES.get(platform.machine())
    if arch is None:
        pytest.skip(f"no bundle for a {platform.machine()} machine")
    key = tmp_path / "release-key"
    subprocess.run(
        [
            require("ssh-keygen", "signing the test bundle"),
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-f",
            str(key),
        ],
        check=True,
    )
    built = subprocess.run(
        [
            sys.executable,
            str(ROOT / "release" / "build.py"),
            "--arch",
            arch,
            "--out",
            str(tmp_path / "dist"),
            "--key",
            str(key),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    [archive] = [
        line.split()[-1] for line in built.stdout.splitlines() if line.startswith("bundle:")
    ]
    [digest_line] = [line for line in built.stdout.splitlines() if "software digest" in line]
    build_digest = digest_line.split()[-1]
    # the digest covers the interpreter's version: the line names the one it is for, the
    # board's python3 (the install's), to the last digit (3.11.2 on Bookworm)
    board_python = subprocess.run(
        [BOARD_PYTHON, "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert f"(sha256, Python {board_python}, " in digest_line, digest_line
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "stick", filter="tar")
    [bundle] = (tmp_path / "stick").iterdir()
    root = scratch_root(tmp_path / "root")
    installed = subprocess.run(
        ["unshare", "-n", str(bundle / "release" / "install.sh")],
        env={**os.environ, "DESTDIR": str(root)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "preflight: ok" in installed.stdout
    assert printed_digest(installed) == build_digest
    venv = root / "opt" / "table-controller" / "current" / ".venv"
    check = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import lgpio; print(lgpio.gpiochip_open)"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,  # the real lgpio leaves its notify pipe (.lgd-nfy0) in the cwd
    )
    assert check.returncode == 0, check.stderr


@pytest.mark.slow
def test_pyyamls_pure_wheel_for_armhf_builds_from_an_empty_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen on 0.2.1: armhf did not build on a clean machine. systemd/lock.py set
    PYYAML_FORCE_LIBYAML="" and PyYAML's build failed (``ValueError: invalid literal for
    int() with base 10: ''``); it had passed only from pip's cache. Built here with an
    empty cache, it is the wheel whose SHA-256 requirements.lock pins."""
    monkeypatch.setenv("PIP_CACHE_DIR", str(tmp_path / "empty-cache"))
    sys.path.insert(0, str(ROOT / "systemd"))
    try:
        import lock  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "systemd"))
    pinned = (ROOT / "requirements.lock").read_text()
    [requirement] = [line.split()[0] for line in pinned.splitlines() if line.startswith("pyyaml==")]
    wheel = lock.pure_wheel(requirement, tmp_path / "out")
    assert wheel.name == f"{requirement.replace('==', '-')}-py3-none-any.whl"
    assert f"--hash=sha256:{hashlib.sha256(wheel.read_bytes()).hexdigest()}" in pinned
