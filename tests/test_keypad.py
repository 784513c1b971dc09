"""controller.rules.keypad: purity of a refused key, the dealer id, the PIN hooks the
shell uses. The key sequences themselves are proved by tests/scenarios/*keypad*.yaml."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.rules import Refusal, Table, parse_event, state_view
from controller.rules import keypad as pad
from controller.rules.events import Act, Sit
from controller.rules.keypad import supervisor
from controller.rules.keypad.supervisor import PinRejected, SupervisorLocked
from controller.rules.ops import DealerChanged
from controller.rules.state import TableState
from tests.keypad_tables import THREE, feed, keys, table

PINS = {"1042": "2468"}


def verifier(supervisor: str, pin: str) -> bool:
    return PINS.get(supervisor) == pin


def test_a_refused_key_changes_nothing() -> None:
    t = table(THREE + keys("NEXT BET 1 5"))
    before = json.dumps(t.state.to_dict(), sort_keys=True)
    with pytest.raises(Refusal, match="MIN RAISE TO 20"):
        t.apply(parse_event({"type": "key", "key": "ENTER"}))
    assert json.dumps(t.state.to_dict(), sort_keys=True) == before


def test_the_keypad_and_display_name_a_draw_games_round() -> None:
    """Triple draw: the bet prompt and the dealer display say which betting round it
    is, in English and Spanish; a hold'em table's words stay as they were."""
    from controller.rules.keypad.modes import prompt
    from controller.rules.text import render
    from controller.rules.view import display_lines

    t = table(
        THREE + keys("NEXT CHECK CHECK CHECK"),
        {"game": {"structure": "fixed_limit", "form": "triple_draw"}},
    )
    assert t.state.phase == "draw1"
    assert display_lines(t) == ["DRAW 1: SEAT 2 TO ACT", "CHECK"]
    assert display_lines(t, "es") == ["DESCARTE 1: HABLA EL ASIENTO 2", "PASA"]
    feed(t, keys("BET"))
    lines = prompt(t)
    assert lines is not None
    assert [render(line) for line in lines] == ["DRAW 1: SEAT 2 BET/RAISE TO", "_"]
    assert render(lines[0], "es") == "DESCARTE 1: ASIENTO 2 APUESTA/SUBE A"
    predraw = table(THREE + keys("NEXT"), {"game": {"form": "draw"}})
    assert display_lines(predraw, "es")[0] == "PRE-DESCARTE: HABLA EL ASIENTO 8"
    holdem = table(THREE + keys("NEXT BET"))
    assert display_lines(holdem) == ["SEAT 8 BET/RAISE TO", "_"]


def test_keypad_state_survives_a_snapshot() -> None:
    t = table(THREE + keys("FUNC 8 1 2 0 7 ENTER NEXT FUNC 9 2 5 ENTER"))
    restored = TableState.from_dict(json.loads(json.dumps(t.state.to_dict())))
    assert restored.keypad == t.state.keypad
    assert pad.signed_in(restored) == "1207"


def test_events_from_keys_carry_the_signed_in_dealer() -> None:
    t = table(THREE)
    out = feed(t, keys("FUNC 8 1 2 0 7 ENTER"))
    assert DealerChanged("1207", None) in out
    assert t.state.dealer == "1207"
    step = pad.translate(t, parse_event({"type": "key", "key": "NEXT"}))  # type: ignore[arg-type]
    assert step.event is not None and step.event.by == "1207"
    feed(t, keys("NEXT"))
    step = pad.translate(t, parse_event({"type": "key", "key": "FOLD"}))  # type: ignore[arg-type]
    assert step.event == Act(by="1207", seat=8, action="fold")
    # a `by` stamped on the key event itself wins
    step = pad.translate(t, parse_event({"type": "key", "key": "FOLD", "by": "77"}))  # type: ignore[arg-type]
    assert step.event is not None and step.event.by == "77"


def test_a_player_seated_without_a_card_gets_a_generated_name() -> None:
    t = table(THREE + [{"type": "start_hand"}] + keys("FUNC 1 3 ENTER 2 0 0 ENTER ENTER"))
    step = pad.translate(t, parse_event({"type": "key", "key": "2"}))  # type: ignore[arg-type]
    assert step.event == Sit(seat=3, player="SEAT3-H1", chips=200, entry="post")


def test_supervisor_events_are_by_the_supervisor() -> None:
    t = table(
        THREE + keys("FUNC 8 1 2 0 7 ENTER NEXT FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 1"),
        pin_verifier=verifier,
    )
    step = pad.translate(t, parse_event({"type": "key", "key": "ENTER"}))  # type: ignore[arg-type]
    assert step.event is not None and step.event.by == "1042"


def test_the_pin_is_never_shown() -> None:
    t = table(keys("FUNC 0 1 0 4 2 ENTER 2 4 6"), pin_verifier=verifier)
    assert pad.collecting_pin(t.state)
    view = state_view(t)
    assert "246" not in json.dumps(view)
    assert view["display"] == ["SUPERVISOR 1042: PIN", "***_"]


def test_pin_entry_tells_the_shell_what_to_verify() -> None:
    t = table(keys("FUNC 0 1 0 4 2 ENTER 2 4 6 8"))
    assert pad.pin_entry(t.state, "ENTER") == ("1042", "2468")
    assert pad.pin_entry(t.state, "5") is None
    t2 = table(keys("FUNC 0 1 0 4 2"))
    assert pad.pin_entry(t2.state, "ENTER") is None


def test_wrong_pins_are_logged_then_lock_the_menu() -> None:
    t = table(pin_verifier=verifier)
    out = feed(t, keys("FUNC 0 1 0 4 2 ENTER 1 1 1 1 ENTER"))
    assert PinRejected("1042", 1) in out
    feed(t, [{"type": "tick", "ms": 1000}])
    feed(t, keys("FUNC 0 1 0 4 2 ENTER 1 1 1 1 ENTER"))
    out = feed(t, keys("FUNC 0 1 0 4 2 ENTER 1 1 1 1 ENTER"))
    assert SupervisorLocked("1042", 1000 + pad.LOCKOUT_MS) in out
    assert pad.locked_ms(t.state) == pad.LOCKOUT_MS


def _lock_out(t: Any) -> list[Any]:
    """Three wrong PINs, then the lock-out waited out; the effects of the third."""
    feed(t, keys("FUNC 0 1 0 4 2 ENTER 1 1 1 1 ENTER"))
    feed(t, keys("FUNC 0 1 0 4 2 ENTER 1 1 1 1 ENTER"))
    out = feed(t, keys("FUNC 0 1 0 4 2 ENTER 1 1 1 1 ENTER"))
    feed(t, [{"type": "tick", "ms": pad.locked_ms(t.state)}])
    return out


def test_each_lock_out_lasts_twice_the_one_before_until_a_right_pin() -> None:
    t = table(pin_verifier=verifier)
    minutes = []
    for lockout in (1, 2, 3):
        start = t.state.elapsed_ms
        (locked,) = [e for e in _lock_out(t) if isinstance(e, SupervisorLocked)]
        assert (locked.lockout, locked.until_ms - start) == (lockout, locked.duration_ms)
        assert locked.floor is (lockout >= 2)  # the floor is told from the second on
        minutes.append(locked.duration_ms // 60_000)
    assert minutes == [5, 10, 20]
    assert t.state.keypad["lockouts"] == 3
    feed(t, keys("FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER CLEAR"))  # the right PIN
    assert "lockouts" not in t.state.keypad
    (locked,) = [e for e in _lock_out(t) if isinstance(e, SupervisorLocked)]
    assert (locked.lockout, locked.duration_ms) == (1, pad.LOCKOUT_MS)


def test_the_lock_out_doubles_up_to_a_day() -> None:
    assert [supervisor.lockout_ms(n) // 60_000 for n in range(1, 13)] == [
        5,
        10,
        20,
        40,
        80,
        160,
        320,
        640,
        1280,
        1440,
        1440,
        1440,
    ]
    assert supervisor.lockout_ms(10_000) == supervisor.MAX_LOCKOUT_MS == 86_400_000


def test_the_verifier_is_asked_once_per_check() -> None:
    calls = []

    def counting(supervisor: str, pin: str) -> bool:
        calls.append((supervisor, pin))
        return True

    t = table(keys("FUNC 0 1 0 4 2 ENTER 2 4 6 8"), pin_verifier=counting)
    feed(t, keys("ENTER"))
    assert set(calls) == {("1042", "2468")}
    assert pad.view(t)["entry"] == {"mode": "supervisor", "step": "menu"}


@pytest.mark.parametrize("key", pad.KEYS)
def test_every_key_is_read_or_refused_in_every_entry(key: str) -> None:
    """No key crashes the grammar, whatever entry is open."""
    openers = [
        "",
        "FUNC",
        "BET",
        "5",
        "FUNC 1",
        "FUNC 1 3 ENTER",
        "FUNC 1 3 ENTER 2 0 0 ENTER",
        "FUNC 1 3 ENTER 2 0 0 ENTER ENTER",
        "FUNC 2",
        "FUNC 3",
        "FUNC 2 5 ENTER FUNC 3 5 ENTER",
        "FUNC 4",
        "FUNC 4 5 ENTER",
        "FUNC 5",
        "FUNC 5 5 ENTER",
        "FUNC 6",
        "FUNC 6 5 ENTER",
        "FUNC 6 5 ENTER 6 ENTER",
        "FUNC 8",
        "FUNC 9",
        "FUNC 9 5 ENTER",
        "FUNC 0",
        "FUNC 0 1 ENTER",
        "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER",
        "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 3",
        "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 4",
        "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 4 2 5 ENTER",
    ]
    for opener in openers:
        _press_or_refuse(
            table(THREE + keys("NEXT") + keys(opener), pin_verifier=verifier), key, opener
        )
    transfer = "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 7"
    for opener in [
        transfer,
        f"{transfer} 2 ENTER",
        f"{transfer} 2 ENTER 5 ENTER",
        f"{transfer} 2 ENTER 5 ENTER 1 0 ENTER",
        f"{transfer} 2 ENTER 5 ENTER 1 0 ENTER 1",
        "FUNC 8",
        "FUNC 7",
        "FUNC 7 5 ENTER",
        "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 8",
        "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 8 2 5 ENTER 4 ENTER ENTER",
        "FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER 8 2 5 ENTER 4 ENTER ENTER 7 7 ENTER",
    ]:  # between hands
        _press_or_refuse(table(THREE + keys(opener), pin_verifier=verifier), key, opener)
    for opener in ["", "2", "FUNC 7", "FUNC 7 5 ENTER"]:  # at the showdown
        t = table(THREE + keys("NEXT ALLIN ALLIN CHECK") + keys(opener), pin_verifier=verifier)
        assert t.state.phase == "showdown"
        _press_or_refuse(t, key, opener)


def _press_or_refuse(t: Table, key: str, opener: str) -> None:
    before = json.dumps(t.state.to_dict(), sort_keys=True)
    try:
        t.apply(parse_event({"type": "key", "key": key}))
    except Refusal:
        assert json.dumps(t.state.to_dict(), sort_keys=True) == before, opener
    state_view(t)  # the prompt renders whatever the entry


def test_the_entry_modes_are_one_list_and_each_has_its_row() -> None:
    """``records.EntryMode`` is the one list of modes; ``modes.MODES`` has one row
    each (its reader, its prompt, the keys ending its number), and no other."""
    from typing import get_args

    from controller.rules.keypad.modes import MODES
    from controller.rules.records import ENTRY_MODES, EntryMode

    assert get_args(EntryMode) == ENTRY_MODES
    assert sorted(MODES) == sorted(ENTRY_MODES)


def _unknown_mode(t: Table) -> Table:
    """``t`` with its entry's mode renamed to one the keypad lacks (a damaged snapshot)."""
    entry = t.state.keypad["entry"]
    t.state.keypad = {**t.state.keypad, "entry": {**entry, "mode": "juggle"}}  # type: ignore[typeddict-item]
    return t


