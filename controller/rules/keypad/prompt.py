"""What the dealer display says while an entry is unfinished.

Each entry mode's prompt (``keypad.modes.MODES``) gives the two lines (messages, see
``controller.rules.text``) for the entry in progress: what to key next, and what has
been keyed so far. A PIN shows as stars only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.keypad.award import prompt_pot
from controller.rules.keypad.base import ACTION_WORDS, pushed_chips
from controller.rules.records import Entry
from controller.rules.state import TableState
from controller.rules.text import Message, from_json, msg, phrase, round_word

if TYPE_CHECKING:
    from controller.rules.table import Table

#: The supervisor menu, two lines a page: ``NEXT`` turns the page (the last back to the
#: first); a function's digit works on every page. Every function is on a page
#: (tests/test_display_pages.py), and every line fits the display in every language.
SUPERVISOR_PAGES = (
    ("prompt.supervisor_1", "prompt.supervisor_2"),
    ("prompt.supervisor_3", "prompt.supervisor_4"),
    ("prompt.supervisor_5", "prompt.supervisor_6"),
)
#: The word a tray count's prompt starts with, by supervisor function.
COUNT_WORDS = {
    "fill": "word.fill",
    "credit": "word.credit",
    "shift_open": "word.shift_open",
    "shift_close": "word.shift_close",
}
ENTER_WAIT = msg("prompt.enter_wait")
CONFIRM = msg("prompt.confirm_keys")


def _typed(entry: Entry) -> Message:
    return msg("prompt.typed", digits=entry.get("digits", ""))


def _seats(seats: list[int]) -> str:
    return " ".join(str(s) for s in seats) or "-"


def seat_prompt(table: Table, e: Entry) -> list[Message]:
    return [msg("prompt.seat_action", digits=e["digits"]), msg("prompt.seat_action_keys")]


def bet_prompt(table: Table, e: Entry) -> list[Message]:
    seat = e.get("seat")
    word = round_word(table.state.phase)
    if word is not None:  # a draw game: the round the bet is for
        return [msg("prompt.round_bet", round=word, seat=seat), _typed(e)]
    return [msg("prompt.bet", seat=seat), _typed(e)]


def func_prompt(table: Table, e: Entry) -> list[Message]:
    return [msg("prompt.func_1"), msg("prompt.func_2")]


def sit_prompt(table: Table, e: Entry) -> list[Message]:
    step, seat = e.get("step"), e.get("seat")
    if step == "seat":
        return [msg("prompt.sit_seat"), _typed(e)]
    if step == "chips":
        return [msg("prompt.sit_chips", seat=seat), _typed(e)]
    if step == "player":
        return [msg("prompt.sit_player", seat=seat), _typed(e)]
    return [
        msg("prompt.sit_entry", seat=seat, chips=e["chips"]),
        msg("prompt.player", player=e["player"]),
    ]


def sit_out_prompt(table: Table, e: Entry) -> list[Message]:
    return [msg("prompt.sit_out_seat"), _typed(e)]


def sit_in_prompt(table: Table, e: Entry) -> list[Message]:
    if e.get("step") == "seat":
        return [msg("prompt.sit_in_seat"), _typed(e)]
    return [msg("prompt.sit_in_entry", seat=e.get("seat")), msg("prompt.enter_house")]


def leave_prompt(table: Table, e: Entry) -> list[Message]:
    if e.get("step") == "seat":
        return [msg("prompt.leave_seat"), _typed(e)]
    return [msg("prompt.leave_confirm", seat=e.get("seat")), CONFIRM]


def chips_prompt(table: Table, e: Entry) -> list[Message]:
    step, seat = e.get("step"), e.get("seat")
    if step == "seat":
        return [msg("prompt.chips_seat"), _typed(e)]
    if step == "amount":
        return [msg("prompt.chips_amount", seat=seat), _typed(e)]
    return [msg("prompt.chips_entry", seat=seat, amount=e["amount"]), ENTER_WAIT]


def move_prompt(table: Table, e: Entry) -> list[Message]:
    step = e.get("step")
    if step == "from":
        return [msg("prompt.move_from"), _typed(e)]
    if step == "to":
        return [msg("prompt.move_to", seat=e["seat_from"]), _typed(e)]
    kill = table.settings.game.seat_change_kill  # lowball: a move may kill the pot
    return [
        msg(
            "prompt.move_entry_kill" if kill else "prompt.move_entry",
            seat_from=e["seat_from"],
            seat_to=e["seat_to"],
        ),
        ENTER_WAIT,
    ]


def sign_in_prompt(table: Table, e: Entry) -> list[Message]:
    return [msg("prompt.sign_in"), _typed(e)]


def award_prompt(table: Table, e: Entry) -> list[Message]:
    name, pot = prompt_pot(table, e)
    first = msg("prompt.award", name=name, amount=pot.amount)
    if not e["current"]:  # the seats that can win it, until one is keyed
        return [
            first,
            msg("prompt.award_of", seats=_seats(list(pot.eligible)), digits=e["digits"]),
        ]
    return [first, msg("prompt.award_winners", seats=_seats(e["current"]), digits=e["digits"])]


def tip_prompt(table: Table, e: Entry) -> list[Message]:
    if e.get("step") == "seat":
        return [msg("prompt.tip_seat"), _typed(e)]
    if e.get("step") == "big_tip_confirm":
        return [msg("prompt.big_tip", amount=e.get("amount"), seat=e.get("seat")), CONFIRM]
    return [msg("prompt.tip_amount", seat=e.get("seat")), _typed(e)]


def push_prompt(table: Table, e: Entry) -> list[Message]:
    pile = "+".join(str(c) for c in pushed_chips(e)) or "-"
    second = _typed(e) if e["digits"] else msg("prompt.push_keys")
    return [msg("prompt.push", seat=e.get("seat"), pile=pile), second]


def supervisor_prompt(table: Table, e: Entry) -> list[Message]:
    step = e["step"]
    if step == "id":
        return [msg("prompt.supervisor_id"), _typed(e)]
    if step == "pin":
        return [
            msg("prompt.pin", supervisor=e["supervisor"]),
            msg("prompt.pin_typed", stars="*" * len(e["digits"])),
        ]
    if step == "menu" or str(step).startswith("tourney"):
        return _menu_or_tournament(table, e)
    if step == "confirm":
        return _confirm(table, e)
    if step in ("tip_fix_amount", "tip_fix_confirm"):
        return _tip_fix(table, e)
    if str(step).startswith("xfer_"):
        return _transfer(e)
    if step == "b11_seat":
        return [msg("prompt.b11_seat"), _typed(e)]
    if step == "b11_ruling":
        return [msg("prompt.b11_ruling", seat=e["seat"]), msg("prompt.cancel")]
    if step == "witness":
        return [msg("prompt.witness_id", supervisor=e["supervisor"]), _typed(e)]
    if step == "witness_pin":
        return _witness_pin(e)
    return _count(e)


def _confirm(table: Table, e: Entry) -> list[Message]:
    func = e["func"]
    if func == "void":
        return [msg("prompt.void", hand=table.state.hand_number), CONFIRM]
    if func == "undo":
        h = table.state.hand
        last = h.log[-1] if h is not None and h.log else {"seat": 0, "action": "check"}
        word = phrase(ACTION_WORDS.get(str(last["action"]), "word.check"))
        return [msg("prompt.undo", seat=last["seat"], action=word), CONFIRM]
    return [msg("prompt.tray_ack"), CONFIRM]


def _witness_pin(e: Entry) -> list[Message]:
    tries = e.get("tries")
    if tries is not None and not e["digits"]:  # after a wrong PIN, until a digit
        wrong = msg("notice.wrong_pin_last") if tries == 1 else msg("notice.wrong_pin", tries=tries)
        return [msg("prompt.witness_pin", witness=e["witness"]), wrong]
    return [
        msg("prompt.witness_pin", witness=e["witness"]),
        msg("prompt.pin_typed", stars="*" * len(e["digits"])),
    ]


def _count(e: Entry) -> list[Message]:
    """A shift count, a fill or a credit: the chip value, then how many of it."""
    action = phrase(COUNT_WORDS[str(e["func"])])
    if e["step"] == "value":
        total = sum(int(v) * int(c) for v, c in e["counts"])
        second = _typed(e) if e["digits"] else msg("prompt.fill_total", amount=total)
        return [msg("prompt.fill_value", action=action), second]
    return [msg("prompt.fill_count", action=action, value=e["value"]), _typed(e)]


def _menu_or_tournament(table: Table, e: Entry) -> list[Message]:
    """The supervisor menu's page; a tournament table's level-clock function (``0``)."""
    tournament = table.base_settings.tournament
    if e["step"] == "tourney":
        return [msg("prompt.tournament_1"), msg("prompt.tournament_2")]
    if e["step"] == "tourney_level":
        levels = len(tournament.levels) if tournament is not None else 1
        return [msg("prompt.tournament_level", last=levels), _typed(e)]
    if e["step"] == "tourney_confirm":
        return [msg(f"prompt.tournament_{e['func']}"), CONFIRM]
    top, bottom = SUPERVISOR_PAGES[e.get("page", 0) % len(SUPERVISOR_PAGES)]
    if bottom == "prompt.supervisor_6" and tournament is not None:
        bottom = "prompt.supervisor_6_tournament"  # the level clock's function, 0
    return [msg(top), msg(bottom)]


def _transfer(e: Entry) -> list[Message]:
    step = e["step"]
    if step == "xfer_from":
        return [msg("prompt.transfer_from"), _typed(e)]
    if step == "xfer_to":
        return [msg("prompt.transfer_to", seat=e["seat_from"]), _typed(e)]
    seats = {"seat_from": e["seat_from"], "seat_to": e["seat_to"]}
    if step == "xfer_amount":
        return [msg("prompt.transfer_amount", **seats), _typed(e)]
    if step == "xfer_reason":
        return [
            msg("prompt.transfer_reason", amount=e["amount"], **seats),
            msg("prompt.transfer_reasons"),
        ]
    return [msg("prompt.transfer_confirm", amount=e["amount"], **seats), CONFIRM]


def _tip_fix(table: Table, e: Entry) -> list[Message]:
    last = table.state.last_tip or {"seat": 0, "amount": 0}
    if e["step"] == "tip_fix_amount":
        second = _typed(e) if e["digits"] else msg("prompt.tip_fix_none")
        return [msg("prompt.tip_fix", seat=last["seat"], amount=last["amount"]), second]
    back = last["amount"] - int(e["amount"])
    return [
        msg("prompt.tip_fix_confirm", amount=e["amount"], back=back, seat=last["seat"]),
        CONFIRM,
    ]


def notice(state: TableState) -> Message | None:
    raw = state.keypad.get("notice")
    return from_json(raw) if raw else None


def signed_in(state: TableState) -> str | None:
    """The signed-in dealer's id (``TableState.dealer``, the ``dealer`` event): the
    shell stamps it as ``by`` on every event."""
    return state.dealer


def supervisor_in(state: TableState) -> str | None:
    """The supervisor whose PIN opened the menu now being keyed (None when none is
    open): the shell records the keys of a supervisor function under that id."""
    entry = state.keypad.get("entry") or {}
    if entry.get("mode") != "supervisor" or entry.get("step") in ("id", "pin"):
        return None
    return str(entry["supervisor"])


def collecting_pin(state: TableState) -> bool:
    """A PIN is being typed: the shell should not echo or publish these keys."""
    entry = state.keypad.get("entry") or {}
    return entry.get("mode") == "supervisor" and entry.get("step") in ("pin", "witness_pin")


def pin_entry(state: TableState, key: str) -> tuple[str, str] | None:
    """(supervisor id, the digits as recorded) when ``key`` would end a PIN entry. The
    shell records each PIN digit as ``HIDDEN_DIGIT``, keeps the digits to itself,
    verifies them and records the verdict in the key event (``pin_ok``) before
    journalling it, so that the journal holds no PIN and its replay no PIN file."""
    entry = state.keypad.get("entry") or {}
    if key != "ENTER" or not collecting_pin(state) or not entry.get("digits"):
        return None
    whose = entry["witness"] if entry.get("step") == "witness_pin" else entry["supervisor"]
    return str(whose), str(entry["digits"])
