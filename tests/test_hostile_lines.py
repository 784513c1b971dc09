"""Hostile input lines (docs/replay.md, bad lines; issue 13 item 10): an integer of
thousands of digits, JSON nested 1,000 deep, NaN and Infinity, invalid UTF-8 and a
10 MB line are refused with a message saying what is wrong on every input path
(``tablectl replay``, durable replay, the daemon's console, an event handed to the
loop), play goes on with the next line, and nothing locks. Amounts have an upper bound,
and a journal an older firmware wrote with a larger one has a way out."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from controller import lines as lines_module
from controller.cli import main
from controller.journal import Journal
from controller.lines import MAX_LINE_BYTES, decode_line, read_lines
from controller.rules import BadEvent
from controller.rules.limits import MAX_AMOUNT
from tests.cli import start_console, tablectl_bytes
from tests.daemon_helpers import WAIT, running, seat_players, view, wait_for, write_config

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "docs" / "samples" / "side-pot.yaml"

#: (the line, words the refusal's message must hold)
HOSTILE: list[tuple[bytes, str]] = [
    (b'{"type": "sit", "seat": 1, "player": "a", "chips": ' + b"9" * 4301 + b"}", "OUT OF RANGE"),
    (b'{"type": "sit", "seat": 1, "player": "a", "chips": 9007199254740993}', "OUT OF RANGE"),
    (b"[" * 1000 + b"]" * 1000, "NESTED DEEPER THAN 32"),
    (b'{"type": "tick", "ms": ' + b"[" * 40 + b"]" * 40 + b"}", "NESTED DEEPER THAN 32"),
    (b'{"type": "sit", "seat": 1, "player": "a", "chips": NaN}', "NaN"),
    (b'{"type": "tick", "ms": Infinity}', "Infinity"),
    (b'{"type": "tick", "ms": -Infinity}', "Infinity"),
    (b'{"type": "tick", "ms": 1e400}', "OUT OF RANGE"),
    (b'{"type": "sit", "seat": 1, "player": "\xff\xfe", "chips": 100}', "NOT UTF-8"),
    (b'{"type": "sit", "seat": 1, "player": "\\ud800", "chips": 100}', "SURROGATE"),
    (
        b'{"type": "sit", "seat": 1, "player": "' + b"a" * (10 * 1024 * 1024) + b'", "chips": 1}',
        "LONGER THAN 65536 BYTES",
    ),
]
GOOD = [
    {"type": "sit", "seat": 2, "player": "ana", "chips": 1000},
    {"type": "sit", "seat": 5, "player": "luis", "chips": 1000},
]


def hostile_file(path: Path) -> Path:
    """Each hostile line, then a good one: the good ones must all be taken."""
    lines: list[bytes] = []
    for number, (line, _) in enumerate(HOSTILE):
        lines.append(line)
        if number < len(GOOD):
            lines.append(json.dumps(GOOD[number]).encode())
    lines.append(b'{"type": "state"}')
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def check_answers(answers: list[dict[str, Any]]) -> None:
    """One answer per line, in order: the hostile ones refused with their reason."""
    expected: list[str | None] = []
    for number, (_, words) in enumerate(HOSTILE):
        expected.append(words)
        if number < len(GOOD):
            expected.append(None)
    expected.append(None)
    assert len(answers) == len(expected), answers
    for answer, words in zip(answers, expected, strict=True):
        if words is None:
            assert answer["ok"] is True, answer
        else:
            assert answer["ok"] is False, answer
            assert answer["error"]["code"] == "bad_event"
            assert words in answer["error"]["message"], (words, answer)
    seats = answers[-1]["state"]["seats"]
    assert {seat: s["player"] for seat, s in seats.items()} == {"2": "ana", "5": "luis"}


@pytest.mark.slow  # hostile lines of megabytes: out of the edit loop
def test_replay_refuses_each_hostile_line_and_goes_on(tmp_path: Path) -> None:
    events = hostile_file(tmp_path / "hostile.jsonl")
    done = tablectl_bytes("replay", "--config", str(SAMPLE), str(events))
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    check_answers([json.loads(line) for line in done.stdout.splitlines()])
    # the same from standard input
    piped = tablectl_bytes("replay", "--config", str(SAMPLE), "-", stdin=events.read_bytes())
    assert piped.returncode == 0 and piped.stdout == done.stdout


@pytest.mark.slow  # hostile lines of megabytes: out of the edit loop
def test_durable_replay_records_short_audit_rows_and_continues(tmp_path: Path) -> None:
    events = hostile_file(tmp_path / "hostile.jsonl")
    state = tmp_path / "state"
    done = tablectl_bytes("replay", "--config", str(SAMPLE), "--state-dir", str(state), str(events))
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    check_answers(answers)
    with Journal.open_readonly(state) as journal:
        records = list(journal.iter_events())
    invalid = [r for r in records if r.event.get("type") == "invalid"]
    assert len(invalid) == len(HOSTILE)
    assert all(len(r.event["raw"]) < 400 for r in invalid)  # never 10 MB in the journal
    assert (state / "journal.sqlite3").stat().st_size < 1024 * 1024
    # the journal verifies and folds again: a second run continues it
    assert tablectl_bytes("journal", "verify", "--state-dir", str(state)).returncode == 0
    again = tablectl_bytes(
        "replay",
        "--config",
        str(SAMPLE),
        "--state-dir",
        str(state),
        "-",
        stdin=b'{"type": "state"}\n',
    )
    assert again.returncode == 0, again.stderr.decode()
    assert json.loads(again.stdout)["seq"] == len(answers) + 1


@pytest.mark.slow
def test_the_daemon_console_refuses_hostile_lines_and_play_goes_on(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    log = (tmp_path / "daemon.log").open("wb")
    proc, answers, reader = start_console(config, log)
    try:
        assert proc.stdin is not None
        events = hostile_file(tmp_path / "hostile.jsonl").read_bytes().splitlines()
        # one at a time: a refused line is answered at once, a good one once recorded
        for count, line in enumerate(events, start=1):
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()
            wait_for(lambda: len(answers) >= count, what=f"answer {count}")  # noqa: B023
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(WAIT)
        reader.join(WAIT)
        log.close()
    text = (tmp_path / "daemon.log").read_text(errors="replace")
    assert code == 0, text
    assert "Traceback" not in text
    assert not any(fault in text for fault in ("MEMORY FAULT", "STORAGE FAULT", "SOFTWARE FAULT"))
    for answer in answers:  # the console's answers carry no state: check the seq flow
        answer.setdefault("state", None)
    refused = [a for a in answers if not a["ok"]]
    assert len(refused) == len(HOSTILE)
    assert all(a["error"]["code"] == "bad_event" for a in refused)
    assert [a["ok"] for a in answers].count(True) == len(GOOD) + 1
    with Journal.open_readonly(tmp_path / "state") as journal:
        players = {r.event.get("player") for r in journal.iter_events() if r.accepted}
    assert players == {"ana", "luis", None}  # the two sits and the state query


def test_an_event_handed_to_the_loop_with_nan_or_a_huge_number_is_refused(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path)
    deep: Any = 1
    for _ in range(2000):
        deep = [deep]
    with running(config) as daemon:
        for bad in (
            {"type": "sit", "seat": 3, "player": "x", "chips": float("nan")},
            {"type": "sit", "seat": 3, "player": "x", "chips": float("inf")},
            {"type": "sit", "seat": 3, "player": "x", "chips": 10**5000},
            {"type": "tick", "ms": deep},
        ):
            outcome = daemon.submit(bad)
            assert outcome.seq is not None and not outcome.ok, outcome
            assert outcome.error is not None and outcome.error["code"] == "bad_event"
        seat_players(daemon, {2: "ana", 5: "luis"})
        assert daemon.controller is not None and daemon.controller.fault is None
        assert set(view(daemon)["seats"]) == {"2", "5"}


def test_amounts_have_an_upper_bound(tmp_path: Path) -> None:
    lines = [
        {"type": "sit", "seat": 1, "player": "a", "chips": MAX_AMOUNT + 5},
        {"type": "sit", "seat": 1, "player": "a", "chips": MAX_AMOUNT},
        {"type": "chips", "seat": 1, "amount": 5},
        {"type": "tray_fill", "amount": MAX_AMOUNT + 5},
        {"type": "tray_fill", "counts": {"5": MAX_AMOUNT}},
        {"type": "push", "seat": 1, "chips": [MAX_AMOUNT, 5]},
        {"type": "state"},
    ]
    events = tmp_path / "bounds.jsonl"
    events.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = tablectl_bytes("replay", "--config", str(SAMPLE), str(events))
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["ok"] for a in answers] == [False, True, False, False, False, False, True]
    assert "AT MOST 1000000000000" in answers[0]["error"]["message"]
    assert answers[2]["error"] == {
        "code": "bad_amount",
        "message": "STACK LIMIT 1000000000000: SEAT 1 MAY ADD 0",
    }
    assert answers[-1]["state"]["seats"]["1"]["stack"] == MAX_AMOUNT


def test_a_journal_holding_a_huge_amount_does_not_lock_the_table_for_good(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An older firmware accepted a stack of 4,300 digits: today's refuses it when
    folding the journal again (replay_diverged, naming the seq and the way out), and
    ``journal salvage --before SEQ`` gives back a table that plays."""
    config = write_config(tmp_path)
    state = tmp_path / "state"
    with running(config) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis"})
    with Journal.open(state, config.read_text()) as journal:
        bad_seq = journal.append(
            {"type": "sit", "seat": 8, "player": "eve", "chips": 10**4299},
            accepted=True,
            by=None,
            hand=0,
        )
        journal.append(
            {"type": "chips", "seat": 8, "amount": 10**4299}, accepted=True, by=None, hand=0
        )
    with running(config) as daemon:
        controller = daemon.controller
        assert controller is not None and controller.fault is not None
        assert controller.fault.code == "replay_diverged"
        assert f"journal salvage --before {bad_seq}" in controller.fault.message
    capsys.readouterr()
    assert main(["journal", "salvage", "--state-dir", str(state), "--before", str(bad_seq)]) == 0
    out = capsys.readouterr().out
    assert f"ends at seq {bad_seq - 1}" in out
    with running(config) as daemon:
        assert daemon.controller is not None and daemon.controller.fault is None
        assert set(view(daemon)["seats"]) == {"2", "5"}
        assert daemon.submit({"type": "sit", "seat": 8, "player": "eve", "chips": 500}).ok


