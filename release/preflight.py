#!/usr/bin/env python3
"""The release bundle's pre-flight check, run on the board before anything is installed
(``release/install.sh`` runs it first): the Python version, the architecture, the
virtual-environment module, the bundle's real GPIO library for this Python, free disk space and the system
commands the install needs. Each failure is one line saying what to do; the exit status
is 1 if any failed. Standard library only: it runs on the board's bare ``python3``.

    python3 release/preflight.py [--wheels DIR] [--prefix /opt] [--min-free-mb 300]
        [--state-dir /var/lib/table-controller] [--backups /var/backups/table-controller]

``systemd/install.sh`` runs it whenever it installs from a wheelhouse, before it changes
anything (``release/install.sh`` runs that).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import shutil
import struct
import sys
import zipfile
from pathlib import Path

#: The Pythons a bundle carries wheels for: Bookworm's 3.11 and Trixie's 3.13.
PYTHONS = ((3, 11), (3, 13))
#: The architecture of each bundle (release/build.py) and the machine names it runs on.
MACHINES = {"amd64": ("x86_64",), "arm64": ("aarch64",), "armhf": ("armv7l", "armv8l")}


def board_arch() -> str | None:
    """The bundle this Python takes: a 32-bit Raspberry Pi OS on a 64-bit kernel (the
    default on a Pi 4 or 5) says aarch64 but runs armhf programs."""
    machine = platform.machine()
    if struct.calcsize("P") == 4 and machine in ("aarch64", "armv7l", "armv8l"):
        return "armhf"
    return next((arch for arch, names in MACHINES.items() if machine in names), None)


#: The system commands install.sh and the service's unit run, and the Debian package
#: that has each. ``kill``: the unit's ``ExecReload=`` (a minimal Debian has no procps,
#: and the unit then fails systemd-analyze's check, which stops the install).
COMMANDS = {
    "systemctl": "systemd",
    "useradd": "passwd",
    "groupadd": "passwd",
    "install": "coreutils",
    "tar": "tar",
    "kill": "procps",
    "ssh-keygen": "openssh-client",  # release/verify.py checks the bundle's signature with it
}
FREE_MB = 300


def check_python() -> str | None:
    found = sys.version_info[:2]
    if found in PYTHONS:
        return None
    return (
        f"Python {found[0]}.{found[1]} found; the release is for Python 3.11 (Debian 12 /"
        " Raspberry Pi OS Bookworm) or 3.13 (Debian 13 / Trixie): install the board with one"
        " of those systems"
    )


def check_machine(arch: str | None) -> str | None:
    board = board_arch()
    if arch is None or board == arch:
        return None
    hint = f"copy table-controller-*-{board}.tar.gz instead" if board else "no bundle fits it"
    return f"this bundle is for {arch} but the board is {board or platform.machine()}: {hint}"


def check_venv() -> str | None:
    if importlib.util.find_spec("ensurepip") and importlib.util.find_spec("venv"):
        return None
    return "Python's venv module is missing: sudo apt install python3-venv"


def placeholder(wheel: Path) -> bool:
    """lgpio 0.0.0.x, a py3-none-any wheel, is an empty placeholder on PyPI (what pip
    takes for a platform with no real wheel): it installs and imports, and has no GPIO.
    The real one carries the compiled library (_lgpio*.so)."""
    parts = wheel.name[: -len(".whl")].split("-")
    if parts[1].startswith("0.0.") or parts[-1] == "any":
        return True
    try:
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return True
    return not any(Path(name).name.startswith("_lgpio") for name in names)


def check_lgpio(wheels: Path | None) -> str | None:
    """The bundle's GPIO library for this Python: the program's environment does not see
    the system's site packages, so a python3-lgpio from apt is not used."""
    if wheels is None:
        return None
    offered = sorted(wheels.glob("lgpio-*.whl"))
    empty = [wheel.name for wheel in offered if placeholder(wheel)]
    if empty:
        return f"{empty[0]} is an empty placeholder: rebuild the bundle with release/build.py"
    tag = "cp{}{}".format(*sys.version_info[:2])
    if any(f"-{tag}-" in wheel.name for wheel in offered):
        return None
    return (
        f"no GPIO library for Python {sys.version_info[0]}.{sys.version_info[1]}: the bundle"
        " has no lgpio wheel for it (the program does not use the system's python3-lgpio):"
        " a bundle built with one (release/build.py --gpio-wheel, docs/install.md)"
    )


