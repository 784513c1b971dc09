"""The floor link's pure parts: topics, settings, and what `messages_for` publishes."""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.floor import security
from controller.floor.clock import Stamp
from controller.floor.messages import (
    ROUTINE_REFUSALS,
    OutboxMessage,
    fault_message,
    messages_for,
    state_message,
    status_payload,
    with_msg_seq,
)
from controller.floor.settings import FloorConfigError, FloorSettings, TlsSettings
from controller.floor.topics import TableTopics, TopicError, subscription
from controller.rules import Table, state_view
from controller.rules.events import Sit, StartHand
from controller.rules.settings import GameSettings, RuleSettings
from tests.floor_schema import assert_valid

TOPICS = TableTopics("casino", "lv", "T7")
STAMP = Stamp(1_740_863_645_123_456_789, True)
ROOT = "casino/lv/table/T7"


def _seat(player: str, stack: int, bet: int = 0, status: str = "playing") -> dict[str, Any]:
    return {"player": player, "stack": stack, "bet": bet, "status": status, "missed": []}


def _state(**fields: Any) -> dict[str, Any]:
    state: dict[str, Any] = {
        "hand": 0,
        "phase": "idle",
        "button": None,
        "small_blind": None,
        "big_blind": None,
        "to_act": None,
        "legal": None,
        "pot_total": 0,
        "pots": [],
        "seats": {},
        "fees": {"rake": 0, "jackpot": 0},
        "showdown_order": None,
        "clock": None,
        "display": ["READY"],
    }
    state.update(fields)
    return state


# The worked example of the replay contract (examples/sample-hand.*): three players.
SEATED = _state(seats={"2": _seat("ana", 1000), "5": _seat("luis", 600), "8": _seat("marta", 1500)})
PREFLOP = _state(
    hand=1,
    phase="preflop",
    button=8,
    small_blind=2,
    big_blind=5,
    to_act=8,
    legal={"check": False, "call": 10, "min_raise_to": 20, "max_raise_to": 1500},
    pot_total=15,
    seats={"2": _seat("ana", 995, 5), "5": _seat("luis", 590, 10), "8": _seat("marta", 1500)},
    display=["SEAT 8 TO ACT", "CALL 10"],
)
SHOWDOWN = _state(
    hand=1,
    phase="showdown",
    button=8,
    small_blind=2,
    big_blind=5,
    pot_total=510,
    pots=[{"amount": 510, "eligible": [5, 8]}],
    seats={
        "2": _seat("ana", 970, status="folded"),
        "5": _seat("luis", 360),
        "8": _seat("marta", 1260),
    },
    showdown_order=[5, 8],
    display=["SHOWDOWN: WINNING SEAT, ENTER"],
)
PAID = _state(
    hand=1,
    phase="idle",
    button=8,
    small_blind=2,
    big_blind=5,
    seats={"2": _seat("ana", 970), "5": _seat("luis", 615), "8": _seat("marta", 1515)},
)


def _build(
    event: Any,
    before: dict[str, Any],
    after: dict[str, Any] | None = None,
    *,
    ok: bool = True,
    error: dict[str, str] | None = None,
    seq: int = 12,
    result: dict[str, Any] | None = None,
) -> list[OutboxMessage]:
    outcome = result if result is not None else {"ok": ok, "error": error}
    return messages_for(
        {"seq": seq, "event": event},
        outcome,
        before,
        before if after is None else after,
        topics=TOPICS,
        stamp=STAMP,
    )


def _docs(messages: list[OutboxMessage]) -> list[dict[str, Any]]:
    return [json.loads(m.payload) for m in messages]


def _leaves(messages: list[OutboxMessage]) -> list[str]:
    return [m.topic.removeprefix(ROOT + "/") for m in messages]


# -- topics and settings -----------------------------------------------------------------


