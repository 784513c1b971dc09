#!/usr/bin/env python3
"""Build the release bundle of one architecture: the file a technician copies to a USB
stick and installs on the board with no network (docs/install.md, step 2).

    python3 release/build.py --arch arm64      # amd64, arm64 or armhf; on a machine with the package index

It writes ``dist/table-controller-VERSION-ARCH.tar.gz``: the release's files (what git
tracks), and in ``wheels/`` the program's own wheel, every dependency as
``requirements.lock`` pins it (checked against its hashes) for Python 3.11 and 3.13,
the GPIO library's real wheel (lgpio, Python 3.11; a placeholder is refused), and
``SHA256SUMS``. On a machine of the bundle's architecture it also installs the bundle
into a scratch environment and prints the software digest every board's install of it
prints (``tablectl verify-software``).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "release"))
from preflight import PYTHONS, board_arch, placeholder  # noqa: E402

#: pip's platform tags of each architecture (wheels made for older glibcs fit too).
PLATFORM_TAGS = {
    "amd64": ("manylinux_2_34_x86_64", "manylinux2014_x86_64", "linux_x86_64"),
    "arm64": ("manylinux_2_34_aarch64", "manylinux2014_aarch64", "linux_aarch64"),
    "armhf": ("manylinux2014_armv7l", "linux_armv7l"),
}
#: The GPIO library's release with real wheels (Python 3.11 only on PyPI; on 3.13 the
#: board's python3-lgpio from apt is used: release/preflight.py says so).
LGPIO = "lgpio==0.2.2.0"
SOURCE_DATE_EPOCH = "1700000000"


def lock_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("lock", ROOT / "systemd" / "lock.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def pip(*args: str, env: dict[str, str] | None = None) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet", *args]
    subprocess.run(command, check=True, env=env)


def download(arch: str, python: str, folder: Path, *requirements: str) -> None:
    tags = [option for tag in PLATFORM_TAGS[arch] for option in ("--platform", tag)]
    pip(
        "download",
        "--dest",
        str(folder),
        "--only-binary=:all:",
        "--no-deps",
        *tags,
        "--python-version",
        python,
        "--implementation",
        "cp",
        *requirements,
    )


def locked_pins(pure: set[str]) -> tuple[Path, list[str]]:
    """The lock without the packages to be built pure (a temporary file), and those."""
    lines = (ROOT / "requirements.lock").read_text().splitlines()
    kept: list[str] = []
    names: list[str] = []
    skipping = False
    for line in lines:
        if line and not line.startswith((" ", "#")):
            name = line.split("==")[0]
            skipping = name in pure
            if skipping:
                names.append(line.split()[0])
        if not skipping:
            kept.append(line)
    file = Path(tempfile.mkstemp(suffix=".lock")[1])
    file.write_text("\n".join(kept) + "\n")
    return file, names


def hashes_in_lock() -> set[str]:
    text = (ROOT / "requirements.lock").read_text()
    return {word.split(":", 1)[1] for word in text.split() if word.startswith("--hash=sha256:")}


def dependencies(arch: str, wheels: Path) -> None:
    """Every locked dependency for both Pythons, checked against the lock's hashes; on
    armhf PyYAML's pure-Python wheel built from source (PyPI has no armv7 wheel)."""
    lock = lock_module()
    pure = set(lock.PURE) if arch == "armhf" else set()
    pins, built = locked_pins(pure)
    try:
        for major, minor in PYTHONS:
            download(arch, f"{major}.{minor}", wheels, "--require-hashes", "-r", str(pins))
    finally:
        pins.unlink()
    known = hashes_in_lock()
    for requirement in built:
        with tempfile.TemporaryDirectory() as scratch:
            wheel = lock.pure_wheel(requirement, Path(scratch))
            if hashlib.sha256(wheel.read_bytes()).hexdigest() not in known:
                raise SystemExit(f"build: {wheel.name} differs from the one requirements.lock pins")
            shutil.move(wheel, wheels / wheel.name)


def gpio_library(arch: str, wheels: Path) -> None:
    download(arch, "3.11", wheels, LGPIO)
    for wheel in wheels.glob("lgpio-*.whl"):
        if placeholder(wheel):
            raise SystemExit(f"build: {wheel.name} is an empty placeholder, not the GPIO library")


def program(bundle: Path, wheels: Path) -> None:
    """The program's own wheel, built from a copy of the release's files (the build's
    leftovers stay out of the bundle)."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH}
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "source"
        shutil.copytree(bundle, source)
        pip("wheel", "--no-deps", "--wheel-dir", str(wheels), str(source), env=env)


def tracked() -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [name for name in out.split("\0") if name and (ROOT / name).is_file()]


def checksums(wheels: Path) -> None:
    lines = [
        f"{hashlib.sha256(wheel.read_bytes()).hexdigest()}  {wheel.name}"
        for wheel in sorted(wheels.glob("*.whl"))
    ]
    (wheels / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def digest(bundle: Path) -> tuple[str, str] | None:
    """Install the bundle as a board does (install-program.sh, from the wheels only) and
    return the digest it prints with the Python it was installed for (the digest covers
    the interpreter's version: a board with another Python prints another digest)."""
    with tempfile.TemporaryDirectory() as scratch:
        venv = Path(scratch) / ".venv"
        result = subprocess.run(
            [
                str(bundle / "systemd" / "install-program.sh"),
                str(venv),
                str(bundle),
                str(bundle / "wheels"),
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        python = subprocess.run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import platform; print(platform.python_version())",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    for line in result.stdout.splitlines():
        if "software digest" in line:
            return line.split()[-1], python
    return None


def build(arch: str, out: Path) -> tuple[Path, tuple[str, str] | None]:
    name = f"table-controller-{version()}-{arch}"
    bundle = out / name
    shutil.rmtree(bundle, ignore_errors=True)
    bundle.mkdir(parents=True)
    for relative in tracked():
        target = bundle / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, target)
    wheels = bundle / "wheels"
    program(bundle, wheels)
    (wheels / "ARCH").write_text(arch + "\n")
    dependencies(arch, wheels)
    gpio_library(arch, wheels)
    checksums(wheels)
    found = digest(bundle) if board_arch() == arch else None
    archive = out / f"{name}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(bundle, arcname=name)
    return archive, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True, choices=sorted(PLATFORM_TAGS))
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    args = parser.parse_args(argv)
    archive, found = build(args.arch, args.out.resolve())
    print(f"bundle: {archive}")
    if found:
        sha, python = found
        print(f"software digest (sha256, Python {python}, {args.arch}) {sha}")
    else:
        print(f"software digest: install the bundle once on a {args.arch} board to read it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
