#!/usr/bin/env python3
"""Build the release bundle of one architecture: the file a technician copies to a USB
stick and installs on the board with no network (docs/install.md, step 2).

    python3 release/build.py --arch arm64 --key ~/release-key   # amd64, arm64 or armhf

It writes ``dist/table-controller-VERSION-ARCH.tar.gz``: the release's files (what git
tracks), and in ``wheels/`` the program's own wheel, every dependency as
``requirements.lock`` pins it (checked against its hashes) for Python 3.11 and 3.13,
the GPIO library's real wheel (lgpio: Python 3.11's from PyPI, 3.13's built from its
source by ``release/gpio_wheel.sh`` with the SHA-256 ``release/gpio-wheels.sha256``
pins; a placeholder is refused), and
``SHA256SUMS`` of the wheels. At the bundle's top: ``RELEASE`` (the version, the
architecture and the commit it was built from), ``SHA256SUMS`` of every file, signed
with the release key (``SHA256SUMS.sig``, ``ssh-keygen -Y sign``), and in
``release/allowed_signers`` the keys the board trusts for the next release
(docs/install.md, "The release key"). The same commit builds the same bytes, wherever
and whenever: every time in the bundle is the commit's (``SOURCE_DATE_EPOCH``), owners
and modes are fixed, members sorted. On a machine of the bundle's architecture it also
installs the bundle into a scratch environment and prints the software digest every
board's install of it prints (``tablectl verify-software``).
"""

from __future__ import annotations

import argparse
import gzip
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
#: The GPIO library's release with real wheels (Python 3.11 only on PyPI; a bundle for
#: 3.13 takes the wheel release/gpio_wheel.sh builds from its source, GPIO_PINS).
LGPIO = "lgpio==0.2.2.0"
#: Who signs a release and for what, as ``ssh-keygen -Y`` names them (release/verify.py
#: checks the same two words).
SIGNER = "table-controller-release"
#: The SHA-256 of the lgpio wheels built from its source (release/gpio_wheel.sh), and
#: where that script leaves them.
GPIO_PINS = ROOT / "release" / "gpio-wheels.sha256"
GPIO_WHEELS = ROOT / "dist" / "gpio-wheels"


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


def gpio_pins(pins: Path = GPIO_PINS) -> dict[str, str]:
    """The SHA-256 of each lgpio wheel PINS names (release/gpio-wheels.sha256)."""
    found: dict[str, str] = {}
    for line in pins.read_text().splitlines():
        sha, _, name = line.partition("  ")
        if name.endswith(".whl") and len(sha) == 64:
            found[name] = sha
    return found


def gpio_builds(arch: str, given: list[Path], folder: Path, pins: Path = GPIO_PINS) -> list[Path]:
    """The lgpio wheels built outside PyPI (Python 3.13's, release/gpio_wheel.sh) that
    the bundle of ARCH takes: every one PINS names for ARCH, each given (--gpio-wheel) or
    found in FOLDER, with the pinned SHA-256; a wheel PINS does not name, or for another
    architecture, is refused."""
    machine = PLATFORM_TAGS[arch][-1].removeprefix("linux_")
    pinned = gpio_pins(pins)
    for wheel in given:
        if wheel.name not in pinned:
            raise SystemExit(f"build: {wheel.name}: {pins.name} pins no such wheel")
        if not wheel.name.removesuffix(".whl").endswith(machine):
            raise SystemExit(f"build: {wheel.name} is not for {arch}")
    chosen: list[Path] = []
    for name, sha in sorted(pinned.items()):
        if not name.removesuffix(".whl").endswith(machine):
            continue
        wheel = next((path for path in given if path.name == name), folder / name)
        if not wheel.is_file():
            raise SystemExit(
                f"build: no {name} (lgpio for Python 3.13 on {arch}): sudo"
                f" release/gpio_wheel.sh {arch} builds it into {folder} (docs/install.md)"
            )
        found = hashlib.sha256(wheel.read_bytes()).hexdigest()
        if found != sha:
            raise SystemExit(
                f"build: {wheel} is not the wheel {pins.name} pins (SHA-256 {found[:16]}...,"
                f" pinned {sha[:16]}...): build it with release/gpio_wheel.sh {arch}"
            )
        chosen.append(wheel)
    return chosen


def gpio_library(arch: str, wheels: Path, built: list[Path]) -> None:
    """lgpio's wheel for Python 3.11 from PyPI, and the ones BUILT from its source for the
    Pythons PyPI has none for (3.13: release/gpio_wheel.sh, gpio_builds)."""
    download(arch, "3.11", wheels, LGPIO)
    for wheel in built:
        shutil.copyfile(wheel, wheels / wheel.name)
    for wheel in wheels.glob("lgpio-*.whl"):
        if placeholder(wheel):
            raise SystemExit(f"build: {wheel.name} is an empty placeholder, not the GPIO library")


