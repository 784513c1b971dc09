"""controller.tray: expected value, stability, alarm and acknowledgement, shift report,
and `tablectl tray`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from controller.cli import main
from controller.config import TrayFloatSettings
from controller.journal import Journal
from controller.supervisor_pins import hash_pin, save_pins
from controller.tray import alarm_message, changes, fold, report, status
from tests.keypad_tables import feed, keys, settings, table
from tests.scenario_runner import merged_config

FLOAT = TrayFloatSettings(float_counts={5: 200, 25: 100}, stable_seconds=2.0)  # 3500
PINS = {"1042": "2468"}
CONFIG = yaml.safe_dump(merged_config({"tray": {"float": {5: 200, 25: 100}, "stable_seconds": 2}}))


def tray(counts: dict[int, int]) -> dict[str, Any]:
    return {"type": "tray", "counts": {str(v): c for v, c in counts.items()}}


def test_expected_value_and_a_stable_reading() -> None:
    t = table([tray({5: 200, 25: 100})])
    s = status(t.state, FLOAT)
    assert (s.expected, s.counted, s.difference, s.stable, s.alarm) == (3500, 3500, 0, False, False)
    feed(
        t, [{"type": "sit", "seat": 2, "player": "ana", "chips": 500}, {"type": "tick", "ms": 5000}]
    )
    s = status(t.state, FLOAT)
    assert (s.sold, s.expected, s.difference, s.stable, s.alarm) == (500, 3000, 500, True, True)
    assert alarm_message(s) is not None
    # the chips go out of the tray: the reading changes, and must settle again
    feed(t, [tray({5: 200, 25: 80})])
    s = status(t.state, FLOAT)
    assert (s.difference, s.stable, s.alarm) == (0, False, False)


def test_fills_and_credits_and_the_drop_box() -> None:
    t = table(
        [
            tray({5: 200, 25: 140}),
            {"type": "tray_fill", "counts": {"25": 40}},
            {"type": "tray_credit", "amount": 500},
            tray({5: 100, 25: 140}),
            {"type": "tick", "ms": 2000},
        ]
    )
    s = status(t.state, FLOAT)
    assert (s.fills, s.credits, s.expected, s.counted, s.alarm) == (1000, 500, 4000, 4000, False)


def test_a_difference_alarms_until_acknowledged_and_again_if_it_changes() -> None:
    t = table([tray({5: 200, 25: 99}), {"type": "tick", "ms": 2000}], pin_verifier=None)
    before = status(t.state, FLOAT)
    assert before.alarm and before.difference == -25
    feed(t, [{"type": "tray_ack", "by": "1042"}])
    after = status(t.state, FLOAT)
    assert not after.alarm and after.acknowledged == -25 and after.acknowledged_by == "1042"
    assert changes(before, after) == ["tray_clear: difference -25 acknowledged by supervisor 1042"]
    text = "\n".join(report(t.state, FLOAT))
    assert "-25   acknowledged by supervisor 1042" in text
    assert "acknowledged at counted 3475  by supervisor 1042" in text
    feed(t, [tray({5: 200, 25: 98}), {"type": "tick", "ms": 2000}])
    again = status(t.state, FLOAT)
    assert again.alarm and again.difference == -50
    assert changes(after, again)[0].startswith("tray_alarm: counted 3450, expected 3500")


def test_no_float_no_check() -> None:
    t = table([tray({25: 1}), {"type": "tick", "ms": 5000}])
    assert not status(t.state, TrayFloatSettings()).alarm


def test_misdeal_keeps_the_ledger() -> None:
    t = table(
        [{"type": "sit", "seat": s, "player": f"p{s}", "chips": 500} for s in (2, 5)]
        + [
            {"type": "start_hand"},
            {"type": "tray_fill", "amount": 100},
            {"type": "chips", "seat": 2, "amount": 100},
            {"type": "tick", "ms": 10},
            {"type": "misdeal"},
        ]
    )
    s = status(t.state, FLOAT)
    assert (s.fills, s.sold) == (100, 1100)
    assert t.state.elapsed_ms == 10


def events() -> list[dict[str, Any]]:
    return (
        [
            tray({5: 200, 25: 100}),
            {"type": "sit", "seat": 2, "player": "ana", "chips": 500, "by": "1207"},
        ]
        + keys("FUNC 1 5 ENTER 3 0 0 ENTER ENTER ENTER", by="1207")
        + keys("FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 4 2 5 ENTER 4 0 ENTER ENTER")
        + [tray({5: 200, 25: 108}), {"type": "tick", "ms": 3000}]
    )


def test_the_shift_report_lists_every_movement() -> None:
    rules = settings().rules
    t, buy_ins = fold(rules, events(), lambda sid, pin: PINS.get(sid) == pin)
    assert [(b["seat"], b["amount"], b["by"]) for b in buy_ins] == [
        (2, 500, "1207"),
        (5, 300, "1207"),
    ]
    lines = report(t.state, FLOAT, table_id="T1", buy_ins=buy_ins)
    text = "\n".join(lines)
    assert "expected                3700" in text
    assert "counted                 3700" in text
    assert "difference                +0" in text
    assert "fill       1000 (40 x 25)  by 1042" in text
    assert "sold       300  seat 5  by 1207" in text


def test_tablectl_tray_from_a_replay_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    file = tmp_path / "events.jsonl"
    lines = [json.dumps(e) for e in events()]
    lines[-2] = json.dumps(tray({5: 200, 25: 107}))  # one chip short
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    pins = tmp_path / "pins"
    save_pins(pins, {"1042": hash_pin("2468")})
    assert main(["tray", "--events", str(file), "--config", str(config), "--pins", str(pins)]) == 0
    out = capsys.readouterr().out
    assert "difference               -25   ALARM" in out
    assert (
        main(
            ["tray", "--events", str(file), "--config", str(config), "--pins", str(pins), "--json"]
        )
        == 0
    )
    figures = json.loads(capsys.readouterr().out)
    assert figures["alarm"] is True and figures["fills"] == 1000 and figures["sold"] == 800


def test_tablectl_tray_from_the_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The daemon records the PIN verdict with the ENTER that ends a PIN (``pin_ok``):
    the report needs no PIN file."""
    recorded = events()
    for index, event in enumerate(recorded):
        if event.get("key") == "ENTER" and recorded[index - 1].get("key") == "8":
            event["pin_ok"] = True
    with Journal.open(tmp_path / "state", CONFIG) as journal:
        for event in recorded:
            journal.append(event, accepted=True, by=event.get("by"))
    assert (
        main(["tray", "--state-dir", str(tmp_path / "state"), "--pins", str(tmp_path / "none")])
        == 0
    )
    out = capsys.readouterr().out
    assert "fill       1000 (40 x 25)  by 1042" in out
    assert "difference                +0" in out


def test_tablectl_tray_with_a_pin_file_it_cannot_use_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PIN file others may write, or one with a bad line: one line saying what is
    wrong (exit 2), never a traceback."""
    config = tmp_path / "table.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    file = tmp_path / "events.jsonl"
    file.write_text("\n".join(json.dumps(e) for e in events()) + "\n", encoding="utf-8")
    pins = tmp_path / "pins"
    save_pins(pins, {"1042": hash_pin("2468")})
    pins.chmod(0o666)
    args = ["tray", "--events", str(file), "--config", str(config), "--pins", str(pins)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablectl tray: the PIN file cannot be used: ")
    assert "anyone can write it" in err and f"sudo chmod 0640 {pins}" in err
    pins.chmod(0o600)
    pins.write_text("1042 plain-text-pin\n", encoding="utf-8")
    assert main(args) == 2
    assert "not a scrypt PIN hash" in capsys.readouterr().err
