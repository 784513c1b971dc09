"""What ``store.Journal`` holds, declared once for the modules its methods are in.

The journal's methods are written in three modules: opening, closing and verifying
(``store.py``), the write side (``writing.py``) and the read side (``reading.py``).
Each part is a class over ``JournalHost``, so every part reads and types the same
attributes, assigned in ``Journal.__init__``, and may call the internals another part
defines (listed at the end). It declares types only, with one default: no behaviour.
(Not a ``typing.Protocol``: mypy then takes the type of an attribute a part assigns
from that assignment, not from the declaration here.)
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

    from controller.faults import Fault
    from controller.journal.ackmark import AckWriter
    from controller.journal.clock import WallClock
    from controller.journal.integrity import ChainBase
    from controller.journal.place import Place
    from controller.journal.records import ConfigRecord


class JournalHost:
    directory: Path
    _conn: sqlite3.Connection
    _mutex: threading.RLock  # every read and write of ``_conn`` holds it
    _clock: WallClock
    _config: ConfigRecord  # the configuration in force (the latest recorded)
    _chain_base: ChainBase  # where the hash chain starts (after a prune, not at 0)
    _lock_fd: int | None  # the state directory's lock (None: opened read-only)
    _ack_writer: AckWriter | None
    _closed: bool
    _clock_synced_seen: bool
    _clock_sync_pending: bool = False
    _clock_unsync_pending: bool = False
    _steps_logged: int = 0  # of ``_clock.steps``, in committed clock_step entries
    _steps_pending: int = 0  # ... and in the transaction under way
    _place: Place | None = None  # where a writer opened it (place.py)
    fault: Fault | None  # sticky: a memory fault, or a failed write's

    if TYPE_CHECKING:
        # reading.py
        def _head(self) -> tuple[int, bytes]: ...
        def _last_seq(self) -> int: ...
        def _log_head(self, before: int | None = None) -> tuple[int, bytes]: ...
        def _current_config(self) -> ConfigRecord: ...
