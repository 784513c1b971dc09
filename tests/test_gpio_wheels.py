"""lgpio for Python 3.13 in the arm64 and armhf bundles (issue 32, item 1): PyPI has
lgpio wheels for 3.11 only, so ``release/gpio_wheel.sh`` builds 3.13's from lgpio's
source in a Debian Trixie root of each architecture, ``release/gpio-wheels.sha256`` pins
their SHA-256, and ``release/build.py`` takes only those into a bundle (whose
``SHA256SUMS`` then gives the install the hash it installs with, ``--require-hashes``).

What runs without emulation runs here: the build's refusals (no wheel, another wheel,
one for another machine) and the install of a 3.13 wheel from a wheelhouse with its
hash (a stand-in wheel for this machine, under Python 3.13). The emulated build itself
runs with ``TABLE_CONTROLLER_EMULATION=1`` as root (minutes: debootstrap and qemu-user)."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.stand_in_wheels import wheel_file
from tests.test_release_bundle import other_python
from tests.test_release_signed import load
from tests.test_unit_sandbox import needs_root

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "release" / "build.py"
PINS = ROOT / "release" / "gpio-wheels.sha256"
MACHINES = {"arm64": "aarch64", "armhf": "armv7l"}
emulation = pytest.mark.skipif(
    os.environ.get("TABLE_CONTROLLER_EMULATION") != "1",
    reason="the emulated build takes minutes: TABLE_CONTROLLER_EMULATION=1 runs it",
)


def pinned_name(arch: str) -> str:
    """The wheel the repository's pins name for ARCH."""
    [name] = [
        line.split()[1]
        for line in PINS.read_text().splitlines()
        if line.endswith(f"-cp313-cp313-linux_{MACHINES[arch]}.whl")
    ]
    return name


