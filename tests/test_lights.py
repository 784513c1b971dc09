"""controller.lights (and controller.light_patterns): seat patterns, the clock display,
the dealer's two lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.light_patterns import PATTERN_NAMES, LightPatterns
from controller.lights import clock_face, dealer_lines, seat_patterns
from controller.rules import Refusal, parse_event, state_view
from controller.rules.text import msg, phrase, refusal_message, render
from drivers.interfaces import Pattern
from tests.keypad_tables import THREE, feed, keys, table

ROOT = Path(__file__).resolve().parent.parent


def test_defaults_follow_the_order_of_precedence() -> None:
    t = table(
        THREE
        + keys("NEXT CLOCK")
        + [
            {"type": "sit", "seat": 4, "player": "new", "chips": 500},
            {"type": "sit", "seat": 6, "player": "away", "chips": 500},
            {"type": "sit_out", "seat": 6},
        ]
    )
    view = state_view(t)
    lights = seat_patterns(view, 9)
    assert lights[8] == "slow_blink"  # on the clock
    assert lights[2] == lights[5] == "off"  # playing, not to act
    assert lights[4] == "pulse"  # waiting
    assert lights[6] == "off"  # sitting out
    assert lights[1] == "off"  # empty
    assert seat_patterns(view, 9, fault=True) == dict.fromkeys(range(1, 10), "fast_blink")
    assert seat_patterns(view, 9, puck_seats=(1, 8))[1] == "fast_blink"


def test_warning_to_act_all_in_and_missed_blinds() -> None:
    t = table(THREE + keys("NEXT CLOCK") + [{"type": "tick", "ms": 51000}])
    assert seat_patterns(state_view(t), 9)[8] == "fast_blink"
    t = table(THREE + keys("NEXT ALLIN"))
    lights = seat_patterns(state_view(t), 9)
    assert lights[8] == "pulse" and lights[2] == "on"
    t = table(THREE + keys("NEXT FUNC 2 5 ENTER FOLD FOLD NEXT FOLD NEXT FOLD"))
    view = state_view(t)
    assert view["seats"]["5"]["missed"]
    assert seat_patterns(view, 9)[5] == "slow_blink"


def test_patterns_are_configurable_and_checked() -> None:
    patterns = LightPatterns.from_mapping({"to_act": "pulse", "sitting_out": "slow_blink"})
    t = table(THREE + keys("NEXT"))
    assert seat_patterns(state_view(t), 9, patterns)[8] == "pulse"
    with pytest.raises(ValueError, match="'blinky' is not one of off, on"):
        LightPatterns(to_act="blinky")
    with pytest.raises(ValueError, match="unknown lights pattern 'to_akt'"):
        LightPatterns.from_mapping({"to_akt": "on"})


def test_the_clock_display() -> None:
    t = table(THREE + keys("NEXT"))
    assert clock_face(state_view(t)).ms is None
    t = table(THREE + keys("NEXT CLOCK") + [{"type": "tick", "ms": 50500}])
    face = clock_face(state_view(t))
    assert (face.ms, face.warning, face.outcome) == (9500, True, None)
    face = clock_face(state_view(t), expired=(8, "fold"))
    assert face.ms == 0 and face.outcome == msg("clock.expired", seat=8, action="FOLD")


def test_dealer_lines() -> None:
    t = table(THREE + keys("NEXT"))
    view = state_view(t)
    assert dealer_lines(view) == ("SEAT 8 TO ACT", "CALL 10")
    assert dealer_lines(view, language="es") == ("HABLA EL ASIENTO 8", "IGUALA 10")
    with pytest.raises(Refusal) as refused:  # the refusal as the core raises it
        t.check(parse_event({"type": "act", "seat": 8, "action": "raise", "to": 15}))
    said = refusal_message(refused.value)
    assert said is not None and refused.value.message == "MIN RAISE TO 20"
    assert dealer_lines(view, refusal=said) == ("SEAT 8 TO ACT", "NO: MIN RAISE TO 20")
    assert dealer_lines(view, language="es", refusal=said) == (
        "HABLA EL ASIENTO 8",
        "NO: MINIMO SUBIR A 20",
    )
    # a malformed line's English is shown as it is, in every language
    assert dealer_lines(view, language="es", refusal="MISSING FIELD 'seat'") == (
        "HABLA EL ASIENTO 8",
        "NO: MISSING FIELD 'seat'",
    )
    long = msg(
        "refuse.may_only",
        seat=4,
        only=phrase("word.call_or_fold"),
        reason=phrase("reason.no_answer"),
    )
    top, bottom = dealer_lines(view, refusal=long)
    assert (top + " " + bottom) == "NO: " + render(long) and len(top) <= 40 and len(bottom) <= 40
    top, bottom = dealer_lines(view, language="es", refusal=long)
    assert top + " " + bottom == (
        "NO: EL ASIENTO 4 SOLO PUEDE IGUALAR O NO IR: NADIE PUEDE RESPONDER A UNA SUBIDA"
    )
    assert dealer_lines(view, fault="JOURNAL CHECK FAILED")[0] == "FAULT: JOURNAL CHECK FAILED"
    assert dealer_lines(view, expired=(8, "fold")) == ("TIME: SEAT 8 FOLD", "SEAT 8 TO ACT")
    # an alert during the betting keeps who is to act and the call on the first line
    assert dealer_lines(view, alerts=[msg("puck.move", seat=4)]) == (
        "SEAT 8 TO ACT: CALL 10",
        "MOVE BUTTON TO SEAT 4",
    )
    t = table(THREE + keys("NEXT BET 3"))
    assert dealer_lines(state_view(t), language="es") == ("ASIENTO 8 APUESTA/SUBE A", "3_")


def test_an_entry_being_keyed_keeps_both_lines_over_an_alert() -> None:
    """Found on the bench: with the puck or tray alert up, a menu's second line (the
    supervisor's options 4-7, say) was hidden behind the alert. While an entry is
    keyed its two lines stay; the alert comes back when it ends."""
    pins = {"1042": "2468"}
    t = table(
        keys("FUNC 0 1 0 4 2 ENTER 2 4 6 8 ENTER"), pin_verifier=lambda s, p: pins.get(s) == p
    )
    alert = [msg("puck.place", seat=8)]
    assert dealer_lines(state_view(t), alerts=alert) == (
        "1 VOID HAND  2 UNDO LAST ACTION",
        "3 DEALT IN ERROR  NEXT: MORE",
    )
    t = table(THREE + keys("NEXT BET 4"))
    assert dealer_lines(state_view(t), alerts=alert) == ("SEAT 8 BET/RAISE TO", "4_")
    t = table(THREE)
    assert dealer_lines(state_view(t), alerts=alert) == ("PLACE BUTTON ON SEAT 8", "READY")


def test_the_configurable_patterns_are_the_drivers_but_wink() -> None:
    assert PATTERN_NAMES == ("off", "on", "slow_blink", "fast_blink", "pulse")
    assert set(PATTERN_NAMES) == {p.value for p in Pattern} - {"wink"}


def test_a_payout_under_an_alert_keeps_its_page() -> None:
    """Found on the bench: after a hand the puck must move, so `MOVE BUTTON TO SEAT n`
    was up through every payout page and took the page's line: the dealer never saw
    whether `NEXT` pages on (`1/2`) or deals (`2/2`). The payout keeps its page."""
    t = table(THREE + keys("NEXT ALLIN ALLIN ALLIN 5 ENTER ENTER 2 ENTER ENTER"))
    alert = [msg("puck.move", seat=2)]
    assert dealer_lines(state_view(t)) == ("PAY SEAT 5: 1800", "MAIN POT 1/2  NEXT: MORE")
    assert dealer_lines(state_view(t), alerts=alert) == (
        "MOVE BUTTON TO SEAT 2",
        "PAY SEAT 5: 1800 (1/2)",
    )
    assert (
        dealer_lines(state_view(t), alerts=alert, language="es")[1]
        == "PAGUE AL ASIENTO 5: 1800 (1/2)"
    )
    feed(t, keys("NEXT"))
    assert dealer_lines(state_view(t), alerts=alert) == (
        "MOVE BUTTON TO SEAT 2",
        "PAY SEAT 2: 800 (2/2)",
    )
    one = table(THREE + keys("NEXT FOLD FOLD"))  # one payout: NEXT deals, no page
    assert dealer_lines(state_view(one), alerts=alert) == (
        "MOVE BUTTON TO SEAT 2",
        "PAY SEAT 5: 10",
    )


def test_the_push_due_under_an_alert_keeps_the_payouts_page() -> None:
    """Issue 31 item 9: with the push due and an alert up, the display said `DEALER
    204: PUSH DUE: PAY SEAT 1: 40` (the reminder glued to the payout, no `(1/3)`), and
    the dealer's next `NEXT` dealt the next hand unannounced."""
    due = [{"type": "dealer", "id": "204"}, {"type": "tick", "ms": 60_000}]
    config = {"dealer": {"push_minutes": 1}}
    t = table(
        THREE + due + keys("NEXT ALLIN ALLIN ALLIN 5 ENTER ENTER 2 ENTER ENTER"), config=config
    )
    assert t.state.push_due
    alert = [msg("puck.move", seat=2)]
    assert dealer_lines(state_view(t), alerts=alert) == (
        "MOVE BUTTON TO SEAT 2",
        "PAY SEAT 5: 1800 (1/2)  PUSH DUE",
    )
    assert dealer_lines(state_view(t), alerts=alert, language="es") == (
        "MUEVA EL BOTON AL ASIENTO 2",
        "PAGUE AL ASIENTO 5: 1800 (1/2)  RELEVO",
    )
    feed(t, keys("NEXT"))
    assert dealer_lines(state_view(t), alerts=alert)[1] == "PAY SEAT 2: 800 (2/2)  PUSH DUE"
    # nothing paid: the reminder and READY share the first line, the alert below
    ready = table(THREE + due, config=config)
    assert dealer_lines(state_view(ready), alerts=alert) == (
        "DEALER 204: PUSH DUE: READY",
        "MOVE BUTTON TO SEAT 2",
    )