@pytest.mark.parametrize("opener", ["FUNC 5", "FUNC 5 3", "FUNC", "5", "BET 2"])
def test_an_entry_of_an_unknown_mode_is_refused_by_name_and_cleared(opener: str) -> None:
    """Every key but ``CLEAR`` is refused as a bad event naming the mode (it was a
    ``KeyError`` in the grammar); the refusal leaves the entry as it was; ``CLEAR``
    drops it and the keypad works again."""
    from controller.rules import BadEvent

    t = _unknown_mode(table(THREE + keys("NEXT") + keys(opener)))
    before = json.dumps(t.state.to_dict(), sort_keys=True)
    for key in ["ENTER", "1", "FOLD", "CHECK", "BET", "ALLIN", "FUNC", "NEXT", "CLOCK"]:
        event = parse_event({"type": "key", "key": key})
        with pytest.raises(BadEvent, match="mode 'juggle' is unknown"):
            t.apply(event)
        t.refused(event)  # as replay, recovery and the daemon fold a refusal
        assert json.dumps(t.state.to_dict(), sort_keys=True) == before, key
    with pytest.raises(BadEvent, match="'juggle'"):
        pad.prompt(t)
    feed(t, keys("CLEAR"))
    assert "entry" not in t.state.keypad
    feed(t, keys("FUNC 5 8 ENTER"))
    assert pad.view(t)["entry"] == {"mode": "chips", "step": "amount", "seat": 8}


