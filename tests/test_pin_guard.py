"""A supervisor's PIN never reaches the journal (and so neither recall nor the floor
feed): the recorder journals each PIN digit as the hidden digit ``*`` and the ENTER
that ends the PIN with the PIN file's verdict. Real SQLite journals, the real
recorder and the real rules core; the only stand-in is the PIN file's verifier."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.daemon.recorder import Outcome, Recorder
from controller.daemon.recovery import fold
from controller.journal import Journal
from controller.rules import Refusal, Table, parse_event
from controller.rules.keypad import HIDDEN_DIGIT
from tests.keypad_tables import THREE, keys, settings, table

PINS = {"1042": "2468", "7": "246824682468"}
SUPERVISOR_MENU = {"mode": "supervisor", "step": "menu", "supervisor": "1042"}


def verifier(supervisor: str, pin: str) -> bool:
    return PINS.get(supervisor) == pin


def recorder(state_dir: Path, *, pins: bool = True) -> Recorder:
    """A recorder on the journal in ``state_dir``, resumed from it like the daemon."""
    journal = Journal.open(state_dir, settings().config_text)
    table = fold(journal).table if journal.last_seq else Table(settings().rules)
    table.pin_verifier = verifier if pins else None
    return Recorder(journal, table, snapshot_every=1000)


def record(rec: Recorder, events: list[dict[str, Any]]) -> list[Outcome]:
    return [rec.record(event) for event in events]


def journalled_keys(rec: Recorder) -> list[dict[str, Any]]:
    return [r.event for r in rec.journal.iter_events() if r.event["type"] == "key"]


def test_pin_digits_are_journalled_hidden_and_replay_without_the_pin_file(
    tmp_path: Path,
) -> None:
    rec = recorder(tmp_path)
    outcomes = record(rec, THREE + keys("FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER"))
    assert all(o.ok for o in outcomes), [o.error for o in outcomes if not o.ok]
    assert rec.table.state.keypad["entry"] == SUPERVISOR_MENU
    recorded = journalled_keys(rec)
    # the id in the clear, the PIN hidden, the verdict on the ENTER that ends it
    assert [k["key"] for k in recorded] == ["FUNC", "0", "1", "0", "4", "2", "ENTER"] + [
        HIDDEN_DIGIT
    ] * 4 + ["ENTER"]
    assert [k.get("pin_ok") for k in recorded][-1] is True
    assert all("pin_ok" not in k for k in recorded[:-1])
    rec.journal.close()

    # the journal replays to the same keypad without the PIN file (or the PIN)
    with Journal.open(tmp_path, settings().config_text) as journal:
        assert fold(journal).table.state.keypad["entry"] == SUPERVISOR_MENU


def test_a_wrong_pin_is_journalled_as_wrong(tmp_path: Path) -> None:
    rec = recorder(tmp_path)
    outcomes = record(rec, keys("FUNC 0 1 0 4 2 ENTER 2 4 6 9 ENTER"))
    assert all(o.ok for o in outcomes)
    assert journalled_keys(rec)[-1] == {"type": "key", "key": "ENTER", "pin_ok": False}
    assert rec.table.state.keypad.get("entry") is None
    assert rec.table.state.keypad["pin_failures"] == 1
    # the next PIN is judged on its own digits: nothing of the wrong one is left over
    assert all(o.ok for o in record(rec, keys("FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER")))
    assert rec.table.state.keypad["entry"] == SUPERVISOR_MENU


def test_a_refused_or_cleared_digit_is_not_part_of_the_pin(tmp_path: Path) -> None:
    rec = recorder(tmp_path)
    record(rec, keys("FUNC 0 7 ENTER") + keys(" ".join("246824682468")))
    too_long = rec.record({"type": "key", "key": "9"})  # a PIN has at most 12 digits
    assert not too_long.ok
    assert too_long.error == {"code": "bad_key", "message": "NUMBER TOO LONG: CLEAR"}
    assert too_long.event["key"] == HIDDEN_DIGIT  # even a refused PIN digit is hidden
    assert rec.record({"type": "key", "key": "ENTER"}).event["pin_ok"] is True
    assert rec.table.state.keypad["entry"] == dict(SUPERVISOR_MENU, supervisor="7")
    # CLEAR drops the entry and the digits typed; the next PIN starts from nothing
    record(rec, keys("CLEAR FUNC 0 1 0 4 2 ENTER 1 1 CLEAR FUNC 0 1 0 4 2 ENTER 2 4 6 8"))
    assert rec.record({"type": "key", "key": "ENTER"}).event["pin_ok"] is True
    assert rec.table.state.keypad["entry"] == SUPERVISOR_MENU


def test_a_pin_typed_across_a_restart_is_judged_wrong(tmp_path: Path) -> None:
    rec = recorder(tmp_path)
    record(rec, keys("FUNC 0 1 0 4 2 ENTER 2 4"))
    rec.journal.close()  # the power goes: the two digits lived only in memory

    again = recorder(tmp_path)
    assert again.table.state.keypad["entry"]["digits"] == HIDDEN_DIGIT * 2
    outcomes = record(again, keys("6 8 ENTER"))
    assert all(o.ok for o in outcomes)
    assert journalled_keys(again)[-1]["pin_ok"] is False
    assert again.table.state.keypad["pin_failures"] == 1
    assert all(o.ok for o in record(again, keys("FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER")))
    assert again.table.state.keypad["entry"] == SUPERVISOR_MENU
    again.journal.close()


def test_without_a_pin_file_the_pin_is_refused_and_still_hidden(tmp_path: Path) -> None:
    rec = recorder(tmp_path, pins=False)
    record(rec, keys("FUNC 0 1 0 4 2 ENTER 2 4 6 8"))
    enter = rec.record({"type": "key", "key": "ENTER"})
    assert not enter.ok
    assert enter.error == {
        "code": "pin_unavailable",
        "message": "PIN CHECK NOT AVAILABLE: CALL TECH",
    }
    assert enter.event == {"type": "key", "key": "ENTER"}  # no verdict to record
    assert [k["key"] for k in journalled_keys(rec)][-5:-1] == [HIDDEN_DIGIT] * 4
    assert rec.table.state.keypad["entry"]["step"] == "pin"  # nothing changed
    rec.journal.close()


def test_the_hidden_digit_is_only_a_pin_digit() -> None:
    """In the rules core: ``*`` types into a PIN only, and a hidden PIN needs the
    shell's verdict (``pin_ok``) because no verifier can read it."""
    t = table(THREE, pin_verifier=verifier)
    for where in ([], keys("FUNC 5"), keys("FUNC 0")):  # idle; chips menu; supervisor id
        t2 = table(THREE + where, pin_verifier=verifier)
        with pytest.raises(Refusal) as refused:
            t2.check(parse_event({"type": "key", "key": HIDDEN_DIGIT}))
        assert (refused.value.code, refused.value.message) == (
            "bad_key",
            "A HIDDEN DIGIT ONLY IN A PIN",
        )
    for key in keys("FUNC 0 1 0 4 2 ENTER") + keys("* * * *"):
        t.apply(parse_event(key))
    with pytest.raises(Refusal) as refused:
        t.check(parse_event({"type": "key", "key": "ENTER"}))
    assert refused.value.code == "pin_unavailable"
    t.apply(parse_event({"type": "key", "key": "ENTER", "pin_ok": True}))
    assert t.state.keypad["entry"] == SUPERVISOR_MENU


def test_a_pin_held_by_a_refused_func_keeps_the_digits_after_it_hidden(tmp_path: Path) -> None:
    """FUNC refused while a PIN is typed holds the entry: the digits keyed after it are
    refused and still journalled hidden (the entry stays on the display), and after
    CLEAR the PIN is judged on its own digits, across a restart too."""
    rec = recorder(tmp_path)
    record(rec, keys("FUNC 0 1 0 4 2 ENTER 2 4"))
    held = record(rec, keys("FUNC 6 8 ENTER"))
    assert [o.ok for o in held] == [False] * 4
    assert {o.error["message"] for o in held if o.error} == {"ENTRY OPEN: CLEAR FIRST"}
    recorded = [k["key"] for k in journalled_keys(rec)]
    assert recorded[-4:] == ["FUNC", HIDDEN_DIGIT, HIDDEN_DIGIT, "ENTER"]
    assert "6" not in recorded and "8" not in recorded
    rec.journal.close()
    rec = recorder(tmp_path)
    assert all(o.ok for o in record(rec, keys("CLEAR FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER")))
    assert rec.table.state.keypad["entry"] == SUPERVISOR_MENU