def build(tmp_path: Path, arch: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """build.py as a release engineer runs it; the key is never reached when the GPIO
    wheels are refused (nothing is built, nothing fetched)."""
    return subprocess.run(
        [sys.executable, str(BUILD), "--arch", arch, "--out", str(tmp_path / "dist")]
        + ["--key", str(tmp_path / "no-key"), *extra],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("arch", ["arm64", "armhf"])
def test_an_arm_bundle_is_not_built_without_its_pinned_3_13_wheel(
    tmp_path: Path, arch: str
) -> None:
    """Seen on 0.2.1: no bundle had a GPIO library for 3.13, and nothing said so until
    the board's pre-flight check."""
    empty = tmp_path / "gpio-wheels"
    empty.mkdir()
    ran = build(tmp_path, arch, "--gpio-wheels", str(empty))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert ran.stderr.splitlines() == [
        f"build: no {pinned_name(arch)} (lgpio for Python 3.13 on {arch}): sudo"
        f" release/gpio_wheel.sh {arch} builds it into {empty} (docs/install.md)"
    ]
    assert not (tmp_path / "dist").exists()


def test_a_3_13_wheel_other_than_the_pinned_one_is_refused(tmp_path: Path) -> None:
    """A wheel of that name built elsewhere (another compiler, another source) is not
    the one the release pins."""
    name = pinned_name("arm64")
    other = wheel_file(tmp_path / "gpio-wheels", name, marker="built elsewhere")
    sha = hashlib.sha256(other.read_bytes()).hexdigest()
    pinned = next(line.split()[0] for line in PINS.read_text().splitlines() if line.endswith(name))
    ran = build(tmp_path, "arm64", "--gpio-wheels", str(other.parent))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert ran.stderr.splitlines() == [
        f"build: {other} is not the wheel gpio-wheels.sha256 pins (SHA-256 {sha[:16]}...,"
        f" pinned {pinned[:16]}...): build it with release/gpio_wheel.sh arm64"
    ]


def test_a_gpio_wheel_the_pins_do_not_name_or_for_another_machine_is_refused(
    tmp_path: Path,
) -> None:
    unnamed = wheel_file(tmp_path, "lgpio-0.2.2.0-cp312-cp312-linux_aarch64.whl")
    ran = build(tmp_path, "arm64", "--gpio-wheel", str(unnamed))
    assert (ran.returncode, ran.stderr.splitlines()) == (
        1,
        [
            "build: lgpio-0.2.2.0-cp312-cp312-linux_aarch64.whl: gpio-wheels.sha256 pins no such wheel"
        ],
    )
    armhf = wheel_file(tmp_path, pinned_name("armhf"))
    ran = build(tmp_path, "arm64", "--gpio-wheel", str(armhf))
    assert (ran.returncode, ran.stderr.splitlines()) == (
        1,
        [f"build: {armhf.name} is not for arm64"],
    )


def test_the_pinned_wheel_is_the_one_taken(tmp_path: Path) -> None:
    """With a wheel whose SHA-256 is pinned (pins of the test's own, beside the
    repository's names), the build takes that very file, found in the folder or given."""
    build_module = load(BUILD)
    name = pinned_name("arm64")
    found = wheel_file(tmp_path / "gpio-wheels", name)
    pins = tmp_path / "pins"
    pins.write_text(
        f"# the test's\n{hashlib.sha256(found.read_bytes()).hexdigest()}  {name}\n"
        f"{'0' * 64}  {pinned_name('armhf')}\n"
    )
    assert build_module.gpio_builds("arm64", [], found.parent, pins) == [found]
    given = shutil.copy(found, tmp_path / name)
    assert build_module.gpio_builds("arm64", [Path(given)], found.parent, pins) == [Path(given)]
    assert build_module.gpio_builds("amd64", [], found.parent, pins) == []


@pytest.mark.slow
def test_python_3_13_installs_the_bundles_gpio_wheel_with_its_hash(tmp_path: Path) -> None:
    """install-program.sh under Python 3.13 takes the wheelhouse's cp313 lgpio wheel
    with the SHA-256 its SHA256SUMS gives (pip --require-hashes); the same wheel with
    one byte changed is refused. (A stand-in wheel for this machine: the real ones are
    for arm boards.)"""
    python = other_python(13)
    machine = platform.machine()
    house = tmp_path / "wheels"
    lock = ROOT / "requirements.lock"
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(house)]
        + ["--only-binary=:all:", "--no-deps", "--python-version", "3.13"]
        + ["--platform", f"manylinux2014_{machine}", "--implementation", "cp"]
        + ["--require-hashes", "-r", str(lock)],
        check=True,
        timeout=600,
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(house), str(ROOT)],
        check=True,
        timeout=600,
    )
    gpio = wheel_file(house, f"lgpio-0.2.2.0-cp313-cp313-linux_{machine}.whl", marker="bundle")
    wheel_file(tmp_path / "py311", f"lgpio-0.2.2.0-cp311-cp311-linux_{machine}.whl")
    load(BUILD).checksums(house)
    assert (
        f"{hashlib.sha256(gpio.read_bytes()).hexdigest()}  {gpio.name}"
        in (house / "SHA256SUMS").read_text()
    )
    bin_dir = tmp_path / "bin"  # install-program.sh's python3: the board's, 3.13
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(python)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": ""}

    def install(venv: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ROOT / "systemd/install-program.sh"), str(venv), str(ROOT), str(house)],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
            cwd=tmp_path,
        )

    done = install(tmp_path / "venv")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "install: lgpio installed from the wheelhouse" in done.stdout.splitlines()
    taken = subprocess.run(
        [
            str(tmp_path / "venv/bin/python"),
            "-c",
            "import sys, lgpio; print(sys.version_info[:2], lgpio.MARKER)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert taken.stdout == "(3, 13) bundle\n"
    data = bytearray(gpio.read_bytes())
    data[len(data) // 2] ^= 1
    gpio.write_bytes(bytes(data))
    refused = install(tmp_path / "venv-changed")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "THESE PACKAGES DO NOT MATCH THE HASHES" in refused.stderr
    assert not (tmp_path / "venv-changed/table-controller.manifest").exists()


@pytest.mark.slow
@needs_root
@emulation
def test_the_3_13_wheels_build_from_source_in_trixie_as_pinned(tmp_path: Path) -> None:
    """release/gpio_wheel.sh under qemu-user: each wheel the pins name, to the byte."""
    ran = subprocess.run(
        [str(ROOT / "release/gpio_wheel.sh"), "arm64", "armhf"],
        env={**os.environ, "OUT": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    for arch in ("arm64", "armhf"):
        assert f"gpio-wheel: {arch}: the wheel {PINS} pins" in ran.stdout.splitlines()
        wheel = tmp_path / pinned_name(arch)
        assert f"{hashlib.sha256(wheel.read_bytes()).hexdigest()}  {wheel.name}" in PINS.read_text()
