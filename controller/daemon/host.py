"""What ``loop.Controller`` holds, declared once for the modules its methods are in.

The controller's methods are written in four modules: the loop (``loop.py``), the
configuration taken between hands (``reconfig.py``), faults and alarms
(``fault_handling.py``) and the software's verification (``software_check.py``). Each part is a class over ``ControllerHost``, so every part
reads and types the same attributes, assigned in ``Controller.__init__``, and may call
the methods another part defines (listed at the end). It declares types only: no
value, no behaviour. (Not a ``typing.Protocol``: mypy then takes the type of an
attribute a part assigns from that assignment, not from the declaration here.)
"""

from __future__ import annotations

import queue
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from controller.config import Settings
    from controller.daemon.display import Display, LastShown
    from controller.daemon.inqueue import InputQueue
    from controller.daemon.outputs import Outputs
    from controller.daemon.recorder import Recorder
    from controller.daemon.timekeeping import Clock
    from controller.faults import Fault
    from controller.journal import Journal


class ControllerHost:
    settings: Settings
    journal: Journal | None
    recorder: Recorder | None
    fault: Fault | None  # the sticky fault play is locked by
    outputs: Outputs
    publisher: Any  # the floor link's Publisher, or None
    clock: Clock
    has_puck: bool
    config_path: str | None  # the file SIGHUP reads again
    pending_config: Settings | None  # held to be taken between hands
    config_due_ns: int | None  # a reloaded file may be taken from then on
    hands_since_prune: int
    prune_due_ns: int | None
    display: Display
    last_shown: LastShown | None
    link_problem: str | None  # the floor link could not even start
    _link_tried: bool  # the first connection has come up or failed
    _link_logged: tuple[str, bool, bool] | None
    inputs: queue.Queue[Any] | InputQueue
    bench: bool  # every device simulated: an unverified program may play
    software_due_ns: int | None  # the next periodic software check
    software_running: bool  # a software check is under way on its thread

    if TYPE_CHECKING:

        def submit(self, event: dict[str, Any], *, source: str) -> Any: ...  # loop.py

        def _show(self) -> None: ...  # loop.py

        def _enter_fault(self, fault: Fault) -> None: ...  # fault_handling.py

        def _system_log(self, kind: str, detail: dict[str, Any]) -> None: ...  # fault_handling.py
