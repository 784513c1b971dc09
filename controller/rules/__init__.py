"""The pure rules core: events in, effects and a new state out.

No I/O, no clock reads, no threads, no randomness: time arrives as ``Tick`` events.

The dealer keypad's grammar is here too (``keypad``), not in the shell: a key is an
input event like any other, and the unfinished entry it leaves is part of the state,
journalled, snapshotted and replayed with it. Checking a supervisor PIN is the
shell's (``controller.supervisor_pins``, ``controller.daemon.pinguard``): the grammar only takes
the verdict.
"""

from controller.rules.errors import BadEvent, Refusal
from controller.rules.events import Event, parse_event
from controller.rules.settings import RuleSettings
from controller.rules.table import Table
from controller.rules.view import state_view

__all__ = ["BadEvent", "Event", "Refusal", "RuleSettings", "Table", "parse_event", "state_view"]
