"""The pure rules core: events in, effects and a new state out.

No I/O, no clock reads, no threads, no randomness: time arrives as ``Tick`` events.
"""

from controller.rules.errors import BadEvent, Refusal
from controller.rules.events import Event, parse_event
from controller.rules.settings import RuleSettings
from controller.rules.table import Table
from controller.rules.view import state_view

__all__ = ["BadEvent", "Event", "Refusal", "RuleSettings", "Table", "parse_event", "state_view"]