def test_lines_are_read_bounded_whatever_their_length() -> None:
    limit = MAX_LINE_BYTES
    data = (
        b"a" * limit
        + b"\n"
        + b"b" * (limit + 1)
        + b"\n"
        + b"c" * (3 * limit)
        + b"\n{}\n"
        + b"d" * 10
    )
    lines = list(read_lines(io.BytesIO(data)))
    assert [len(line) for line in lines] == [limit + 1, limit + 1, limit + 1, 3, 10]
    assert lines[3:] == [b"{}\n", b"d" * 10]
    with pytest.raises(BadEvent, match="NOT JSON"):  # not too long: the limit counts text
        decode_line(lines[0])
    with pytest.raises(BadEvent, match="LONGER THAN"):
        decode_line(lines[1])


@pytest.mark.slow
def test_the_hostile_input_bench_holds_at_a_small_scale() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "hostile_input.py"), "--lines", "60", "--big", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(" HELD: ") == 3, done.stdout


def test_a_floor_consumer_keeps_hostile_payloads_raw_and_goes_on(tmp_path: Path) -> None:
    """``tablectl floor watch`` and the back office's consumer, against a real
    Mosquitto: hostile payloads arrive raw (no parsed message), never fatal; the
    table's own messages, whose nanosecond times are past 2^53, parse as before."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from controller.floor.consumer import Collector, Subscriber
    from tests.localbroker import LocalBroker
    from tests.system_tools import require

    require("mosquitto", "the floor-link tests against a real broker")
    broker = LocalBroker(tmp_path / "broker")
    broker.start()
    collector = Collector()
    subscriber = Subscriber(broker.host, broker.port, "casino/#", collector)
    try:
        subscriber.start()
        sender = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="hostile-sender")
        sender.connect(broker.host, broker.port)
        sender.loop_start()
        payloads = [
            b"[" * 5000 + b"]" * 5000,
            b'{"a": NaN}',
            b"\xff\xfe",
            b'{"a": ' + b"9" * 5000 + b"}",
            b'{"kind": "status", "ts_ns": 1796125977949862187, "msg_seq": 1}',
        ]
        for payload in payloads:
            sender.publish("casino/lv/table/T1/events", payload, qos=1).wait_for_publish(WAIT)
        sender.disconnect()  # before loop_stop: it would wait out the loop's 1 s select
        sender.loop_stop()
        sender.disconnect()
        assert collector.wait_for(lambda got: len(got) >= len(payloads), WAIT), collector.messages
        got = collector.messages
        assert [m.payload for m in got[:-1]] == [None] * (len(payloads) - 1)
        assert [m.raw for m in got] == payloads
        assert got[-1].payload == {"kind": "status", "ts_ns": 1796125977949862187, "msg_seq": 1}
    finally:
        subscriber.stop()
        broker.kill()


def test_a_snapshot_holding_a_huge_stack_is_passed_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The older firmware also snapshotted the state with a stack of 4,300 digits:
    recovery folds from an earlier snapshot, meets the event that brought the stack,
    and names it; the salvage before it gives back a table that plays."""
    from controller.config import load_config
    from controller.daemon import snapshots
    from controller.rules import Table
    from controller.rules.events import Sit

    config = write_config(tmp_path)
    state = tmp_path / "state"
    with running(config) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis"})
        assert daemon.controller is not None and daemon.controller.recorder is not None
        table = Table(load_config(config).rules, daemon.controller.recorder.table.state)
    huge = {"type": "sit", "seat": 8, "player": "eve", "chips": 10**4299}
    table.apply(Sit(seat=8, player="eve", chips=10**4299))  # as the older firmware did
    with Journal.open(state, config.read_text()) as journal:
        bad_seq = journal.append(
            huge, accepted=True, by=None, hand=0, snapshot=snapshots.encode(table.state)
        )
    with running(config) as daemon:
        controller = daemon.controller
        assert controller is not None and controller.fault is not None
        assert controller.fault.code == "replay_diverged", controller.fault.message
        assert f"--before {bad_seq}" in controller.fault.message
    assert main(["journal", "salvage", "--state-dir", str(state), "--before", str(bad_seq)]) == 0
    capsys.readouterr()
    with running(config) as daemon:
        assert daemon.controller is not None and daemon.controller.fault is None
        assert set(view(daemon)["seats"]) == {"2", "5"}
        assert daemon.submit({"type": "sit", "seat": 8, "player": "eve", "chips": 500}).ok


