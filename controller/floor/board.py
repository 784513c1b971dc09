"""The floor board's model: every table of a site as one card, from the floor feed.

`Board.apply(message)` folds one floor message (`consumer.FloorMessage`) into the card
of its table and says whether the card changed; `Board.cards()` is what the page shows.
No I/O here: `board_server.py` subscribes to the broker and serves the page.

A card holds what a floor supervisor needs at a glance: the table id, game and stakes,
hand number and phase, pot, the seat to act, the action clock when it runs (seconds
left, warning; standing still while the table's play is stopped or its link is down),
open seats, when the table was last heard from, and the alarms that
need someone now:

- a sticky fault that locks play (a memory fault: `status` says it in `fault`);
- a device fault (`fault` messages: raised until cleared), in the dealer's words;
- a chip-tray discrepancy (`tray` messages: until resolved);
- the button puck's warning (`status` `puck`: `MOVE BUTTON TO SEAT 1`), a warning;
- play stopped by the table (the state's `play_stopped`: a lost keypad or display,
  `PLAY STOPPED: CLOCK HELD`; the controller's door open, `DOOR OPEN: CLOCK HELD`);
- the table's link down (`status`: the last will, or the daemon stopped);
- a backlog being sent after an outage (`status` up with unsent messages): a warning;
- the table came back from a power loss (a `power` message), a warning until its next
  hand starts.

A message is set aside (`problem()` says why; the server logs it) when its `table_id`
is one no table can have (the configuration's table id pattern) or is not the table of
the topic it came on: a broker ACL confines each table to its own topic subtree, so a
table can never speak for another. A table claiming more seats than a table has shows
no open seats.

Messages are taken by `(table_id, msg_seq)` once (a reconnect brings the retained state
again); a message older than what the card shows (a lower `msg_seq`) changes nothing.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller import device_faults
from controller.config.rules import MAX_SEATS, MIN_SEATS, TABLE_ID_PATTERN
from controller.floor.board_log import TableLog, integer, seat_rows, shift_money
from controller.floor.consumer import Deduplicator
from controller.rules import stopped as play_stopped
from controller.rules.text import msg, render

log = logging.getLogger(__name__)

_TABLE_ID = re.compile(TABLE_ID_PATTERN)
STRUCTURES = {"no_limit": "NL", "pot_limit": "PL", "fixed_limit": "FL"}
PUSH_MINUTES = 30  # board.push_minutes: for a table that says no push of its own


@dataclass
class Card:
    """One table, as the board shows it (`as_json()` is what the page gets)."""

    table_id: str
    site: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    state_msg_seq: int = 0
    state_seq: int | None = None  # the journal seq of the state shown
    clock_received_ns: int | None = None
    state_received_ns: int | None = None  # when the state shown came (the level clock)
    clock_held_ns: int | None = None  # when the board heard the table's link go down
    faults: dict[str, str] = field(default_factory=dict)  # device -> code
    tray: dict[str, Any] | None = None
    puck: dict[str, Any] | None = None  # the button puck's warning (status `puck`)
    power: dict[str, Any] | None = None  # back from a power loss (until the next hand)
    link: str = "unknown"
    link_reason: str | None = None
    sticky_fault: str | None = None  # the table's play is locked (memory fault ...)
    outbox: str | None = None  # the table's outbox `filling` or `full` (status)
    backlog: int = 0
    last_heard_ns: int = 0
    version: int = 0
    stream: int = 0  # the table's message numbering restarted this many times
    history: TableLog = field(default_factory=TableLog)  # dealer, pace, hands, alarms seen
    unreadable_version: int = -1  # the version whose card could not be made, logged

    def alarms(self) -> list[dict[str, str]]:
        found = [
            {"code": code, "text": render(device_faults.words(code), "en"), "level": "alarm"}
            for _, code in sorted(self.faults.items())
        ]
        if self.sticky_fault is not None:
            words = self.sticky_fault.replace("_", " ").upper()
            found.insert(
                0, {"code": self.sticky_fault, "level": "alarm", "text": f"{words}: CALL TECH"}
            )
        if self.outbox in ("filling", "full"):
            found.append(
                {
                    "code": f"outbox_{self.outbox}",
                    "level": "alarm",
                    "text": f"FLOOR OUTBOX {self.outbox.upper()}",
                }
            )
        if self.play_stopped():
            causes = [str(cause) for cause in self.state.get("play_stopped") or []]
            found.append(
                {
                    "code": "door_open" if "door_open" in causes else "play_stopped",
                    "level": "alarm",
                    "text": render(play_stopped.display_words(causes), "en"),
                }
            )
        if self.power is not None:
            found.append({"code": "power_loss", "level": "warn", "text": _power_words(self.power)})
        if self.puck is not None:
            found.append({"code": "puck", "level": "warn", "text": _puck_words(self.puck)})
        if self.tray is not None:
            found.append(
                {
                    "code": "tray_discrepancy",
                    "level": "alarm",
                    "text": f"TRAY OFF BY {self.tray.get('discrepancy')}",
                }
            )
        if self.link == "down":
            stopped = self.link_reason == "stopped"
            found.append(
                {
                    "code": "table_stopped" if stopped else "link_down",
                    "level": "alarm",
                    "text": "TABLE STOPPED" if stopped else "LINK DOWN",
                }
            )
        elif self.backlog:
            found.append(
                {"code": "backlog", "level": "warn", "text": f"SENDING BACKLOG {self.backlog}"}
            )
        return found

    def locked(self) -> bool:
        """A sticky fault locks the table's play (`status` `fault`): its hand does not
        go on until a technician clears it."""
        return self.sticky_fault is not None

    def play_stopped(self) -> bool:
        """The table says play is stopped (a lost keypad or display): its clock stands
        still."""
        causes = self.state.get("play_stopped")
        return isinstance(causes, list) and bool(causes)

    def clock_json(self, now_ns: int) -> dict[str, Any] | None:
        """The action clock as the card shows it: counting down from the state's time
        left since the state came, or standing still (``running`` false) while play is
        stopped (the state's time is the clock's) or the table's link is down (the time
        left when the board heard it go: a stopped table's clock does not run on), or the
        table's play is locked by a sticky fault."""
        clock = self.state.get("clock")
        if not isinstance(clock, Mapping) or self.clock_received_ns is None:
            return None
        held = self.link == "down" and self.clock_held_ns is not None
        until = self.clock_held_ns if held and self.clock_held_ns is not None else now_ns
        still = self.play_stopped() or self.locked()  # the table's own clock stands still
        running = not held and not still
        elapsed_ms = 0 if still else max(0, (until - self.clock_received_ns) // 1_000_000)
        remaining = clock.get("remaining_ms")
        remaining = remaining if isinstance(remaining, int) else 0
        return {
            "seat": clock.get("seat"),
            "remaining_ms": max(0, remaining - elapsed_ms),
            "warning": bool(clock.get("warning")),
            "running": running,
        }

    def tournament_json(self, now_ns: int) -> dict[str, Any] | None:
        """A tournament table's level (rules T1): the level, its stakes, the time left
        counting down from the state's since it came (standing still while the clock is
        paused, the table's link is down or its play is locked: the level clock counts
        only the time the table tells it), on a break or not, the players left, the
        tournament's name (``id``, null when the table names none). None at a cash
        table."""
        level = self.state.get("tournament")
        if not isinstance(level, Mapping) or self.state_received_ns is None:
            return None
        paused = bool(level.get("paused"))
        held = self.link == "down" and self.clock_held_ns is not None
        until = self.clock_held_ns if held and self.clock_held_ns is not None else now_ns
        counts = not paused and not self.locked()  # until the link went down, if it did
        running = counts and not held
        elapsed_ms = max(0, (until - self.state_received_ns) // 1_000_000) if counts else 0
        left = integer(level.get("level_ms_left")) or 0
        out = level.get("eliminated")
        seats = self.state.get("seats")
        return {
            "level": integer(level.get("level")),
            "stakes": _stakes(level, self.info.get("ante_form")),
            "level_ms_left": max(0, left - elapsed_ms),
            "running": running,
            "paused": paused,
            "break": bool(level.get("break")),
            "players_left": len(seats) if isinstance(seats, Mapping) else 0,
            "out": len(out) if isinstance(out, list) else 0,
            "id": _text(self.info.get("tournament_id")),
        }

    def as_json(self, now_ns: int, push_after_ms: int = 1 << 62) -> dict[str, Any]:
        """What the page gets. Every field is of the type the page expects whatever the
        table sent (a field of another type is shown as absent)."""
        state = self.state
        seats_value = state.get("seats")
        seats: Mapping[str, Any] = seats_value if isinstance(seats_value, Mapping) else {}
        total = self.info.get("seats")
        if not isinstance(total, int) or not MIN_SEATS <= total <= MAX_SEATS:
            total = None  # no table has that many seats: nothing to count
        open_seats = (
            [n for n in range(1, total + 1) if str(n) not in seats] if total is not None else []
        )
        to_act = None if self.locked() else integer(state.get("to_act"))
        seat_to_act = seats.get(str(to_act)) if to_act is not None else None
        player = seat_to_act.get("player") if isinstance(seat_to_act, Mapping) else None
        alarms = self.alarms()
        return {
            "table_id": self.table_id,
            "site": self.site,
            "game": _game(self.info),
            "hand": integer(state.get("hand")),
            "phase": _text(state.get("phase")),
            "pot": integer(state.get("pot_total")),
            "to_act": to_act,
            "to_act_player": _text(player),
            "clock": self.clock_json(now_ns),
            "locked": self.locked(),
            "seats": total,
            "players": len(seats),
            "open_seats": open_seats,
            # a table whose link is down may have sat players since: the room offers none
            "open_seats_known": self.link != "down",
            "alarms": alarms,
            "alarm": any(a["level"] == "alarm" for a in alarms),
            "link": self.link,
            "last_heard_ms_ago": max(0, (now_ns - self.last_heard_ns) // 1_000_000)
            if self.last_heard_ns
            else None,
            "seq": self.state_seq,
            "version": self.version,
            "seat_rows": seat_rows(state),
            "money": shift_money(state),
            "tournament": self.tournament_json(now_ns),
            **self.history.as_json(now_ns, *self.push_rule(push_after_ms)),
        }

    def push_rule(self, board_after_ms: int) -> tuple[int | None, bool | None]:
        """The dealer's push as the table counts it: after how long (its
        `dealer.push_minutes`, None: no push), and whether the table says it is due
        (None: it does not say). A table that sends neither (older tables): the board's
        own ``board.push_minutes`` and its own count."""
        shift = self.state.get("shift")
        told = shift.get("push_due") if isinstance(shift, Mapping) else None
        due = told if isinstance(told, bool) else None
        if "push_minutes" not in self.info:
            return board_after_ms, due
        minutes = integer(self.info.get("push_minutes"))
        return (minutes * 60_000 if minutes is not None and minutes > 0 else None), due


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def unreadable_card(table_id: str, error: Exception) -> dict[str, Any]:
    """The card of a table whose messages no card could be made of: it says so (the
    other cards go on), with nothing else the page would have to draw."""
    alarm = {
        "code": "card_unreadable",
        "level": "alarm",
        "text": f"CARD CANNOT BE SHOWN: {type(error).__name__}",
    }
    empty: dict[str, Any] = dict.fromkeys(
        ("site", "game", "hand", "phase", "pot", "to_act", "to_act_player", "clock", "seats"),
        None,
    )
    return empty | {
        "table_id": table_id,
        "locked": False,
        "players": 0,
        "open_seats": [],
        "open_seats_known": False,
        "alarms": [alarm],
        "alarm": True,
        "link": "unknown",
        "last_heard_ms_ago": None,
        "seq": None,
        "version": 0,
        "seat_rows": [],
        "money": None,
        "dealer": None,
        "dealer_ms": None,
        "dealer_change_seen": False,
        "push_after_ms": None,
        "push_due": False,
        "push_told": False,
        "hands_per_hour": None,
        "last_action": None,
        "alarm_log": [],
    }


def _power_words(power: Mapping[str, Any]) -> str:
    """``POWER LOST IN HAND 12, BACK 21:20:40``: the hand in play, the restart's time
    of day (marked when the table's clock was not synchronised)."""
    ts = power.get("ts")
    back = ts[11:19] if isinstance(ts, str) and len(ts) >= 19 else "?"
    if power.get("clock_synced") is not True:
        back += " UNSYNCED"
    hand = power.get("hand")
    where = f" IN HAND {hand}" if isinstance(hand, int) else ""
    return f"POWER LOST{where}, BACK {back}"


def _puck_words(warning: Mapping[str, Any]) -> str:
    """The dealer display's words for a puck warning: `MOVE BUTTON TO SEAT 1`."""
    seen = warning.get("seen")
    seats = " ".join(str(s) for s in seen if isinstance(s, int)) if isinstance(seen, list) else ""
    expected = warning.get("expected")
    seat = expected if isinstance(expected, int) and not isinstance(expected, bool) else "?"
    if warning.get("status") == "two_seats":
        return render(msg("puck.two_seats", seats=seats), "en")
    if warning.get("status") == "lifted":
        return render(msg("puck.place", seat=seat), "en")
    return render(msg("puck.move", seat=seat), "en")


def _stakes(level: Mapping[str, Any], ante_form: Any) -> str:
    """A level's stakes as the table's display writes them (``150/300 A300``)."""
    stakes = f"{integer(level.get('small_blind'))}/{integer(level.get('big_blind'))}"
    ante = integer(level.get("ante"))
    if ante:
        stakes += f" {'BBA' if ante_form == 'big_blind' else 'A'}{ante}"
    return stakes


def _game(info: Mapping[str, Any]) -> str | None:
    if not info:
        return None
    structure = STRUCTURES.get(str(info.get("structure")), str(info.get("structure") or ""))
    form = info.get("form")
    name = {"flop": "HOLD'EM", "draw": "DRAW", "triple_draw": "TRIPLE DRAW"}.get(
        str(form), str(form or "").upper()
    )
    stakes = f"{info.get('small_blind')}/{info.get('big_blind')}"
    ante = info.get("ante")
    if isinstance(ante, int) and ante > 0:  # A1 each, A2 the big blind's (BBA)
        stakes += f" {'BBA' if info.get('ante_form') == 'big_blind' else 'A'}{ante}"
    return f"{structure} {name} {stakes}".strip()


class Board:
    """Every table's card; thread-safe (the subscriber's thread applies, the web
    server's threads read)."""

    def __init__(
        self,
        site: str | None = None,
        max_tables: int = Deduplicator.MAX_TABLES,
        push_minutes: int = PUSH_MINUTES,
    ) -> None:
        self.site = site
        self.push_after_ms = push_minutes * 60_000  # a dealer down this long: push due
        self._cards: dict[str, Card] = {}
        # at most max_tables cards: a table more drops the one silent the longest
        self._dedupe = Deduplicator(max_tables=max_tables)
        self.dropped = 0  # cards dropped to keep the bound, since start
        self._lock = threading.Lock()
        self.broker_up = False
        self.version = 0

    def apply(
        self, payload: Mapping[str, Any] | None, received_ns: int, topic: str | None = None
    ) -> str | None:
        """Fold one message in (received on `topic`, when given); the table id whose
        card changed, or None."""
        if not isinstance(payload, Mapping) or problem(payload, topic) is not None:
            return None
        table_id = payload["table_id"]
        if self.site is not None and payload.get("site") != self.site:
            return None
        with self._lock:
            first = self._dedupe.first_time(payload)
            if self._dedupe.forgotten:
                self._drop(self._dedupe.forgotten)
            if not first:
                card = self._cards.get(table_id)
                if card is None or not card.backlog:
                    return None
                card.backlog -= 1  # a row sent again after a reconnect is sent all the same
                card.version += 1
                return table_id
            card = self._cards.get(table_id)
            if card is None:
                card = self._cards[table_id] = Card(table_id)
            if card.stream != self._dedupe.stream(table_id):  # its journal was replaced
                card.stream = self._dedupe.stream(table_id)
                card.state_msg_seq = 0
            card.site = payload.get("site") if isinstance(payload.get("site"), str) else card.site
            card.last_heard_ns = received_ns
            _fold(card, payload, received_ns)
            card.history.play(payload, received_ns)
            card.history.alarms_now(card.alarms(), received_ns)
            card.version += 1
            self.version += 1
            return table_id

    def _drop(self, forgotten: list[str]) -> None:
        for table_id in forgotten:
            if self._cards.pop(table_id, None) is not None:
                self.dropped += 1
                level = (
                    logging.WARNING
                    if self.dropped in (1, 10) or not self.dropped % 1000
                    else logging.DEBUG
                )  # a publisher of ever new ids cannot fill the log
                log.log(
                    level,
                    "floor board: card %s dropped (%d so far): more than %d "
                    "tables, it was silent the longest (board.max_tables)",
                    table_id[:50],
                    self.dropped,
                    self._dedupe.max_tables,
                )
        forgotten.clear()
        self.version += 1

    def set_broker(self, up: bool) -> None:
        with self._lock:
            self.broker_up = up
            self.version += 1

    def cards(self, now_ns: int) -> list[dict[str, Any]]:
        with self._lock:
            return [
                self._shown(self._cards[t], now_ns) for t in sorted(self._cards, key=_table_order)
            ]

    def card(self, table_id: str, now_ns: int) -> dict[str, Any] | None:
        with self._lock:
            card = self._cards.get(table_id)
            return self._shown(card, now_ns) if card is not None else None

    def detail(self, table_id: str, now_ns: int) -> dict[str, Any] | None:
        """A table's card with its last hands' play-by-play (the page's detail)."""
        with self._lock:
            card = self._cards.get(table_id)
            if card is None:
                return None
            return self._shown(card, now_ns) | {"hands": card.history.hands_json(now_ns)}

    def _shown(self, card: Card, now_ns: int) -> dict[str, Any]:
        """A card as the page gets it; one that cannot be made says so, and never takes
        the other tables' cards with it (the page's snapshot is every card)."""
        try:
            return card.as_json(now_ns, self.push_after_ms)
        except Exception as error:  # what a table sent that no one foresaw
            if card.unreadable_version != card.version:  # once a message, not once a read
                card.unreadable_version = card.version
                log.exception("floor board: the card of %s cannot be shown", card.table_id)
            return unreadable_card(card.table_id, error)


def problem(payload: Mapping[str, Any], topic: str | None = None) -> str | None:
    """Why the board sets a message aside, or None when it shows it."""
    table_id = payload.get("table_id")
    if not isinstance(table_id, str):
        return "no table_id"
    if not _TABLE_ID.fullmatch(table_id):
        return f"table_id {table_id[:40]!r} is no table's (1 to 16 letters, digits, '_.-')"
    levels = topic.split("/") if topic is not None else None
    if levels is not None and (len(levels) < 3 or levels[-3:-1] != ["table", table_id]):
        return f"table_id {table_id!r} is not the table of its topic"
    return None


def _table_order(table_id: str) -> tuple[str, int, str]:
    digits = "".join(ch for ch in table_id if ch in "0123456789")
    prefix = "".join(ch for ch in table_id if ch not in "0123456789")
    return (prefix, int(digits) if digits else -1, table_id)


def _fold(card: Card, payload: Mapping[str, Any], received_ns: int) -> None:
    if card.backlog and isinstance(payload.get("msg_seq"), int):
        card.backlog -= 1  # the backlog drains as its messages arrive
    fold = _FOLDS.get(str(payload.get("kind")))
    if fold is not None:
        fold(card, payload, received_ns)


def _fold_state(card: Card, payload: Mapping[str, Any], received_ns: int) -> None:
    msg_seq = payload.get("msg_seq")
    if not isinstance(payload.get("state"), Mapping):
        return
    if isinstance(msg_seq, int) and msg_seq < card.state_msg_seq:
        return  # an older state (a retained copy after newer live messages)
    card.state = dict(payload["state"])
    card.state_seq = payload.get("seq") if isinstance(payload.get("seq"), int) else None
    card.state_msg_seq = msg_seq if isinstance(msg_seq, int) else card.state_msg_seq
    card.clock_received_ns = received_ns if card.state.get("clock") else None
    card.state_received_ns = received_ns
    card.history.state(card.state, received_ns)
    if isinstance(payload.get("table"), Mapping):
        card.info = dict(payload["table"])


def _fold_power(card: Card, payload: Mapping[str, Any], received_ns: int) -> None:
    card.power = dict(payload)


def _fold_hand_start(card: Card, payload: Mapping[str, Any], received_ns: int) -> None:
    card.power = None  # play goes on: the power loss is history


def _fold_fault(card: Card, payload: Mapping[str, Any], received_ns: int) -> None:
    device = str(payload.get("device") or payload.get("fault"))
    if payload.get("active"):
        card.faults[device] = str(payload.get("fault"))
    else:
        card.faults.pop(device, None)


def _fold_tray(card: Card, payload: Mapping[str, Any], received_ns: int) -> None:
    card.tray = None if payload.get("resolved") or not payload.get("alarm") else dict(payload)


def _fold_status(card: Card, payload: Mapping[str, Any], received_ns: int) -> None:
    link = str(payload.get("link"))
    if link == "down" and card.link != "down":
        card.clock_held_ns = received_ns  # its clock stands still from now
    card.link = link
    fault = payload.get("fault")
    card.sticky_fault = fault if isinstance(fault, str) else None
    if isinstance(payload.get("device_faults"), Mapping):
        _faults_in_force(card, payload)
    card.link_reason = payload.get("reason") if isinstance(payload.get("reason"), str) else None
    unsent = payload.get("unsent")
    if card.link != "up":
        card.backlog = 0
    elif isinstance(unsent, int):  # the link came up with this much to send
        card.backlog = unsent
    # else: the same link, the faults changed: the backlog goes on draining


def _faults_in_force(card: Card, payload: Mapping[str, Any]) -> None:
    """A status's faults in force (absent in a last will), with the tray's difference,
    the puck's warning and the outbox's alarm said with them (never in a will)."""
    card.faults = {str(k): str(v) for k, v in payload["device_faults"].items()}
    tray = payload.get("tray_discrepancy")
    card.tray = {"discrepancy": tray} if isinstance(tray, int) else None
    puck = payload.get("puck")
    card.puck = dict(puck) if isinstance(puck, Mapping) else None
    outbox_alarm = payload.get("outbox")
    card.outbox = outbox_alarm if isinstance(outbox_alarm, str) else None


#: message kind -> how it changes the card (any other kind changes only when heard)
_FOLDS: dict[str, Callable[[Card, Mapping[str, Any], int], None]] = {
    "state": _fold_state,
    "power": _fold_power,
    "hand_start": _fold_hand_start,
    "fault": _fold_fault,
    "tray": _fold_tray,
    "status": _fold_status,
}
