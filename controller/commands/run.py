"""`tablectl run --config FILE`: the table's daemon (the `table-controller` service).

See ``controller.daemon`` and docs/daemon.md. Exit status: 0 after an orderly stop
(SIGTERM), 1 when it cannot start at all (no ``hardware:`` section, the journal held
by another process, devices that cannot be opened), 2 for an unusable configuration.
A damaged journal does not stop it: it starts locked, showing the fault.
"""

from __future__ import annotations

import argparse

HELP = "run the table controller daemon (the systemd service)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="the table's YAML configuration")
    parser.add_argument(
        "--simulated",
        action="store_true",
        help="run every device against its simulator (bench, tests)",
    )
    parser.add_argument(
        "--stdin-events",
        action="store_true",
        help="also take JSON rules events from standard input, one per line, "
        "answering each on standard output once recorded (bench, tests)",
    )


def run(args: argparse.Namespace) -> int:
    from controller.daemon.process import run_service

    return run_service(args.config, simulated=args.simulated, stdin_events=args.stdin_events)
