#!/usr/bin/env python3
"""The release bundle checked before anything on the board changes (``release/install.sh``
runs it first): ``SHA256SUMS`` signed by a release key the board trusts, and every file
of the bundle exactly as it lists them (none changed, missing or added). Standard library
and ``ssh-keygen`` (openssh-client) only: it runs on the board's bare ``python3``.

    python3 release/verify.py --bundle DIR --trusted /etc/table-controller/release-keys
    python3 release/verify.py --archive BUNDLE.tar.gz --into SCRATCH --trusted ...

The trusted keys are the board's (written by the first install from its bundle's
``release/allowed_signers``); a board with none takes the bundle's own and says so (the
first install). ``--archive`` unpacks the archive into SCRATCH first (nothing of it runs)
and checks the archive's own bytes too. On success it prints the bundle's folder; on a
refusal one line saying why, and the exit status is 1 (docs/install.md, "The release
key").
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: The principal and namespace of a release's signature (release/build.py signs with them).
SIGNER = "table-controller-release"
LISTED = "SHA256SUMS"
SIGNATURE = "SHA256SUMS.sig"


class Refused(Exception):
    """The bundle is not the signed release: the one line that says why."""


def signed(bundle: Path, trusted: Path) -> None:
    signature = bundle / SIGNATURE
    if not (bundle / LISTED).is_file() or not signature.is_file():
        raise Refused(f"the bundle has no {LISTED} and {SIGNATURE}: it is not a signed release")
    if shutil.which("ssh-keygen") is None:
        raise Refused("the command ssh-keygen is missing: sudo apt install openssh-client")
    with (bundle / LISTED).open("rb") as listed:
        result = subprocess.run(
            ["ssh-keygen", "-Y", "verify", "-f", str(trusted), "-I", SIGNER, "-n", SIGNER]
            + ["-s", str(signature)],
            stdin=listed,
            capture_output=True,
            text=True,
            check=False,
        )
    if result.returncode != 0:
        raise Refused(f"{LISTED} is not signed by a release key this board trusts ({trusted})")


def listing(bundle: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    for number, line in enumerate((bundle / LISTED).read_text().splitlines(), 1):
        digest, _, name = line.partition("  ")
        path = Path(name)
        if len(digest) != 64 or not name or path.is_absolute() or ".." in path.parts:
            raise Refused(f"{LISTED} line {number} is not a file's SHA-256 and name")
        files[name] = digest
    return files


def contents(bundle: Path) -> dict[str, Path]:
    """Every file of the bundle by its name in SHA256SUMS; a link or a device is refused
    (the build makes none)."""
    found: dict[str, Path] = {}
    for path in sorted(bundle.rglob("*")):
        name = path.relative_to(bundle).as_posix()
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            raise Refused(f"{name} is not a plain file (the build makes none)")
        if path.is_file() and name not in (LISTED, SIGNATURE):
            found[name] = path
    return found


def complete(bundle: Path) -> None:
    listed = listing(bundle)
    found = contents(bundle)
    added = sorted(set(found) - set(listed))
    if added:
        raise Refused(
            f"{added[0]} is not in {LISTED}: a file added to the bundle after it was signed"
        )
    for name, digest in sorted(listed.items()):
        if name not in found:
            raise Refused(f"{name} is missing from the bundle")
        if hashlib.sha256(found[name].read_bytes()).hexdigest() != digest:
            raise Refused(f"{name} differs from the signed release (its SHA-256 is not {LISTED}'s)")


def check(bundle: Path, trusted: Path) -> None:
    signed(bundle, trusted)
    complete(bundle)


#: The gzip header release/build.py writes: magic, deflate, no flags; after the time,
#: the best compression and an unknown system. The header is the one part of the
#: archive the gzip CRC does not cover; its time is the commit's (RELEASE).
HEADER = (b"\x1f\x8b\x08\x00", b"\x02\xff")


def unpack(archive: Path, into: Path) -> Path:
    """The archive unpacked into INTO (GNU tar: no owners, no paths outside), its one
    top folder returned; any damage to the compressed stream fails gzip's CRC."""
    head = archive.open("rb").read(10)
    if head[:4] != HEADER[0] or head[8:] != HEADER[1]:
        raise Refused(f"{archive.name} is not a release bundle (its gzip header was changed)")
    result = subprocess.run(
        ["tar", "-xzf", str(archive), "-C", str(into), "--no-same-owner", "--no-same-permissions"],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise Refused(f"{archive.name} is damaged: it does not unpack ({tar_error(result.stderr)})")
    tops = list(into.iterdir())
    if len(tops) != 1 or not tops[0].is_dir() or tops[0].is_symlink():
        raise Refused(f"{archive.name} is not a release bundle (one folder at its top)")
    epoch = (tops[0] / "RELEASE").read_text() if (tops[0] / "RELEASE").is_file() else ""
    stamp = int.from_bytes(head[4:8], "little")
    if f"source-date-epoch {stamp}\n" not in epoch:
        raise Refused(f"{archive.name} is not a release bundle (its gzip header was changed)")
    return tops[0]


def tar_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    return lines[0].strip() if lines else "tar failed"


def trust(bundle: Path, trusted: Path) -> tuple[Path, bool]:
    """The keys to check the signature with: the board's, or on a board with none (the
    first install) the bundle's own."""
    if trusted.is_file():
        return trusted, False
    own = bundle / "release" / "allowed_signers"
    if not own.is_file():
        raise Refused("the bundle has no release/allowed_signers: it is not a signed release")
    return own, True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path)
    parser.add_argument("--archive", type=Path)
    parser.add_argument("--into", type=Path, help="where --archive is unpacked")
    parser.add_argument("--trusted", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if args.archive:
            bundle = unpack(args.archive, (args.into or Path(tempfile.mkdtemp())).resolve())
        else:
            bundle = args.bundle.resolve()
        keys, first = trust(bundle, args.trusted)
        check(bundle, keys)
    except (Refused, OSError, UnicodeDecodeError) as problem:
        print(problem, file=sys.stderr)
        return 1
    print(bundle)
    if first:
        print(f"first signed release: its key is trusted from now on ({keys})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
