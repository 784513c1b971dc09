"""`tablectl pin`: set, remove or list supervisor PINs (scrypt hashes in a file the service
reads and no one else writes: ``controller.supervisor_pins``)."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from controller import supervisor_pins

HELP = "set, remove or list supervisor PINs (salted scrypt hashes, 0640/0600)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("set", "remove", "list"))
    parser.add_argument("supervisor", nargs="?", help="the supervisor id (digits)")
    parser.add_argument(
        "--file",
        help=f"the PIN file (default ${supervisor_pins.ENV_PATH} or "
        f"{supervisor_pins.DEFAULT_PATH})",
    )
    parser.add_argument(
        "--config",
        help="the table's configuration: its supervisor.pin_digits (the fewest digits a "
        "PIN has) and supervisor.pin_file (unless --file)",
    )
    parser.add_argument(
        "--stdin",
        action="store_true",
        help="read the PIN from one line of standard input instead of asking twice",
    )


def _read_pin(args: argparse.Namespace, digits: int) -> str | None:
    if args.stdin:
        return sys.stdin.readline().strip()
    first = getpass.getpass(f"new PIN for supervisor {args.supervisor}: ")
    # too short, too long, not digits: said before asking again
    supervisor_pins.check_pin_text(first, digits)
    second = getpass.getpass("the same PIN again: ")
    if first != second:
        print("tablectl pin: the two PINs differ; nothing changed", file=sys.stderr)
        return None
    return first


def _configured(args: argparse.Namespace) -> tuple[Path | None, int] | None:
    """The configuration's PIN file (None: not set) and fewest digits; None when the
    file given cannot be used (its problems printed)."""
    if args.config is None:
        return None, supervisor_pins.MIN_PIN_DIGITS
    from controller.commands._settings import read_settings

    settings = read_settings(args.config, "pin")
    if settings is None:
        return None
    return settings.supervisor.pin_file, settings.supervisor.pin_digits


def run(args: argparse.Namespace) -> int:
    configured = _configured(args)
    if configured is None:
        return 2
    pin_file, digits = configured
    path = Path(args.file) if args.file is not None else pin_file or supervisor_pins.default_path()
    try:  # root may rewrite a file the service user owns (it then becomes root's)
        stored = supervisor_pins.load_pins(path, owner=False)
    except (OSError, supervisor_pins.PinFileError) as error:
        print(f"tablectl pin: cannot use {path}: {error}", file=sys.stderr)
        return 2
    if args.action == "list":
        for supervisor in sorted(stored):
            print(supervisor)
        if not stored:
            print(f"no supervisor PINs in {path}", file=sys.stderr)
        return 0
    if not args.supervisor:
        print(f"tablectl pin {args.action}: name the supervisor id", file=sys.stderr)
        return 2
    try:
        supervisor_pins.check_supervisor_id(args.supervisor)
    except ValueError as error:
        print(f"tablectl pin: {error}", file=sys.stderr)
        return 2
    if args.action == "remove":
        if stored.pop(args.supervisor, None) is None:
            print(f"tablectl pin: no supervisor {args.supervisor} in {path}", file=sys.stderr)
            return 1
    else:
        try:
            pin = _read_pin(args, digits)
            if pin is None:
                return 1
            stored[args.supervisor] = supervisor_pins.hash_pin(pin, digits=digits)
        except ValueError as error:
            print(f"tablectl pin: {error}; nothing changed", file=sys.stderr)
            return 2
    try:
        supervisor_pins.save_pins(path, stored)
    except OSError as error:
        print(f"tablectl pin: cannot write {path}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"{args.action}: supervisor {args.supervisor} in {path}")
    return 0
