"""Play stopped by the table (docs/replay.md, "Play stopped by the table").

While the keypad or the display is lost, or the door is open, play is stopped: the action clock does not
count (a ``tick`` passes it by: no warning, no expiry, ``Table._tick``) and no hand
starts (``start_hand``, and ``NEXT`` on the keypad, is refused with ``play_stopped``).
When every cause has cleared, the clock goes on with the time it had. A lost tray,
puck sensor or seat lights stops nothing: its event is taken and changes nothing here.
The state's ``play_stopped`` lists the causes present, in the order of ``CAUSES``.

``CAUSES`` is the one table of what stops play: an event's reading (its type, what it
reports on, its status) that raises a cause; the same event with another status clears
it. A further cause is one line there; a new event type that raises or clears one
adds its reading to ``READINGS``, and the table takes it at every stage of the hand
(``table.ACCEPTS``) with ``change`` as its deed.

Each cause has its words in the catalogue (``stop.<cause>``), for the refusal; the
dealer display's first line is ``display.<cause>`` when the catalogue has one (the
door: ``DOOR OPEN: CLOCK HELD``), else ``PLAY STOPPED: CLOCK HELD`` (a lost device's
own words come from the daemon's device fault).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from controller.rules import effects
from controller.rules.catalogue import EN
from controller.rules.events import Device, Door, Event
from controller.rules.state import TableState
from controller.rules.text import Message, msg, phrase, refuse

#: (event type, what it reports on, the status that raises the cause) -> the cause.
CAUSES: dict[tuple[str, str, str], str] = {
    ("device", "keypad", "lost"): "keypad_lost",
    ("device", "display", "lost"): "display_lost",
    ("door", "door", "open"): "door_open",
}

#: The devices whose loss stops play.
STOPPING_DEVICES = frozenset(subject for kind, subject, _ in CAUSES if kind == "device")

#: An event's reading: (event type, what it reports on, its status).
READINGS: dict[type[Event], Callable[[Any], tuple[str, str, str]]] = {
    Device: lambda e: ("device", e.device, e.status),
    Door: lambda e: ("door", "door", e.status),
}


def change(state: TableState, event: Event) -> list[effects.Effect]:
    """Raise or clear the cause the event reports (none: it stops nothing)."""
    kind, subject, status = READINGS[type(event)](event)
    present = set(state.play_stopped)
    for (cause_kind, cause_subject, raising), cause in CAUSES.items():
        if (cause_kind, cause_subject) == (kind, subject):
            if status == raising:
                present.add(cause)
            else:
                present.discard(cause)
    now = [cause for cause in CAUSES.values() if cause in present]
    if now == state.play_stopped:
        return []
    state.play_stopped = now
    return [effects.PlayStopped(tuple(now))]


def check_start(state: TableState) -> None:
    """No hand starts while play is stopped."""
    if state.play_stopped:
        cause = phrase(f"stop.{state.play_stopped[0]}")
        raise refuse("play_stopped", "refuse.play_stopped", cause=cause)


def display_words(causes: Sequence[str]) -> Message:
    """The dealer display's first line while play is stopped for ``causes`` (the state's
    ``play_stopped``); the floor board's alarm says the same."""
    for cause in causes:
        if f"display.{cause}" in EN:
            return msg(f"display.{cause}")
    return msg("display.play_stopped")


def devices(state: TableState) -> list[str]:
    """The devices whose loss stops play now."""
    return [
        subject
        for (kind, subject, _), cause in CAUSES.items()
        if kind == "device" and cause in state.play_stopped
    ]