def test_topic_tree_of_one_table() -> None:
    assert TOPICS.events == "casino/lv/table/T7/events"
    assert [
        TOPICS.refusals,
        TOPICS.faults,
        TOPICS.hands,
        TOPICS.tray,
        TOPICS.state,
        TOPICS.status,
    ] == [f"{ROOT}/{leaf}" for leaf in ("refusals", "faults", "hands", "tray", "state", "status")]
    assert subscription("casino", "lv", "T7") == "casino/lv/table/T7/#"
    assert subscription("casino") == "casino/+/table/+/#"
    assert TableTopics("acme/casino", "east", "T1").root == "acme/casino/east/table/T1"


@pytest.mark.parametrize("table_id", ["", "T/7", "T+", "T#", "$T", " T7"])
def test_a_table_id_that_is_not_one_topic_level_is_refused(table_id: str) -> None:
    with pytest.raises(TopicError, match="table id"):
        TableTopics("casino", "lv", table_id)


def test_settings_defaults_and_port_by_tls() -> None:
    plain = FloorSettings(site="lv", host="broker.floor")
    assert (plain.broker_port, plain.topic_prefix, plain.keepalive) == (1883, "casino", 30)
    assert (plain.outbox_max_messages, plain.outbox_alarm_percent) == (10_000, 80)
    assert plain.alarm_threshold == 8_000
    assert FloorSettings(site="lv", host="b", tls=TlsSettings()).broker_port == 8883
    assert FloorSettings(site="lv", host="b", port=1884, tls=TlsSettings()).broker_port == 1884


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"site": "l/v"}, "floor.site: must not contain '/'"),
        ({"port": 0}, "floor.port: must be 1..65535"),
        ({"password_file": Path("/x")}, "floor.password_file: needs floor.username"),
        ({"outbox_max_messages": 10}, "floor.outbox_max_messages: must be at least 100"),
        ({"outbox_alarm_percent": 0}, "floor.outbox_alarm_percent: must be 1..100"),
        ({"topic_prefix": "casino/"}, "floor.topic_prefix: level '' must not be empty"),
        ({"keepalive": 1}, "floor.keepalive: must be 5..3600"),
    ],
)
def test_settings_errors_name_the_option(fields: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {"site": "lv", "host": "broker", **fields}
    with pytest.raises(FloorConfigError, match=message.replace(".", r"\.")):
        FloorSettings(**arguments)


def test_settings_adapt_the_configuration_loaders_floor_section() -> None:
    from controller.config import load_config_text

    loaded = load_config_text(
        'table: {id: "T7", seats: 9}\ngame: {big_blind: 10}\n'
        "floor:\n  site: lv\n  host: broker.floor\n  tls: {ca_file: /etc/ca.pem}\n"
        "  username: T7\n  password_file: /etc/floor-password\n"
        "  outbox_max_messages: 500\n"
    )
    floor = FloorSettings.adapt(loaded.floor)
    assert floor == FloorSettings(
        site="lv",
        host="broker.floor",
        port=8883,
        tls=TlsSettings(ca_file=Path("/etc/ca.pem")),
        username="T7",
        password_file=Path("/etc/floor-password"),
        outbox_max_messages=500,
    )
    assert FloorSettings.adapt(floor) is floor


def test_a_password_file_others_can_read_is_used_but_warned_about(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret = tmp_path / "password"
    secret.write_text("s3cret-value\n")
    secret.chmod(0o644)
    with caplog.at_level(logging.WARNING):
        assert security.read_password(secret, logging.getLogger("test")) == "s3cret-value"
    assert "readable by group or others (mode 644)" in caplog.text
    assert "s3cret-value" not in caplog.text
    caplog.clear()
    secret.chmod(0o600)
    security.read_password(secret, logging.getLogger("test"))
    assert caplog.text == ""


def test_a_missing_password_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(FloorConfigError, match="floor.password_file: cannot read"):
        security.read_password(tmp_path / "absent", logging.getLogger("test"))


# -- messages_for --------------------------------------------------------------------------


def test_every_payload_carries_table_id_seq_and_timestamp() -> None:
    sit = {"type": "sit", "seat": 2, "player": "ana", "chips": 1000}
    messages = _build(sit, _state(), _state(seats={"2": _seat("ana", 1000)}))
    assert _leaves(messages) == ["events", "state"]
    for document in _docs(messages):
        assert document["table_id"] == "T7"
        assert document["site"] == "lv"
        assert document["seq"] == 12
        assert document["ts"] == "2025-03-01T21:14:05.123Z"
        assert document["ts_ns"] == STAMP.wall_ns
        assert document["clock_synced"] is True
        assert "msg_seq" not in document  # the publisher adds it: the outbox row id
    event = _docs(messages)[0]
    assert event["kind"] == "event"
    assert event["event"] == sit
    assert event["changes"]["seats"] == {
        "2": {
            "player": [None, "ana"],
            "stack": [None, 1000],
            "bet": [None, 0],
            "status": [None, "playing"],
            "missed": [None, []],
        }
    }
    assert [(m.qos, m.retain) for m in messages] == [(1, False), (1, True)]


def test_the_journal_records_time_is_used_when_the_record_has_one() -> None:
    record = {
        "seq": 3,
        "event": {"type": "chips", "seat": 2, "amount": 5},
        "wall_ns": 5_000_000_000,
        "clock_synced": False,
    }
    messages = messages_for(record, {"ok": True}, SEATED, SEATED, topics=TOPICS)
    (document,) = _docs(messages)
    assert (document["ts"], document["clock_synced"]) == ("1970-01-01T00:00:05.000Z", False)


def test_routine_refusals_stay_at_the_table() -> None:
    for kind in ROUTINE_REFUSALS:
        refused = _build(
            {"type": kind},
            PREFLOP,
            ok=False,
            error={"code": "not_to_act", "message": "SEAT 4 IS NOT TO ACT"},
        )
        assert refused == [], kind


def test_a_refused_award_reaches_the_supervisor() -> None:
    award = {"type": "award", "ranking": [[2]], "by": "d17"}
    error = {"code": "bad_ranking", "message": "SEAT 2 FOLDED"}
    (refusal,) = _build(award, SHOWDOWN, ok=False, error=error)
    assert refusal.topic == f"{ROOT}/refusals"
    document = json.loads(refusal.payload)
    assert (document["kind"], document["event"], document["error"]) == ("refusal", award, error)
    assert (document["hand"], document["phase"]) == (1, "showdown")


def test_input_that_is_not_an_event_is_reported() -> None:
    (refusal,) = _build(
        "garbage", PREFLOP, ok=False, error={"code": "not_an_object", "message": "NOT AN EVENT"}
    )
    assert json.loads(refusal.payload)["event"] == "garbage"


def test_state_queries_and_countdown_ticks_are_not_published() -> None:
    assert _build({"type": "state"}, PREFLOP) == []
    running = {**PREFLOP, "clock": {"seat": 8, "remaining_ms": 45_000, "warning": False}}
    later = {
        **running,
        "clock": {"seat": 8, "remaining_ms": 44_000, "warning": False},
        "display": ["SEAT 8 TO ACT", "CLOCK 44"],
    }
    assert _build({"type": "tick", "ms": 1000}, running, later) == []


def test_a_tick_that_passes_the_warning_point_is_published() -> None:
    running = {**PREFLOP, "clock": {"seat": 8, "remaining_ms": 11_000, "warning": False}}
    warned = {**running, "clock": {"seat": 8, "remaining_ms": 10_000, "warning": True}}
    messages = _build({"type": "tick", "ms": 1000}, running, warned)
    assert _leaves(messages) == ["events", "state"]
    assert _docs(messages)[0]["changes"]["clock"] == [running["clock"], warned["clock"]]


def test_starting_a_hand_publishes_positions_and_posts() -> None:
    messages = _build({"type": "start_hand"}, SEATED, PREFLOP, seq=4)
    assert _leaves(messages) == ["events", "hands", "state"]
    start = _docs(messages)[1]
    assert start["kind"] == "hand_start"
    assert (start["hand"], start["button"], start["small_blind"], start["big_blind"]) == (
        1,
        8,
        2,
        5,
    )
    assert start["dealt_in"] == [2, 5, 8]
    assert start["players"] == {"2": "ana", "5": "luis", "8": "marta"}
    assert start["stacks"] == {"2": 1000, "5": 600, "8": 1500}
    assert start["posts"] == {
        "2": {"amount": 5, "blind": "small"},
        "5": {"amount": 10, "blind": "big"},
    }
    assert start["dead_money"] == 0


@pytest.mark.parametrize(
    ("form", "antes", "posts"),
    [
        ("each", {"2": 5, "5": 5, "8": 5}, {"2": 5, "5": 10}),
        ("big_blind", {"5": 10}, {"2": 5, "5": 10}),
    ],
)
def test_the_hand_start_carries_the_antes(
    form: str, antes: dict[str, int], posts: dict[str, int]
) -> None:
    """A1, A2: each seat's ante, dead money in the pot from the deal (not a post of a
    bet), from the rules core's own state."""
    game = GameSettings(big_blind=10, smallest_chip=5, ante=antes["5"], ante_form=form)  # type: ignore[arg-type]
    table = Table(RuleSettings(game=game))
    for seat, player in ((2, "ana"), (5, "luis"), (8, "marta")):
        table.apply(Sit(seat=seat, player=player, chips=1000))
    before = state_view(table)
    table.apply(StartHand())
    messages = _build({"type": "start_hand"}, before, state_view(table), seq=4)
    # (the outbox numbers each message as it sends it: ``msg_seq``)
    assert_valid([{**doc, "msg_seq": n} for n, doc in enumerate(_docs(messages), 1)])
    start = _docs(messages)[1]
    assert start["antes"] == antes
    assert {seat: post["amount"] for seat, post in start["posts"].items()} == posts
    assert start["dead_money"] == sum(antes.values())


def test_the_award_that_ends_a_hand_publishes_its_summary() -> None:
    award = {"type": "award", "ranking": [[5, 8]]}
    messages = _build(award, SHOWDOWN, PAID, seq=21)
    assert _leaves(messages) == ["events", "hands", "state"]
    end = _docs(messages)[1]
    assert end["kind"] == "hand_end"
    assert (end["hand"], end["ended_by"], end["void"]) == (1, "award", False)
    assert (end["button"], end["small_blind"], end["big_blind"]) == (8, 2, 5)
    assert end["pot_total"] == 510
    assert end["pots"] == [{"amount": 510, "eligible": [5, 8]}]
    assert end["awards"] == {"5": 255, "8": 255}
    assert end["fees"] == {"rake": 0, "jackpot": 0}
    assert end["stacks"] == {"2": 970, "5": 615, "8": 1515}
    assert end["reconciled"] is True
    state = _docs(messages)[2]
    assert state["state"] == PAID


def test_a_hand_summary_reports_fees_and_says_when_the_pot_does_not_add_up() -> None:
    raked = {
        **PAID,
        "fees": {"rake": 5, "jackpot": 0},
        "seats": {**PAID["seats"], "5": _seat("luis", 610), "8": _seat("marta", 1510)},
    }
    end = _docs(_build({"type": "award", "ranking": [[5, 8]]}, SHOWDOWN, raked))[1]
    assert (end["awards"], end["fees"], end["reconciled"]) == (
        {"5": 250, "8": 250},
        {"rake": 5, "jackpot": 0},
        False,
    )
    reported = _build(
        {"type": "award", "ranking": [[5, 8]]},
        SHOWDOWN,
        raked,
        result={"ok": True, "awards": {5: 253, 8: 252}},
    )
    end = _docs(reported)[1]
    assert (end["awards"], end["reconciled"]) == ({"5": 253, "8": 252}, True)


def test_a_misdeal_summary_is_void() -> None:
    end = _docs(_build({"type": "misdeal"}, PREFLOP, SEATED))[1]
    assert (end["kind"], end["void"], end["awards"], end["reconciled"]) == (
        "hand_end",
        True,
        {"2": 5, "5": 10},
        True,
    )


def test_a_tray_discrepancy_is_published_when_raised_changed_and_cleared() -> None:
    reading = {"type": "tray", "counts": {"5": 98}}
    calm = {"alarm": False, "difference": None, "expected": 500, "counted": None}
    alarm = {"alarm": True, "difference": -10, "expected": 500, "counted": 490}

    def tray(before: dict[str, Any], after: dict[str, Any]) -> list[OutboxMessage]:
        return messages_for(
            {"seq": 9, "event": reading},
            {"ok": True},
            SEATED,
            SEATED,
            topics=TOPICS,
            stamp=STAMP,
            tray_before=before,
            tray_after=after,
        )

    raised = tray(calm, alarm)
    assert _leaves(raised) == ["events", "tray"]
    document = _docs(raised)[1]
    assert (
        document["kind"],
        document["discrepancy"],
        document["alarm"],
        document["resolved"],
        document["report"],
    ) == ("tray", -10, True, False, alarm)
    assert _leaves(tray(alarm, alarm)) == ["events"]  # still the same: said already
    changed = _docs(tray(alarm, {**alarm, "difference": -35, "counted": 465}))[1]
    assert changed["discrepancy"] == -35
    acknowledged = _docs(tray(alarm, {**alarm, "alarm": False, "acknowledged": -10}))[1]
    assert (acknowledged["alarm"], acknowledged["resolved"]) == (False, True)
    assert _leaves(tray(calm, calm)) == ["events"]
    # Without an `alarm` flag, any difference is a discrepancy.
    assert _docs(tray({}, {"expected": 500, "counted": 495}))[1]["discrepancy"] == -5


def test_with_the_rules_core_ticks_stay_quiet_and_hands_are_summarised() -> None:
    from controller.rules import RuleSettings, Table, parse_event, state_view

    table = Table(RuleSettings())
    published = []
    for seq, event in enumerate(
        [
            {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
            {"type": "sit", "seat": 5, "player": "luis", "chips": 600},
            {"type": "tray", "counts": {"5": 100}},
            {"type": "start_hand"},
            {"type": "call_clock"},
            {"type": "tick", "ms": 1000},
            {"type": "tick", "ms": 1000},
            {"type": "tick", "ms": 58000},  # expiry: the seat is folded, the hand ends
        ],
        start=1,
    ):
        before = state_view(table)
        parsed = parse_event(event)
        table.check(parsed)
        table.apply(parsed)
        messages = messages_for(
            {"seq": seq, "event": event},
            {"ok": True},
            before,
            state_view(table),
            topics=TOPICS,
            stamp=STAMP,
        )
        published += [(seq, leaf) for leaf in _leaves(messages)]
    assert published == [
        (1, "events"),
        (1, "state"),
        (2, "events"),
        (2, "state"),
        (3, "events"),
        (3, "state"),
        (4, "events"),
        (4, "hands"),
        (4, "state"),
        (5, "events"),
        (5, "state"),
        (8, "events"),
        (8, "hands"),
        (8, "state"),
    ]


def test_a_draw_game_publishes_its_rounds() -> None:
    """Triple draw with the rules core: the events and the retained state
    carries the round (predraw, draw1 ... draw3), and the display text names it."""
    from controller.rules import RuleSettings, Table, parse_event, state_view
    from controller.rules.settings import GameSettings

    table = Table(RuleSettings(game=GameSettings(structure="fixed_limit", form="triple_draw")))
    phases: list[tuple[str, Any]] = []
    events = [
        {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
        {"type": "sit", "seat": 5, "player": "luis", "chips": 600},
        {"type": "start_hand"},
        {"type": "act", "seat": 5, "action": "call"},  # heads-up: the button acts first
        {"type": "act", "seat": 2, "action": "check"},
        {"type": "act", "seat": 2, "action": "check"},
        {"type": "act", "seat": 5, "action": "check"},
        {"type": "act", "seat": 2, "action": "bet", "to": 4},
        {"type": "act", "seat": 5, "action": "call"},
        {"type": "act", "seat": 2, "action": "check"},
        {"type": "act", "seat": 5, "action": "bet", "to": 4},
    ]
    for seq, event in enumerate(events, start=1):
        before = state_view(table)
        table.apply(parse_event(event))
        messages = messages_for(
            {"seq": seq, "event": event},
            {"ok": True},
            before,
            state_view(table),
            topics=TOPICS,
            stamp=STAMP,
        )
        for leaf, doc in zip(_leaves(messages), _docs(messages), strict=True):
            phase = doc.get("phase", doc.get("state", {}).get("phase"))
            phases.append((leaf, phase))
            if leaf == "state" and seq == len(events):
                assert doc["state"]["display"] == ["DRAW 3: SEAT 2 TO ACT", "CALL 4"]
    for phase in ("predraw", "draw1", "draw2", "draw3"):
        assert ("events", phase) in phases and ("state", phase) in phases


def test_the_retained_state_and_faults_outside_events() -> None:
    message = state_message(TOPICS, PAID, seq=40, stamp=STAMP)
    assert (message.topic, message.retain) == (f"{ROOT}/state", True)
    assert json.loads(message.payload)["state"] == PAID
    fault = fault_message(
        TOPICS,
        "tray_lost",
        device="tray",
        active=True,
        detail="tray is missing: nothing at /dev/ttyUSB1",
        seq=41,
        stamp=STAMP,
    )
    assert (fault.topic, fault.retain) == (f"{ROOT}/faults", False)
    document = json.loads(fault.payload)
    assert (
        document["kind"],
        document["fault"],
        document["device"],
        document["active"],
        document["detail"],
        document["seq"],
    ) == ("fault", "tray_lost", "tray", True, "tray is missing: nothing at /dev/ttyUSB1", 41)


def test_the_publisher_adds_the_msg_seq() -> None:
    (message,) = _build({"type": "chips", "seat": 2, "amount": 5}, SEATED)
    published = json.loads(with_msg_seq(message.payload, 77))
    assert published == {**json.loads(message.payload), "msg_seq": 77}
    assert with_msg_seq("not json", 77) == "not json"
    status = json.loads(
        status_payload(
            TOPICS, link="down", reason="connection lost", unsent=None, stamp=STAMP, will=True
        )
    )
    assert (status["kind"], status["link"], status["will"]) == ("status", "down", True)
    assert "seq" not in status


def test_the_states_are_not_modified() -> None:
    before, after = copy.deepcopy(SHOWDOWN), copy.deepcopy(PAID)
    _build({"type": "award", "ranking": [[5, 8]]}, before, after)
    assert (before, after) == (SHOWDOWN, PAID)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)
_state_like = st.fixed_dictionaries(
    {},
    optional={
        "hand": _json | st.integers(0, 3),
        "phase": _json | st.sampled_from(["idle", "flop"]),
        "seats": _json
        | st.dictionaries(
            st.sampled_from(["1", "2", "²"]) | st.text(max_size=2), _json, max_size=2
        ),
        "pots": _json,
        "fees": _json,
        "clock": _json,
        "tray": _json,
        "pot_total": _json,
    },
)


@pytest.mark.slow  # a property test: out of the edit loop
@settings(max_examples=100, deadline=None)
@given(
    event=_json,
    result=_json | st.fixed_dictionaries({"ok": st.booleans()}),
    before=_state_like,
    after=_state_like,
    tray_before=_json,
    tray_after=_json,
)
def test_odd_shapes_never_stop_a_table(
    event: Any, result: Any, before: Any, after: Any, tray_before: Any, tray_after: Any
) -> None:
    messages = messages_for(
        {"seq": 1, "event": event},
        result,
        before,
        after,
        topics=TOPICS,
        stamp=STAMP,
        tray_before=tray_before,
        tray_after=tray_after,
    )
    for message in messages:
        assert json.loads(message.payload)["table_id"] == "T7"
        assert message.topic.startswith(ROOT + "/")
