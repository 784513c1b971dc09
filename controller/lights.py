"""What the seat lights, the clock display and the dealer's two text lines show: pure
functions of the contract state (``controller.rules.state_view``) and the device status.

Seat lights. Each seat shows the pattern of the first condition that holds, in this
order (the ``LightPatterns`` field named in brackets):

1. the table is in a fault state that stops play (``fault``: every seat, so nobody
   plays on): a memory or software fault, or a lost keypad or display
   (``HALTING_DEVICES``); a lost chip tray or puck sensor does not stop the game, and
   the lights go on showing it
2. the seat is one the puck check lights: where the button puck is and where it must
   go (``puck``)
3. the seat is on the clock in its last seconds, past the warning point (``clock_warning``)
4. the seat is on the clock (``clock``)
5. the seat is to act (``to_act``)
6. the seat is all-in (``all_in``)
7. between hands, the seat has a missed-blind marker, MS or ML (``missed_blind``;
   during a hand such a seat shows what it is doing, so that a slow blink in a hand
   only ever means the clock)
8. the seat is waiting to be dealt in (``waiting``)
9. the seat is sitting out (``sitting_out``)
10. anyone else seated (``seated``); an empty seat (``empty``)

Patterns are the drivers' names (``off``, ``on``, ``slow_blink``, ``fast_blink``,
``pulse``; a light without PWM shows ``pulse`` as a wink, a short flash every
``pulse_ms``: every pattern looks different on a plain on/off LED). ``LightPatterns``
(``controller.light_patterns``, which the configuration reads without this module)
holds the defaults; ``LightPatterns.from_mapping`` reads a YAML mapping of the same
names (for a `lights.patterns:` configuration section).

Texts are messages (``controller.rules.text``) rendered in the table's language; every
line fits the display's 40 ASCII characters.
"""

from __future__ import annotations

import textwrap
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.light_patterns import DEFAULT_PATTERNS, LightPatterns
from controller.rules.stopped import STOPPING_DEVICES
from controller.rules.text import Message, Phrase, from_json, msg, phrase, render

#: Devices whose loss stops play: nothing can be keyed, or the dealer sees no prompt
#: (the rules' one list, ``controller.rules.stopped.CAUSES``).
HALTING_DEVICES = STOPPING_DEVICES
LINE = 40


def seat_patterns(
    view: Mapping[str, Any],
    seats: int,
    patterns: LightPatterns = DEFAULT_PATTERNS,
    *,
    fault: bool = False,
    puck_seats: Collection[int] = (),
) -> dict[int, str]:
    """The pattern of every seat 1..``seats``."""
    return {
        seat: _seat_pattern(view, seat, patterns, fault, puck_seats) for seat in range(1, seats + 1)
    }


def _seat_pattern(
    view: Mapping[str, Any],
    seat: int,
    patterns: LightPatterns,
    fault: bool,
    puck_seats: Collection[int],
) -> str:
    if fault:
        return patterns.fault
    if seat in puck_seats:
        return patterns.puck
    clock = view.get("clock")
    if clock is not None and clock.get("seat") == seat:
        return patterns.clock_warning if clock.get("warning") else patterns.clock
    if view.get("to_act") == seat:
        return patterns.to_act
    info = view.get("seats", {}).get(str(seat))
    if info is None:
        return patterns.empty
    status = info.get("status")
    if status == "all_in":
        return patterns.all_in
    if info.get("missed") and view.get("phase") == "idle":
        return patterns.missed_blind
    if status == "waiting":
        return patterns.waiting
    if status == "sitting_out":
        return patterns.sitting_out
    return patterns.seated


@dataclass(frozen=True)
class ClockFace:
    """The action-clock display: the countdown (None: blank digits), whether the warning
    point has passed, and at expiry what happened (shown on the dealer display)."""

    ms: int | None
    warning: bool
    outcome: Message | None = None


ACTION_WORDS = {"fold": "word.fold", "check": "word.check"}


def clock_face(view: Mapping[str, Any], expired: tuple[int, str] | None = None) -> ClockFace:
    """``expired``: (seat, action) of a ``ClockExpired`` effect the shell still shows."""
    if expired is not None:
        seat, action = expired
        word = phrase(ACTION_WORDS.get(action, "word.fold"))
        return ClockFace(0, True, msg("clock.expired", seat=seat, action=word))
    clock = view.get("clock")
    if clock is None:
        return ClockFace(None, False)
    return ClockFace(int(clock["remaining_ms"]), bool(clock["warning"]))