def program(bundle: Path, wheels: Path, epoch: str) -> None:
    """The program's own wheel, built from a copy of the release's files (the build's
    leftovers stay out of the bundle); its members dated by the commit, its build
    back-end the one systemd/lock.py pins."""
    with tempfile.TemporaryDirectory() as scratch:
        env = lock_module().build_env(epoch, Path(scratch))
        source = Path(scratch) / "source"
        shutil.copytree(bundle, source)
        pip("wheel", "--no-deps", "--wheel-dir", str(wheels), str(source), env=env)


def git(*args: str) -> str:
    result = subprocess.run(
        ["git", "-C", str(ROOT), *args], check=False, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise SystemExit(
            f"build: git {args[0]} failed in {ROOT} (a release is built from a commit): "
            + (result.stderr.strip().splitlines() or ["no message"])[0]
        )
    return result.stdout.strip()


def commit() -> str:
    """The commit the bundle is built from; ``-dirty`` when the files differ from it
    (such a bundle cannot be built again from the commit)."""
    dirty = git("status", "--porcelain", "--untracked-files=normal")
    return git("rev-parse", "HEAD") + ("-dirty" if dirty else "")


def source_date_epoch() -> str:
    """Every time in the bundle: the commit's, unless SOURCE_DATE_EPOCH says another."""
    return os.environ.get("SOURCE_DATE_EPOCH") or git("log", "-1", "--format=%ct", "HEAD")


def tracked() -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [name for name in out.split("\0") if name and (ROOT / name).is_file()]


def sums(folder: Path, files: list[Path]) -> str:
    return "".join(
        f"{hashlib.sha256(file.read_bytes()).hexdigest()}  {file.relative_to(folder).as_posix()}\n"
        for file in files
    )


def checksums(wheels: Path) -> None:
    (wheels / "SHA256SUMS").write_text(sums(wheels, sorted(wheels.glob("*.whl"))))


def members(bundle: Path) -> list[Path]:
    """Every file of the bundle, in the order the archive and SHA256SUMS list them."""
    return sorted(
        (path for path in bundle.rglob("*") if path.is_file() or path.is_symlink()),
        key=lambda path: path.relative_to(bundle).as_posix(),
    )


def sign(bundle: Path, key: Path, next_keys: list[Path]) -> None:
    """SHA256SUMS of every file, its signature by the release key, and the keys the
    board is to trust from this release on: this one and any named to succeed it
    (a key's rotation, docs/install.md)."""
    keys = [
        subprocess.run(
            ["ssh-keygen", "-y", "-f", str(key)], check=True, capture_output=True, text=True
        ).stdout.strip()
    ]
    keys += [path.read_text().split("\n")[0].strip() for path in next_keys]
    signers = bundle / "release" / "allowed_signers"
    signers.write_text(
        "".join(f'{SIGNER} namespaces="{SIGNER}" {" ".join(k.split()[:2])}\n' for k in keys)
    )
    signers.chmod(0o644)
    listed = bundle / "SHA256SUMS"
    listed.write_text(sums(bundle, members(bundle)))
    subprocess.run(
        ["ssh-keygen", "-q", "-Y", "sign", "-f", str(key), "-n", SIGNER, str(listed)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    for path in (listed, bundle / "SHA256SUMS.sig"):
        path.chmod(0o644)


def normalized(info: tarfile.TarInfo, epoch: int) -> tarfile.TarInfo:
    info.mtime = epoch
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    executable = info.isdir() or info.mode & 0o100
    info.mode = 0o755 if executable else 0o644
    return info


def archive(bundle: Path, path: Path, epoch: int) -> None:
    """The bundle as a tar.gz whose bytes depend on its files only: members sorted,
    the commit's time on each and in the gzip header, root's, modes 0644 or 0755."""
    folders = sorted(
        {parent for file in members(bundle) for parent in file.relative_to(bundle).parents}
    )
    names = [bundle / folder for folder in folders] + members(bundle)
    with (
        path.open("wb") as raw,
        gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, mtime=epoch, compresslevel=9
        ) as compressed,
        tarfile.open(fileobj=compressed, mode="w", format=tarfile.GNU_FORMAT) as tar,
    ):
        for name in names:
            arcname = (Path(bundle.name) / name.relative_to(bundle)).as_posix()
            tar.add(name, arcname=arcname, recursive=False, filter=lambda i: normalized(i, epoch))


def digest(bundle: Path, board: Path | None) -> tuple[str, str] | None:
    """Install the bundle as a board does (install-program.sh, from the wheels only) and
    return the digest it prints with the Python it was installed for (the digest covers
    the interpreter's version: a board with another Python prints another digest). With
    BOARD, a root of the board's system (Debian Bookworm's, as bench/nspawn_boot.py makes
    it), the install runs in a copy of it (systemd-nspawn, no network): the digest every
    board of that system and architecture prints."""
    with tempfile.TemporaryDirectory() as scratch:
        here, home, command = bundle, Path(scratch), []
        if board is not None:
            root = Path(scratch) / "root"
            subprocess.run(["cp", "-a", str(board), str(root)], check=True)
            shutil.copytree(bundle, root / "root" / bundle.name)
            here, home = Path("/root") / bundle.name, Path("/root")
            command = [
                "systemd-nspawn",
                "-q",
                "--register=no",
                "--keep-unit",  # no scope unit: the build machine may have no system bus
                "--private-network",
                "-D",
                str(root),
            ]
        venv = home / ".venv"
        script = (  # $0 the bundle, $1 the environment
            '"$0/systemd/install-program.sh" "$1" "$0" "$0/wheels" && "$1/bin/python" -c'
            " 'import platform; print(\"python\", platform.python_version())'"
        )
        result = subprocess.run(
            [*command, "sh", "-c", script, str(here), str(venv)],
            check=True,
            capture_output=True,
            text=True,
        )
    lines = result.stdout.splitlines()
    found = [line.split()[-1] for line in lines if "software digest" in line]
    python = [line.split()[-1] for line in lines if line.startswith("python ")]
    return (found[0], python[0]) if found and python else None


def copy_release(bundle: Path) -> None:
    """The release's files, each 0644 or 0755 (git's own two modes): a clone's umask
    does not reach the bundle nor the program's wheel."""
    for relative in tracked():
        target = bundle / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, target)
        target.chmod(0o755 if os.access(ROOT / relative, os.X_OK) else 0o644)


def build(
    arch: str,
    out: Path,
    key: Path,
    next_keys: list[Path],
    gpio_wheels: list[Path],
    board: Path | None = None,
    gpio_folder: Path = GPIO_WHEELS,
) -> tuple[Path, tuple[str, str] | None]:
    built = gpio_builds(arch, gpio_wheels, gpio_folder)  # refused before anything is built
    name = f"table-controller-{version()}-{arch}"
    bundle = out / name
    shutil.rmtree(bundle, ignore_errors=True)
    bundle.mkdir(parents=True)
    epoch = source_date_epoch()
    copy_release(bundle)
    wheels = bundle / "wheels"
    program(bundle, wheels, epoch)
    (wheels / "ARCH").write_text(arch + "\n")
    dependencies(arch, wheels)
    gpio_library(arch, wheels, built)
    checksums(wheels)
    (bundle / "RELEASE").write_text(
        f"table-controller {version()}\narch {arch}\ncommit {commit()}\nsource-date-epoch {epoch}\n"
    )
    for file in members(bundle):
        file.chmod(0o755 if os.access(file, os.X_OK) else 0o644)
    sign(bundle, key, next_keys)
    path = out / f"{name}.tar.gz"
    archive(bundle, path, int(epoch))
    found = digest(bundle, board) if board is not None or board_arch() == arch else None
    return path, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True, choices=sorted(PLATFORM_TAGS))
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    parser.add_argument(
        "--key", type=Path, required=True, help="the release key (ssh-keygen -t ed25519)"
    )
    parser.add_argument(
        "--next-key",
        type=Path,
        action="append",
        default=[],
        help="a public key the boards are to trust from this release on (rotation)",
    )
    parser.add_argument(
        "--gpio-wheel",
        type=Path,
        action="append",
        default=[],
        help="an lgpio wheel built for a Python PyPI has none for (3.13), as"
        " release/gpio-wheels.sha256 pins it",
    )
    parser.add_argument(
        "--gpio-wheels",
        type=Path,
        default=GPIO_WHEELS,
        help="the folder release/gpio_wheel.sh built the pinned lgpio wheels into",
    )
    parser.add_argument(
        "--board-root",
        type=Path,
        help="a root of the board's system and architecture: the digest installed there",
    )
    args = parser.parse_args(argv)
    path, found = build(
        args.arch,
        args.out.resolve(),
        args.key,
        args.next_key,
        args.gpio_wheel,
        args.board_root,
        args.gpio_wheels,
    )
    print(f"bundle: {path}")
    print(f"built from: {commit()}")
    if found:
        sha, python = found
        print(f"software digest (sha256, Python {python}, {args.arch}) {sha}")
    else:
        print(f"software digest: install the bundle once on a {args.arch} board to read it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
