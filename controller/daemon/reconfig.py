"""Configuration reload and journal retention for the controller loop (a mixin of
``loop.Controller``).

A new configuration (SIGHUP, or a file that changed while the daemon was off) takes
effect between hands: it is held while a hand is in progress, then recorded in the
journal (``record_config``) and the rules use it from the next event on. One whose
``table.seats`` is below an occupied seat is refused, naming the seats (``stranded``):
the running configuration stays. Retention
prunes the journal between hands, once every ``PRUNE_EVERY_HANDS`` hands.

A file may be read while it is still being written (SIGHUP sent before the editor or
the copy finished). So a file read on SIGHUP is taken only once it has stayed the same
for ``CONFIG_SETTLE_NS``, and the file is read again when a held change takes effect:
what is there then is taken, checked again, or refused with the running one kept
(``take_pending_config``). The log line and the journal's ``config_change`` entry say
in one line what changed (``settings_changes``).
"""

from __future__ import annotations

import logging
from dataclasses import replace

from controller import puck as puck_check
from controller.config import ConfigError, Settings, load_config, load_config_text
from controller.config.settings import settings_changes
from controller.daemon.host import ControllerHost
from controller.daemon.recorder import Recorder, describe
from controller.daemon.recovery import edition_marks
from controller.journal import JournalError

log = logging.getLogger("table-controller")

PRUNE_EVERY_HANDS = 25
#: Nanoseconds without input, between hands, before the deferred prune runs.
PRUNE_IDLE_NS = 300_000_000
"""Retention runs between hands, once every this many hands."""
#: A file read on SIGHUP must read the same this long after before it is taken.
CONFIG_SETTLE_NS = 2_000_000_000


def stranded(recorder: Recorder | None, new: Settings) -> str | None:
    """Why ``new`` cannot be taken while players sit where it has no seat: its
    ``table.seats`` is below an occupied seat (those players would be stranded), or it
    turns the table from cash games into a tournament or back under them
    (``_tournament_changed``); None when it can."""
    if recorder is None:
        return None
    seats = recorder.table.state.seats
    changed = _tournament_changed(recorder, new)
    if changed is not None:
        return changed
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


def _tournament_changed(recorder: Recorder, new: Settings) -> str | None:
    """Why ``new`` cannot be taken while players sit: it adds a ``tournament:`` section
    at a cash table (their money would become tournament chips, the shift's money meters
    hidden) or removes it at a tournament table (tournament chips would become money).
    A table changes between the two empty; at a tournament table, levels that end
    before the level in force (``_levels_cut``). None when nothing of the kind changes."""
    seats = recorder.table.state.seats
    was = recorder.table.settings.tournament is not None
    if was and new.rules.tournament is not None:
        return _levels_cut(recorder, new)
    if not seats or was == (new.rules.tournament is not None):
        return None
    who = ", ".join(f"seat {seat} ({seats[seat].player})" for seat in sorted(seats))
    one = len(seats) == 1
    if was:
        what = f"the tournament: section is gone from {new.source}, but {who} "
        what += f"{'plays' if one else 'play'} the tournament at this table with its chips"
    else:
        what = f"a tournament: section is added in {new.source}, but {who} "
        what += f"{'plays' if one else 'play'} cash games at this table with money"
    return (
        f"{what}: have {'that player' if one else 'those players'} leave first "
        f"(a table becomes a {'cash' if was else 'tournament'} table empty)"
    )


def _levels_cut(recorder: Recorder, new: Settings) -> str | None:
    """Why ``new`` cannot be taken at a tournament table: its levels end before the
    level the tournament is at (the table would name a level it has not, at the last
    level's stakes); None when they reach it."""
    record = recorder.table.state.tournament
    assert new.rules.tournament is not None
    count = len(new.rules.tournament.levels)
    if record is None or int(record["level"]) <= count:
        return None
    level = int(record["level"])
    return (
        f"tournament.levels in {new.source} has {count} level{'' if count == 1 else 's'}, "
        f"but the tournament is at level {level}: keep its levels through level {level} "
        "(change the levels to come, not those played), or have a supervisor set level "
        f"{count} or lower first"
    )


