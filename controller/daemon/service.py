"""Starting and stopping the daemon: devices, journal, recovery, systemd.

Start-up, in order (docs/architecture.md, the journal's theory of operation):

1. open the devices (``--simulated`` forces every one simulated), so that even a
   fault found next can be shown;
2. open the journal in ``journal.state_dir``: it records the power-up, an unclean
   shutdown of the last run, and the configuration's SHA-256 in its system log;
3. ``verify(whole=False)``: the hash chain after the verified mark (the whole chain
   and ``PRAGMA quick_check`` when there is none; the result is logged);
4. fold: the latest snapshot and the events after it, through the rules core;
5. re-drive every output from the recovered state (a running action clock resumes
   with the time it had at the last journalled tick); with a ``floor:`` section, queue
   the recovered state for the floor (the retained ``state`` message) and start the
   publisher: after the checks, never before (a table whose checks failed starts it
   ``held``: its link status with the fault, nothing else);
6. ``READY=1`` to systemd, then the controller loop.

A failed step 2-4 is a sticky fault (``controller.faults``): a memory fault when the
journal is damaged, a software fault when the fold itself fails; shown, logged, play
locked, READY still sent (the service is up and saying what is wrong; a restart would not fix it).
``tablectl journal salvage`` is the technician's way out.

The process around it (``tablectl run``: logging, signals, the stdin console) is in
``process``.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller import software, statedir
from controller.config import Settings
from controller.daemon.fault_handling import fault_entry
from controller.daemon.inputs import LinkNotice, Reload, Stop, Submit
from controller.daemon.inqueue import InputQueue
from controller.daemon.loop import Controller, Notifier, log
from controller.daemon.outputs import Outputs
from controller.daemon.powerloss import POWER_LOSS, power_loss
from controller.daemon.powerloss import describe as describe_power_loss
from controller.daemon.reconfig import stranded
from controller.daemon.recorder import Outcome, Recorder
from controller.daemon.recovery import RulesBook, fold
from controller.daemon.software_check import (
    SOFTWARE_CHECK,
    log_verdict,
    start_screen,
    verdict_fault,
)
from controller.daemon.startup import StartProgress
from controller.daemon.timekeeping import Clock, SystemClock
from controller.faults import Fault, SoftwareFault
from controller.journal import (
    Journal,
    JournalBusy,
    JournalError,
    JournalIntegrityError,
    LogKind,
    WallClock,
)
from controller.rules import Table
from controller.supervisor_pins import PinFile, PinFileMissing, unavailable_words
from drivers.build import Devices, open_devices
from drivers.errors import DriverError


class StartError(Exception):
    """The daemon cannot run at all (no hardware section, journal held by another
    process, devices that cannot be opened): a clear message, never a traceback."""


class Daemon:
    """One table's daemon, for ``tablectl run`` and for tests (in-process)."""

    def __init__(
        self,
        settings: Settings,
        *,
        config_path: str | None = None,
        simulated: bool | None = None,
        notifier: Notifier | None = None,
        pin_verifier: Callable[[str, str], bool] | None = None,
        state_dir: str | os.PathLike[str] | None = None,
        clock: Clock | None = None,
        wall_clock: WallClock | None = None,
    ) -> None:
        if settings.hardware is None:
            raise StartError(
                f"{settings.source}: the configuration has no hardware: section, so the "
                "daemon cannot start (replay and check-config accept such a file; add "
                "hardware:, or hardware: {simulated: true} for a bench)"
            )
        self.settings = settings
        self.config_path = config_path
        self.simulated = simulated
        self.software_digest = ""  # what runs, as found at start (controller.software)
        self.notifier = notifier or Notifier()
        self.pin_verifier = pin_verifier if pin_verifier is not None else _pin_file(settings)
        self.state_dir = Path(state_dir) if state_dir is not None else settings.journal.state_dir
        self.clock: Clock = clock or SystemClock()
        self.wall_clock = wall_clock  # the journal's (tests step it); None: the system's
        self.inputs = InputQueue()  # in order, bounded, tray and puck readings merged
        self.devices: Devices | None = None
        self.journal: Journal | None = None
        self.controller: Controller | None = None
        self.publisher: Any = None
        self.thread: threading.Thread | None = None
        self.ready = threading.Event()
        self.power_loss: dict[str, Any] | None = None  # found at this start (``powerloss``)

    # -- start -------------------------------------------------------------------------

    def start(self) -> Controller:
        """Steps 1-6 of the module docstring, up to READY. Raises ``StartError``."""
        settings = self.settings
        assert settings.hardware is not None
        log.info(
            "starting: %s %s: %s (config %s, sha256 %s)",
            software.DISTRIBUTION,
            software.version(),
            settings.summary(),
            settings.source,
            settings.sha256,
        )
        unusable = statedir.problem(self.state_dir)
        if unusable is not None:
            raise StartError(unusable)
        try:
            self.devices = open_devices(settings.hardware, self.inputs, simulated=self.simulated)
        except DriverError as error:
            raise StartError(f"the devices cannot be opened: {error}") from None
        try:
            return self._start_with_devices()
        except BaseException:
            self.close()
            raise

    def _start_with_devices(self) -> Controller:
        settings = self.settings
        devices = self.devices
        assert devices is not None
        progress = StartProgress(self.notifier.extend, self.notifier.status)
        progress.step("verifying the software")
        program, modified, bench = self._verify_software(devices)
        progress.step("opening the journal")
        fault = self._open_journal()
        recorder: Recorder | None = None
        if self.journal is not None:
            recorder, fault = self._recover(self.journal, progress, program, modified, fault)
        if fault is not None:
            log.error("%s %s: %s", fault.kind, fault.code, fault.message)
        controller = self._make_controller(devices, recorder, fault, bench)
        if (
            self.journal is not None
            and fault is None
            and settings.sha256 != self.journal.config_sha256
        ):
            log.info(
                "the configuration differs from the journal's (sha256 %s)",
                self.journal.config_sha256[:12],
            )
            problem = stranded(recorder, settings)
            if problem is not None:
                raise StartError(f"the configuration cannot be taken: {problem}")
            controller.offer_config(settings)
        self._start_publisher()
        status = "ready" if fault is None else f"LOCKED: {fault.code}: call a technician"
        self.notifier.ready(status)
        self.ready.set()
        log.info(
            "READY: %s %s, software sha256 %s %s%s",
            software.DISTRIBUTION,
            software.version(),
            program.digest,
            program.result,
            "" if fault is None else f" (play locked: {fault.code})",
        )
        return controller

    def _open_journal(self) -> Fault | None:
        """Open the journal (``self.journal``); a damaged or failing one is the fault
        returned, with no journal; a busy or unusable folder stops the start."""
        try:
            self.journal = Journal.open(
                self.state_dir,
                self.settings.config_text,
                allow_config_change=True,
                clock=self.wall_clock,
                table_id=self.settings.rules.table_id,
            )
        except JournalBusy as error:
            raise StartError(
                f"{self.state_dir}: {error.message}; is another daemon running?"
            ) from None
        except (OSError, ValueError) as error:  # the folder went bad since the check
            raise StartError(
                f"the state directory {self.state_dir} cannot be used: "
                f"{getattr(error, 'strerror', None) or error}"
            ) from None
        except JournalError as error:  # damaged, or its storage failing: each as itself
            return error if isinstance(error, Fault) else _as_integrity(error)
        return None

    def _recover(
        self,
        journal: Journal,
        progress: StartProgress,
        program: software.Verdict,
        modified: Fault | None,
        fault: Fault | None,
    ) -> tuple[Recorder, Fault | None]:
        """Check the journal, fold it into the table and give both to a recorder; the
        fault the table starts locked by, if any."""
        settings = self.settings
        self._log_start_entries(journal)
        progress.step("checking the journal")
        verdict = journal.verify(whole=False)  # after the verified mark
        log.info(
            "integrity check: %s (%d event(s) checked, quick_check %s)",
            "ok" if verdict.ok else "FAILED",
            verdict.events_checked,
            verdict.quick_check,
        )
        for warning in verdict.warnings:
            log.warning("integrity check: %s", warning)
        table: Table | None = None
        last_snapshot = 0
        _quiet_log(journal, SOFTWARE_CHECK, {"why": "start", **program.log_detail()})
        if modified is not None:
            _quiet_log(journal, *fault_entry(modified))
        if not verdict.ok:
            fault = verdict.problems[0]
        elif fault is None:
            progress.step("recovering the state")
            table, last_snapshot, fault = _fold(journal, progress)
            if fault is not None:
                journal.fault = fault
                _quiet_log(journal, *fault_entry(fault))
        if fault is None:
            fault = modified
        self.power_loss = _record_power_loss(
            journal, table, self._floor_topics() if fault is None else None
        )
        if table is None:
            table = Table(settings.rules)
        table.pin_verifier = self.pin_verifier
        if _has_puck(settings):
            from controller import puck as puck_check

            table.start_guard = puck_check.start_guard(settings.puck)
        recorder = Recorder(
            journal,
            table,
            snapshot_every=settings.journal.snapshot_every,
            last_snapshot_seq=last_snapshot,
            fault=fault,
            outbox=self._floor_outbox(),
        )
        self._check_pin_file(journal)
        return recorder, fault

    def _make_controller(
        self, devices: Devices, recorder: Recorder | None, fault: Fault | None, bench: bool
    ) -> Controller:
        """The controller, its outputs started and the devices' faults reconciled."""
        settings = self.settings
        outputs = Outputs(
            devices.lights,
            devices.display,
            settings.rules.seats,
            settings.display.language,
            settings.lights,
        )
        controller = Controller(
            settings=settings,
            journal=self.journal,
            recorder=recorder,
            fault=fault,
            outputs=outputs,
            inputs=self.inputs,
            config_path=self.config_path,
            notifier=self.notifier,
            publisher=self.publisher,
            has_puck=_has_puck(settings),
            clock=self.clock,
            bench=bench,
        )
        self.controller = controller
        controller.start_outputs()
        # a device the journal left lost that works now is back (none: not stopped)
        controller.reconcile_devices(lambda name: getattr(devices, name).fault is None)
        # the door switch's first reading comes from its driver; without a switch none will
        controller.reconcile_door(_has_door(settings))
        return controller

    def _verify_software(self, devices: Devices) -> tuple[software.Verdict, Fault | None, bool]:
        """What runs against the install's manifest (``software_check``), shown on the
        display's start screen; the verdict, the fault it locks play with, and whether
        this is a bench (every device simulated: an unverified program plays)."""
        settings = self.settings
        program = software.check()
        self.software_digest = program.digest
        try:  # the start screen, until the recovered state is shown
            devices.display.show_text(*start_screen(program, settings.display.language))
        except Exception as error:  # a display that fails is a device fault, found later
            log.warning("start screen not shown: %s", error)
        bench = bool(self.simulated) or bool(settings.hardware and settings.hardware.simulated)
        log_verdict(program, "start", bench=bench)
        return program, verdict_fault(program, bench=bench), bench

    def _log_start_entries(self, journal: Journal) -> None:
        """Repeat on the log what the journal recorded when it opened."""
        entries = list(
            journal.iter_system_log(
                after_id=0,
                kinds=(
                    LogKind.POWER_UP,
                    LogKind.UNCLEAN_SHUTDOWN,
                    LogKind.CONFIG_LOADED,
                    LogKind.INTEGRITY,
                ),
            )
        )
        start = max((i for i, e in enumerate(entries) if e.kind == LogKind.POWER_UP), default=0)
        for entry in entries[start:]:
            if entry.kind == LogKind.UNCLEAN_SHUTDOWN:
                log.warning(
                    "unclean shutdown detected: the last run ended without closing (last seq %s)",
                    entry.detail.get("last_seq"),
                )
            elif entry.kind == LogKind.INTEGRITY:
                log.error("journal tail check failed: %s", json.dumps(entry.detail))
            else:
                log.info("journal: %s %s", entry.kind, json.dumps(entry.detail, sort_keys=True))

    # -- the floor link ----------------------------------------------------------------

    def _floor_outbox(self) -> Any:
        """The outbox builder when a ``floor:`` section is configured, else None."""
        if self.settings.floor is None:
            return None
        from controller.floor.feed import feed_for  # only with a floor link: imported late

        return feed_for(
            self.settings,
            lambda: (
                (self.controller.settings if self.controller is not None else self.settings).tray
            ),
            chain_head=lambda: self.journal.chain_head() if self.journal is not None else None,
        )

    def _start_publisher(self) -> None:
        """The publisher, after the start-up checks and the retained state (the recovered
        one) has been queued. A publisher that cannot start (a missing password file,
        say) still queues fault messages in the outbox for a later start, and the display
        shows LINK ERROR. A table whose checks failed (a fault; no journal at all) sends
        its link status with the fault and nothing else: the publisher is ``held``."""
        if self.settings.floor is None or self.controller is None:
            return
        controller = self.controller
        inputs = self.inputs
        watched: list[tuple[str, bool, bool, bool, int | None]] = []

        def on_status(status: Any) -> None:  # on the publisher's thread
            # What the display and the system log show; the backlog only while down
            # (the display counts it then; while up it changes with every event).
            key = (
                status.link,
                status.alarm,
                status.overflowed,
                status.last_error is not None,
                status.unsent if status.link == "down" else None,
            )
            if not watched or watched[-1] != key:
                watched[:] = [key]
                inputs.put(LinkNotice(status))

        try:
            from controller.floor.publisher import Publisher
            from controller.floor.settings import FloorSettings

            publisher = Publisher(
                FloorSettings.adapt(self.settings.floor),
                table_id=self.settings.rules.table_id,
                db_path=self.journal.path if self.journal is not None else self.state_dir,
                on_status=on_status,
                held=controller.fault is not None or self.journal is None,
            )
        except Exception as error:  # the table plays on without its floor link
            log.error("floor link not started: %s", error)
            controller.link_problem = "LINK ERROR"
            return
        publisher.software = {"version": software.version(), "sha256": self.software_digest}
        self.publisher = publisher
        controller.publisher = publisher
        if controller.fault is not None:  # the floor hears of it in the link status
            publisher.set_fault(controller.fault.code)
        self._queue_start_state(publisher)
        try:
            publisher.start()
        except Exception as error:  # the table plays on without its floor link
            log.error("floor link not started: %s", error)
            controller.link_problem = "LINK ERROR"
            _quiet_log(
                self.journal,
                LogKind.FLOOR_LINK,
                {
                    "link": "down",
                    "reason": f"not started: {error}",
                    "unsent": None,
                    "alarm": False,
                    "overflowed": False,
                },
            )
            inputs.put(LinkNotice(publisher.status()))  # the loop shows LINK ERROR
            return
        log.info("floor link started (%s)", self.settings.floor.host)

    def _floor_topics(self) -> Any:
        """The floor link's topics when a ``floor:`` section is configured (and usable)."""
        if self.settings.floor is None:
            return None
        try:
            from controller.floor.settings import FloorSettings

            return FloorSettings.adapt(self.settings.floor).topics_for(self.settings.rules.table_id)
        except Exception as error:  # the publisher says so when it is made
            log.error("floor link settings: %s", error)
            return None

    def _queue_start_state(self, publisher: Any) -> None:
        """The recovered state as the retained ``state`` message, with the journal's last
        seq: a consumer arriving now, or one that held the state of an older journal,
        sees what the table resumes with. Nothing is written into a journal that failed
        its check (it is evidence)."""
        controller, journal = self.controller, self.journal
        if (
            controller is None
            or journal is None
            or controller.fault is not None
            or controller.recorder is None
        ):
            return
        from controller.floor.messages import state_message, table_info
        from controller.rules import state_view

        seq = journal.last_seq
        table = controller.recorder.table
        try:
            publisher.enqueue_claimed(
                journal,
                [
                    state_message(
                        publisher.topics,
                        state_view(table),
                        seq=seq,
                        table=table_info(table.settings),
                    )
                ],
                about="state",
            )
        except Exception as error:  # the floor link must never stop the table
            log.error("floor: the start-up state was not queued: %s", error)

    # -- run and stop ------------------------------------------------------------------

    def run(self) -> None:
        """The controller loop, in the calling thread, until ``stop()``."""
        assert self.controller is not None
        self.controller.run()

    def run_in_thread(self) -> threading.Thread:
        self.thread = threading.Thread(target=self.run, name="controller", daemon=True)
        self.thread.start()
        return self.thread

    def stop(self, reason: str = "stop requested") -> None:
        self.inputs.put(Stop(reason))

    def reload(self) -> None:
        self.inputs.put(Reload())

    def submit(
        self, event: dict[str, Any], *, by: str | None = None, timeout: float = 10.0
    ) -> Outcome:
        """Hand a rules event to the loop and wait for its outcome (tests, bench)."""
        done = threading.Event()
        box: list[Outcome] = []

        def finished(outcome: Outcome) -> None:
            box.append(outcome)
            done.set()

        self.inputs.put(Submit(event, by=by, done=finished))
        if not done.wait(timeout):
            raise TimeoutError(f"the loop did not handle {event!r} within {timeout} s")
        return box[0]

    def close(self) -> None:
        """Orderly shutdown after the loop ended: journal marker, devices, publisher."""
        self.notifier.stopping("stopping")
        if self.thread is not None and self.thread.is_alive():
            self.stop("closing")
            self.thread.join(10)
        if self.publisher is not None:
            try:
                self.publisher.stop()
            except Exception as error:
                log.warning("floor link stop: %s", error)
            self.publisher = None
        if self.journal is not None:
            try:
                self.journal.close()
            except JournalError as error:
                log.warning("journal close: %s", error.message)
            self.journal = None
        if self.devices is not None:
            with contextlib.suppress(Exception):
                self.devices.display.show_text("TABLE CONTROLLER", "STOPPED")
            self.devices.close()
            self.devices = None
        log.info("stopped")

    def _check_pin_file(self, journal: Journal) -> None:
        """An unusable PIN file (unsafe owner or mode, a bad line) is said at start, in
        the log and the system log (``pin_file``); play goes on, and a PIN typed is
        answered PIN CHECK NOT AVAILABLE until the file is fixed (no restart needed)."""
        check = getattr(self.pin_verifier, "check", None)
        if check is None:
            return
        try:
            check()
        except PinFileMissing as error:  # a bench, or a table before `tablectl pin set`
            log.warning("%s; until then a PIN is answered %s", error, unavailable_words())
        except (ValueError, OSError) as error:
            log.error(
                "supervisor PIN file cannot be used: %s; until it is fixed a PIN is answered %s",
                error,
                unavailable_words(),
            )
            _quiet_log(journal, "pin_file", {"ok": False, "problem": str(error)})


