"""The daemon's outbox builder: one journalled input, with the tables around it, to rows.

The recorder (`controller.daemon.recorder`) calls a `Feed` inside the transaction
that journals an input, with the table before and after it and a result holding the
effects the rules returned and who entered it. The feed adds what only the tables
can tell, then hands everything to the pure `messages_for`:

- for a keypad key, the event the key amounted to (`applied`: the `award` a final
  `ENTER` makes, the `act` of `CHECK`), worked out on the table *before* the key by the
  same keypad grammar the rules use; for a refused key, the kind of entry that was
  being keyed (`keying`), so that a refused award keyed at the table is published like
  a refused `award` event;
- the chip-tray reconciliations before and after, when the table checks its tray.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

from controller.floor.messages import OutboxMessage, messages_for, table_info
from controller.floor.topics import TableTopics
from controller.rules import Refusal, Table, parse_event, state_view
from controller.rules.events import Event, Key, StateQuery

TrayReport = Callable[[Table], Mapping[str, Any] | None]

#: The kind of event each keypad entry mode is keying (controller.rules.keypad.grammar).
ENTRY_EVENTS = {
    "seat": "act",
    "bet": "act",
    "sit": "sit",
    "sit_out": "sit_out",
    "sit_in": "sit_in",
    "leave": "leave",
    "chips": "chips",
    "move": "move_seat",
    "award": "award",
    "push": "push",
    "sign_in": "key",
    "supervisor": "key",
    "func": "key",
}


class Feed:
    """`(seq, event, result, before, after) -> rows`, as `Recorder(outbox=...)` wants."""

    def __init__(
        self,
        topics: TableTopics,
        tray: TrayReport | None = None,
        chain_head: Callable[[], str | None] | None = None,
    ) -> None:
        self.topics = topics
        self._tray = tray
        self._chain_head = chain_head

    def __call__(
        self,
        seq: int,
        event: Mapping[str, Any],
        result: Mapping[str, Any],
        before: Table,
        after: Table,
    ) -> list[OutboxMessage]:
        result = dict(result)
        if event.get("type") == "key":
            result.update(keyed(before, event))
        tray_before = tray_after = None
        if self._tray is not None:
            tray_before = self._tray(before)
            tray_after = self._tray(after) if after is not before else tray_before
        return messages_for(
            {"seq": seq, "event": event},
            result,
            state_view(before),
            state_view(after),
            topics=self.topics,
            tray_before=tray_before,
            tray_after=tray_after,
            table=table_info(after.settings),
            chain_head=self._chain_head() if self._chain_head else None,
        )


def feed_for(
    settings: Any,
    tray_settings: Callable[[], Any] | None = None,
    *,
    chain_head: Callable[[], str | None] | None = None,
) -> Feed | None:
    """The feed of a table's configuration (`controller.config.Settings`), None without
    a `floor:` section. `tray_settings` gives the tray settings in force (a reload may
    change the float between hands; default: the configuration's); `chain_head` the
    journal's head for `hand_end` (`Journal.chain_head`)."""
    if settings.floor is None:
        return None
    from controller import tray as tray_check
    from controller.floor.settings import FloorSettings

    topics = FloorSettings.adapt(settings.floor).topics_for(settings.rules.table_id)
    current = tray_settings or (lambda: settings.tray)

    def report(table: Table) -> Mapping[str, Any] | None:
        tray = current()
        if not tray.float_counts:
            return None
        return tray_check.status(table.state, tray).as_dict()

    return Feed(topics, report, chain_head)


def keyed(table: Table, event: Mapping[str, Any]) -> dict[str, Any]:
    """What a key amounts to on `table` (before it): `{"applied": {...}}` when it ends
    an entry in an event, `{"keying": type}` when the keypad refused it mid-entry,
    `{}` otherwise. Never raises: a floor message must not stop a table."""
    try:
        from controller.rules.keypad import translate

        key = parse_event(dict(event), recorded=True)  # as the journal holds it
        if not isinstance(key, Key):
            return {}
        try:
            step = translate(table, key)
        except Refusal:
            entry = (
                table.state.keypad.get("entry") if isinstance(table.state.keypad, Mapping) else None
            )
            mode = entry.get("mode") if isinstance(entry, Mapping) else None
            return {"keying": ENTRY_EVENTS.get(str(mode), "key")}
        if step.event is None or isinstance(step.event, StateQuery):
            return {}
        return {"applied": event_json(step.event)}
    except Exception:  # noqa: BLE001 - a key the feed cannot read is published raw
        return {}


def event_json(event: Event) -> dict[str, Any]:
    """An event as the replay contract writes it (`Act(seat=5, ...)` ->
    `{"type": "act", "seat": 5, ...}`); `by` only when set."""
    name = type(event).__name__
    kind = "state" if name == "StateQuery" else re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()
    body: dict[str, Any] = {"type": kind}
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        if field.name == "by" and value is None:
            continue
        if field.name == "pin_ok":
            continue
        name_out = {"from_seat": "from", "to_seat": "to"}.get(field.name, field.name)
        if isinstance(value, tuple):
            value = [list(v) if isinstance(v, tuple) else v for v in value]
        body[name_out] = value
    return body
