#!/usr/bin/env python3
"""The digest a board of another architecture prints, known before any board has it:
the bundle built with ``release/build.py --board-root`` on a root of the board's system
(an arm64 Debian Bookworm root, say, run under qemu-user), then installed into a copy of
that root as a technician installs it (``release/install.sh``, no network), and checked
there (``tablectl verify-software``) and from outside (the bundle's
``controller/software.py`` run by this machine's Python against the copy, ``--machine``).
The four digests must be one; the figures and the time of each step are printed.

    sudo python3 bench/board_digest.py --arch arm64 --board-root ROOT [--key KEY] [--out DIR]

ROOT: a root of the board's system with systemd, Python and its venv module, the
commands the pre-flight check asks for (passwd, procps, openssh-client), made once with
``debootstrap --arch=arm64 --variant=minbase
--include=python3,python3-venv,systemd,systemd-sysv,procps,openssh-client,passwd
bookworm ROOT http://deb.debian.org/debian`` (qemu-user-static and binfmt-support
installed; ``bench/qemu_boot.sh`` makes one with a kernel, which does as well; a Trixie
root gives Python 3.13's digest, with the lgpio wheel release/gpio_wheel.sh built).
It is copied, never changed. KEY: the release key to sign with (a key of the bench's own
when not given). Needs root (systemd-nspawn). Exit status 1 when the digests differ.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: ``uname -m`` of each bundle's board (software.py's --machine).
MACHINES = {"amd64": "x86_64", "arm64": "aarch64", "armhf": "armv7l"}


def run(*command: str, timeout: float = 3600) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if result.returncode != 0:
        raise SystemExit(
            f"board_digest: {' '.join(command[:4])}... exit {result.returncode}:\n"
            f"{result.stdout[-3000:]}{result.stderr[-3000:]}"
        )
    return result


def last_word(text: str, marker: str) -> str:
    lines = [line for line in text.splitlines() if marker in line]
    if not lines:
        raise SystemExit(f"board_digest: no line with {marker!r} in:\n{text[-3000:]}")
    return lines[-1].split()[-1]


def nspawn(root: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return run(
        "systemd-nspawn",
        "-q",
        "--register=no",
        "--keep-unit",
        "--private-network",
        "-D",
        str(root),
        *command,
    )


def build(arch: str, board: Path, key: Path, out: Path) -> tuple[Path, str, str]:
    """The bundle, its build's digest line, the digest."""
    done = run(
        sys.executable,
        str(ROOT / "release/build.py"),
        "--arch",
        arch,
        "--out",
        str(out),
        "--key",
        str(key),
        "--board-root",
        str(board),
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("software digest"))
    return Path(last_word(done.stdout, "bundle:")), line, line.split()[-1]


def install(board: Path, bundle: Path, copy: Path) -> str:
    """The bundle installed into a copy of BOARD by its release/install.sh (no network,
    DESTDIR=/: no systemctl in a root that is not booted); the digest it printed."""
    run("cp", "-a", str(board), str(copy), timeout=1800)
    with tarfile.open(bundle) as tar:
        tar.extractall(copy / "root", filter="tar")
    name = bundle.name.removesuffix(".tar.gz")
    done = nspawn(copy, "env", "DESTDIR=/", f"/root/{name}/release/install.sh")
    if "preflight: ok" not in done.stdout:
        raise SystemExit(f"board_digest: the pre-flight check did not pass:\n{done.stdout}")
    return last_word(done.stdout, "install: software digest (sha256)")


def verified(copy: Path) -> str:
    done = nspawn(copy, "/opt/table-controller/current/.venv/bin/tablectl", "verify-software")
    if "software verified" not in done.stdout:
        raise SystemExit(f"board_digest: verify-software did not verify:\n{done.stdout}")
    return last_word(done.stdout, "sha256: ")


def inspected(bundle: Path, copy: Path, arch: str, scratch: Path) -> str:
    """The inspector's check from outside: software.py out of the bundle's wheel, run by
    this machine's Python against the copy's files."""
    with tarfile.open(bundle) as tar:
        [member] = [m for m in tar.getmembers() if "/wheels/table_controller-" in m.name]
        wheel = tar.extractfile(member)
        assert wheel is not None
        with zipfile.ZipFile(wheel) as archive:
            (scratch / "software.py").write_bytes(archive.read("controller/software.py"))
    done = run(
        sys.executable,
        "-I",
        "-S",
        str(scratch / "software.py"),
        "--root",
        str(copy),
        "--machine",
        MACHINES[arch],
    )
    if "software verified" not in done.stdout:
        raise SystemExit(f"board_digest: the inspector's check did not verify:\n{done.stdout}")
    return last_word(done.stdout, "sha256: ")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True, choices=sorted(MACHINES))
    parser.add_argument("--board-root", type=Path, required=True)
    parser.add_argument("--key", type=Path, help="the release key (the bench's own if not given)")
    parser.add_argument("--out", type=Path, help="keep the bundle there")
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="board-digest-", dir="/var/tmp") as folder:
        scratch = Path(folder)
        key = args.key
        if key is None:
            key = scratch / "release-key"
            run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", str(key))
        out = (args.out or scratch / "dist").resolve()
        bundle, line, built = build(args.arch, args.board_root.resolve(), key, out)
        took = time.monotonic() - started
        print(f"built {bundle.name} in {took:.0f} s: {line}")
        step = time.monotonic()
        board = install(args.board_root.resolve(), bundle, scratch / "board")
        print(f"installed into a copy of the root in {time.monotonic() - step:.0f} s: {board}")
        step = time.monotonic()
        checked = verified(scratch / "board")
        print(f"tablectl verify-software there in {time.monotonic() - step:.0f} s: {checked}")
        step = time.monotonic()
        outside = inspected(bundle, scratch / "board", args.arch, scratch)
        print(
            f"the inspector's software.py from outside in {time.monotonic() - step:.0f} s: {outside}"
        )
        same = len({built, board, checked, outside}) == 1
        print(
            f"{'one digest' if same else 'DIGESTS DIFFER'}; total {time.monotonic() - started:.0f} s"
        )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
