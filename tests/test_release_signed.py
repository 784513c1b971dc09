"""The signed release bundle (issue 32, items 2, 3 and 6): ``release/build.py`` signs
``SHA256SUMS`` of every file with the release key (a key made here, in the test), the
first install takes the bundle's key, and from then on ``release/install.sh`` refuses,
with one line and nothing changed, a bundle with one byte changed anywhere or signed by
another key; a key is rotated by a release signed with the old one. Two builds of one
commit, from two clones at two times, are the same bytes, and name the commit.

Into a scratch root (``DESTDIR``) with the stand-in ``systemctl`` of tests/test_upgrade.py;
the bundle is this machine's architecture's, built for real (with the package index)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tests.stand_in_wheels import wheel_file
from tests.system_tools import require
from tests.test_install import PREFIX, ROOT, needs_root
from tests.test_upgrade import Board

pytestmark = [pytest.mark.slow, needs_root]

ARCHES = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "armhf"}
KEYS = "etc/table-controller/release-keys"


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem + "_under_test", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_key(folder: Path, name: str) -> Path:
    key = folder / name
    subprocess.run(
        [
            require("ssh-keygen", "signing test bundles"),
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            name,
            "-f",
            str(key),
        ],
        check=True,
    )
    return key


def unpacked_copy(release: tuple[Path, Path, Path], folder: Path) -> Path:
    """A copy of the release's unpacked bundle in FOLDER, to change before installing."""
    _, bundle, _ = release
    copy = folder / bundle.name
    shutil.copytree(bundle, copy)
    return copy


