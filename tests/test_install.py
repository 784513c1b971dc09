"""``systemd/install.sh`` into a scratch root (``DESTDIR``), offline from a wheelhouse:
the user and groups, the directories with their owners and modes, the unit verified
there by ``systemd-analyze verify --root``, the configuration kept on a second run,
and the software verification of what was installed (``tablectl verify-software`` and
the daemon's start-up check) against a file changed after the install."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.daemon_helpers import write_config
from tests.system_tools import needs, require
from tests.test_unit_sandbox import needs_root

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "systemd" / "install.sh"
PREFIX = "opt/table-controller"
UNIT_PATH = "/etc/systemd/system/table-controller.service"

pytestmark = [
    pytest.mark.slow,
    needs_root,
    needs("systemd-analyze", "verifying the installed unit"),
]


#: The interpreter the install scripts run (``python3`` on the path): the wheelhouse
#: is made for it, as one is made for the board's Python. Not ``sys.executable``: the
#: tests may run under another Python (3.12, 3.13), whose wheels the board's pip
#: would not take.
BOARD_PYTHON = shutil.which("python3") or sys.executable


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The release's wheel and its dependencies, as made on another machine."""
    folder = tmp_path_factory.mktemp("wheelhouse")
    subprocess.run(
        [BOARD_PYTHON, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(folder), str(ROOT)],
        check=True,
        timeout=600,
    )
    return folder


