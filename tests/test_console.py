"""What the daemon's console (`tablectl run --stdin-events`) may do without a PIN, and
the bounds on free text (`by`, a player's name) on every input path.

The console is a real `tablectl run` process with simulated devices, fed one line at a
time; the journal it leaves is read back with the real SQLite journal. The PIN file is
real (scrypt with small parameters, for speed)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from controller import supervisor_pins as pins
from controller.daemon.recovery import fold
from controller.journal import Journal
from controller.rules.limits import MAX_ID_CHARS, MAX_NAME_CHARS
from tests.cli import daemon_env, tablectl_command
from tests.daemon_helpers import WAIT, wait_for, write_config

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "docs" / "samples" / "side-pot.yaml"
FAST = {"n": 2**4, "r": 1, "p": 1}

SUPERVISOR_EVENTS = [
    {"type": "transfer", "from": 2, "to": 5, "amount": 50, "reason": "other"},
    {"type": "transfer", "from": 2, "to": 5, "amount": 50, "reason": "other", "by": "1042"},
    {"type": "misdeal", "by": "1042"},
    {"type": "undo"},
    {"type": "dealt_in_error", "seat": 2, "ruling": "kill"},
    {"type": "tray_fill", "amount": 1000, "by": "1042"},
    {"type": "tray_credit", "amount": 5},
    {"type": "tray_ack", "by": "1042"},
    {"type": "shift", "action": "open", "counts": {"5": 100}, "by": "1042", "witness": "2077"},
    {"type": "tip_correction", "amount": 0, "by": "1042"},
]
DEVICE_EVENTS = [
    {"type": "tick", "ms": 300_000},
    {"type": "puck", "seat": 5},
    {"type": "tray", "counts": {"5": 100}},
    {"type": "door", "status": "closed"},
]
BAD_TEXT = [  # (event, the field the refusal names)
    ({"type": "dealer", "id": "d\u0000204"}, "'id'"),
    (
        {"type": "shift", "action": "open", "counts": {}, "by": "1207", "witness": "a b"},
        "'witness'",
    ),
    ({"type": "sit", "seat": 7, "player": "eve", "chips": 100, "by": "a\u0000b"}, "'by'"),
    ({"type": "sit", "seat": 7, "player": "eve", "chips": 100, "by": "line\nbreak"}, "'by'"),
    ({"type": "sit", "seat": 7, "player": "eve", "chips": 100, "by": "x" * 60_000}, "'by'"),
    (
        {"type": "sit", "seat": 7, "player": "eve", "chips": 100, "by": "x" * (MAX_ID_CHARS + 1)},
        "'by'",
    ),
    ({"type": "sit", "seat": 7, "player": "eve", "chips": 100, "by": "ana maria"}, "'by'"),
    ({"type": "sit", "seat": 7, "player": "eve", "chips": 100, "by": ""}, "'by'"),
    ({"type": "sit", "seat": 7, "player": "eve", "chips": 100, "by": "\u202e1042"}, "'by'"),
    ({"type": "key", "key": "NEXT", "by": "\u0000"}, "'by'"),
    ({"type": "sit", "seat": 7, "player": "e\nve", "chips": 100}, "'player'"),
    ({"type": "sit", "seat": 7, "player": "eve\u0000", "chips": 100}, "'player'"),
    ({"type": "sit", "seat": 7, "player": "e" * (MAX_NAME_CHARS + 1), "chips": 100}, "'player'"),
]
GOOD_TEXT = [
    {
        "type": "sit",
        "seat": 7,
        "player": "María José Núñez",
        "chips": 100,
        "by": "x" * MAX_ID_CHARS,
    },
    {"type": "sit", "seat": 8, "player": "e" * MAX_NAME_CHARS, "chips": 100, "by": 1207},
    {"type": "sit", "seat": 9, "player": "SEAT9-H0", "chips": 100, "by": "floor-ana@t1"},
]


class Console:
    """`tablectl run --stdin-events`, answered line by line."""

    def __init__(self, config: Path, log: Path) -> None:
        self.log = log.open("w")
        self.proc = subprocess.Popen(
            tablectl_command("run", "--config", str(config), "--stdin-events"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=daemon_env(),
            cwd=ROOT,
        )
        self.answers: list[dict[str, Any]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.append(json.loads(line))

    def send(self, event: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        count = len(self.answers) + 1
        self.proc.stdin.write(json.dumps(event) + "\n")
        self.proc.stdin.flush()
        wait_for(lambda: len(self.answers) >= count, what=f"the answer to {event}")
        return self.answers[count - 1]

    def keys(self, keys: str) -> list[dict[str, Any]]:
        return [self.send({"type": "key", "key": key}) for key in keys.split()]

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(WAIT)
        self.reader.join(WAIT)
        self.log.close()
        return code


@pytest.mark.slow
def test_the_console_sends_no_supervisor_event_without_the_pin(tmp_path: Path) -> None:
    pin_path = tmp_path / "pins"
    pins.save_pins(pin_path, {"1042": pins.hash_pin("2468", **FAST)})
    config = write_config(tmp_path)
    config.write_text(config.read_text() + f"supervisor: {{pin_file: {pin_path}}}\n")
    console = Console(config, tmp_path / "daemon.log")
    try:
        for seat in (2, 5):
            assert console.send({"type": "sit", "seat": seat, "player": f"p{seat}", "chips": 1000})[
                "ok"
            ]
        refused = [console.send(event) for event in SUPERVISOR_EVENTS + DEVICE_EVENTS]
        # a supervisor keys the transfer behind the PIN, on the console as on the keypad
        keyed = console.keys(
            "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 7 2 ENTER 5 ENTER 5 0 ENTER 3 ENTER"
        )
        assert all(answer["ok"] for answer in keyed), keyed
        # what a dealer may do goes on, with a dealer's `by`
        assert console.send({"type": "sit", "seat": 7, "player": "eve", "chips": 100, "by": "d17"})[
            "ok"
        ]
    finally:
        code = console.stop()
    text = (tmp_path / "daemon.log").read_text()
    assert code == 0, text
    assert [a["error"]["code"] for a in refused] == ["needs_pin"] * len(SUPERVISOR_EVENTS) + [
        "device_only"
    ] * len(DEVICE_EVENTS)
    assert {a["error"]["message"] for a in refused[: len(SUPERVISOR_EVENTS)]} == {
        "SUPERVISOR ONLY: FUNC 0 AND THE PIN"
    }
    with Journal.open_readonly(tmp_path / "state") as journal:
        records = list(journal.iter_events())
        table = fold(journal).table
    # every refusal is kept as an audit record, with what was tried
    audit = [r for r in records if r.refusal_code in ("needs_pin", "device_only")]
    assert [r.event["type"] for r in audit] == [
        e["type"] for e in SUPERVISOR_EVENTS + DEVICE_EVENTS
    ]
    assert not any(r.accepted for r in records if r.event["type"] in ("transfer", "tick"))
    # the one transfer is the keyed one: by the supervisor whose PIN opened the menu
    stacks = {s: v.stack for s, v in table.state.seats.items()}
    assert stacks == {2: 950, 5: 1050, 7: 100}, stacks
    assert [r.by for r in records if r.event["type"] == "key"][-1] == "1042"
    assert [r.by for r in records][-1] == "d17"
    assert "2468" not in json.dumps([r.event for r in records])


def test_free_text_is_bounded_on_every_input_path(tmp_path: Path) -> None:
    """`by` is an id (at most 32 characters, no space or control character) and a
    player's name at most 40 printable characters: refused with the field named, in
    plain replay and in durable replay alike; the bounds themselves are taken."""
    lines = [event for event, _ in BAD_TEXT] + GOOD_TEXT + [{"type": "state"}]
    events = tmp_path / "text.jsonl"
    events.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for extra in ([], ["--state-dir", str(tmp_path / "state")]):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "controller",
                "replay",
                "--config",
                str(SAMPLE),
                *extra,
                str(events),
            ],
            capture_output=True,
            cwd=ROOT,
            check=False,
            env={**os.environ, "PYTHONPATH": str(ROOT), "TABLECTL_PINS": str(tmp_path / "no")},
        )
        assert done.returncode == 0, done.stderr.decode()
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        for answer, (_, field) in zip(answers, BAD_TEXT, strict=False):
            assert answer["ok"] is False, answer
            assert answer["error"]["code"] == "bad_event"
            assert field in answer["error"]["message"], answer
            assert len(answer["error"]["message"]) < 120  # the value is never echoed
        assert [a["ok"] for a in answers[len(BAD_TEXT) :]] == [True] * (len(GOOD_TEXT) + 1)
        seats = answers[-1]["state"]["seats"]
        assert set(seats) == {"7", "8", "9"}
        assert seats["7"]["player"] == "María José Núñez"
    # the journal never holds a bad `by` as who entered an event
    with Journal.open_readonly(tmp_path / "state") as journal:
        who = {r.by for r in journal.iter_events()}
    assert who <= {None, "x" * MAX_ID_CHARS, "1207", "floor-ana@t1"}, who


def test_a_journal_written_before_the_bounds_still_folds(tmp_path: Path) -> None:
    """A record accepted by an older firmware (a 60-character name, a `by` with a space)
    folds as recorded: an upgrade never turns a journal into a memory fault."""
    from controller.config import load_config
    from controller.daemon.recorder import Recorder
    from controller.rules import Table

    settings = load_config(SAMPLE)
    journal = Journal.open(tmp_path, settings.config_text)
    rec = Recorder(journal, Table(settings.rules), snapshot_every=1000)
    old = {"type": "sit", "seat": 3, "player": "n" * 60, "chips": 100, "by": "old dealer"}
    # as the older firmware recorded it (its checks did not bound the text)
    seq = rec._append(old, accepted=True, by="old dealer", hand=None)
    assert seq == 1
    journal.close()
    with Journal.open(tmp_path, settings.config_text) as again:
        table = fold(again).table
    assert table.state.seats[3].player == "n" * 60
