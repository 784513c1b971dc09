"""`tablectl verify-software [--seed HEX]`: the program's digest for a field inspector.

Prints the digest of the installed program computed from its files (SHA-256, or
HMAC-SHA256 keyed by the regulator's seed), to compare with the approved release's,
and checks the files against the manifest the install recorded, and the service's
environment (``controller/software.py``; the files are read by that file run in a Python
of its own, which code planted in this process cannot change). Exit 0 when they match,
3 when the program or its environment was modified, 1 when it cannot be verified (no
manifest: not installed by ``systemd/install.sh``). ``--write-manifest`` is the
install's step. In a source checkout (an editable install) there is no installed
release: it says so and prints no digest (exit 1).
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from controller import software

HELP = "print the installed program's digest and check it against the install's manifest"


def _seed(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"the seed must be hexadecimal digits (an even number of them), got {text!r}"
        ) from None
    if not seed:
        raise argparse.ArgumentTypeError("the seed is empty")
    return seed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        type=_seed,
        metavar="HEX",
        help="the regulator's seed: the digest is then HMAC-SHA256 keyed by it",
    )
    parser.add_argument(
        "--write-manifest",
        action="store_true",
        help="record the manifest of the installed files (the install's step)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        if args.write_manifest:
            path = software.write_manifest()
            print(f"manifest written: {path}")
            return 0
        verdict = software.check(seed=args.seed)
    except (software.SoftwareError, OSError, subprocess.SubprocessError) as error:
        print(f"tablectl verify-software: {error}", file=sys.stderr)
        return 1
    if verdict.development:  # a source checkout: no release, no digest to compare
        print(
            f"tablectl verify-software: no installed release to verify: "
            f"{verdict.unverified} (install a release: docs/install.md)",
            file=sys.stderr,
        )
        return 1
    place = str(software.environment())
    print("\n".join(software.report(verdict, place, software.version(), args.seed)))
    return software.exit_status(verdict)