def scratch_root(folder: Path) -> Path:
    """An empty system: the account files, systemd's own units (for verify --root), kill
    (ExecReload=). No gpio group and no tablectl user yet; dialout exists."""
    (folder / "etc").mkdir(parents=True)
    (folder / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (folder / "etc" / "group").write_text("root:x:0:\ndialout:x:20:\n")
    (folder / "etc" / "shadow").write_text("root:*:19000:0:99999:7:::\n")
    (folder / "etc" / "gshadow").write_text("root:*::\ndialout:*::\n")
    for name in ("shadow", "gshadow"):
        (folder / "etc" / name).chmod(0o640)
    (folder / "usr" / "lib" / "systemd").mkdir(parents=True)
    shutil.copytree(
        "/usr/lib/systemd/system", folder / "usr" / "lib" / "systemd" / "system", symlinks=True
    )
    (folder / "usr" / "bin").mkdir()
    kill = shutil.which("kill")
    assert kill is not None
    shutil.copy2(kill, folder / "usr" / "bin" / "kill")
    (folder / "bin").symlink_to("usr/bin")
    return folder


def install(root: Path, wheelhouse: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DESTDIR": str(root)}
    result = subprocess.run(
        [str(INSTALL), "--wheelhouse", str(wheelhouse)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


#: The software digest each install of the module's root printed.
PRINTED: list[str] = []


def printed_digest(result: subprocess.CompletedProcess[str]) -> str:
    [line] = [line for line in result.stdout.splitlines() if "software digest" in line]
    return line.split()[-1]


def account(root: Path, name: str, file: str) -> list[str]:
    for line in (root / "etc" / file).read_text().splitlines():
        if line.split(":")[0] == name:
            return line.split(":")
    raise AssertionError(f"{name} not in {file}")


def owner_mode(path: Path) -> tuple[int, int, str]:
    info = path.stat()
    return info.st_uid, info.st_gid, oct(stat.S_IMODE(info.st_mode))


def tree(root: Path) -> dict[str, tuple[int, int, str, str]]:
    """Everything outside the virtual environment: owner, group, mode, content."""
    found = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if "/.venv" in relative or relative.startswith("usr/") or path.is_symlink():
            continue
        content = "" if path.is_dir() else path.read_text(errors="replace")
        found[relative] = (*owner_mode(path), content)
    return found


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Iterator[Path]:
    root = scratch_root(tmp_path_factory.mktemp("scratch") / "root")
    first = install(root, wheelhouse)
    assert "user tablectl created" in first.stdout and "group gpio created" in first.stdout
    PRINTED.append(printed_digest(first))
    yield root


def test_the_user_groups_and_directories(installed: Path) -> None:
    root = installed
    user = account(root, "tablectl", "passwd")
    uid, gid = int(user[2]), int(user[3])
    assert uid < 1000 and user[5:] == ["/var/lib/table-controller", "/usr/sbin/nologin"]
    for group in ("gpio", "dialout"):
        assert "tablectl" in account(root, group, "group")[3].split(","), group
    assert owner_mode(root / PREFIX) == (0, 0, "0o755")
    assert owner_mode(root / "etc/table-controller") == (0, gid, "0o750")
    assert owner_mode(root / "var/lib/table-controller") == (uid, gid, "0o750")
    assert owner_mode(root / "etc/table-controller/table.yaml") == (0, gid, "0o640")
    assert (root / "etc/table-controller/table.yaml").read_text() == (
        ROOT / "config/table.example.yaml"
    ).read_text()
    assert (root / "etc/udev/rules.d/60-table-controller-gpio.rules").is_file()
    assert (root / "etc/modules-load.d/table-controller.conf").read_text() == (
        ROOT / "systemd/table-controller.modules-load.conf"
    ).read_text()
    assert not any(path.name == ".git" for path in (root / PREFIX).iterdir())
    writable = [
        p for p in (root / PREFIX).rglob("*") if not p.is_symlink() and p.stat().st_mode & 0o022
    ]
    assert not writable, writable[:5]


def test_the_unit_verifies_in_the_installed_root(installed: Path) -> None:
    analyze = require("systemd-analyze", "verifying the installed unit")
    # ExecStart runs the environment's python, a link to the system's interpreter
    # (absolute): a stand-in for it in the scratch root, as a board has the real one.
    python = installed / PREFIX / "current/.venv/bin/python"
    while python.is_symlink():
        target = Path(os.readlink(python))
        python = (
            installed / target.relative_to("/") if target.is_absolute() else python.parent / target
        )
    if not python.exists():
        python.parent.mkdir(parents=True, exist_ok=True)
        python.write_text("#!/bin/sh\nexit 0\n")
        python.chmod(0o755)
    result = subprocess.run(
        [analyze, "verify", f"--root={installed}", UNIT_PATH],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (result.returncode, result.stderr.strip()) == (0, ""), result.stderr
    release = os.readlink(installed / PREFIX / "current")
    assert (
        release.startswith(f"releases/{version('table-controller')}-")
        and (installed / PREFIX / release).is_dir()
    )
    assert (
        (installed / PREFIX / "current/.venv/bin/tablectl")
        .read_text()
        .startswith(f"#!/{PREFIX}/{release}/.venv/bin/python\n")
    )


def test_a_second_run_changes_nothing_and_keeps_the_configuration(
    installed: Path, wheelhouse: Path
) -> None:
    configuration = installed / "etc/table-controller/table.yaml"
    configuration.write_text(configuration.read_text() + "# edited by the technician\n")
    before = tree(installed)
    second = install(installed, wheelhouse)
    assert "created" not in second.stdout and "kept" in second.stdout
    assert "is already installed (built from the same files)" in second.stdout
    # Installed again, a while later: the same digest (pip's .pyc files carry the time).
    assert printed_digest(second) == PRINTED[0]
    assert tree(installed) == before
    assert configuration.read_text().endswith("# edited by the technician\n")


def test_the_environment_does_not_see_the_systems_site_packages(installed: Path) -> None:
    """Seen on 0.2.1: a Bookworm board's digest differed from the build's by ``.pth``
    files in /usr/lib/python3/dist-packages, and ``apt install python3-pip`` (which brings
    python3-setuptools and its distutils-precedence.pth) locked play on a running board.
    The environment owns everything the program imports: on its path only itself and the
    interpreter's standard library, no site folder of the system's."""
    venv = installed / PREFIX / "current/.venv"
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text().splitlines()
    found = subprocess.run(
        [
            str(venv / "bin/python"),
            "-c",
            "import json, site, sys; print(json.dumps([sys.path, sys.base_prefix,"
            " site.getsitepackages([sys.base_prefix])]))",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
        env={key: value for key, value in os.environ.items() if not key.startswith("PYTHON")},
    )
    path, base, system_sites = json.loads(found.stdout)
    short = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    resolved = venv.resolve()
    for entry in filter(None, path):  # "": -c's current folder
        inside = Path(entry).resolve().is_relative_to(resolved)
        stdlib = entry.startswith(f"{base}/lib/{short}") and "-packages" not in entry
        assert inside or stdlib or entry.endswith(".zip"), entry
    assert not set(path) & set(system_sites), system_sites


def staged_tablectl(root: Path) -> list[str]:
    """The staged program's command line, run where it runs on a board: its scripts
    and pyvenv.cfg name /opt/table-controller, so the staged tree is mounted there in
    a private mount namespace (nothing on this machine changes)."""
    unshare = require("unshare", "running the staged program at its final path")
    mount = (
        "mount -t tmpfs tmpfs /opt && mkdir /opt/table-controller && "
        f'mount --bind "{root / PREFIX}" /opt/table-controller && exec "$@"'
    )
    return [unshare, "--mount", "--propagation", "private", "sh", "-c", mount, "sh"] + [
        f"/{PREFIX}/current/.venv/bin/tablectl"
    ]


def verify_software(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*staged_tablectl(root), "verify-software", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_verify_software_prints_the_digest_and_finds_a_changed_file(
    installed: Path, wheelhouse: Path, tmp_path: Path
) -> None:
    clean = verify_software(installed)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    digest = next(line for line in clean.stdout.splitlines() if line.startswith("sha256: "))
    assert len(digest.split()[1]) == 64 and "software verified" in clean.stdout
    assert digest.split()[1] == PRINTED[0]  # the one the install printed
    seeded = verify_software(installed, "--seed", "00112233aabbccdd")
    keyed = next(line for line in seeded.stdout.splitlines() if line.startswith("hmac-sha256"))
    assert keyed.split()[-1] != digest.split()[1]
    assert verify_software(installed, "--seed", "00112233aabbccdd").stdout == seeded.stdout

    # Someone edits the installed program.
    site = next((installed / PREFIX / "current/.venv/lib").glob("python3*/site-packages"))
    target = site / "controller" / "rules" / "__init__.py"
    original = target.read_bytes()
    target.write_bytes(original + b"\n# patched in the field\n")
    try:
        modified = verify_software(installed)
        assert modified.returncode == 3, modified.stdout
        assert "software modified: 1 changed (lib/python" in modified.stdout
        assert "controller/rules/__init__.py" in modified.stdout
        assert (
            next(line for line in modified.stdout.splitlines() if line.startswith("sha256: "))
            != digest
        )

        # The daemon, started from the installed program, locks play and says why.
        config = write_config(tmp_path)
        log = tmp_path / "daemon.log"
        with log.open("w") as errors:
            daemon = subprocess.Popen(
                [
                    *staged_tablectl(installed),
                    "run",
                    "--config",
                    str(config),
                    "--simulated",
                    "--stdin-events",
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                cwd=tmp_path,
                env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            )
            assert daemon.stdin is not None and daemon.stdout is not None
            daemon.stdin.write('{"type": "sit", "seat": 2, "player": "ana", "chips": 1000}\n')
            daemon.stdin.flush()
            answer = json.loads(daemon.stdout.readline())
            daemon.terminate()
            assert daemon.wait(60) == 0
        assert answer["ok"] is False and answer["error"]["code"] == "software_fault", answer
        text = log.read_text()
        assert "SOFTWARE MODIFIED (start): sha256 " in text
        assert "controller/rules/__init__.py" in text
    finally:
        target.write_bytes(original)
    assert verify_software(installed).returncode == 0


def test_a_staged_install_into_an_empty_folder_runs_from_its_final_path(
    wheelhouse: Path, tmp_path: Path
) -> None:
    """DESTDIR into an empty folder (an image being built): no accounts to edit there,
    so they are left to systemd-sysusers and systemd-tmpfiles on the board; no file
    names the staging folder; moved to its final path, the program runs and verifies
    with the digest the install printed."""
    root = tmp_path / "image"
    root.mkdir()
    staged = install(root, wheelhouse)
    assert "staged: the accounts are made on the board" in staged.stdout
    digest = printed_digest(staged)
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.suffix not in (".pyc", ".so"):
            assert str(root).encode() not in path.read_bytes(), path
    # The board's first boot: the accounts, then the owners.
    sysusers = require("systemd-sysusers", "making the staged image's accounts")
    subprocess.run([sysusers, f"--root={root}"], check=True, timeout=60)
    user = account(root, "tablectl", "passwd")
    for group in ("gpio", "dialout"):
        assert "tablectl" in account(root, group, "group")[3].split(","), group
    tmpfiles = require("systemd-tmpfiles", "setting the staged image's owners")
    subprocess.run([tmpfiles, f"--root={root}", "--create"], check=True, timeout=60)
    uid, gid = int(user[2]), int(user[3])
    assert owner_mode(root / "var/lib/table-controller") == (uid, gid, "0o750")
    assert owner_mode(root / "etc/table-controller") == (0, gid, "0o750")
    assert owner_mode(root / "etc/table-controller/table.yaml") == (0, gid, "0o640")
    # Copied to a board: the staged program at /opt/table-controller (a private mount).
    ran = subprocess.run(
        [*staged_tablectl(root), "verify-software"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert f"sha256: {digest}" in ran.stdout and "software verified" in ran.stdout
    release = f"{version('table-controller')}-{digest[:12]}"
    assert f"in /opt/table-controller/releases/{release}/.venv," in ran.stdout
