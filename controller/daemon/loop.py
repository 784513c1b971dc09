"""The controller loop: one thread, one queue, every input in order.

Theory of operation
-------------------
Driver threads (gpiozero callbacks, serial readers) and the daemon itself (signals)
put items on ONE queue. This loop is the only code that touches the rules, the
journal and the outputs, so nothing needs a lock. For each rules input::

    tell the time     a tick with the time elapsed since the last journalled one
    check             the rules core (pure)
    record            the journal, durable (refusals too, as audit records)
    apply             the rules core folds it in
    show              seat lights, clock digits, dealer display, from the new state

A refusal is shown on the dealer display ("NO: MIN RAISE TO 40") until the next
accepted event, and logged; it changes nothing. Device faults and their clearing, and
the floor link's trouble, arrive on the queue too (``DeviceNotice``, ``LinkNotice``):
nothing here polls a device or the link. Between inputs the loop sleeps on the queue
until the next instant something is due: a tick the rules must hear (clock warning,
expiry, the periodic tick, tray stability, see ``timekeeping``), the next second of
the countdown, or the systemd watchdog ping. Idle, with no clock running, it wakes only
for the watchdog.

A sticky fault (``controller.faults``: the journal failed its check at start, a write
failed, or a bug escaped the rules) locks play: every input is refused with its lock
code (``memory_fault``, ``storage_fault`` or ``software_fault``) and not recorded, the
seats blink fast, the display says which fault and calls for a technician. The loop keeps running (and pinging the watchdog) so that systemd does not
restart into the same fault over and over; a technician clears it (salvage, restart).

A new configuration (SIGHUP, or a file that changed while the daemon was off) takes
effect between hands: it is held while a hand is in progress, then recorded in the
journal (``record_config``) and the rules use it from the next event on.

What is shown beside the state (``Display``, ``LastShown``) and the log's one-line
forms are in ``display``; configuration reload and retention in ``reconfig``; how a
fault, a device fault, a tray alarm or the floor link's trouble is logged, journalled
and told to the floor in ``fault_handling``.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable
from typing import Any

from controller import device_faults
from controller import puck as puck_check
from controller import tray as tray_check
from controller.config import Settings
from controller.daemon.display import (
    Display,
    LastShown,
    _brief,
    _status_line,
    outcome_by,
    power_alert,
)
from controller.daemon.fault_handling import FaultHandlingMixin
from controller.daemon.inputs import (
    DeviceNotice,
    LinkNotice,
    Reload,
    RulesInput,
    Stop,
    Submit,
    console_refusal,
    translate,
)
from controller.daemon.inqueue import InputQueue
from controller.daemon.outputs import Outputs
from controller.daemon.reconfig import ConfigMixin
from controller.daemon.recorder import Outcome, Recorder, describe
from controller.daemon.software_check import SoftwareCheckMixin, SoftwareVerdict, VerifyNow
from controller.daemon.timekeeping import (
    Clock,
    SystemClock,
    Timekeeper,
    ops_tick_after_ms,
    running_clock,
    tournament_tick_after_ms,
    tray_stable_after_ms,
)
from controller.device_faults import PIN_LOCKOUT
from controller.fault_words import fault_lines
from controller.faults import Fault, SoftwareFault
from controller.journal import Journal, LogKind
from controller.lights import HALTING_DEVICES
from controller.rules import Refusal, Table, state_view, tournament
from controller.rules.effects import (
    ClockExpired,
    HandEnded,
    HandStarted,
    PlayStopped,
    Transferred,
)
from controller.rules.keypad import locked_ms
from controller.rules.keypad.supervisor import (
    MAX_PIN_TRIES,
    PinRejected,
    SupervisorLocked,
    SupervisorSignedIn,
)
from controller.rules.text import Message

log = logging.getLogger("table-controller")

__all__ = ["Controller", "Notifier", "log"]


class Notifier:
    """The systemd notify calls the loop makes (``controller.notify`` by default)."""

    def __init__(self) -> None:
        from controller import notify

        self.ready: Callable[[str | None], bool] = notify.ready
        self.status: Callable[[str], bool] = notify.status
        self.watchdog: Callable[[], bool] = notify.watchdog
        self.stopping: Callable[[str | None], bool] = notify.stopping
        self.extend: Callable[[float], bool] = notify.extend_timeout
        self.interval: Callable[[], float | None] = notify.watchdog_interval


class Controller(ConfigMixin, FaultHandlingMixin, SoftwareCheckMixin):
    def __init__(
        self,
        *,
        settings: Settings,
        journal: Journal | None,
        recorder: Recorder | None,
        fault: Fault | None,
        outputs: Outputs,
        inputs: queue.Queue[Any] | InputQueue,
        config_path: str | None = None,
        notifier: Notifier | None = None,
        publisher: Any = None,
        has_puck: bool = False,
        clock: Clock | None = None,
        bench: bool = False,
    ) -> None:
        self.settings = settings
        self.journal = journal
        self.recorder = recorder
        self.fault = fault if fault is not None else (recorder.fault if recorder else None)
        self.outputs = outputs
        self.inputs = inputs
        self.config_path = config_path
        self.notifier = notifier or Notifier()
        self.publisher = publisher
        self.has_puck = has_puck
        self.clock = clock or SystemClock()
        self.timekeeper = Timekeeper(monotonic_ns=self.clock.now_ns)
        self.display = Display(device_faults={})
        self.pending_config: Settings | None = None
        self.config_due_ns: int | None = None  # a reloaded file may be taken (reconfig)
        self.hands_since_prune = 0
        self.prune_due_ns: int | None = None
        self.bench = bench  # every device simulated: an unverified program may play
        self.software_due_ns: int | None = None
        self.software_running = False
        self.schedule_software_check()
        self.running = False
        self.stopped_reason: str | None = None
        self._watchdog_every = self.notifier.interval()
        self._watchdog_next_ns = self.clock.now_ns()
        self._status_text: str | None = None
        self.loops = 0
        self.last_shown: LastShown | None = None
        self.link_problem: str | None = None  # the floor link could not even start
        self._link_tried = False  # the first connection has come up or failed
        self._link_logged: tuple[str, bool, bool] | None = None
        # (hand, button) of a hand dealt with the puck away from its button (puck
        # ``warn``): its warning stays until the puck has been there (controller.puck)
        self.puck_owed: tuple[int, int] | None = None

    # -- the loop ----------------------------------------------------------------------

    def run(self) -> None:
        """Handle inputs until a ``Stop``. Call ``start_outputs`` first."""
        self.running = True
        try:
            while True:
                item = self.clock.next_input(self.inputs, self._wake_at(self.clock.now_ns()))
                self.loops += 1
                if item is not None:
                    if isinstance(item, Stop):
                        self.stopped_reason = item.reason
                        break
                    self._guarded(self._handle, item)
                self._guarded(self._on_time, self.timekeeper.now())
                self._ping_watchdog()
                if self.prune_due_ns is not None:
                    self._guarded(self._prune_if_idle, None)
                if self.config_due_ns is not None:
                    self._guarded(self.take_pending_config, self.clock.now_ns())
                self._guarded(self._software_if_due, None)
        finally:
            self.running = False

    def _prune_if_idle(self, _: Any) -> None:
        self.prune_if_idle(self.clock.now_ns(), self.inputs.empty())

    def _software_if_due(self, _: Any) -> None:
        self.software_check_if_due(self.clock.now_ns(), self.inputs.empty())

    def _wake_at(self, now: int) -> int | None:
        """The instant the loop must wake without an input, or None: not before one."""
        dues = [self._watchdog_due_ns()]
        if self.prune_due_ns is not None:  # the deferred prune (reconfig.prune_if_idle)
            dues.append(self.prune_due_ns)
        if self.config_due_ns is not None:  # a reloaded file, once settled (reconfig)
            dues.append(self.config_due_ns)
        if self.software_due_ns is not None and not self.software_running:
            dues.append(self.software_due_ns)  # the periodic software check
        if self.fault is None and self.recorder is not None:
            state = self.recorder.table.state
            dues.append(self._tick_due())
            dues.append(self.timekeeper.display_due(state, now))
            rules = self.recorder.table.settings
            dues.append(self.timekeeper.level_display_due(state, rules, now))
        found = [due for due in dues if due is not None]
        return min(found) if found else None

    def _watchdog_due_ns(self) -> int | None:
        if self._watchdog_every is None:
            return None
        return self._watchdog_next_ns

    def _ping_watchdog(self) -> None:
        if self._watchdog_every is None:
            return
        now = self.clock.now_ns()
        if now >= self._watchdog_next_ns:
            self._check_place()
            self.notifier.watchdog()
            self._watchdog_next_ns = now + int(self._watchdog_every * 1e9)

    def _check_place(self) -> None:
        """An idle table notices too that its state directory was moved (journal/place.py)."""
        if self.fault is None and self.journal is not None:
            moved = self.journal.check_place()
            if moved is not None:
                self._enter_fault(moved)

    def _guarded(self, step: Callable[[Any], None], arg: Any) -> None:
        try:
            step(arg)
        except Exception as error:  # a bug: lock play rather than run on a doubtful state
            log.exception("unexpected error; play is locked")
            self._enter_fault(SoftwareFault(f"{type(error).__name__}: {error}"))

    # -- items -------------------------------------------------------------------------

    def _handle(self, item: Any) -> None:
        if isinstance(item, Reload):
            self.reload()
            return
        if isinstance(item, LinkNotice):
            self._link_notice(item.status)
            return
        if isinstance(item, SoftwareVerdict):
            self.software_verdict(item)
            return
        if isinstance(item, VerifyNow):
            self.start_software_check(item.why)
            return
        if isinstance(item, Submit):
            refusal = console_refusal(item.event) if item.console else None
            outcome = self.submit(item.event, source="console", by=item.by, refused=refusal)
            if item.done is not None:
                item.done(outcome)
            return
        translated = translate(item)
        if isinstance(translated, DeviceNotice):
            self._device_notice(translated)
        elif translated.source == "door":  # journalled when it is news (fault_handling)
            self.door_reading(str(translated.event["status"]))
        elif isinstance(translated, RulesInput):
            if translated.source == "puck" and "puck" in (self.display.device_faults or {}):
                self._device_notice(DeviceNotice("puck", None))
            self.submit(translated.event, source=translated.source)

    def submit(
        self,
        event: dict[str, Any],
        *,
        source: str,
        by: str | None = None,
        refused: Refusal | None = None,
    ) -> Outcome:
        """Tell the time, then check, record, apply and show one rules event (``refused``:
        recorded refused for that reason, ``inputs.console_refusal``)."""
        recorder = self.recorder
        if self.fault is not None or recorder is None:
            outcome = Outcome(None, False, event, self._lock_error())
            log.warning(
                "%s from %s refused: play is locked (%s)",
                _brief(event, True),
                source,
                self.fault.code if self.fault else "no journal",
            )
            self._show()
            return outcome
        now = self.timekeeper.now()
        if not self._time_matters():
            if not self._time_counts():
                self.timekeeper.restart(now)  # idle time nothing depends on is not journalled
        elif not self._tell_time(now):
            return Outcome(None, False, event, self._lock_error())
        outcome = recorder.record(event, by=by, refused=refused)
        event = outcome.event  # as recorded: a PIN digit hidden
        if outcome.seq is None:
            self._enter_fault(recorder.fault or SoftwareFault("the journal refused the event"))
            return outcome
        self._notify_publisher()
        if outcome.ok:
            log.info(
                "seq %d %s from %s%s",
                outcome.seq,
                _brief(event, False),
                source,
                f" by {outcome_by(event, recorder)}" if outcome_by(event, recorder) else "",
            )
            self._after_accepted(outcome)
        else:
            error = outcome.error or {}
            log.info(
                "seq %d %s from %s refused: %s: %s",
                outcome.seq,
                _brief(event, False),
                source,
                error.get("code"),
                error.get("message"),
            )
            self.display.refusal = outcome.said or error.get("message")
        self._show()
        return outcome

    def _after_accepted(self, outcome: Outcome) -> None:
        if outcome.event.get("type") not in ("tick", "state"):
            self.display.refusal = None
            self.display.expired = None
        if outcome.event.get("type") == "door":  # a significant event: the system log
            status = outcome.event.get("status")
            log.warning("seq %d: the door is %s", outcome.seq, status)
            self._system_log(LogKind.DOOR, {"status": status, "seq": outcome.seq})
        for effect in outcome.effects:
            if isinstance(effect, ClockExpired):
                self.display.expired = (effect.seat, effect.action)
                log.info("clock expired on seat %d: %s", effect.seat, effect.action)
            elif isinstance(effect, HandStarted) and self.has_puck:
                state = self.recorder.table.state if self.recorder else None
                if state is not None and state.puck != effect.button:
                    self.puck_owed = (effect.hand, effect.button)
            elif isinstance(effect, HandEnded):
                log.info("hand %d %s", effect.hand, "voided" if effect.voided else "ended")
                self.hands_since_prune += 1
            elif isinstance(effect, Transferred):  # a supervisor's correction: logged
                log.warning(
                    "seq %d: supervisor %s moved %d from seat %d to seat %d (%s)",
                    outcome.seq,
                    effect.by,
                    effect.amount,
                    effect.from_seat,
                    effect.to_seat,
                    effect.reason.replace("_", " "),
                )
                self._system_log(
                    LogKind.CORRECTION,
                    {
                        "kind": "transfer",
                        "seq": outcome.seq,
                        "supervisor": effect.by,
                        "from": effect.from_seat,
                        "to": effect.to_seat,
                        "amount": effect.amount,
                        "reason": effect.reason,
                    },
                )
            elif isinstance(effect, PlayStopped):  # the clock stands still, no hand starts
                causes = list(effect.causes)
                log.warning(
                    "seq %d: play %s", outcome.seq, f"stopped: {causes}" if causes else "goes on"
                )
                self._system_log("play_stopped", {"seq": outcome.seq, "causes": causes})
            elif isinstance(effect, (PinRejected, SupervisorLocked, SupervisorSignedIn)):
                self._pin_effect(effect)
        if self.recorder is not None and self.recorder.table.state.phase == "idle":
            self._between_hands()

    def _pin_effect(self, effect: PinRejected | SupervisorLocked | SupervisorSignedIn) -> None:
        """Each wrong PIN and each lock-out: logged; from the second lock-out in a row the
        floor is told (a ``pin_lockout`` alarm, ended by the next right PIN)."""
        if isinstance(effect, PinRejected):
            log.warning(
                "wrong PIN for supervisor %s (%d in a row)", effect.supervisor, effect.failures
            )
            self._system_log(
                "pin_rejected", {"supervisor": effect.supervisor, "failures": effect.failures}
            )
            return
        if isinstance(effect, SupervisorSignedIn):
            if effect.floor:
                self._publish_fault("keypad", PIN_LOCKOUT, active=False, detail=None)
            return
        minutes = effect.duration_ms // 60_000
        log.warning(
            "wrong PIN for supervisor %s: the supervisor menu is locked for %d minutes "
            "(lock-out %d in a row)",
            effect.supervisor,
            minutes,
            effect.lockout,
        )
        detail = {"supervisor": effect.supervisor, "until_ms": effect.until_ms}
        self._system_log(
            "supervisor_locked", {**detail, "lockout": effect.lockout, "minutes": minutes}
        )
        if effect.floor:
            self._publish_fault(
                "keypad",
                PIN_LOCKOUT,
                active=True,
                detail=f"supervisor {effect.supervisor}: lock-out {effect.lockout} in a row "
                f"after {MAX_PIN_TRIES} wrong PINs each, {minutes} minutes",
            )

    def _notify_publisher(self) -> None:
        if self.publisher is not None:
            self.publisher.notify()

    # -- time --------------------------------------------------------------------------

    def _tick_due(self) -> int | None:
        assert self.recorder is not None
        state = self.recorder.table.state
        tray = self.settings.tray
        return self.timekeeper.tick_due(
            state,
            self.recorder.table.settings.clock.warning * 1000,
            [
                tray_stable_after_ms(state, tray.stable_seconds, bool(tray.float_counts)),
                *ops_tick_after_ms(state, self.recorder.table.settings),
                *tournament_tick_after_ms(state, self.recorder.table.settings),
            ],
        )

    def _on_time(self, now: int) -> None:
        if self.fault is not None or self.recorder is None:
            return
        due = self._tick_due()
        if due is not None and due <= now:
            if self._tell_time(now):
                self._show()
            return
        state = self.recorder.table.state
        countdown = self.timekeeper.countdown_ms(state, now)
        if countdown is not None:  # after an expiry, only a shot clock's next decision
            self.outputs.show_clock(countdown, self._warning(countdown))
        rules = self.recorder.table.settings
        if self.timekeeper.level_display_due(state, rules, now) is not None:
            self._show()  # between hands, the level clock's time left counting down

    def _time_matters(self) -> bool:
        """Whether the rules' outcome of the next input may depend on the time since the
        last tick: an action clock runs (play not stopped), the supervisor PIN is locked out, or the chip
        tray's float check is waiting for a reading to hold still. Otherwise the time
        that passed is dropped, not journalled: nothing in the state depends on it."""
        assert self.recorder is not None
        state = self.recorder.table.state
        if running_clock(state) is not None:
            return True
        if tournament.ms_left_running(state, self.recorder.table.settings) is not None:
            return True  # rules T1: the level clock counts every tick
        if self.settings.tray.float_counts and state.tray_read:
            return True
        return bool(locked_ms(state))

    def _time_counts(self) -> bool:
        """Whether table time is kept though nothing waits on it to the millisecond: a
        shift is open (its hours) or a dealer's push reminder is to come. It is told
        by the periodic tick (``ops_tick_after_ms``), not before every input."""
        assert self.recorder is not None
        return bool(ops_tick_after_ms(self.recorder.table.state, self.recorder.table.settings))

    def _tell_time(self, now: int) -> bool:
        """Journal a tick for the time not yet told; False when the journal failed."""
        recorder = self.recorder
        assert recorder is not None
        ms = self.timekeeper.pending_ms(now)
        if ms <= 0:
            return True
        outcome = recorder.record({"type": "tick", "ms": ms})
        if outcome.seq is None:
            self._enter_fault(recorder.fault or SoftwareFault("the journal refused a tick"))
            return False
        self.timekeeper.told(ms)
        self._notify_publisher()
        log.debug("seq %d tick %d ms", outcome.seq, ms)
        if outcome.ok:
            self._after_accepted(outcome)
        return True

    def _warning(self, countdown: int) -> bool:
        assert self.recorder is not None
        clock = self.recorder.table.state.clock
        warning_ms = self.recorder.table.settings.clock.warning * 1000
        return bool(clock is not None and (clock.warning or countdown <= warning_ms))

    # -- outputs -----------------------------------------------------------------------

    def start_outputs(self) -> None:
        """Re-drive every output from the recovered state (or the fault)."""
        self.outputs.redrive()
        self.timekeeper.restart(self.timekeeper.now())
        state = self.recorder.table.state if self.recorder is not None else None
        hand = state.hand if state is not None and self.has_puck else None
        button = state.positions.button if state is not None else None
        if hand is not None and button is not None and state is not None and state.puck != button:
            self.puck_owed = (hand.number, button)  # a hand recovered with the puck off it
        self._show()

    def _show(self) -> None:
        if self.fault is not None or self.recorder is None:
            fault = self.fault
            self.outputs.show_fault(*fault_lines(fault))
            self._status(f"LOCKED: {fault.code if fault else 'no journal'}: call a technician")
            self.last_shown = LastShown(None, fault=fault.code if fault else "no journal")
            return
        table = self.recorder.table
        now = self.timekeeper.now()
        # the display counts a running level clock down between ticks (rules T1)
        since = self.timekeeper.level_since_ms(table.state, table.settings, now)
        view = state_view(table, since_ms=since)
        countdown = self.timekeeper.countdown_ms(table.state, now)
        # the first alert is shown: puck, tray, a power loss since the last hand, floor link
        alerts: list[Message | str] = []
        check, puck_seats = self._puck_check(table, alerts)
        tray = tray_check.status(table.state, self.settings.tray)
        view = tray_check.with_figures(view, tray)
        self._log_tray_change(tray)
        if self.publisher is not None:  # the retained link status says it too
            try:
                self.publisher.set_tray_discrepancy(tray.difference if tray.alarm else None)
            except Exception as error:  # the floor link must never stop the table
                log.warning("floor: the tray alarm was not sent: %s", describe(error))
        alarm = tray_check.alarm_message(tray)
        if alarm is not None:
            alerts.append(alarm)
        power = power_alert(self.display, table.state.hand_number)
        if power is not None:
            alerts.append(power)
        link = self._link_alert()
        if link is not None:
            alerts.append(link)
        faults = self.display.device_faults or {}
        device_fault = None
        if faults:
            code = next(iter(faults.values()))
            device_fault = device_faults.words(code, self.display.puck_fault_seats)
        self.outputs.show(
            view,
            countdown_ms=countdown,
            warning=self._warning(countdown) if countdown is not None else False,
            device_fault=device_fault,
            refusal=self.display.refusal,
            expired=self.display.expired,
            alerts=alerts,
            puck_seats=puck_seats,
            halted=bool(set(faults) & HALTING_DEVICES) or "door_open" in table.state.play_stopped,
        )
        self._status(_status_line(view, faults))
        self.last_shown = LastShown(view, check, tray, dict(faults))

    def _puck_check(
        self, table: Table, alerts: list[Message | str]
    ) -> tuple[puck_check.PuckCheck | None, tuple[int, ...]]:
        """The button puck's check (None without a sensor) and the seats its lights
        show; its warning joins ``alerts`` and goes to the floor link's status."""
        if not self.has_puck:
            return None, ()
        seen = self.display.puck_fault_seats or None
        check = puck_check.check(
            table.state, table.settings, self.settings.puck, seen, self._puck_owed()
        )
        puck_seats: tuple[int, ...] = ()
        if check.message is not None:
            alerts.append(check.message)
            if table.state.phase == "idle":  # in a hand the lights show the play
                puck_seats = check.light_seats
        if self.publisher is not None:  # the retained link status says it too
            try:
                self.publisher.set_puck_warning(puck_check.floor_view(check))
            except Exception as error:  # the floor link must never stop the table
                log.warning("floor: the puck warning was not sent: %s", describe(error))
        return check, puck_seats

    def _puck_owed(self) -> int | None:
        """The button of the hand in progress while the puck has not yet been on it
        since the hand was dealt elsewhere; None otherwise (and from then on)."""
        assert self.recorder is not None
        state = self.recorder.table.state
        owed = self.puck_owed
        if owed is not None and (state.hand is None or state.hand.number != owed[0]):
            owed = None  # that hand is over: the check between hands takes over
        if owed is not None and state.puck == owed[1]:
            owed = None  # the puck got there
        self.puck_owed = owed
        return owed[1] if owed is not None else None

    def _status(self, text: str) -> None:
        if text != self._status_text:
            self._status_text = text
            self.notifier.status(text)
