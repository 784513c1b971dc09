"""Configuration reload and journal retention for the controller loop (a mixin of
``loop.Controller``).

A new configuration (SIGHUP, or a file that changed while the daemon was off) takes
effect between hands: it is held while a hand is in progress, then recorded in the
journal (``record_config``) and the rules use it from the next event on. One whose
``table.seats`` is below an occupied seat is refused, naming the seats (``stranded``):
the running configuration stays. Retention
prunes the journal between hands, once every ``PRUNE_EVERY_HANDS`` hands.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from controller import puck as puck_check
from controller.config import ConfigError, Settings, load_config
from controller.daemon.outputs import Outputs
from controller.daemon.recorder import Recorder, describe
from controller.daemon.timekeeping import Clock
from controller.faults import Fault
from controller.journal import Journal, JournalError

log = logging.getLogger("table-controller")

PRUNE_EVERY_HANDS = 25
#: Nanoseconds without input, between hands, before the deferred prune runs.
PRUNE_IDLE_NS = 300_000_000
"""Retention runs between hands, once every this many hands."""


def stranded(recorder: Recorder | None, new: Settings) -> str | None:
    """Why ``new`` cannot be taken while players sit where it has no seat: its
    ``table.seats`` is below an occupied seat (those players would be stranded), or
    None when it can."""
    if recorder is None:
        return None
    seats = recorder.table.state.seats
    outside = [seat for seat in sorted(seats) if seat > new.rules.seats]
    if not outside:
        return None
    who = ", ".join(f"seat {seat} ({seats[seat].player})" for seat in outside)
    return (
        f"table.seats is {new.rules.seats} in {new.source}, but {who} "
        f"{'is' if len(outside) == 1 else 'are'} occupied: have "
        f"{'that player' if len(outside) == 1 else 'those players'} leave or move to "
        f"seats 1-{new.rules.seats} first, or keep table.seats at {max(outside)} or more"
    )


class ConfigMixin:
    """``reload``, ``offer_config`` and what runs between hands; the attributes are
    ``Controller``'s."""

    settings: Settings
    journal: Journal | None
    recorder: Recorder | None
    fault: Fault | None
    outputs: Outputs
    config_path: str | None
    pending_config: Settings | None
    hands_since_prune: int
    prune_due_ns: int | None
    clock: Clock
    has_puck: bool

    def reload(self) -> None:
        """SIGHUP: read the configuration file again."""
        if self.config_path is None:
            log.warning("reload asked, but the daemon was not started from a file")
            return
        try:
            new = load_config(self.config_path)
        except ConfigError as error:
            log.error(
                "configuration %s NOT reloaded (%d problem(s)); the running one stays:",
                self.config_path,
                len(error.problems),
            )
            for problem in error.problems:
                log.error("  %s", problem)
            return
        except OSError as error:
            log.error("configuration %s NOT reloaded: %s", self.config_path, error.strerror)
            return
        self.offer_config(new)

    def offer_config(self, new: Settings) -> None:
        current = self.journal.config_sha256 if self.journal is not None else self.settings.sha256
        if new.sha256 == current:
            log.info("configuration %s reloaded: unchanged (sha256 %s)", new.source, new.sha256)
            self.pending_config = None
            return
        owner = self.journal.table_id if self.journal is not None else None
        if owner and new.rules.table_id != owner:
            log.error(
                "configuration %s NOT taken: it names table %s, but this journal belongs "
                "to table %s; the running configuration stays. A renamed table starts "
                "with a new state directory.",
                new.source,
                new.rules.table_id,
                owner,
            )
            self.pending_config = None
            return
        for part in ("hardware", "journal", "floor"):
            if getattr(new, part) != getattr(self.settings, part):
                log.warning(
                    "configuration: the %s: section changed; it takes effect at the next restart",
                    part,
                )
        problem = stranded(self.recorder, new)
        if problem is not None:
            self._refuse_config(new, problem)
            return
        self.pending_config = new
        if self.recorder is not None and self.recorder.table.state.phase == "idle":
            self._between_hands()
        else:
            log.info(
                "configuration %s (sha256 %s) is held until the hand ends",
                new.source,
                new.sha256[:12],
            )

    def _between_hands(self) -> None:
        if self.pending_config is not None:
            self._apply_config(self.pending_config)
        if self.hands_since_prune >= PRUNE_EVERY_HANDS and self.prune_due_ns is None:
            # Not now: this runs inside the input that ended the hand, before the lights
            # and display show it. The loop prunes once it has been idle for
            # PRUNE_IDLE_NS, still between hands (``prune_if_idle``).
            self.prune_due_ns = self.clock.now_ns() + PRUNE_IDLE_NS

    def prune_if_idle(self, now_ns: int, idle: bool) -> None:
        """The deferred prune, off every input's path: due, nothing waiting, no hand."""
        due = self.prune_due_ns
        if due is None:
            return
        # A dealer who never pauses 0.3 s between hands still gets the journal pruned:
        # after another PRUNE_EVERY_HANDS hands, right after a hand-ending input is shown.
        overdue = self.hands_since_prune >= 2 * PRUNE_EVERY_HANDS
        if not overdue and (now_ns < due or not idle):
            return
        if self.recorder is not None and self.recorder.table.state.phase != "idle":
            if not overdue:
                self.prune_due_ns = None  # a hand began: the next hand's end asks again
            return
        self.prune_due_ns = None
        self.hands_since_prune = 0
        self._prune()

    def _refuse_config(self, new: Settings, problem: str) -> None:
        log.error("configuration %s NOT taken; the running one stays: %s", new.source, problem)
        if self.journal is not None:
            try:
                self.journal.log_system(
                    "config_refused", {"sha256": new.sha256, "problem": problem}
                )
            except (JournalError, OSError) as error:
                log.warning("system log entry config_refused not recorded: %s", describe(error))

    def _apply_config(self, new: Settings) -> None:
        self.pending_config = None
        if self.journal is None or self.recorder is None or self.fault is not None:
            return
        problem = stranded(self.recorder, new)  # seated while the change waited
        if problem is not None:
            self._refuse_config(new, problem)
            return
        try:
            self.journal.record_config(new.config_text)
        except (JournalError, OSError) as error:
            log.error("configuration change not recorded: %s", describe(error))
            return
        self.recorder.table.settings = new.rules
        self.recorder.snapshot_every = new.journal.snapshot_every
        self.outputs.language = new.display.language
        self.outputs.patterns = getattr(new, "lights", self.outputs.patterns)
        self.settings = replace(
            new,
            hardware=self.settings.hardware,
            journal=self.settings.journal,
            floor=self.settings.floor,
        )
        if self.has_puck:
            self.recorder.table.start_guard = puck_check.start_guard(self.settings.puck)
        log.info(
            "configuration %s in force from seq %d (sha256 %s): %s",
            new.source,
            self.recorder.last_seq + 1,
            new.sha256,
            new.summary(),
        )

    def _prune(self) -> None:
        if self.journal is None or self.fault is not None:
            return
        try:
            report = self.journal.prune(
                self.settings.journal.keep_hands, archive=self.settings.journal.archive
            )
        except Exception as error:  # retention must not stop play
            log.warning("journal retention skipped: %s", describe(error))
            return
        if report.removed_events:
            log.info(
                "journal retention: %d old event(s) removed, kept from seq %d",
                report.removed_events,
                report.kept_from_seq,
            )
