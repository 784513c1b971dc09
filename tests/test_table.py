"""The engine's dispatch (controller/rules/table.py): one table of the events each stage
of the hand accepts, and every event refused elsewhere with its own words."""

from __future__ import annotations

import pytest

from controller.rules import Refusal, RuleSettings, Table, events, parse_event
from controller.rules.events import EVENT_TYPES, Event
from controller.rules.settings import GameSettings
from controller.rules.table import _HANDLERS, ACCEPTS, OUT_OF_PHASE


def test_every_event_has_a_handler_and_a_stage_that_accepts_it() -> None:
    # the module's classes, not ``Event.__subclasses__()``: that also lists, until the
    # garbage collector runs, each class that ``dataclass(slots=True)`` made anew
    kinds = {
        kind
        for kind in vars(events).values()
        if isinstance(kind, type) and issubclass(kind, Event) and kind is not Event
    }
    assert len(kinds) == len(EVENT_TYPES) and kinds == set(_HANDLERS)
    for kind in kinds:
        stages = [stage for stage, accepted in ACCEPTS.items() if kind in accepted]
        assert stages, kind
        if len(stages) < len(ACCEPTS):
            assert kind in OUT_OF_PHASE, f"{kind.__name__} has no refusal out of phase"


def between_hands() -> Table:
    table = Table(RuleSettings(game=GameSettings(straddle=True)))
    for seat, name in ((1, "ana"), (2, "luis"), (3, "marta")):
        table.apply(parse_event({"type": "sit", "seat": seat, "player": name, "chips": 500}))
    return table


@pytest.mark.parametrize(
    ("event", "code", "message"),
    [
        ({"type": "act", "seat": 1, "action": "fold"}, "no_action", "NO ONE IS TO ACT"),
        ({"type": "call_clock"}, "no_action", "NO ONE IS TO ACT"),
        ({"type": "award", "ranking": [[1]]}, "not_showdown", "NO SHOWDOWN TO AWARD"),
        ({"type": "misdeal"}, "no_hand", "NO HAND IN PROGRESS TO VOID"),
        ({"type": "undo"}, "nothing_to_undo", "NO ACTION TO TAKE BACK"),
        ({"type": "straddle", "seat": 1}, "no_straddle", "STRADDLE ONLY BEFORE ANY ACTION"),
    ],
)
def test_between_hands_an_event_of_the_hand_is_refused_and_changes_nothing(
    event: dict, code: str, message: str
) -> None:
    table = between_hands()
    before = table.state.to_dict()
    with pytest.raises(Refusal, match=f"^{code}: {message}$"):
        table.apply(parse_event(event))
    assert table.state.to_dict() == before


def test_during_a_hand_a_new_hand_and_a_transfer_are_refused() -> None:
    table = between_hands()
    table.apply(parse_event({"type": "start_hand"}))
    with pytest.raises(Refusal, match="^hand_in_progress: HAND 1 IS STILL IN PLAY$"):
        table.check(parse_event({"type": "start_hand"}))
    with pytest.raises(Refusal, match="^hand_in_progress: "):
        table.check(
            parse_event({"type": "transfer", "from": 1, "to": 2, "amount": 5, "reason": "other"})
        )
