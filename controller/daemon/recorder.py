"""The durable step, shared by the daemon loop and replay's durable mode.

One input event goes through four steps, always in this order::

    1. check   the rules core says yes or why not (pure; changes nothing)
    2. record  the journal makes it durable: accepted, or refused as an audit record,
               with who entered it and, every ``snapshot_every`` events, a snapshot
    3. apply   the rules core folds it into the state
    4. (the caller shows it: a LED, a display line, a replay output line)

Nothing is observable before step 2 returns, so a power cut at any instant loses
nothing that was shown and never shows anything that was not recorded.

A snapshot (and a floor message) needs the state *after* the event inside the same
transaction. For those events the rules are applied to a copy of the table first;
the copy becomes the table only once the journal has committed, so a failed commit
leaves the table as it was.

A journal that fails (a memory fault found at start, or a write that fails: a storage
fault) makes the recorder faulty for good: every later input is refused with the
fault's lock code (``memory_fault``, ``storage_fault``; ``controller.faults``) and not
recorded. Only a technician (salvage, or storage fixed) and a restart clear it.
"""

from __future__ import annotations

import contextlib
import copy
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.daemon import snapshots
from controller.daemon.pinguard import PinGuard
from controller.daemon.recovery import INVALID_TYPE
from controller.faults import Fault
from controller.journal import Journal, JournalError, StorageFault
from controller.journal.storage import storage_fault
from controller.lines import admit
from controller.replay import refuse
from controller.rules import Refusal, Table, parse_event
from controller.rules.effects import Effect, Transferred
from controller.rules.events import Event, Key, StartHand, is_id
from controller.rules.keypad import supervisor_in, translate
from controller.rules.state import RULES_EDITION, older_edition
from controller.rules.text import Message, refusal_message

RECORDING = "recording an event"
WRITE_ADVICE = (
    "Check the card or disk (free space, dmesg for I/O errors), then restart the "
    "service: systemctl restart table-controller."
)

OutboxRows = Iterable[tuple[str, str] | tuple[str, str, int, bool | int]]
OutboxBuilder = Callable[[int, Mapping[str, Any], Mapping[str, Any], Table, Table], OutboxRows]
"""``(seq, event, result, table_before, table_after) -> rows`` for the floor outbox;
``result`` holds ``ok``, ``by`` (who entered it) and, when accepted, the rules'
``effects``; for a refusal it holds its ``error`` and both tables are the same one."""


@dataclass
class Outcome:
    """What became of one input line or event."""

    seq: int | None  # None: not recorded (memory fault)
    ok: bool
    event: dict[str, Any]  # the event as recorded
    error: dict[str, str] | None = None
    effects: list[Effect] = field(default_factory=list)
    parsed: Event | None = None
    said: Message | None = None  # a refusal's catalogue message, shown in any language

    def line(self) -> dict[str, Any]:
        """The replay contract's output line (without ``state``)."""
        out: dict[str, Any] = {"seq": self.seq, "ok": self.ok}
        if self.error is not None:
            out["error"] = self.error
        return out


def describe(error: BaseException) -> str:
    return getattr(error, "message", None) or str(error) or type(error).__name__