def fit(text: str) -> str:
    """What the display can show: printable ASCII, at most 40 characters."""
    return "".join(ch if " " <= ch <= "~" else "?" for ch in text)[:LINE]


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, LINE)[:2] or [""]


def dealer_lines(
    view: Mapping[str, Any],
    *,
    language: str = "en",
    fault: Message | str | None = None,
    refusal: Message | str | None = None,
    expired: tuple[int, str] | None = None,
    alerts: Sequence[Message | str] = (),
) -> tuple[str, str]:
    """The dealer display's two lines.

    ``fault``: the table's fault: a device fault's words (a message,
    ``controller.device_faults``), or English from the shell (shown after ``FAULT:``);
    ``refusal``: the message of the key or event just refused (``text.refusal_message``;
    English as it is for a malformed line), shown until the next accepted one; ``expired``: the clock just ran out; ``alerts``: puck and tray
    messages (``controller.puck``, ``controller.tray``), then English text from the
    shell (the floor link's indicator, ``LINK DOWN 42 QUEUED``); the first is shown,
    except while a keypad entry is being keyed (its two lines stay: a menu's options,
    the digits typed) or the last key's notice answers it (``WRONG PIN: 2 TRIES LEFT``
    over what happens next, never glued to it), and again after the next key.
    Otherwise the state's ``display_text``: the entry's prompt, or who is to act and
    the call, the showdown order, a notice.
    """
    situation = [render(from_json(m), language) for m in view.get("display_text") or []]
    first = situation[0] if situation else ""
    told = _told(view, first, language, fault, refusal, expired)
    if told is not None:
        return told
    shown = view.get("display_text") or []
    keying = (view.get("keypad") or {}).get("entry") is not None
    answered = bool(shown) and str(shown[0][0]).startswith("notice.")  # the key's answer
    if alerts and not keying and not answered:  # an entry or a notice keeps both lines
        alert = alerts[0]
        text = alert if isinstance(alert, str) else render(alert, language)
        return _with_alert(text, shown, situation, language)
    lines = situation + ["", ""]
    return fit(lines[0]), fit(lines[1])


def _told(
    view: Mapping[str, Any],
    first: str,
    language: str,
    fault: Message | str | None,
    refusal: Message | str | None,
    expired: tuple[int, str] | None,
) -> tuple[str, str] | None:
    """The lines of a fault, a refusal or the clock's expiry, when one is to be shown:
    it on the first line (a long refusal on both), what happens next below."""
    if isinstance(fault, tuple):  # a device fault's own words (controller.device_faults)
        return fit(render(fault, language)), fit(first)
    if fault is not None:
        return fit(render(msg("fault.line", what=fault), language)), fit(first)
    if refusal is not None:
        reason = Phrase(refusal) if isinstance(refusal, tuple) else refusal
        line = render(msg("refused.line", reason=reason), language)
        if len(line) > LINE:
            top, *rest = _wrapped(line)
            return fit(top), fit(rest[0] if rest else "")
        return fit(first), fit(line)
    if expired is not None:
        outcome = clock_face(view, expired).outcome
        assert outcome is not None
        return fit(render(outcome, language)), fit(first)
    return None


#: the payout page's first line, without and with the push reminder beside it
PAYING = ("display.pay", "display.pay_push_due")


def _with_alert(
    alert: str, shown: list[Any], situation: list[str], language: str
) -> tuple[str, str]:
    """An alert with what the dealer must still see: the situation's two lines joined
    on the first line when they fit, the alert below; else the alert over the first
    line, a payout with its page (`PAY SEAT 3: 800 (1/3)`: the dealer sees whether NEXT
    pages on or deals) and the push reminder after it (cut first when too long)."""
    first = situation[0] if situation else ""
    paying = bool(shown) and shown[0][0] in PAYING
    joined = ": ".join(situation[:2])
    if not paying:
        if len(situation) >= 2 and len(joined) <= LINE:
            return fit(joined), fit(alert)
        return fit(alert), fit(first)
    page = shown[1][1] if len(shown) > 1 else {}
    count = f" ({page['page']}/{page['pages']})" if "pages" in page else ""
    if shown[0][0] == "display.pay":
        return fit(alert), fit(first + count)
    pay = shown[0][1]["situation"]  # the payout the reminder is beside
    pay = render(pay.message, language) if isinstance(pay, Phrase) else str(pay)
    return fit(alert), fit(render(msg("display.pay_push_due", situation=pay + count), language))
