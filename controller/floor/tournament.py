"""Floor messages of a tournament table (rules T1-T8): the level clock's changes and
the players out.

Read from the rules' effects of the event (``result["effects"]``), so the same whatever
the input path (the keypad's supervisor menu, the console, replay). Both go to the
``hands`` topic (docs/floor.md): ``level`` (started, paused, resumed, set by hand, run
out into the next level or a break) and ``elimination`` (a player out at a hand's end,
with the stack he began it with and, at a single table, his place). Pure, and it never
raises on odd shapes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from controller.rules.effects import Eliminated, LevelChanged
from controller.rules.tournament import effect_fields

#: The kinds of message this module makes, and why a ``level`` message was sent.
KINDS = ("level", "elimination")
LEVEL_CAUSES = ("start", "pause", "resume", "level", "clock", "break")


def _players_left(after: Mapping[str, Any]) -> int | None:
    seats = after.get("seats")
    return len(seats) if isinstance(seats, Mapping) else None


def _ms_left(after: Mapping[str, Any]) -> int | None:
    tournament = after.get("tournament")
    if not isinstance(tournament, Mapping):
        return None
    left = tournament.get("level_ms_left")
    return left if isinstance(left, int) and not isinstance(left, bool) else None


def tournament_messages(
    effects: Iterable[Any],
    after: Mapping[str, Any],
    by: str | None,
    tournament_id: str | None = None,
) -> list[tuple[str, dict[str, Any]]]:
    """(kind, body) of each level change and elimination the event made, in order, each
    with the tournament's name (``tournament.id``; null when the table has none)."""
    out: list[tuple[str, dict[str, Any]]] = []
    hand = after.get("hand")
    named = {"tournament_id": tournament_id}
    for effect in effects:
        if isinstance(effect, LevelChanged):
            told = effect.why not in ("clock", "break")  # a supervisor's, not the clock's
            body = {"hand": hand, **effect_fields(effect), "level_ms_left": _ms_left(after)}
            out.append(("level", {**body, "by": by if told else None, **named}))
        elif isinstance(effect, Eliminated):
            left = _players_left(after)
            out.append(("elimination", {**effect_fields(effect), "players_left": left, **named}))
    return out