class Recorder:
    """A table whose every input goes through the journal first."""

    def __init__(
        self,
        journal: Journal,
        table: Table,
        *,
        snapshot_every: int,
        last_snapshot_seq: int = 0,
        fault: Fault | None = None,
        outbox: OutboxBuilder | None = None,
    ) -> None:
        self.journal = journal
        self.table = table
        self.snapshot_every = max(1, snapshot_every)
        self.last_snapshot_seq = last_snapshot_seq
        self.fault: Fault | None = fault or journal.fault
        self.outbox = outbox
        self.last_seq = journal.last_seq
        self.pins = PinGuard()
        # events the release before issue 31 recorded were folded as it played them;
        # this release's rules take over from the first event it records, whose
        # snapshot says so to every later fold (``controller.rules.state.RULES_EDITION``)
        self.snapshot_now = older_edition(table.state)
        table.state.rules_edition = RULES_EDITION
        if self.fault is None and self.last_seq > 0:
            with contextlib.suppress(JournalError, sqlite3.Error):  # reported by its checks
                self.pins.resume(_last_key(journal, self.last_seq))

    # -- inputs ------------------------------------------------------------------------

    def record_text(self, text: bytes | str) -> Outcome:
        """One line of an event file (blank lines and comments already skipped); a bad
        line (``controller.lines``) is recorded as a refused audit row."""
        read = admit(text)
        if read.obj is None:
            return self._invalid(read.audit, read.refusal)
        return self._admitted(read.obj, None, None)

    def record(
        self,
        obj: dict[str, Any],
        *,
        by: str | None = None,
        refused: Refusal | None = None,
    ) -> Outcome:
        """One decoded event; ``by`` is who entered it when the event does not say. A
        supervisor's PIN digits are recorded hidden (``PinGuard``). An object no line
        could carry (NaN, a number out of range, nested too deep) is refused the same
        way as such a line. ``refused``: the shell refuses it (a console line may not
        send a supervisor's event); it is recorded refused, as an audit record."""
        read = admit(obj)
        if read.obj is None:
            return self._invalid(read.audit, read.refusal)
        return self._admitted(read.obj, by, refused)

    def _admitted(self, obj: dict[str, Any], by: str | None, refused: Refusal | None) -> Outcome:
        """``record`` of an object ``admit`` let through."""
        obj, digit = self.pins.journal_form(obj, self.table)
        swallowed = refused or self.pins.swallowed(obj)
        if swallowed is not None:
            outcome = self._refused(obj, by, swallowed)
        else:
            outcome = self._record(obj, by)
        self.pins.settle(
            self.table,
            digit if outcome.ok else "",
            outcome.error if outcome.seq is not None else None,
        )
        return outcome

    def _record(self, obj: dict[str, Any], by: str | None) -> Outcome:
        if self.fault is not None:
            return self._locked(obj)
        table = self.table
        who = _who(obj, by, table)
        event = None
        try:
            event = parse_event(obj)
            table.check(event)
        except Refusal as refusal:
            return self._refused(obj, by, refusal, event)
        hand = self._hand(event)
        seq_next = self.last_seq + 1
        snapshot_due = self.snapshot_now or seq_next - self.last_snapshot_seq >= self.snapshot_every
        if snapshot_due or self.outbox is not None:
            after = _clone(table)
            try:
                effects = after.apply(event)
            except Refusal:  # cannot happen (the check passed on the table): stay safe
                after, effects, snapshot_due = table, [], False
            if after is not table:
                snapshot = snapshots.encode(after.state) if snapshot_due else None
                rows = (
                    list(self.outbox(seq_next, obj, _result(effects, who), table, after))
                    if self.outbox is not None
                    else []
                )
                seq = self._append(
                    obj, accepted=True, by=who, hand=hand, snapshot=snapshot, outbox=rows
                )
                if seq is None:
                    return self._locked(obj)
                if snapshot is not None:
                    self.last_snapshot_seq = seq
                    self.snapshot_now = False
                self.table = after
                return Outcome(seq, True, obj, effects=effects, parsed=event)
        seq = self._append(obj, accepted=True, by=who, hand=hand)
        if seq is None:
            return self._locked(obj)
        effects = table.apply(event)
        return Outcome(seq, True, obj, effects=effects, parsed=event)

    # -- internals -----------------------------------------------------------------------

    def _refused(
        self, obj: dict[str, Any], by: str | None, refusal: Refusal, event: Event | None = None
    ) -> Outcome:
        """Record ``obj`` as refused (an audit record: it changes nothing in the game;
        ``Table.refused`` says what it leaves, as recovery folds it again)."""
        if self.fault is not None:
            return self._locked(obj)
        error = refusal.as_dict()
        who = _who(obj, by, self.table)
        seq = self._append(
            obj,
            accepted=False,
            by=who,
            result=error,
            hand=self._hand(None),
            outbox=self._refusal_rows(obj, error, who),
        )
        if seq is None:
            return self._locked(obj)
        refuse(self.table, obj, event, recorded=True)  # as recovery reads the record
        return Outcome(seq, False, obj, error, said=refusal_message(refusal))

    def _invalid(self, text: str, message: str) -> Outcome:
        row = {"type": INVALID_TYPE, "raw": text}
        error = {"code": "bad_event", "message": message}
        if self.fault is not None:
            return self._locked(row)
        seq = self._append(
            row,
            accepted=False,
            by=None,
            result=error,
            hand=self._hand(None),
            outbox=self._refusal_rows(row, error),
        )
        if seq is None:
            return self._locked(row)
        return Outcome(seq, False, row, error)

    def _refusal_rows(
        self, obj: dict[str, Any], error: dict[str, Any], who: str | None = None
    ) -> OutboxRows:
        """The floor messages of a refusal (the builder leaves out routine ones)."""
        if self.outbox is None:
            return ()
        return list(
            self.outbox(
                self.last_seq + 1,
                obj,
                {"ok": False, "error": error, "by": who},
                self.table,
                self.table,
            )
        )

    def _locked(self, obj: dict[str, Any]) -> Outcome:
        assert self.fault is not None  # set before any input is locked out
        return Outcome(None, False, obj, self.fault.lock_error())

    def _hand(self, event: Event | None) -> int:
        """The hand an event belongs to: the one it starts, else the current (or last)."""
        state = self.table.state
        if event is not None and state.phase == "idle" and _starts_hand(self.table, event):
            return state.hand_number + 1
        return state.hand_number

    def _append(
        self,
        obj: Mapping[str, Any],
        *,
        accepted: bool,
        by: str | None,
        hand: int,
        result: Mapping[str, Any] | None = None,
        snapshot: str | None = None,
        outbox: OutboxRows = (),
    ) -> int | None:
        """The journal's seq for the event, or None after making the recorder faulty."""
        try:
            seq = self.journal.append(
                obj,
                accepted=accepted,
                by=by,
                result=result,
                snapshot=snapshot,
                outbox=outbox,
                hand=hand,
            )
        except Fault as error:  # the journal's own (a memory fault, or one already set)
            self.fault = error
            return None
        except (JournalError, sqlite3.Error, OSError) as error:
            self.fault = storage_fault(self.journal.directory, error, RECORDING) or StorageFault(
                self.journal.directory, RECORDING, describe(error), WRITE_ADVICE
            )
            self.journal.fault = self.fault
            return None
        self.last_seq = seq
        return seq