class _Trickle(io.RawIOBase):
    """A stream whose reads return what a pipe might: pieces of the sizes given, in
    turn, whatever size was asked for."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self.data, self.sizes, self.at = data, sizes or [1], 0

    def read1(self, size: int = -1) -> bytes:
        piece = self.sizes[self.at % len(self.sizes)]
        self.at += 1
        out, self.data = self.data[:piece], self.data[piece:]
        return out


@example(b"abcdefghij\nab\n", [64])  # a long line whole within one read
@example(b"abcdefghij\nab\n", [3])  # the same across reads
@given(
    st.lists(st.sampled_from([b"a", b"{", b"\n", b"\n\n", b"xyz", b"abcdefgh"]), max_size=40).map(
        b"".join
    ),
    st.lists(st.integers(1, 30), max_size=6),
)
def test_read_lines_cuts_every_line_where_the_limit_says_however_the_bytes_arrive(
    data: bytes, sizes: list[int]
) -> None:
    """Lines whole within one read (the quick path) and lines across reads come out the
    same: each with its newline, cut at ``MAX_LINE_BYTES + 1`` bytes."""
    pieces = data.split(b"\n")
    expected = [(piece + b"\n")[:7] for piece in pieces[:-1]]
    if pieces[-1]:
        expected.append(pieces[-1][:7])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lines_module, "MAX_LINE_BYTES", 6)
        assert list(read_lines(_Trickle(data, sizes))) == expected
