"""controller.rules.pushed (R14, R15, R16): whatever chips are pushed, the reading is an
action the engine accepts, or a refusal that says why."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from controller.rules import Refusal, parse_event
from controller.rules.events import Push
from controller.rules.pushed import read
from tests.keypad_tables import table

STREET_ACTIONS = [
    [],
    [{"type": "act", "seat": 8, "action": "raise", "to": 40}],
    [
        {"type": "act", "seat": 8, "action": "call"},
        {"type": "act", "seat": 2, "action": "call"},
        {"type": "act", "seat": 5, "action": "check"},
        {"type": "act", "seat": 2, "action": "bet", "to": 100},
    ],
]


@settings(max_examples=300, deadline=None)
@given(
    stacks=st.tuples(*(st.integers(1, 60).map(lambda n: 25 * n) for _ in range(3))),
    before=st.sampled_from(STREET_ACTIONS),
    chips=st.lists(st.sampled_from([5, 7, 10, 25, 100, 500]), min_size=1, max_size=6),
    declared=st.sampled_from([None, "call", "raise"]),
)
# a declared raise short of the minimum, by a seat whose minimum raise is all-in (R16)
@example(
    stacks=(50, 25, 50),
    before=[{"type": "act", "seat": 8, "action": "raise", "to": 40}],
    chips=[5, 5, 25],
    declared="raise",
)
# every chip of the small blind, 10 over the call of 35 (less than half the raise of
# 30): all in, not a call with 10 given back
@example(
    stacks=(50, 1000, 1000),
    before=[{"type": "act", "seat": 8, "action": "raise", "to": 40}],
    chips=[25, 10, 10],
    declared=None,
)
def test_a_push_reads_as_a_legal_action_or_is_refused(
    stacks: tuple[int, int, int],
    before: list[dict[str, object]],
    chips: list[int],
    declared: str | None,
) -> None:
    events = [
        {"type": "sit", "seat": seat, "player": f"p{seat}", "chips": stack}
        for seat, stack in zip((2, 5, 8), stacks, strict=True)
    ]
    t = table(events + [{"type": "start_hand"}])
    for event in before:
        try:
            t.apply(parse_event(event))
        except Refusal:
            return  # that history is not possible with these stacks
    h = t.state.hand
    if h is None or h.to_act is None:
        return
    seat = h.to_act
    s = t.state.seats[seat]
    owed = h.current_bet - s.bet
    legal = t.legal()
    assert legal is not None
    push = Push(seat=seat, chips=tuple(chips), declared=declared)
    try:
        act, rule = read(h, t.state.seats, push, t.settings.game)
    except Refusal as refusal:
        assert refusal.code in ("bad_amount", "raise_not_allowed")
        return
    t.check(act)  # the engine accepts the reading
    put = sum(chips)
    if declared == "call":
        assert act.action == "call"
    if owed > 0 and declared is None and len(chips) == 1:
        assert act.action == "call" and (rule == "R15" or put <= owed)
    if act.action == "raise":
        assert act.to is not None and act.to > h.current_bet
    if (
        declared is None
        and len(chips) > 1
        and put == s.stack
        and put > owed
        and legal.max_raise_to == s.bet + s.stack
    ):
        assert act.action == "all_in"  # every chip, nothing said: all in (R7)
    if rule == "R16":  # an under-call brought to size, or a raise brought to the minimum
        total = act.to if act.to is not None else s.bet + s.stack  # all-in: every chip
        assert put < owed or (act.action != "call" and total > s.bet + put)


def test_examples_from_the_rule_book() -> None:
    t = table(
        [{"type": "sit", "seat": s, "player": f"p{s}", "chips": 1000} for s in (2, 5, 8)]
        + [{"type": "start_hand"}]
    )
    h = t.state.hand
    assert h is not None and h.to_act == 8
    game = t.settings.game

    def reading(
        chips: tuple[int, ...], declared: str | None = None
    ) -> tuple[str, int | None, str | None]:
        assert h is not None
        act, rule = read(h, t.state.seats, Push(seat=8, chips=chips, declared=declared), game)
        return act.action, act.to, rule

    assert reading((100,)) == ("call", None, "R15")
    assert reading((100,), "raise") == ("raise", 100, None)
    assert reading((5, 5, 5)) == ("raise", 20, "R14")
    assert reading((5,)) == ("call", None, "R16")
    assert reading((10, 5), "call") == ("call", None, None)
    assert reading((5, 5), "raise") == ("raise", 20, "R16")
