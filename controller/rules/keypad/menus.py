"""FUNC 1-6 and 8: players and the dealer.

====  ===================================================================  ============
FUNC  keys after FUNC n                                                    event
====  ===================================================================  ============
1     seat ENTER, chips ENTER, card ENTER (ENTER alone: no card), 1 or 2   ``sit``
      (at a tournament table the card ends it: no wait or post)
2     seat ENTER                                                           ``sit_out``
3     seat ENTER, 1 WAIT / 2 POST / ENTER (the house default)              ``sit_in``
4     seat ENTER, ENTER to confirm                                         ``leave``
5     seat ENTER, amount ENTER (a busted seat: then 1 WAIT / 2 POST)       ``chips``
6     from-seat ENTER, to-seat ENTER, 1 WAIT / 2 POST                      ``move_seat``
8     dealer id ENTER (ENTER alone signs the dealer out)                   ``dealer``
====  ===================================================================  ============

Each step is checked as soon as it is keyed (a taken seat is refused at the seat, a
buy-in out of bounds at the chips), so a refusal comes where the mistake is.

Player names: a player card number typed in is the player's name; without a card the
name is generated, ``SEAT3-H12`` (seat 3, sat down when 12 hands had been started),
with ``-2``, ``-3`` ... added if that name is already at the table.
"""

from __future__ import annotations

from controller.rules import tournament
from controller.rules.errors import Refusal
from controller.rules.events import Chips, Dealer, Leave, MoveSeat, Sit, SitIn, SitOut
from controller.rules.keypad import award, push, supervisor, tips
from controller.rules.keypad.base import Press, Step, buy_in, field_entry
from controller.rules.records import Entry
from controller.rules.seating import occupied, seat_in_range
from controller.rules.state import tournament_as_0_3
from controller.rules.text import msg, refuse

WAIT_POST = {"1": "wait", "2": "post"}
WAIT_POST_KILL = {**WAIT_POST, "3": "kill"}  # a seat change, where seat_change_kill allows


def player_name(p: Press, seat: int, card: str) -> str:
    if card:
        return card
    names = {s.player for s in p.table.state.seats.values()}
    base = f"{_generated(seat)}{p.table.state.hand_number}"
    name, n = base, 1
    while name in names:
        n += 1
        name = f"{base}-{n}"
    return name


def _generated(seat: int) -> str:
    """The start of every name generated for a player seated at ``seat`` without a card."""
    return f"SEAT{seat}-H"


def _name_without_card(p: Press, seat: int) -> str:
    """ENTER alone at the card: a generated name; but at a single-table tournament while
    rebuys are allowed, the name of the last player out of this seat who was seated
    without a card, so that the seating is his rebuy (T6: no one else may sit down
    there once players are out)."""
    config = p.table.settings.tournament
    record = p.table.state.tournament
    out: list[str] = []
    if config and config.single_table and record and tournament.rebuys_open(record, config):
        out = [
            str(entry["player"])
            for entry in record["eliminated"]
            if "place" in entry and str(entry["player"]).startswith(_generated(seat))
        ]
    return out[-1] if out else player_name(p, seat, "")


def _empty_seat(p: Press, seat: int) -> None:
    seat_in_range(p.table.settings, seat)
    if seat in p.table.state.seats:
        raise refuse("seat_taken", "refuse.seat_taken", seat=seat)


def sit(p: Press, e: Entry) -> Step:
    step = e["step"]
    if step == "seat":
        seat = p.number(e)
        assert seat is not None
        _empty_seat(p, seat)
        return p.stay(field_entry("sit", "chips", "amount", seat=seat))
    seat = int(e["seat"])
    if step == "chips":
        chips = p.number(e)
        assert chips is not None
        _check_chips_brought(p, Sit(seat=seat, player=player_name(p, seat, ""), chips=chips))
        return p.stay(field_entry("sit", "player", "code", seat=seat, chips=chips))
    if step == "player":
        card = p.text(e, empty_ok=True)
        player = player_name(p, seat, card) if card else _name_without_card(p, seat)
        p.table.check(Sit(seat=seat, player=player, chips=buy_in(e)))
        if _deals_in_at_once(p):
            return p.done(Sit(by=p.by, seat=seat, player=player, chips=buy_in(e)))
        return p.stay(
            {"mode": "sit", "step": "entry", "seat": seat, "chips": buy_in(e), "player": player}
        )
    entry = p.choice(WAIT_POST, "choice.wait_post", "wait")
    return p.done(Sit(by=p.by, seat=seat, player=str(e["player"]), chips=buy_in(e), entry=entry))


def _deals_in_at_once(p: Press) -> bool:
    """A tournament table deals in every seated player with chips at once (T3: no
    missed blinds): the card ends the seating, no wait-or-post choice (0.3.0 asked it)."""
    return p.table.settings.tournament is not None and not tournament_as_0_3(p.table.state)