class ConfigMixin(ControllerHost):
    """``reload``, ``offer_config`` and what runs between hands."""

    def reload(self) -> None:
        """SIGHUP: read the configuration file again; what it says is taken once the
        file has stayed the same for ``CONFIG_SETTLE_NS``, between hands."""
        new = self._read_config("reloaded")
        if new is not None:
            self.offer_config(new, settle=True)

    def _read_config(self, what: str) -> Settings | None:
        """The configuration file read and checked, or None (the reasons logged)."""
        if self.config_path is None:
            log.warning("reload asked, but the daemon was not started from a file")
            return None
        try:
            return load_config(self.config_path)
        except ConfigError as error:
            log.error(
                "configuration %s NOT %s (%d problem(s)); the running one stays:",
                self.config_path,
                what,
                len(error.problems),
            )
            for problem in error.problems:
                log.error("  %s", problem)
        except OSError as error:
            log.error("configuration %s NOT %s: %s", self.config_path, what, error.strerror)
        return None

    def offer_config(self, new: Settings, *, settle: bool = False) -> None:
        """Hold ``new`` to be taken between hands; with ``settle`` (a file just read on
        SIGHUP) not before it has read the same for ``CONFIG_SETTLE_NS``."""
        current = self.journal.config_sha256 if self.journal is not None else self.settings.sha256
        self.config_due_ns = None
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
            self.pending_config = None
            self._refuse_config(new, problem)
            return
        self.pending_config = new
        if settle:
            self.config_due_ns = self.clock.now_ns() + CONFIG_SETTLE_NS
            log.info(
                "configuration %s (sha256 %s) read; taken between hands once the file "
                "has not changed for %g s",
                new.source,
                new.sha256[:12],
                CONFIG_SETTLE_NS / 1e9,
            )
        elif self.recorder is not None and self.recorder.table.state.phase == "idle":
            self._between_hands()
        else:
            self._log_held(new)

    def _log_held(self, new: Settings) -> None:
        log.info(
            "configuration %s (sha256 %s) is held until the hand ends",
            new.source,
            new.sha256[:12],
        )

    def take_pending_config(self, now_ns: int) -> None:
        """The held configuration, once due: held on while a hand is in progress; else
        the file is read again and taken if it still says the same, offered again
        (to settle) if it changed, and the change dropped if it no longer reads."""
        new = self.pending_config
        if new is None or (self.config_due_ns is not None and now_ns < self.config_due_ns):
            return
        if self.recorder is not None and self.recorder.table.state.phase != "idle":
            if self.config_due_ns is not None:
                self.config_due_ns = None  # the hand's end asks again
                self._log_held(new)
            return
        if self.config_path is not None:
            now = self._read_config("taken")
            if now is None:
                log.error(
                    "configuration %s changed after it was read and no longer reads: "
                    "the change is dropped; the running one stays (sha256 %s). Replace "
                    "the file whole (docs/configuration.md) and reload again",
                    new.source,
                    self.settings.sha256[:12],
                )
                # cleared after the log: whoever sees the change gone can read why
                self.pending_config = self.config_due_ns = None
                return
            if now.sha256 != new.sha256:
                log.warning(
                    "configuration %s changed after it was read (sha256 %s, now %s): "
                    "what it says now is checked and taken instead",
                    new.source,
                    new.sha256[:12],
                    now.sha256[:12],
                )
                self.offer_config(now, settle=True)
                return
        self._apply_config(new)

    def _between_hands(self) -> None:
        if self.pending_config is not None:
            self.take_pending_config(self.clock.now_ns())
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
        self.pending_config = self.config_due_ns = None
        if self.journal is None or self.recorder is None or self.fault is not None:
            return
        problem = stranded(self.recorder, new)  # seated while the change waited
        if problem is not None:
            self._refuse_config(new, problem)
            return
        changed = settings_changes(self._in_force(), new)
        try:
            self.journal.record_config(new.config_text, changed=changed)
        except (JournalError, OSError) as error:
            log.error("configuration change not recorded: %s", describe(error))
            return
        self.recorder.table.reconfigure(new.rules)
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
            "configuration %s in force from seq %d (sha256 %s): changed: %s",
            new.source,
            self.recorder.last_seq + 1,
            new.sha256,
            changed,
        )
        log.info("configuration now: %s", new.summary())

    def _in_force(self) -> Settings:
        """The configuration the journal has in force (at start the daemon's settings
        are already the file's, the journal's may be an older one)."""
        if self.journal is None or self.journal.config_sha256 == self.settings.sha256:
            return self.settings
        try:
            return load_config_text(self.journal.config_text, "the journal's configuration")
        except ConfigError:
            return self.settings

    def _prune(self) -> None:
        if self.journal is None or self.fault is not None:
            return
        # The events since the verified mark are checked and the mark moved to the end,
        # so that the next start checks only what follows (docs/journal.md).
        verdict = self.journal.verify(log=False, whole=False)
        if not verdict.ok:
            log.error("journal check between hands FAILED: %s", verdict.problems[0].message)
            self._enter_fault(verdict.problems[0])
            return
        try:
            report = self.journal.prune(
                self.settings.journal.keep_hands,
                archive=self.settings.journal.archive,
                keep_snapshots=edition_marks(self.journal),
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
