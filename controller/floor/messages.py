"""Floor messages: what one journaled event tells the casino floor, as outbox rows.

Theory of operation. The daemon journals an input event, folds it into the state, and
in the SAME SQLite transaction inserts the rows `messages_for(...)` returns into the
outbox; the publisher thread sends them later, in row order. So this module is pure:
it reads the event, its result and the states before and after, and returns
`(topic, payload, qos, retain)` tuples. It never raises on odd input shapes (a floor
message must never stop a table), and never reads anything but the wall clock (and only
when the caller passes no `stamp`).

Every payload is one JSON object with the same envelope:

    {"v": 1, "kind": "event", "table_id": "T7", "site": "lv", "seq": 118,
     "ts": "2025-03-01T21:14:05.123Z", "ts_ns": 1740863645123000000,
     "clock_synced": true, ...}

`seq` is the journal seq of the event the message describes (several messages may
share it). The publisher adds `msg_seq`, the outbox row id, when it sends the row:
unique per table and increasing in publication order, so `(table_id, msg_seq)` is the
de-duplication key (docs/floor.md).

What is published for one event, in this order:

1. `events` (`keys` for a keypad key): every accepted event, except `state` queries
   and `tick`s that change nothing but the action clock's countdown; with the fields it
   changed. Or `refusals`: a refused event worth a supervisor's attention
   (`ROUTINE_REFUSALS` lists the ones that are not), judged by what the input
   amounted to: a key that ends a refused award is a refused award.
2. `actions`, `seats`, `clock`: what the rules did (`play.py`), from the effects the
   caller passes in `result["effects"]`: the same whatever the input path.
3. `tray`: a chip-tray discrepancy raised, changed or cleared (the reconciliation
   reports before and after the event, `controller.tray.status(...).as_dict()`).
4. `hands`: `hand_end` when the event ends a hand, `hand_start` when it starts one,
   `transfer` for each supervisor's transfer between hands (the result's
   `transfers`, which the daemon takes from the rules' `Transferred` effects);
   `tip`, `dealer` (signed in or out, the push reminder) and `shift` (opened, or
   closed with its report) from the rules' effects (`operations.py`); at a tournament
   table `level` and `elimination` (`tournament.py`).
5. `state` (retained): the new state, when anything but the clock countdown and the
   display text changed.

What the event changed (the diff, a hand ended or started, transfers, the tray) is
read in `changes.py`; this module assembles the messages and their envelope.

Faults are not events (the daemon shows them and writes them to the journal's system
log): `fault_message` builds their rows, which the daemon hands to
`Publisher.enqueue`.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from controller.floor.changes import (
    ends_hand,
    hand_end,
    hand_start,
    int_or_none,
    starts_hand,
    state_changes,
    transfer_body,
    transfers,
    tray_change,
    value_of,
)
from controller.floor.clock import Stamp
from controller.floor.operations import operation_messages
from controller.floor.play import ended_by, play_messages
from controller.floor.topics import TableTopics
from controller.floor.tournament import tournament_messages
from controller.journal.clock import kernel_clock_synced

SCHEMA_VERSION: Final = 1
QOS: Final = 1

# Refusals a dealer makes and corrects in the normal run of play (a key pressed out of
# turn, "MIN RAISE TO 40", a NEXT while a hand runs): the table shows them, the floor
# does not need them. Every other refusal is published: refused seating and chip
# changes, awards, misdeals, tray readings, event types added later, and input that is
# not an event at all (a bug or tampering, never routine).
ROUTINE_REFUSALS: Final = frozenset(
    {"act", "key", "tick", "call_clock", "state", "puck", "start_hand"}
)

# Event types that never go to `events`: a query changes nothing.
QUERIES: Final = frozenset({"state"})


class OutboxMessage(NamedTuple):
    """One outbox row as the journal inserts it."""

    topic: str
    payload: str
    qos: int
    retain: bool


def messages_for(
    event_record: Any,
    result: Any,
    state_before: Mapping[str, Any] | None,
    state_after: Mapping[str, Any] | None,
    *,
    topics: TableTopics,
    stamp: Stamp | None = None,
    tray_before: Mapping[str, Any] | None = None,
    tray_after: Mapping[str, Any] | None = None,
    table: Mapping[str, Any] | None = None,
    chain_head: str | None = None,
) -> list[OutboxMessage]:
    """The outbox rows for one journaled event.

    `event_record`: a mapping or an object (`controller.journal.EventRecord` fits) with
    `seq` (the event's journal seq), `event` (the input event) and optionally `wall_ns`
    and `clock_synced` (the journal's time of it; without them: now). `result`: a
    mapping or object with `ok` and, when refused, `error` (`code`, `message`);
    optionally `awards` (seat -> chips paid), `effects` (the rules core's effects of the
    event), `by` (who entered it), `applied` (for a key: the event it amounted to, as
    JSON), `keying` (for a refused key: the type of event being keyed) and `transfers`
    (a supervisor's transfers the event made: `from`, `to`, `amount`, `reason`, `by`).
    `state_before` / `state_after`: the state dicts of docs/replay.md ("The state");
    for a refusal they are equal (or `state_after` is None). `tray_before` /
    `tray_after`: the tray reconciliation around the event (`alarm`, `difference`,
    `expected`, `counted`...), when the table checks its tray. `table`: what the
    table is (`table_info`: seats, game and stakes), carried by the `state` message.
    `chain_head`: the journal's chain head before this event (`Journal.chain_head()`),
    sent with `hand_end` so the back office holds an anchor of the table's journal for
    every hand (docs/floor.md, "Checking a table's journal").
    `stamp` overrides the time (tests, replays).
    """
    before = state_before if isinstance(state_before, Mapping) else {}
    after = state_after if isinstance(state_after, Mapping) else before
    read = _read_input(event_record, result)
    build = _Builder(
        topics, int_or_none(value_of(event_record, "seq")), stamp or _stamp_of(event_record)
    )
    if not bool(value_of(result, "ok", True)):
        if read.rules_type not in ROUTINE_REFUSALS:
            _add_refusal(build, topics, read, result, before)
        return build.messages
    changes = state_changes(before, after)
    event = read.event
    if read.kind not in QUERIES and (read.kind != "tick" or changes):
        build.add(
            topics.keys if read.kind == "key" else topics.events,
            "event",
            event=event,
            hand=after.get("hand"),
            phase=after.get("phase"),
            changes=changes,
        )
    effects = value_of(result, "effects")
    effects = list(effects) if isinstance(effects, (list, tuple)) else None
    if effects:
        for leaf, kind, play_body in play_messages(
            read.applied, effects, before, after, by=read.by
        ):
            build.add(topics.leaf(leaf), kind, **play_body)
    tray = tray_change(tray_before, tray_after)
    if tray is not None:
        build.add(topics.tray, "tray", event=event, **tray)
    _add_hands(build, topics, read, result, effects, before, after, chain_head, table)
    if changes:
        build.add(
            topics.state,
            "state",
            retain=True,
            state=after,
            **({"table": dict(table)} if table is not None else {}),
        )
    return build.messages


class _Input(NamedTuple):
    """What one journaled input was and amounted to."""

    event: Any  # the input event as journaled
    kind: str | None  # its type
    # for a key, the event the keypad made of it; otherwise the input itself
    applied: Mapping[str, Any] | None
    # the rules' event type: the applied one's, or for a refused key the kind of entry
    # being keyed ("key" when unknown)
    rules_type: Any
    by: str | None  # who entered it


def _read_input(event_record: Any, result: Any) -> _Input:
    event = _event_of(event_record)
    event_type = event.get("type") if isinstance(event, Mapping) else None
    kind_of_event = event_type if isinstance(event_type, str) else None
    # What the input amounted to: for a key, the event the keypad made of it (or, for a
    # refused key, the kind of entry being keyed); otherwise the input itself.
    applied = value_of(result, "applied")
    applied = applied if isinstance(applied, Mapping) else None
    if applied is None and kind_of_event != "key":
        applied = event if isinstance(event, Mapping) else None
    applied_type = applied.get("type") if applied is not None else None
    keying = value_of(result, "keying")
    rules_type = (
        applied_type
        if isinstance(applied_type, str)
        else (
            (keying if isinstance(keying, str) else "key")
            if kind_of_event == "key"
            else kind_of_event
        )
    )
    by = value_of(result, "by")
    return _Input(event, kind_of_event, applied, rules_type, by if isinstance(by, str) else None)


def _add_refusal(
    build: _Builder, topics: TableTopics, read: _Input, result: Any, before: Mapping[str, Any]
) -> None:
    error = value_of(result, "error")
    body: dict[str, Any] = {
        "event": read.applied if read.applied is not None else read.event,
        "error": {"code": value_of(error, "code"), "message": value_of(error, "message")},
        "hand": before.get("hand"),
        "phase": before.get("phase"),
        "by": read.by,
    }
    if read.kind == "key":
        body["input"] = read.event
        if read.applied is None:  # refused mid-entry: what was being keyed
            body["keying"] = read.rules_type
    build.add(topics.refusals, "refusal", **body)


def _add_hands(
    build: _Builder,
    topics: TableTopics,
    read: _Input,
    result: Any,
    effects: list[Any] | None,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    chain_head: str | None,
    table: Mapping[str, Any] | None,
) -> None:
    """The `hands` messages: a hand ended or started, transfers, the operations, a
    tournament's level changes and players out (with the tournament's name, `table`)."""
    if ends_hand(before, after):
        body = hand_end(ended_by(read.rules_type, effects), result, before, after)
        if chain_head is not None:
            body["chain_head"] = chain_head
        build.add(topics.hands, "hand_end", **body)
    if starts_hand(before, after):
        build.add(topics.hands, "hand_start", **hand_start(before, after))
    for transfer in transfers(result):
        build.add(topics.hands, "transfer", **transfer_body(transfer, read.event, after))
    for kind, operation in operation_messages(effects or (), after, read.by):
        build.add(topics.hands, kind, **operation)
    named = table.get("tournament_id") if table is not None else None
    for kind, body in tournament_messages(effects or (), after, read.by, named):
        build.add(topics.hands, kind, **body)


def state_message(
    topics: TableTopics,
    state: Mapping[str, Any],
    *,
    seq: int | None,
    stamp: Stamp | None = None,
    table: Mapping[str, Any] | None = None,
) -> OutboxMessage:
    """The retained state, for the daemon to queue at start-up (after recovery)."""
    build = _Builder(topics, seq, stamp or Stamp.now())
    build.add(
        topics.state,
        "state",
        retain=True,
        state=state,
        **({"table": dict(table)} if table is not None else {}),
    )
    return build.messages[0]


def table_info(rules: Any) -> dict[str, Any]:
    """What a table is, for a floor board: seats, game and stakes, the minutes of its
    dealers' push (null: no push reminder), a tournament table and its tournament's name
    (`tournament.id`, null: none) (`controller.rules.settings.RuleSettings`)."""
    game = getattr(rules, "game", None)
    return {
        "seats": getattr(rules, "seats", None),
        "structure": getattr(game, "structure", None),
        "form": getattr(game, "form", "flop"),
        "small_blind": getattr(game, "sb_amount", None),
        "big_blind": getattr(game, "big_blind", None),
        "push_minutes": getattr(getattr(rules, "dealer", None), "push_minutes", None),
        "ante": getattr(game, "ante", 0),
        "ante_form": getattr(game, "ante_form", "each"),
        "tournament": getattr(rules, "tournament", None) is not None,
        "tournament_id": getattr(getattr(rules, "tournament", None), "id", None),
    }


def fault_message(
    topics: TableTopics,
    fault: str,
    *,
    device: str | None = None,
    active: bool,
    detail: Any = None,
    seq: int | None,
    stamp: Stamp | None = None,
) -> OutboxMessage:
    """A fault raised (`active`) or cleared. `fault` is the stable code
    (`controller.device_faults`: `keypad_lost`, ...), `device` the device it concerns,
    `detail` the driver's words for a technician (None for a clear). `seq` is the
    journal's last seq when it happened."""
    build = _Builder(topics, seq, stamp or Stamp.now())
    build.add(topics.faults, "fault", fault=fault, device=device, active=active, detail=detail)
    return build.messages[0]


def power_message(
    topics: TableTopics, detail: Mapping[str, Any], *, seq: int | None
) -> OutboxMessage:
    """The power came back after the table stopped without closing (a power cut, a
    crash): the daemon's ``power_loss`` system log entry (``controller.daemon.powerloss``)
    on `faults`. Its time is the restart's; `last_record` is when the power went at the
    latest (the last record journalled before), each with its `clock_synced`; `hand`
    the hand in play then (null between hands)."""
    restart = _stamp_fields(detail.get("restart"))
    stamp = Stamp(restart["ts_ns"], restart["clock_synced"]) if restart else Stamp.now()
    build = _Builder(topics, seq, stamp)
    hand = detail.get("hand")
    phase = detail.get("phase")
    build.add(
        topics.faults,
        "power",
        power="restored",
        last_record=_stamp_fields(detail.get("last_record")),
        last_seq=int_or_none(detail.get("last_seq")),
        hand=int_or_none(hand),
        phase=phase if isinstance(phase, str) else None,
    )
    return build.messages[0]


def _stamp_fields(value: Any) -> dict[str, Any] | None:
    """``{"ts", "ts_ns", "clock_synced"}`` of a recorded time (``wall_ns``,
    ``clock_synced``), or None."""
    if not isinstance(value, Mapping) or not isinstance(value.get("wall_ns"), int):
        return None
    stamp = Stamp(int(value["wall_ns"]), bool(value.get("clock_synced")))
    return {"ts": stamp.iso, "ts_ns": stamp.wall_ns, "clock_synced": stamp.clock_synced}


def status_payload(
    topics: TableTopics,
    *,
    link: str,
    reason: str | None,
    unsent: int | None,
    stamp: Stamp,
    will: bool = False,
    fault: str | None = None,
    device_faults: Mapping[str, str] | None = None,
    tray_discrepancy: int | None = None,
    outbox: str | None = None,
    puck: Mapping[str, Any] | None = None,
    software: Mapping[str, str] | None = None,
) -> str:
    """The retained link status (not an outbox row: no `seq`, no `msg_seq`).

    The last will is set when the link comes up and published by the broker when the
    link dies, so its `ts` is the time the link came up, and it says `will: true`.
    `fault`: the table's sticky fault (`memory_fault`, `storage_fault`, ...) while play
    is locked, else None: the one floor message a locked journal can still send.
    `device_faults`: the device faults in force now (device -> code), so that a consumer
    arriving late sees them in the retained status; None in the last will (written
    when the link came up, it cannot know). `tray_discrepancy`: the chip tray's
    difference while its alarm is raised, else None (and in the last will). `outbox`:
    `filling` (the outbox alarm: unsent rows past `floor.outbox_alarm_percent`), `full`
    (it reached its bound: sticky until a supervisor acknowledges it), else None.
    `puck`: the button puck's warning while the dealer display shows it (`status`
    `moved`, `lifted` or `two_seats`, `expected`, `seen`), else None.
    `software`: the release running (`version`) and its digest (`sha256`, as
    `tablectl verify-software` prints it), in the last will too.
    """
    return dumps(
        _document(
            "status",
            topics,
            stamp,
            link=link,
            reason=reason,
            unsent=unsent,
            will=will,
            fault=fault,
            device_faults=dict(device_faults) if device_faults is not None else None,
            tray_discrepancy=tray_discrepancy,
            outbox=outbox,
            puck=dict(puck) if puck is not None else None,
            software=dict(software) if software is not None else None,
        )
    )


def with_msg_seq(payload: str, msg_seq: int) -> str:
    """The payload as published: the stored JSON object plus its `msg_seq`.

    Spliced in as text (the stored bytes stay as they are, and the publisher's hot path
    does not re-serialise); a payload that is not a JSON object, or already has a
    `msg_seq`, is published as stored.
    """
    try:
        document = json.loads(payload)
    except ValueError:
        return payload
    if not isinstance(document, dict) or "msg_seq" in document:
        return payload
    body = payload.rstrip()[:-1].rstrip()
    separator = "" if not document else ","
    return f'{body}{separator}"msg_seq":{msg_seq}}}'


def dumps(document: Any) -> str:
    try:  # the C encoder; `_jsonable` for values it does not know
        return json.dumps(document, separators=(",", ":"), ensure_ascii=False, default=_jsonable)
    except (TypeError, ValueError):  # keys it cannot take (tuples...), circular data
        return json.dumps(_plain(document), separators=(",", ":"), ensure_ascii=False)


def _document(kind: str, topics: TableTopics, stamp: Stamp, **body: Any) -> dict[str, Any]:
    return {
        "kind": kind,
        "v": SCHEMA_VERSION,
        "table_id": topics.table_id,
        "site": topics.site,
        "ts": stamp.iso,
        "ts_ns": stamp.wall_ns,
        "clock_synced": stamp.clock_synced,
        **body,
    }


class _Builder:
    def __init__(self, topics: TableTopics, seq: int | None, stamp: Stamp) -> None:
        self._topics, self._seq, self._stamp = topics, seq, stamp
        self.messages: list[OutboxMessage] = []

    def add(self, topic: str, kind: str, *, retain: bool = False, **body: Any) -> None:
        document = _document(kind, self._topics, self._stamp, seq=self._seq, **body)
        self.messages.append(OutboxMessage(topic, dumps(document), QOS, retain))


def _event_of(record: Any) -> Any:
    event = value_of(record, "event")
    if event is None and isinstance(record, Mapping):
        return {k: v for k, v in record.items() if k not in ("seq", "wall_ns", "clock_synced")}
    return event


def _stamp_of(record: Any) -> Stamp:
    wall_ns = int_or_none(value_of(record, "wall_ns"))
    if wall_ns is None:
        return Stamp.now()
    synced = value_of(record, "clock_synced")
    return Stamp(wall_ns, synced if isinstance(synced, bool) else kernel_clock_synced())


def _jsonable(value: Any) -> Any:
    """What the JSON encoder makes of a value it does not know."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)


def _plain(value: Any, depth: int = 0) -> Any:
    """JSON-ready: mappings with string keys, lists, scalars (anything else as text)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if depth > 50:  # deeper than any state: a cycle
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    return _plain(_jsonable(value), depth + 1)