def _check_chips_brought(p: Press, event: Sit) -> None:
    """The chips step of FUNC 1, before the card says who sits: at a tournament table
    a player out may come back with a rebuy (T6) where a new entrant may not (T4), so
    that refusal waits for the card step (``player``), which checks the whole sit."""
    try:
        p.table.check(event)
    except Refusal as refusal:
        if refusal.code != "entries_closed":
            raise


def sit_out(p: Press, e: Entry) -> Step:
    seat = p.number(e)
    assert seat is not None
    return p.done(SitOut(by=p.by, seat=seat))


def sit_in(p: Press, e: Entry) -> Step:
    if e["step"] == "seat":
        seat = p.number(e)
        assert seat is not None
        p.table.check(SitIn(seat=seat))
        return p.stay({"mode": "sit_in", "step": "entry", "seat": seat})
    entry = p.choice(WAIT_POST, "choice.wait_post", None)
    return p.done(SitIn(by=p.by, seat=int(e["seat"]), entry=entry))


def leave(p: Press, e: Entry) -> Step:
    if e["step"] == "seat":
        seat = p.number(e)
        assert seat is not None
        p.table.check(Leave(seat=seat))
        return p.stay({"mode": "leave", "step": "confirm", "seat": seat})
    p.confirm()
    return p.done(Leave(by=p.by, seat=int(e["seat"])))


def chips(p: Press, e: Entry) -> Step:
    step = e["step"]
    if step == "seat":
        seat = p.number(e)
        assert seat is not None
        occupied(p.table.state, p.table.settings, seat)
        return p.stay(field_entry("chips", "amount", "amount", seat=seat))
    seat = int(e["seat"])
    if step == "amount":
        amount = p.number(e)
        assert amount is not None
        p.table.check(Chips(seat=seat, amount=amount))
        s = p.table.state.seats[seat]
        if s.away and s.stack < p.table.settings.game.smallest_chip and not s.in_hand:
            return p.stay({"mode": "chips", "step": "entry", "seat": seat, "amount": amount})
        return p.done(Chips(by=p.by, seat=seat, amount=amount))
    entry = p.choice(WAIT_POST, "choice.wait_post", "wait")
    return p.done(Chips(by=p.by, seat=seat, amount=int(e["amount"]), entry=entry))


def move(p: Press, e: Entry) -> Step:
    step = e["step"]
    if step == "from":
        seat = p.number(e)
        assert seat is not None
        occupied(p.table.state, p.table.settings, seat)
        return p.stay(field_entry("move", "to", "seat", seat_from=seat))
    seat_from = int(e["seat_from"])
    if step == "to":
        seat_to = p.number(e)
        assert seat_to is not None
        p.table.check(MoveSeat(from_seat=seat_from, to_seat=seat_to))
        return p.stay({"mode": "move", "step": "entry", "seat_from": seat_from, "seat_to": seat_to})
    if p.table.settings.game.seat_change_kill:
        entry = p.choice(WAIT_POST_KILL, "choice.wait_post_kill", "wait")
    else:
        entry = p.choice(WAIT_POST, "choice.wait_post", "wait")
    return p.done(MoveSeat(by=p.by, from_seat=seat_from, to_seat=int(e["seat_to"]), entry=entry))


def sign_in(p: Press, e: Entry) -> Step:
    """The ``dealer`` event (``controller.rules.ops``)."""
    dealer = p.text(e, empty_ok=True)
    if dealer:
        return p.done(
            Dealer(by=dealer, dealer_id=dealer), notice=msg("notice.dealer_in", dealer=dealer)
        )
    return p.done(Dealer(by=p.by, dealer_id=None), notice=msg("notice.dealer_out"))


#: FUNC digit -> the entry it starts (its mode reads the keys that follow, ``modes.MODES``)
MENUS: dict[str, Entry] = {
    "1": field_entry("sit", "seat", "seat"),
    "2": field_entry("sit_out", "seat", "seat"),
    "3": field_entry("sit_in", "seat", "seat"),
    "4": field_entry("leave", "seat", "seat"),
    "5": field_entry("chips", "seat", "seat"),
    "6": field_entry("move", "from", "seat"),
    "8": field_entry("sign_in", "id", "code"),
}


def _func_7(p: Press) -> Step:
    phase = p.table.state.phase
    if phase == "idle":
        return tips.start(p)
    if phase == "showdown":
        return award.start(p)
    raise refuse("hand_in_progress", "refuse.tip_between_hands")


def menu(p: Press, e: Entry) -> Step:
    """The digit after ``FUNC``: the menu it opens (7 is the tip between hands, the
    award at the showdown, and refused as a tip in the rest of a hand)."""
    key = p.key
    if key in MENUS:
        return p.stay(MENUS[key].copy())
    if key == "7":
        return _func_7(p)
    if key == "9":
        return push.start(p)
    if key == "0":
        return supervisor.start(p)
    raise refuse("bad_key", "keypad.choose_menu")