def _last_key(journal: Journal, last_seq: int, look_back: int = 200) -> Any:
    """The newest key record among the last ``look_back`` (ticks interleave), or None."""
    for seq in range(last_seq, max(last_seq - look_back, 0), -1):
        record = journal.event(seq)
        if record is not None and record.event.get("type") == "key":
            return record
    return None


def _result(effects: list[Effect], who: str | None) -> dict[str, Any]:
    """An accepted event's result for its floor messages: the rules' effects (what the
    rules did), who entered it, and a supervisor's transfers."""
    result: dict[str, Any] = {"ok": True, "effects": effects, "by": who}
    transfers = [
        {"from": e.from_seat, "to": e.to_seat, "amount": e.amount, "reason": e.reason, "by": e.by}
        for e in effects
        if isinstance(e, Transferred)
    ]
    if transfers:
        result["transfers"] = transfers
    return result


def _who(obj: Mapping[str, Any], by: str | None, table: Table) -> str | None:
    """Who entered the event: its own ``by``, the caller's, the supervisor whose PIN
    opened the menu being keyed, else the signed-in dealer (ticks come from the
    daemon's clock, not from a person)."""
    given = obj.get("by")
    if isinstance(given, str | int) and not isinstance(given, bool) and is_id(str(given)):
        return str(given)  # (an event with a bad one is refused: never journal it as who)
    if by is not None and is_id(by):
        return by
    if obj.get("type") == "tick":
        return None
    supervisor = supervisor_in(table.state) if obj.get("type") == "key" else None
    if supervisor is not None:
        return supervisor
    return table.state.dealer


def _starts_hand(table: Table, event: Event) -> bool:
    if isinstance(event, StartHand):
        return True
    if isinstance(event, Key):
        try:
            return isinstance(translate(table, event).event, StartHand)
        except Refusal:
            return event.key == "NEXT"
    return False


def _clone(table: Table) -> Table:
    """A table that can be applied to without touching ``table``."""
    clone = copy.copy(table)
    clone.state = copy.deepcopy(table.state)
    return clone
