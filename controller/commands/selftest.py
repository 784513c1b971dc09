"""`tablectl selftest [--config FILE] [--simulated] [--yes]`: the technician's hardware
checks, one PASS/FAIL/SKIP line per device (``controller.selftest``; docs/install.md).

On the real devices it asks the technician to act (place the puck, press keys) and to
confirm what only eyes can see; the service must be stopped first (it holds the
devices). With ``--simulated`` it plays the simulators itself and runs unattended.

Exit status: 0 when no check failed, 1 when one did (or the devices cannot be opened,
or the service is running), 2 for an unusable configuration or arguments.
"""

from __future__ import annotations

import argparse
import queue
import sys
from pathlib import Path

from controller.commands._settings import read_settings
from controller.selftest import CHECKS

HELP = "the technician's hardware checks: display, seat lights, puck, keypad, tray"
DEFAULT_CONFIG = "/etc/table-controller/table.yaml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        default=DEFAULT_CONFIG,
        help=f"the table's YAML configuration (default {DEFAULT_CONFIG})",
    )
    parser.add_argument(
        "--simulated", action="store_true", help="check simulated devices (runs unattended)"
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="answer yes to every question (what a light or the display "
        "shows is then not confirmed by anyone)",
    )
    parser.add_argument(
        "--only", metavar="CHECKS", help=f"a comma-separated subset of: {','.join(CHECKS)}"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds to wait for each puck move, key or reading on real devices (default 60)",
    )


def _fail(message: str, status: int = 1) -> int:
    print(f"tablectl selftest: {message}", file=sys.stderr)
    return status


def service_running(state_dir: Path) -> bool:
    """Whether another process (the service) holds the journal's writer lock."""
    from controller.journal.files import writer_running

    return writer_running(state_dir)


def run(args: argparse.Namespace) -> int:
    from controller.selftest import Console, Selftest
    from drivers.build import open_devices
    from drivers.errors import DriverError

    only = tuple(CHECKS)
    if args.only:
        only = tuple(name.strip() for name in args.only.split(",") if name.strip())
        unknown = [name for name in only if name not in CHECKS]
        if unknown:
            return _fail(
                f"--only: unknown check(s) {', '.join(unknown)}; the checks: {', '.join(CHECKS)}", 2
            )
    settings = read_settings(args.config, "selftest")
    if settings is None:
        return 2
    if settings.hardware is None:
        return _fail(f"{args.config} has no hardware: section: there is nothing to test", 2)
    simulated = True if args.simulated else None
    if not (args.simulated or settings.hardware.simulated) and service_running(
        Path(settings.journal.state_dir)
    ):
        return _fail(
            "the table-controller service is running and holds the devices; "
            "stop it first: systemctl stop table-controller"
        )
    events: queue.Queue = queue.Queue()
    try:
        devices = open_devices(settings.hardware, events, simulated=simulated)
    except DriverError as error:
        return _fail(f"the devices cannot be opened: {error}")
    kind = "simulated" if devices.sim is not None else "real"
    print(
        f"selftest of table {settings.rules.table_id} ({kind} devices): {', '.join(only)}",
        flush=True,
    )
    floated = dict(settings.tray.float_counts) or None
    with devices:
        test = Selftest(
            devices,
            events,
            Console(yes=args.yes),
            puck_seats=tuple(settings.hardware.puck.pins),
            timeout=args.timeout,
            tray_counts=floated,
        )
        results = test.run(only)
    failed = [r.device for r in results if r.status == "FAIL"]
    print(f"selftest: {'FAILED: ' + ', '.join(failed) if failed else 'all checks passed'}")
    return 1 if failed else 0
