"""The button-puck check: the rules know where the button must be, the sensor says where
the puck is.

Between hands, ``expected_button`` asks the rules where the next hand puts the button
(``positions.plan_hand``, the same plan ``start_hand`` will use), and ``check`` compares
it with what the sensor sees:

- the puck on that seat: all is well;
- the puck on another seat: that seat and the right one light, the display says
  ``MOVE BUTTON TO SEAT n``;
- the puck lifted: the right seat lights, ``PLACE BUTTON ON SEAT n``;
- the puck seen at two or more seats (the driver's ``PuckFault``): those seats light,
  ``BUTTON SEEN AT SEATS a b``.

``puck.mismatch`` (``PuckCheckSettings``) decides what a problem does: ``warn`` only
shows it; ``block`` also holds the next hand. Holding it is done in the rules core by
the guard ``start_guard(settings)``, which the daemon injects into the ``Table`` only
when a puck sensor is configured: ``start_hand`` (and ``NEXT``) is then refused with
``MOVE BUTTON TO SEAT n FIRST`` while the puck is elsewhere. With ``first_button: puck``
the first hand's button is wherever the puck is, so the check always agrees.

During a hand the check goes on only for a hand dealt with the puck away from its
button (``warn`` lets that happen): ``hand_button`` is that hand's button, and the
warning stays until the puck is there (``MOVE BUTTON TO SEAT 1``, during the hand
too); once it has been there the hand is checked no more (dealers lift the puck to
move it at the end). The daemon remembers which hand that is (``loop.Controller``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.config.daemon import PuckCheckSettings
from controller.rules.errors import Refusal
from controller.rules.positions import HandPlan, plan_hand
from controller.rules.settings import RuleSettings
from controller.rules.state import TableState
from controller.rules.table import StartGuard
from controller.rules.text import Message, msg, refuse


@dataclass(frozen=True)
class PuckCheck:
    """The outcome of one check. ``status``: ``ok`` | ``moved`` (on the wrong seat) |
    ``lifted`` | ``two_seats`` | ``unknown`` (no hand can start, or a hand is on)."""

    status: str
    expected: int | None
    seen: tuple[int, ...]
    blocks: bool = False
    light_seats: tuple[int, ...] = ()
    message: Message | None = None


def expected_button(state: TableState, settings: RuleSettings) -> int | None:
    """Where the rules put the button for the next hand (None: no hand can start)."""
    if state.phase != "idle":
        return None
    try:
        return plan_hand(state, settings).button
    except Refusal:
        return None


def check(
    state: TableState,
    rules: RuleSettings,
    policy: PuckCheckSettings,
    seen: Sequence[int] | None = None,
    hand_button: int | None = None,
) -> PuckCheck:
    """Compare the sensor with the rules. ``seen``: the seats the sensor sees the puck
    at (default: the rules' ``puck`` reading, one seat or none). ``hand_button``: during
    a hand dealt with the puck elsewhere, that hand's button (otherwise a hand in
    progress is not checked)."""
    if seen is None:
        seen = () if state.puck is None else (state.puck,)
    seats = tuple(sorted(set(seen)))
    expected = expected_button(state, rules) if state.phase == "idle" else hand_button
    if expected is None:
        return PuckCheck("unknown", None, seats)
    block = policy.mismatch == "block"
    if len(seats) > 1:
        listed = " ".join(str(s) for s in seats)
        return PuckCheck(
            "two_seats", expected, seats, block, seats, msg("puck.two_seats", seats=listed)
        )
    if not seats:
        return PuckCheck(
            "lifted", expected, seats, block, (expected,), msg("puck.place", seat=expected)
        )
    if seats[0] != expected:
        return PuckCheck(
            "moved", expected, seats, block, (seats[0], expected), msg("puck.move", seat=expected)
        )
    return PuckCheck("ok", expected, seats)


def floor_view(check: PuckCheck | None) -> dict[str, object] | None:
    """The warning as the floor's retained status says it (``puck``), None when there
    is none: what is wrong, where the button must go, where the puck is seen."""
    if check is None or check.message is None:
        return None
    return {"status": check.status, "expected": check.expected, "seen": list(check.seen)}


def start_guard(policy: PuckCheckSettings) -> StartGuard | None:
    """The guard the daemon injects (``Table(..., start_guard=...)``); None for ``warn``."""
    if policy.mismatch != "block":
        return None

    def guard(state: TableState, plan: HandPlan) -> None:
        if state.puck != plan.button:
            raise refuse("puck_mismatch", "refuse.puck_block", seat=plan.button)

    return guard
