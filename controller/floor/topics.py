"""The floor link's topic tree: one subtree per table, one leaf per kind of message.

```
<prefix>/<site>/table/<table_id>/events     accepted events (keys aside)  QoS 1
<prefix>/<site>/table/<table_id>/keys       accepted keypad keys, raw     QoS 1
<prefix>/<site>/table/<table_id>/actions    betting actions, awards,      QoS 1
                                            corrections
<prefix>/<site>/table/<table_id>/seats      seat changes, seats opened    QoS 1
<prefix>/<site>/table/<table_id>/clock      action clock called/warned/expired  QoS 1
<prefix>/<site>/table/<table_id>/refusals   refusals worth a supervisor   QoS 1
<prefix>/<site>/table/<table_id>/faults     faults raised and cleared     QoS 1
<prefix>/<site>/table/<table_id>/hands      hand start and end summaries  QoS 1
<prefix>/<site>/table/<table_id>/tray       chip-tray discrepancies       QoS 1
<prefix>/<site>/table/<table_id>/state      current state                 QoS 1, retained
<prefix>/<site>/table/<table_id>/status     link up/down (also the LWT)   QoS 1, retained
```

`<prefix>` is `casino` unless configured; it may span several levels (`acme/casino`).
`<site>` and `<table_id>` are single topic levels. Everything a table publishes is under
its own `.../table/<table_id>/`, which is what lets a broker ACL confine a table to its
own subtree (docs/floor.md, config/mosquitto-acl.example).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

LEAVES: Final = (
    "events",
    "keys",
    "actions",
    "seats",
    "clock",
    "refusals",
    "faults",
    "hands",
    "tray",
    "state",
    "status",
)


class TopicError(ValueError):
    """A site, table id or prefix that cannot be used in an MQTT topic."""


def level_problem(value: str) -> str | None:
    """Why `value` cannot be one topic level, or None when it can."""
    if not value:
        return "must not be empty"
    for bad, name in (("/", "'/'"), ("+", "'+'"), ("#", "'#'"), ("\0", "NUL")):
        if bad in value:
            return f"must not contain {name}"
    if value.startswith("$"):
        return "must not start with '$'"
    if value != value.strip():
        return "must not start or end with spaces"
    return None


def prefix_problem(prefix: str) -> str | None:
    """Why `prefix` cannot be the first levels of the tree, or None when it can."""
    if not prefix:
        return "must not be empty"
    for level in prefix.split("/"):
        problem = level_problem(level)
        if problem:
            return f"level {level!r} {problem}"
    return None


def _check(what: str, problem: str | None) -> None:
    if problem:
        raise TopicError(f"{what} {problem}")


@dataclass(frozen=True)
class TableTopics:
    """The topics of one table."""

    prefix: str
    site: str
    table_id: str

    def __post_init__(self) -> None:
        _check(f"topic prefix {self.prefix!r}", prefix_problem(self.prefix))
        _check(f"site {self.site!r}", level_problem(self.site))
        _check(f"table id {self.table_id!r}", level_problem(self.table_id))

    @property
    def root(self) -> str:
        return f"{self.prefix}/{self.site}/table/{self.table_id}"

    def leaf(self, name: str) -> str:
        if name not in LEAVES:
            raise TopicError(f"unknown topic leaf {name!r}; known: {', '.join(LEAVES)}")
        return f"{self.root}/{name}"

    @property
    def events(self) -> str:
        return self.leaf("events")

    @property
    def keys(self) -> str:
        return self.leaf("keys")

    @property
    def actions(self) -> str:
        return self.leaf("actions")

    @property
    def seats(self) -> str:
        return self.leaf("seats")

    @property
    def clock(self) -> str:
        return self.leaf("clock")

    @property
    def refusals(self) -> str:
        return self.leaf("refusals")

    @property
    def faults(self) -> str:
        return self.leaf("faults")

    @property
    def hands(self) -> str:
        return self.leaf("hands")

    @property
    def tray(self) -> str:
        return self.leaf("tray")

    @property
    def state(self) -> str:
        return self.leaf("state")

    @property
    def status(self) -> str:
        return self.leaf("status")


def subscription(prefix: str, site: str | None = None, table_id: str | None = None) -> str:
    """A subscription filter: one table, or every table (of a site, or of every site)."""
    _check(f"topic prefix {prefix!r}", prefix_problem(prefix))
    if site is not None:
        _check(f"site {site!r}", level_problem(site))
    if table_id is not None:
        _check(f"table id {table_id!r}", level_problem(table_id))
    return f"{prefix}/{site or '+'}/table/{table_id or '+'}/#"
