#!/usr/bin/env python3
"""Write ``requirements.lock``: every run-time dependency of the release pinned to one
version, with the SHA-256 of each file pip may install for it on the platforms a
release is built for (``pip download`` + the files' hashes, as ``pip hash`` gives them).

    python3 systemd/lock.py            # on a machine with access to the package index

``systemd/install.sh`` installs the dependencies from it with ``pip install
--require-hashes``: a file whose hash the lock does not list is refused, so every board
runs the dependencies the release was tested and approved with (docs/install.md).
Run it when ``pyproject.toml``'s dependencies change, or to take newer versions, and
commit the result with the release (CHANGELOG.md says so).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from pip._vendor.packaging.utils import canonicalize_name, parse_wheel_filename

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
#: The Pythons of the boards: Bookworm's 3.11 and Trixie's 3.13.
PYTHON_VERSIONS = ("3.11", "3.13")
#: pip's platform tags of the boards (64-bit Raspberry Pi OS / Debian) and of a PC bench.
PLATFORMS = ("manylinux2014_aarch64", "manylinux2014_x86_64")
#: 32-bit boards (armhf): PyPI has no armv7 wheel of PyYAML; the release carries the
#: pure-Python wheel built from PyYAML's source (the same bytes on every build: a fixed
#: SOURCE_DATE_EPOCH), whose hash the lock pins beside the others (release/build.py).
PURE = ("pyyaml",)
SOURCE_DATE_EPOCH = "1700000000"
#: The build back-end of every wheel a release builds (the program's, PyYAML's pure
#: one): its name and version are inside each wheel, so a newer setuptools on PyPI would
#: change the bytes (and PyYAML's wheel would no longer match its hash here).
BUILD_BACKEND = "setuptools==84.2.1"


def build_env(epoch: str, folder: Path) -> dict[str, str]:
    """The environment of a wheel's build: its times EPOCH, its back-end pinned (pip's
    isolated build environment reads PIP_CONSTRAINT too)."""
    folder.mkdir(parents=True, exist_ok=True)
    constraints = folder / "build-constraints.txt"
    constraints.write_text(BUILD_BACKEND + "\n")
    return {**os.environ, "SOURCE_DATE_EPOCH": epoch, "PIP_CONSTRAINT": str(constraints)}


def dependencies() -> list[str]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return list(tomllib.load(file)["project"]["dependencies"])


def download(requirements: list[str], platform: str, python: str, folder: Path) -> list[Path]:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--dest",
            str(folder),
            "--only-binary=:all:",
            "--platform",
            platform,
            "--python-version",
            python,
            "--implementation",
            "cp",
            *requirements,
        ],
        check=True,
    )
    return sorted(folder.glob("*.whl"))


def pure_wheel(requirement: str, folder: Path) -> Path:
    """The pure-Python wheel of ``requirement`` built from its source, reproducibly (no
    C extension: the build machine's libyaml headers are not used). PyYAML reads
    PYYAML_FORCE_LIBYAML as a number (0: no extension; an empty value fails its build:
    it passed only from pip's cache). Only the package itself is built from source: its
    build's own requirements (setuptools, Cython) come as wheels."""
    env = {**build_env(SOURCE_DATE_EPOCH, folder), "PYYAML_FORCE_LIBYAML": "0"}
    name = requirement.split("==")[0]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-binary",
            name,
            "--wheel-dir",
            str(folder),
            requirement,
        ],
        check=True,
        env=env,
    )
    [wheel] = folder.glob("*-py3-none-any.whl")
    return wheel


def main() -> int:
    files: dict[tuple[str, str], set[str]] = {}
    pins: list[str] = dependencies()
    with tempfile.TemporaryDirectory() as scratch:
        wheels: list[Path] = []
        for number, (platform, python) in enumerate(
            (platform, python) for platform in PLATFORMS for python in PYTHON_VERSIONS
        ):
            wheels = download(pins, platform, python, Path(scratch) / f"{platform}-{python}")
            for wheel in wheels:
                name, version, _, _ = parse_wheel_filename(wheel.name)
                key = (canonicalize_name(name), str(version))
                files.setdefault(key, set()).add(hashlib.sha256(wheel.read_bytes()).hexdigest())
            if number == 0:  # the other platforms take the same versions
                pins = [f"{name}=={version}" for name, version in sorted(files)]
        for name, version in sorted(files):
            if name in PURE:
                wheel = pure_wheel(f"{name}=={version}", Path(scratch) / "pure")
                files[(name, version)].add(hashlib.sha256(wheel.read_bytes()).hexdigest())
    names = [name for name, _ in files]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        print(f"lock.py: the platforms resolved different versions of {twice}", file=sys.stderr)
        return 1
    lines = [
        "# The release's run-time dependencies, pinned with the SHA-256 of every file pip may",
        f"# install for them (Python {', '.join(PYTHON_VERSIONS)}; {', '.join(PLATFORMS)};",
        f"# the pure-Python wheel of {', '.join(PURE)} for armv7).",
        "# Written by systemd/lock.py from pyproject.toml: do not edit by hand.",
    ]
    for (name, version), hashes in sorted(files.items()):
        lines.append(f"{name}=={version} \\")
        lines.extend(f"    --hash=sha256:{digest} \\" for digest in sorted(hashes)[:-1])
        lines.append(f"    --hash=sha256:{sorted(hashes)[-1]}")
    LOCK.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{LOCK.relative_to(ROOT)}: {len(files)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
