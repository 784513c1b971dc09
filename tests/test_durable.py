"""Replay's durable mode (controller.durable) and `tablectl state`: the replay contract
through the journal (docs/replay.md, durable mode)."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from controller.cli import main
from controller.config import load_config
from controller.durable import durable_replay
from controller.journal import Journal
from controller.replay import dumps, replay

EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "examples"
CONFIG = """\
table: {id: "T7", seats: 9}
game: {structure: no_limit, small_blind: 5, big_blind: BB, smallest_chip: 5}
"""
LINES = [
    "# three players",
    '{"type": "sit", "seat": 2, "player": "ana", "chips": 1000}',
    '{"type": "sit", "seat": 5, "player": "luis", "chips": 600}',
    "",
    '{"type": "sit", "seat": 8, "player": "marta", "chips": 1500}',
    '{"type": "start_hand"}',
    "not json at all",
    '{"type": "act", "seat": 2, "action": "fold"}',
    "[1, 2, 3]",
    '{"type": "state"}',
    '{"type": "act", "seat": 8, "action": "raise", "to": 30}',
    '{"type": "act", "seat": 2, "action": "call"}',
    '{"type": "state"}',
]


def config_file(tmp_path: Path, big_blind: int = 10) -> Path:
    path = tmp_path / f"table-{big_blind}.yaml"
    path.write_text(CONFIG.replace("BB", str(big_blind)))
    return path


def durable(config: Path, state_dir: Path, lines: list[str]) -> tuple[int, list[str]]:
    out = io.StringIO()
    status = durable_replay(load_config(config), str(state_dir), lines, out)
    return status, out.getvalue().splitlines()


def plain(config: Path, lines: list[str]) -> list[str]:
    return [dumps(line) for line in replay(load_config(config).rules, lines)]


def test_durable_output_is_the_plain_replay_output(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    status, got = durable(config, tmp_path / "state", LINES)
    assert status == 0
    assert got == plain(config, LINES)


def test_the_shared_example_gives_the_same_lines_durably(tmp_path: Path) -> None:
    if not (EXAMPLES / "sample-hand.jsonl").exists():
        pytest.skip("../shared/examples is not beside this checkout")
    lines = (EXAMPLES / "sample-hand.jsonl").read_text().splitlines()
    status, got = durable(EXAMPLES / "table.yaml", tmp_path / "state", lines)
    assert status == 0 and got == plain(EXAMPLES / "table.yaml", lines)


def test_an_existing_journal_is_continued(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    state = tmp_path / "state"
    status1, first = durable(config, state, LINES[:7])
    status2, second = durable(config, state, LINES[7:])
    assert status1 == status2 == 0
    assert first + second == plain(config, LINES)
    assert json.loads(second[0])["seq"] == len(first) + 1


def test_every_line_is_recorded_refusals_queries_and_junk_included(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    durable(config, tmp_path / "state", LINES)
    with Journal.open_readonly(tmp_path / "state") as journal:
        records = list(journal.iter_events())
    events = [line for line in LINES if line.strip() and not line.startswith("#")]
    assert len(records) == len(events)
    assert records[4].event == {"type": "invalid", "raw": "not json at all"}
    assert not records[4].accepted and records[4].refusal_code == "bad_event"
    assert [r.accepted for r in records].count(False) == 3
    assert records[7].event == {"type": "state"} and records[7].accepted


def test_a_different_configuration_is_refused_naming_the_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    durable(config_file(tmp_path, 10), state, LINES[:3])
    capsys.readouterr()
    status, got = durable(config_file(tmp_path, 20), state, LINES[3:])
    assert status != 0 and got == []
    message = capsys.readouterr().err
    assert "game.big_blind: 10 -> 20" in message
    with Journal.open_readonly(state) as journal:
        assert journal.last_seq == 2


def test_state_command_prints_the_fold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    assert main(["state", "--state-dir", str(state)]) == 3  # no journal there yet
    assert json.loads(capsys.readouterr().out) == {"last_seq": 0, "state": None}
    config = config_file(tmp_path)
    _, got = durable(config, state, LINES)
    capsys.readouterr()
    assert main(["state", "--state-dir", str(state)]) == 0
    printed = json.loads(capsys.readouterr().out)
    last = json.loads(got[-1])
    assert printed == {"last_seq": last["seq"], "state": last["state"]}


@pytest.mark.slow  # random streams: out of the edit loop
def test_random_streams_with_snapshots_fold_to_the_same_state(tmp_path: Path) -> None:
    from tests.bench_harness import load_bench

    harness = load_bench("daemon_killloop")
    config = tmp_path / "kill.yaml"
    config.write_text(harness.CONFIG)
    settings = load_config(config)
    lines = harness.make_lines(settings.rules, 600, random.Random(7)) + ['{"type": "state"}']
    state = tmp_path / "state"
    pieces = [lines[:150], lines[150:151], lines[151:420], lines[420:]]
    got: list[str] = []
    for piece in pieces:
        status, out = durable(config, state, piece)
        assert status == 0
        got += out
    assert got == plain(config, lines)
    with Journal.open_readonly(state) as journal:
        assert journal.latest_snapshot() is not None
        assert journal.verify(log=False).ok


def test_a_refused_enter_drops_its_digits_across_a_restart(tmp_path: Path) -> None:
    """The digits a refused ENTER dropped stay dropped when the journal is folded again
    (recovery folds refusals as replay does): `5 0 ENTER` after the restart is 50."""
    config = config_file(tmp_path)
    seated = LINES[1:3] + [LINES[4], '{"type": "start_hand"}']
    key = '{{"type": "key", "key": "{}"}}'.format
    first = seated + [key("BET"), key("2"), key("ENTER")]
    status, got = durable(config, tmp_path / "state", first)
    assert status == 0 and json.loads(got[-1])["error"]["message"] == "AMOUNTS IN UNITS OF 5"
    status, got = durable(
        config, tmp_path / "state", [key("5"), key("0"), key("ENTER"), '{"type": "state"}']
    )
    assert status == 0 and all(json.loads(line)["ok"] for line in got)
    assert json.loads(got[-1])["state"]["seats"]["8"]["bet"] == 50
    assert (
        got
        == plain(config, first + [key("5"), key("0"), key("ENTER"), '{"type": "state"}'])[
            len(first) :
        ]
    )


def test_a_held_entry_stays_held_across_a_restart(tmp_path: Path) -> None:
    """FUNC refused in the middle of FUNC 5 holds the entry; folded again after a
    restart it is still held: `1 5 ENTER` is refused, never 15 chips for the seat."""
    config = config_file(tmp_path)
    key = '{{"type": "key", "key": "{}"}}'.format
    first = LINES[1:3] + [key("FUNC"), key("5"), key("2"), key("ENTER"), key("FUNC")]
    status, got = durable(config, tmp_path / "state", first)
    assert status == 0 and json.loads(got[-1])["error"]["message"] == "ENTRY OPEN: CLEAR FIRST"
    after = [key("1"), key("5"), key("ENTER"), key("CLEAR"), '{"type": "state"}']
    status, got = durable(config, tmp_path / "state", after)
    assert status == 0
    assert [json.loads(line)["ok"] for line in got] == [False, False, False, True, True]
    assert got == plain(config, first + after)[len(first) :]


def test_a_state_folded_from_a_snapshot_prints_as_played(tmp_path: Path) -> None:
    """A snapshot after every event, and a restart in the middle: the state lines are
    the plain replay's, byte for byte (a snapshot's JSON has its keys sorted; the state
    view keeps its own order, the fees' too)."""
    config = tmp_path / "table.yaml"
    config.write_text(CONFIG.replace("BB", "10") + "journal: {snapshot_every: 1}\n")
    status, first = durable(config, tmp_path / "state", LINES[:10])
    assert status == 0
    status, second = durable(config, tmp_path / "state", LINES[10:])
    assert status == 0
    assert first + second == plain(config, LINES)