def test_a_snapshot_with_an_entry_of_an_unknown_mode_is_unreadable_by_name(
    tmp_path: Path,
) -> None:
    """Recovery from a real journal whose snapshot holds an entry of a mode this keypad
    lacks: the snapshot is unreadable, and the fault names the mode (the table used to
    come up and fail at the next key with a ``KeyError``)."""
    from controller.daemon import snapshots
    from controller.daemon.recovery import SnapshotUnreadable, fold
    from controller.journal import Journal
    from tests.keypad_tables import settings

    good = table(THREE + keys("NEXT FUNC 5"))
    assert snapshots.decode(snapshots.encode(good.state)).keypad == good.state.keypad
    t = _unknown_mode(good)
    with Journal.open(tmp_path, settings().config_text) as journal:
        journal.append(
            {"type": "key", "key": "5"},
            accepted=True,
            by=None,
            hand=1,
            snapshot=snapshots.encode(t.state),
        )
        with pytest.raises(SnapshotUnreadable, match="mode 'juggle' is unknown"):
            fold(journal)
    for entry, found in [({"step": "seat"}, "mode None is unknown"), (5, "not 5")]:
        t.state.keypad = {"entry": entry}  # type: ignore[typeddict-item]
        with pytest.raises(ValueError, match=found):
            snapshots.decode(snapshots.encode(t.state))