def build(source: Path, arch: str, out: Path, key: Path, *extra: str) -> str:
    """SOURCE's release/build.py run; its output."""
    result = subprocess.run(
        [sys.executable, str(source / "release" / "build.py"), "--arch", arch, "--out", str(out)]
        + ["--key", str(key), *extra],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        cwd=out.parent,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The bundle of this machine (its archive, its unpacked folder) and the key it is
    signed with."""
    arch = ARCHES.get(platform.machine())
    if arch is None:
        pytest.skip(f"no bundle for a {platform.machine()} machine")
    folder = tmp_path_factory.mktemp("release")
    key = make_key(folder, "release-key")
    build(ROOT, arch, folder / "dist", key)
    [archive] = (folder / "dist").glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "stick", filter="tar")
    [bundle] = (folder / "stick").iterdir()
    return archive, bundle, key


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory, release: tuple[Path, Path, Path]) -> Board:
    """The bundle's first install, from its unpacked folder; the service running."""
    _, bundle, _ = release
    board = Board(tmp_path_factory.mktemp("board"))
    first = board.run(bundle / "release" / "install.sh", "--enable")
    assert first.returncode == 0, first.stdout + first.stderr
    lines = first.stdout.splitlines()
    assert lines[0].startswith("install: bundle verified: 0.") and ", signed by SHA256:" in lines[0]
    assert lines[1] == (
        "install: first signed release: its key is trusted from now on"
        f" ({bundle}/release/allowed_signers)"
    )
    assert (board.root / KEYS).read_text() == (bundle / "release/allowed_signers").read_text()
    assert board.state == "active"
    return board


def calls(board: Board) -> list[str]:
    return [
        line for line in (board.folder / "log").read_text().splitlines() if "is-active" not in line
    ]


def refused(board: Board, script: Path, *args: str) -> str:
    """The one line of a refused install; nothing on the board changed."""
    current, keys, before = board.link("current"), (board.root / KEYS).read_bytes(), calls(board)
    releases = sorted(path.name for path in (board.root / PREFIX / "releases").iterdir())
    ran = board.run(script, *args)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    [line] = ran.stdout.splitlines()
    assert line.endswith(f"; nothing was changed: {current} still runs"), line
    assert board.link("current") == current and board.state == "active"
    assert calls(board) == before  # no stop, no start
    assert (board.root / KEYS).read_bytes() == keys
    assert sorted(path.name for path in (board.root / PREFIX / "releases").iterdir()) == releases
    return line.removesuffix(f"; nothing was changed: {current} still runs")


def changed(source: Path, target: Path, position: int) -> Path:
    data = bytearray(source.read_bytes())
    data[position] ^= 0x01
    target.write_bytes(bytes(data))
    return target


def test_the_bundle_names_its_commit_and_lists_every_file(release: tuple[Path, Path, Path]) -> None:
    _, bundle, _ = release
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    text = (bundle / "RELEASE").read_text().splitlines()
    assert text[2] in (f"commit {head}", f"commit {head}-dirty"), text
    listed = {line.split("  ", 1)[1] for line in (bundle / "SHA256SUMS").read_text().splitlines()}
    files = {path.relative_to(bundle).as_posix() for path in bundle.rglob("*") if path.is_file()}
    assert listed == files - {"SHA256SUMS", "SHA256SUMS.sig"}
    assert any(name.startswith("wheels/lgpio-") for name in listed)


@pytest.mark.parametrize(
    "where", ["header-time", "header-os", "start", "third", "middle", "crc", "size"]
)
def test_an_archive_with_one_changed_byte_is_refused(
    board: Board, release: tuple[Path, Path, Path], tmp_path: Path, where: str
) -> None:
    """Checked by the release that runs (its release/install.sh, its keys)."""
    archive, _, _ = release
    size = archive.stat().st_size
    position = {
        "header-time": 5,
        "header-os": 9,
        "start": 200,
        "third": size // 3,
        "middle": size // 2,
        "crc": size - 6,
        "size": size - 2,
    }[where]
    bad = changed(archive, tmp_path / archive.name, position)
    line = refused(board, board.root / PREFIX / "current/release/install.sh", str(bad))
    assert line.startswith("install: refused: "), line


@pytest.mark.parametrize(
    "name",
    [
        "wheels/lgpio-*.whl",
        "wheels/table_controller-*.whl",
        "controller/software.py",
        "release/verify.py",
        "RELEASE",
        "SHA256SUMS",
        "SHA256SUMS.sig",
    ],
)
def test_an_unpacked_bundle_with_one_changed_byte_is_refused(
    board: Board, release: tuple[Path, Path, Path], tmp_path: Path, name: str
) -> None:
    copy = unpacked_copy(release, tmp_path)
    [target] = copy.glob(name)
    changed(target, target, target.stat().st_size // 2)
    line = refused(board, copy / "release/install.sh")
    relative = target.relative_to(copy).as_posix()
    if name.startswith("SHA256SUMS"):
        expected = (
            f"SHA256SUMS is not signed by a release key this board trusts ({board.root / KEYS})"
        )
    else:
        expected = f"{relative} differs from the signed release (its SHA-256 is not SHA256SUMS's)"
    assert line == f"install: refused: {expected}"


def test_a_file_added_to_the_bundle_is_refused(
    board: Board, release: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    copy = unpacked_copy(release, tmp_path)
    (copy / "wheels" / "sitecustomize-1.0-py3-none-any.whl").write_bytes(b"planted")
    assert refused(board, copy / "release/install.sh") == (
        "install: refused: wheels/sitecustomize-1.0-py3-none-any.whl is not in SHA256SUMS:"
        " a file added to the bundle after it was signed"
    )


def test_a_file_taken_out_of_the_bundle_is_refused(
    board: Board, release: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    copy = unpacked_copy(release, tmp_path)
    [wheel] = copy.glob("wheels/pyserial-*.whl")
    wheel.unlink()
    assert refused(board, copy / "release/install.sh") == (
        f"install: refused: wheels/{wheel.name} is missing from the bundle"
    )


def test_an_unsigned_bundle_is_refused(
    board: Board, release: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    copy = unpacked_copy(release, tmp_path)
    (copy / "SHA256SUMS.sig").unlink()
    assert refused(board, copy / "release/install.sh") == (
        "install: refused: the bundle has no SHA256SUMS and SHA256SUMS.sig: it is not a signed"
        " release"
    )


def test_a_changed_gpio_wheel_is_refused_by_the_direct_command_too(
    board: Board, release: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Seen on 0.2.1: a tampered lgpio wheel installed (it was not in the lock). The
    bundle's SHA256SUMS of its wheels pins it for pip, without the signature's check."""
    _, bundle, _ = release
    wheels = tmp_path / "wheels"
    shutil.copytree(bundle / "wheels", wheels)
    [wheel] = wheels.glob("lgpio-*cp311*.whl")
    changed(wheel, wheel, wheel.stat().st_size // 2)
    current = board.link("current")
    ran = board.run(bundle / "systemd/install.sh", "--wheelhouse", str(wheels))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "THESE PACKAGES DO NOT MATCH THE HASHES" in ran.stderr and wheel.name in ran.stderr
    assert ran.stdout.splitlines()[-1] == (
        f"install: stopped before the switch, nothing was changed: {current} still runs"
    )
    assert board.link("current") == current and board.state == "active"


def resigned(bundle: Path, folder: Path, key: Path, *next_keys: Path) -> Path:
    """BUNDLE signed again with KEY (release/build.py's own steps) and archived."""
    builder = load(ROOT / "release" / "build.py")
    copy = folder / bundle.name
    shutil.copytree(bundle, copy)
    for name in ("SHA256SUMS", "SHA256SUMS.sig"):
        (copy / name).unlink()
    builder.sign(copy, key, list(next_keys))
    epoch = int((copy / "RELEASE").read_text().split("source-date-epoch ")[1])
    archive = folder / f"{bundle.name}.tar.gz"
    builder.archive(copy, archive, epoch)
    return archive


def test_a_bundle_signed_by_another_key_is_refused_and_a_key_is_rotated(
    board: Board, release: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, bundle, old = release
    script = board.root / PREFIX / "current/release/install.sh"
    new = make_key(tmp_path, "next-key")
    stranger = resigned(bundle, tmp_path / "stranger", new)
    assert refused(board, script, str(stranger)) == (
        "install: refused: SHA256SUMS is not signed by a release key this board trusts"
        f" ({board.root / KEYS})"
    )
    # The rotation: a release signed with the old key names the new one ...
    bridge = resigned(bundle, tmp_path / "bridge", old, Path(f"{new}.pub"))
    ran = board.run(script, str(bridge))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    trusted = (board.root / KEYS).read_text().splitlines()
    assert len(trusted) == 2 and trusted[1].endswith(Path(f"{new}.pub").read_text().split()[1])
    # ... the next is signed with the new key alone, and the old key is trusted no more.
    ran = board.run(script, str(stranger))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert (board.root / KEYS).read_text() == (
        stranger.parent / bundle.name / "release/allowed_signers"
    ).read_text()
    assert len((board.root / KEYS).read_text().splitlines()) == 1
    again = resigned(bundle, tmp_path / "old-again", old)
    assert refused(
        board, board.root / PREFIX / "current/release/install.sh", str(again)
    ).startswith("install: refused: SHA256SUMS is not signed by a release key this board trusts")


def source_repository(folder: Path, edit: Callable[[Path], None] | None = None) -> Path:
    """This checkout's files (what build.py takes: tracked, and new ones not ignored) as
    one commit of a repository of their own; EDIT, when given, changes the files first."""
    files = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    origin = folder / "origin"
    for name in files:
        if name and (ROOT / name).is_file():
            (origin / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, origin / name)
    if edit is not None:
        edit(origin)
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2026-12-07T09:00:00Z",
        "GIT_COMMITTER_DATE": "2026-12-07T09:00:00Z",
        "GIT_AUTHOR_NAME": "release",
        "GIT_AUTHOR_EMAIL": "release@example.invalid",
        "GIT_COMMITTER_NAME": "release",
        "GIT_COMMITTER_EMAIL": "release@example.invalid",
    }
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the release"]):
        subprocess.run(["git", "-C", str(origin), *command], check=True, env=env)
    return origin


def pin_stand_in_gpio_wheels(tree: Path, folder: Path) -> None:
    """TREE's pins of the lgpio wheels built from source (release/gpio_wheel.sh, minutes
    under emulation; not in git) pointed at stand-ins made in FOLDER, so that a fresh
    clone builds its arm bundles: what is tested is the build, not lgpio's bytes."""
    pins = tree / "release" / "gpio-wheels.sha256"
    lines = []
    for line in pins.read_text().splitlines():
        if line and not line.startswith("#") and line.endswith(".whl"):
            name = line.split()[1]
            wheel_file(folder, name, marker="stand-in")
            digest = hashlib.sha256((folder / name).read_bytes()).hexdigest()
            line = f"{digest}  {name}"
        lines.append(line)
    pins.write_text("\n".join(lines) + "\n")


def test_two_builds_of_one_commit_from_two_clones_are_the_same_bytes(tmp_path: Path) -> None:
    """Seen on 0.2.1: the same members, different tarballs (the gzip header's time, the
    members' times; from a fresh clone every time differs). The second clone is made
    with another umask, later; SOURCE_DATE_EPOCH is not set: the commit's time is used."""
    arch = "arm64" if platform.machine() != "aarch64" else "amd64"  # no digest install: faster
    stand_in = tmp_path / "gpio-wheels"
    origin = source_repository(tmp_path, lambda tree: pin_stand_in_gpio_wheels(tree, stand_in))
    key = make_key(tmp_path, "release-key")
    env = {key: value for key, value in os.environ.items() if key != "SOURCE_DATE_EPOCH"}
    outputs = []
    for name, umask in (("one", 0o022), ("two", 0o077)):
        clone = tmp_path / name
        subprocess.run(
            ["sh", "-c", f'umask {umask:03o} && git clone -q "$0" "$1"', str(origin), str(clone)],
            check=True,
            env=env,
        )
        out = build(clone, arch, clone / "dist", key, "--gpio-wheels", str(stand_in))
        outputs.append(out)
        time.sleep(1.1)
    one, two = (sorted((tmp_path / name / "dist").glob("*.tar.gz")) for name in ("one", "two"))
    assert len(one) == len(two) == 1
    assert one[0].read_bytes() == two[0].read_bytes()
    head = subprocess.run(
        ["git", "-C", str(origin), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert all(f"built from: {head}\n" in out for out in outputs), outputs
    with tarfile.open(one[0]) as tar:
        release = tar.extractfile(f"{one[0].name[: -len('.tar.gz')]}/RELEASE")
        assert release is not None
        assert f"commit {head}\n" in release.read().decode()
        assert {member.mtime for member in tar.getmembers()} == {1796634000}
        assert {(member.uid, member.gid) for member in tar.getmembers()} == {(0, 0)}
