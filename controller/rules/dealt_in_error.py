"""B11: a seat that should have been dealt in was not. The floor's ruling: ``kill``
(the seat sits this hand out) or ``keep`` (only in the first betting round, for a
player present with chips: the seat plays and owes its post at the next hand)."""

from __future__ import annotations

from controller.rules import antes, betting, effects, hand, seating
from controller.rules.events import DealtInError
from controller.rules.positions import ring
from controller.rules.settings import RuleSettings
from controller.rules.state import FIRST_ROUNDS, TableState
from controller.rules.text import refuse


def check(state: TableState, settings: RuleSettings, event: DealtInError) -> None:
    h = state.hand
    assert h is not None  # the phase table lets it in only during a betting round
    s = seating.occupied(state, settings, event.seat)
    if s.in_hand:
        raise refuse("bad_correction", "refuse.dealt_in_already", seat=event.seat)
    if event.ruling == "keep" and (h.street not in FIRST_ROUNDS or s.away):
        raise refuse("bad_correction", "refuse.keep_preflop")
    if event.ruling == "keep" and betting.playable(s.stack, settings.game.smallest_chip) == 0:
        raise refuse("bad_correction", "refuse.no_chips_to_play", seat=event.seat)


def apply(state: TableState, settings: RuleSettings, event: DealtInError) -> list[effects.Effect]:
    h = state.hand
    assert h is not None
    out: list[effects.Effect] = [effects.Corrected(f"dealt_in_{event.ruling}", event.seat)]
    if event.ruling == "keep":
        s = state.seats[event.seat]
        hand.deal_in(s, h.number)
        s.owes_post = True
        button = hand.button_seat(state)
        members = set(h.dealt) | {event.seat}
        h.dealt = [x for x in ring(button, settings.seats) if x in members]
        # A1: every player dealt in antes, a kept seat when it is kept (it plays for
        # the whole pot, antes included)
        out += antes.post_each(h, state.seats, (event.seat,), settings.game)
    state.undo = None
    return out