def _fold(journal: Journal, progress: StartProgress) -> tuple[Table | None, int, Fault | None]:
    """The table as the journal leaves it and the seq of the snapshot it was folded
    from; or no table and the fault that stopped the fold."""
    try:
        folded = fold(journal, RulesBook(journal), on_record=progress.record)
    except JournalIntegrityError as error:
        return None, 0, error
    except Exception as error:  # a bug in the fold: locked, never a crash loop
        log.exception("recovery failed")
        return None, 0, SoftwareFault(f"recovery failed: {type(error).__name__}: {error}")
    table = folded.table
    log.info(
        "recovered: seq %d, hand %d %s (snapshot seq %d + %d event(s))",
        folded.last_seq,
        table.state.hand_number,
        table.state.phase,
        folded.snapshot_seq,
        folded.replayed,
    )
    return table, folded.snapshot_seq, None


def _record_power_loss(journal: Journal, table: Table | None, topics: Any) -> dict[str, Any] | None:
    """After an unclean stop, the ``power_loss`` entry (``powerloss``): when the power
    went, when the table came back, the hand in play (None when recovery failed).
    With the floor link's ``topics`` (configured, and the checks passed) the floor's
    ``power`` message is queued in the same transaction: a start that dies right after
    leaves both or neither. Returns its detail (None: the last run stopped cleanly)."""
    state = table.state if table is not None else None
    hand = state.hand_number if state is not None and state.hand is not None else None
    try:
        detail = power_loss(journal, hand, state.phase if state is not None else None)
    except Exception as error:  # a report, never a reason not to start
        log.warning("the power loss was not recorded: %s", error)
        return None
    if detail is None:
        return None
    log.warning("%s", describe_power_loss(detail))
    if topics is None:
        _quiet_log(journal, POWER_LOSS, detail)
        return detail
    from controller.floor.messages import power_message

    try:
        message = power_message(topics, detail, seq=journal.last_seq)
        journal.queue_floor([message], about="power", entry=(POWER_LOSS, detail))
    except Exception as error:  # the floor link must never stop the table
        log.error("floor: the power loss was not queued: %s", error)
        _quiet_log(journal, POWER_LOSS, detail)
    return detail


def _has_puck(settings: Settings) -> bool:
    return bool(settings.hardware is not None and settings.hardware.puck.pins)


def _pin_file(settings: Settings) -> Callable[[str, str], bool]:
    return PinFile(settings.supervisor.pin_file)


def _as_integrity(error: JournalError) -> JournalIntegrityError:
    fault = JournalIntegrityError(error.message)
    fault.code = error.code
    fault.display = error.display
    return fault


def _quiet_log(journal: Journal | None, kind: str, detail: dict[str, Any]) -> None:
    if journal is None:  # none could be opened: the service log has said why
        return
    try:
        journal.log_system(kind, detail)
    except Exception as error:
        log.warning("system log entry %s not recorded: %s", kind, error)


def _has_door(settings: Settings) -> bool:
    return bool(settings.hardware is not None and settings.hardware.door.pin is not None)
