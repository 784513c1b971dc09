"""`tablectl verify-software [--seed HEX]`: the program's digest for a field inspector.

Prints the digest of the installed program computed from its files (SHA-256, or
HMAC-SHA256 keyed by the regulator's seed), to compare with the approved release's,
and checks the files against the manifest the install recorded. Exit 0 when they
match, 3 when the program was modified, 1 when it cannot be verified (no manifest: not
installed by ``systemd/install.sh``). In a source checkout (an editable install) there
is no installed release: it says so and prints no digest (exit 1).
``--write-manifest`` is the install's step.
"""

from __future__ import annotations

import argparse
import sys

from controller import software

HELP = "print the installed program's digest and check it against the install's manifest"

EXIT_MODIFIED = 3


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
        verdict = software.check()
        if verdict.development:  # a source checkout: no release, no digest to compare
            print(
                f"tablectl verify-software: no installed release to verify: "
                f"{verdict.unverified} (install a release: docs/install.md)",
                file=sys.stderr,
            )
            return 1
        digest = software.program_digest(seed=args.seed)
    except (software.SoftwareError, OSError) as error:
        print(f"tablectl verify-software: {error}", file=sys.stderr)
        return 1
    kind = "hmac-sha256 (seed " + args.seed.hex() + ")" if args.seed else "sha256"
    print(
        f"program: {software.DISTRIBUTION} {software.version()} in {software.environment()}, "
        f"{verdict.files} files"
    )
    print(f"{kind}: {digest}")
    print(verdict.summary())
    if verdict.unverified is not None:
        return 1
    return 0 if verdict.ok else EXIT_MODIFIED
