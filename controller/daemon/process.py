"""``tablectl run`` as a process: logging, signals, and the ``--stdin-events`` console
around one ``service.Daemon``.

Signals: SIGTERM/SIGINT end cleanly (``STOPPING=1``, the journal's clean-shutdown
marker); SIGHUP re-reads the configuration file; SIGUSR2 verifies the software now
(``controller.daemon.software_check``). They are taken synchronously by the
main thread with ``sigwait`` (blocked in every other thread), so no handler ever runs
in the middle of the loop's work.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
from collections.abc import Iterable
from typing import IO

from controller import statedir
from controller.config import ConfigError, load_config
from controller.daemon.inputs import Submit
from controller.daemon.loop import log
from controller.daemon.recorder import Outcome
from controller.daemon.service import Daemon, StartError
from controller.daemon.software_check import VerifyNow
from controller.lines import decode_line, event_lines, read_lines
from controller.rules import BadEvent

EXIT_OK = 0
EXIT_START_FAILED = 1
EXIT_CONFIG = 2

HANDLED_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)


def setup_logging(level: str = "INFO", stream: IO[str] | None = None) -> None:
    """One line per event on standard error (systemd puts it in its journal)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    root = logging.getLogger("table-controller")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


def run_service(config_path: str, *, simulated: bool = False, stdin_events: bool = False) -> int:
    """``tablectl run``: the daemon as a process, until SIGTERM."""
    setup_logging()
    try:
        settings = load_config(config_path)
    except ConfigError as error:
        log.error(
            "configuration %s cannot be used (%d problem(s)):", config_path, len(error.problems)
        )
        for problem in error.problems:
            print(problem, file=sys.stderr)
        return EXIT_CONFIG
    except OSError as error:
        log.error("configuration %s cannot be read: %s", config_path, error.strerror)
        return EXIT_CONFIG
    setup_logging(settings.logging.level)
    bench_game = statedir.bench_refusal(settings.journal.state_dir)
    if bench_game is not None:
        log.error("cannot start: %s", bench_game)
        return EXIT_START_FAILED
    # Block the signals before any thread starts, so every thread inherits the mask and
    # only the main thread's sigwait receives them.
    signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED_SIGNALS)
    try:
        daemon = Daemon(settings, config_path=config_path, simulated=True if simulated else None)
        daemon.start()
    except StartError as error:
        log.error("cannot start: %s", error)
        return EXIT_START_FAILED
    main = threading.get_ident()

    def controller() -> None:
        try:
            daemon.run()
        finally:
            signal.pthread_kill(main, signal.SIGUSR1)

    thread = threading.Thread(target=controller, name="controller", daemon=True)
    daemon.thread = thread
    thread.start()
    if stdin_events:
        threading.Thread(
            target=_stdin_events,
            args=(daemon, read_lines(unbuffered_stdin()), sys.stdout),
            name="stdin-events",
            daemon=True,
        ).start()
    while thread.is_alive():
        received = signal.sigwait(HANDLED_SIGNALS)
        if received == signal.SIGHUP:
            log.info("SIGHUP: reloading the configuration")
            daemon.reload()
        elif received == signal.SIGUSR2:
            log.info("SIGUSR2: verifying the software")
            daemon.inputs.put(VerifyNow())
        elif received in (signal.SIGTERM, signal.SIGINT):
            log.info("%s: stopping", signal.Signals(received).name)
            daemon.notifier.stopping("stopping")
            daemon.stop(signal.Signals(received).name)
            thread.join()
    stopped = daemon.controller is not None and daemon.controller.stopped_reason is not None
    daemon.close()
    if not stopped:
        log.error("the controller loop ended unexpectedly")
        return EXIT_START_FAILED
    return EXIT_OK


def unbuffered_stdin() -> IO[bytes]:
    """Standard input without Python's buffer, whose lock a thread blocked in a read
    would still hold when the interpreter shuts down (a fatal error at exit)."""
    return open(sys.stdin.fileno(), "rb", buffering=0, closefd=False)  # noqa: SIM115


def _stdin_events(daemon: Daemon, lines: Iterable[bytes | str], out: IO[str]) -> None:
    """``--stdin-events``: one JSON rules event per line, as a console would hand them
    in; each is answered on standard output once recorded (``{"seq": N, "ok": ...}``).
    A bad line (``controller.lines``) is answered at once with why, not recorded, and
    the console goes on with the next line."""
    lock = threading.Lock()

    def answer(outcome: Outcome) -> None:
        with lock:
            out.write(json.dumps(outcome.line()) + "\n")
            out.flush()

    for text in event_lines(lines):
        try:
            event = decode_line(text)
        except BadEvent as refusal:
            answer(Outcome(None, False, {}, refusal.as_dict()))
            continue
        daemon.inputs.put(Submit(event, done=answer, console=True))
