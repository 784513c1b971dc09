"""What ``publisher.Publisher`` holds, declared once for the modules its methods are in.

The publisher's methods are written in three modules: the connection and its thread
(``publisher.py``), the rows in flight and the watermark (``inflight.py``) and the
link status it keeps (``linkstatus.py``). Each part is a class over ``PublisherHost``,
so every part reads and types the same attributes, assigned in
``Publisher.__init__``, and may call the methods another part defines (listed at the
end). It declares types only: no value, no behaviour. (Not a ``typing.Protocol``: mypy
then takes the type of an attribute a part assigns from that assignment, not from the
declaration here.)
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

    import paho.mqtt.client as mqtt

    from controller.floor.linkstatus import LinkStatus
    from controller.floor.settings import FloorSettings
    from controller.floor.topics import TableTopics


class PublisherHost:
    topics: TableTopics
    _settings: FloorSettings
    # the link status, replaced whole under ``_changed`` (which wakes its waiters)
    _status: LinkStatus
    _changed: threading.Condition
    _on_status: Callable[[LinkStatus], None] | None
    _status_due: bool  # the retained status must be sent again (its content changed)
    _window: int  # the most rows in flight at once
    _backoff: tuple[float, float]
    _failures: int
    _refused: str | None
    _receive_max: int | None
    _inflight: OrderedDict[int, tuple[int, str]]  # mid -> (row id, topic)
    _acked: set[int]
    _rejected: dict[int, str]
    _watermark: int  # every row up to this id is sent
    _cursor: int  # the last row id published on this connection
    _more: bool  # the outbox may hold rows after the cursor
    _hold_until: float
    _count_due: bool
    _counted_at: float
    _data_version: int | None

    if TYPE_CHECKING:
        # publisher.py
        def _require_client(self) -> mqtt.Client: ...
        def _require_conn(self) -> sqlite3.Connection: ...

        # linkstatus.py
        def _note_error(self, error: str, level: int = logging.WARNING) -> None: ...
        def _update_status(self, change: Callable[[LinkStatus], LinkStatus]) -> None: ...