def test_a_notice_under_an_alert_is_not_glued_to_the_payout() -> None:
    """Issue 21 item 7: a wrong PIN just after a hand, with the tray alarm up, showed
    `WRONG PIN: 2 TRIES LEFT: PAY SEAT 5: 10`: the notice glued to the payout on one
    line, which reads as if the PIN were about the payout. The key's answer keeps both
    lines (the notice, then what happens next), as an entry being keyed does; the
    alert is back at the next key."""
    wrong_pin = [{"type": "key", "key": "ENTER", "pin_ok": False}]
    t = table(THREE + keys("NEXT FOLD FOLD FUNC 0 1 0 4 2 ENTER 1 2 3 4") + wrong_pin)
    alert = [msg("tray.alarm", difference="+3400")]
    assert dealer_lines(state_view(t)) == ("WRONG PIN: 2 TRIES LEFT", "PAY SEAT 5: 10")
    assert dealer_lines(state_view(t), alerts=alert) == (
        "WRONG PIN: 2 TRIES LEFT",
        "PAY SEAT 5: 10",
    )
    assert dealer_lines(state_view(t), alerts=alert, language="es")[0].startswith("PIN ")
    feed(t, keys("CLEAR"))
    assert dealer_lines(state_view(t), alerts=alert) == (
        "TRAY OFF BY +3400: CALL SUPERVISOR",
        "PAY SEAT 5: 10",
    )


def test_a_pin_that_cannot_be_checked_tells_the_dealer_to_call_a_technician() -> None:
    """Issue 21 item 7: `NO: PIN CHECK NOT AVAILABLE` left the dealer and the supervisor
    guessing; only a technician can fix the PIN file. The refusal says so on one line in
    both languages, and check-config and the log use the same words."""
    from controller.supervisor_pins import unavailable_words

    t = table(THREE + keys("FUNC 0 1 0 4 2 ENTER 1 2 3 4"))
    with pytest.raises(Refusal) as refused:
        t.check(parse_event({"type": "key", "key": "ENTER"}))
    reason = refusal_message(refused.value)
    view = state_view(t)
    assert dealer_lines(view, refusal=reason)[1] == "NO: PIN CHECK NOT AVAILABLE: CALL TECH"
    assert dealer_lines(view, refusal=reason, language="es")[1] == (
        "NO: PIN SIN COMPROBAR: LLAME AL TECNICO"
    )
    assert unavailable_words() == "NO: PIN CHECK NOT AVAILABLE: CALL TECH"
