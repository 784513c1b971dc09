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
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from pip._vendor.packaging.utils import canonicalize_name, parse_wheel_filename

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
PYTHON_VERSION = "3.11"
#: pip's platform tags of the boards (64-bit Raspberry Pi OS / Debian) and of a PC bench.
PLATFORMS = ("manylinux2014_aarch64", "manylinux2014_x86_64")


def dependencies() -> list[str]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return list(tomllib.load(file)["project"]["dependencies"])


def download(requirements: list[str], platform: str, folder: Path) -> list[Path]:
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
            PYTHON_VERSION,
            "--implementation",
            "cp",
            *requirements,
        ],
        check=True,
    )
    return sorted(folder.glob("*.whl"))


def main() -> int:
    files: dict[tuple[str, str], set[str]] = {}
    pins: list[str] = dependencies()
    with tempfile.TemporaryDirectory() as scratch:
        for number, platform in enumerate(PLATFORMS):
            for wheel in download(pins, platform, Path(scratch) / platform):
                name, version, _, _ = parse_wheel_filename(wheel.name)
                key = (canonicalize_name(name), str(version))
                files.setdefault(key, set()).add(hashlib.sha256(wheel.read_bytes()).hexdigest())
            if number == 0:  # the other platforms take the same versions
                pins = [f"{name}=={version}" for name, version in sorted(files)]
    names = [name for name, _ in files]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        print(f"lock.py: the platforms resolved different versions of {twice}", file=sys.stderr)
        return 1
    lines = [
        "# The release's run-time dependencies, pinned with the SHA-256 of every file pip may",
        f"# install for them (Python {PYTHON_VERSION}; {', '.join(PLATFORMS)}).",
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