def existing(path: Path) -> Path:
    while not path.exists():
        path = path.parent
    return path


def size_mb(folder: Path) -> int:
    """The space a copy of FOLDER takes (its files' blocks), rounded up."""
    if not folder.is_dir():
        return 0
    used = sum(path.lstat().st_blocks * 512 for path in folder.rglob("*") if not path.is_symlink())
    return -(-used // 2**20)


def check_space(prefix: Path, need_mb: int, state: Path, backups: Path) -> list[str]:
    """The release's room under PREFIX, and the journal's copy taken before the switch
    (systemd/install.sh) in BACKUPS: both on one filesystem, their sum."""
    journal = size_mb(state)
    needs: dict[int, tuple[Path, int, list[str]]] = {}
    for path, mb, what in (
        (prefix, need_mb, "the release"),
        (backups, journal, "the journal's copy"),
    ):
        folder = existing(path)
        device = folder.stat().st_dev
        where, total, whats = needs.get(device, (folder, 0, []))
        needs[device] = (where, total + mb, [*whats, f"{what} {mb} MB"])
    found = []
    for folder, total, whats in needs.values():
        free = shutil.disk_usage(folder).free // 2**20
        if free < total:
            found.append(
                f"only {free} MB free on {folder}: free at least {total} MB there ({', '.join(whats)})"
            )
    return found


def check_commands() -> list[str]:
    return [
        f"the command {command} is missing: sudo apt install {package}"
        for command, package in COMMANDS.items()
        if shutil.which(command) is None
    ]


#: The architecture of a compiled wheel, by the end of its platform tag.
WHEEL_MACHINES = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "armhf"}


def bundle_arch(wheels: Path | None) -> str | None:
    """The bundle's ARCH; for a wheelhouse without one, its compiled wheels' (a wheel for
    another machine is named as such, not as a version pip cannot find)."""
    if wheels is None:
        return None
    if (wheels / "ARCH").is_file():
        return (wheels / "ARCH").read_text().strip()
    for wheel in sorted(wheels.glob("*.whl")):
        tag = wheel.name[: -len(".whl")].split("-")[-1]
        for machine, arch in WHEEL_MACHINES.items():
            if tag.endswith(machine):
                return arch
    return None


def problems(
    wheels: Path | None, prefix: Path, need_mb: int, state: Path, backups: Path
) -> list[str]:
    python = check_python()
    bundle = wheels is None or (wheels / "ARCH").is_file()  # a wheelhouse may have no lgpio
    found = [
        python,
        check_machine(bundle_arch(wheels)),
        check_venv(),
        None if python or not bundle else check_lgpio(wheels),  # another Python's is moot
    ]
    return (
        [problem for problem in found if problem]
        + check_space(prefix, need_mb, state, backups)
        + check_commands()
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, help="the bundle's wheels folder")
    parser.add_argument(
        "--prefix", type=Path, default=Path(os.environ.get("DESTDIR") or "/") / "opt"
    )
    parser.add_argument("--min-free-mb", type=int, default=FREE_MB)
    root = Path(os.environ.get("DESTDIR") or "/")
    parser.add_argument("--state-dir", type=Path, default=root / "var/lib/table-controller")
    parser.add_argument("--backups", type=Path, default=root / "var/backups/table-controller")
    args = parser.parse_args(argv)
    found = problems(args.wheels, args.prefix, args.min_free_mb, args.state_dir, args.backups)
    for problem in found:
        print(f"preflight: {problem}", file=sys.stderr)
    if not found:
        print("preflight: ok")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
