"""A player leaves the table (the ``leave`` event of docs/replay.md).

Between hands the seat is freed at once; during a hand the departure folds the seat if
it is still in the hand, its chips stay in the pot, and the seat is freed when the hand
ends (``seating.do_leave`` holds it as ``pending_leave``).
"""

from __future__ import annotations

from controller.rules import betting, effects, hand, seating
from controller.rules.events import Leave
from controller.rules.settings import RuleSettings
from controller.rules.state import TableState

check = seating.check_leave


def apply(state: TableState, settings: RuleSettings, event: Leave) -> list[effects.Effect]:
    return seating.do_leave(state, settings, event) + fold(state, settings, event.seat)


def fold(state: TableState, settings: RuleSettings, seat: int) -> list[effects.Effect]:
    """The seat's hand is dead now, in turn or not (a player leaving; at a tournament
    table a player away who owes nothing, at the deal): its chips stay in the pot, no
    undo takes the fold back, and the hand goes on (or ends) without it."""
    h = state.hand
    s = state.seats.get(seat)
    if h is None or s is None or not s.live:
        return []
    s.folded = s.acted = True
    h.log.append({"street": h.street, "seat": seat, "action": "fold", "to": s.bet})
    out: list[effects.Effect] = [effects.Acted(seat, "fold", s.bet)]
    state.undo = None
    if state.clock is not None and state.clock.seat == seat:
        state.clock = None
    live = [x for x in h.dealt if state.seats[x].live]
    if state.phase == "showdown":
        if len(live) == 1:
            out += hand.pay(state, settings, [live])
        else:
            h.showdown_order = [x for x in (h.showdown_order or []) if x != seat]
        return out
    if h.to_act == seat or len(live) == 1:
        return out + hand.after_action(state, settings, seat)
    if h.to_act is not None and not betting.needs_to_act(h, state.seats, h.to_act):
        return out + hand.after_action(state, settings, h.to_act)
    return out
