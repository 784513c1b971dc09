"""What the floor board remembers of a table over time, as it saw it: the dealer and
since when, the pace of hands, the last hand's play-by-play, the last alarms.

Each part is bounded per table (`HANDS_KEPT` hands of at most `LINES_PER_HAND` lines of
at most `LINE_CHARS` characters, `ALARMS_KEPT` alarms, `PACE_SAMPLES` hand numbers),
whatever a table sends. Times are the board's own monotonic clock (`received_ns`), so
they say when the board heard it, not what a table's clock said. Pure: no I/O.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

HANDS_KEPT = 5
LINES_PER_HAND = 40
LINE_CHARS = 120
ALARMS_KEPT = 10
PACE_SAMPLES = 120
PACE_WINDOW_NS = 3600 * 1_000_000_000  # hands per hour over the last hour seen
PACE_MIN_NS = 10 * 60 * 1_000_000_000  # and not before the board has watched this long
NAME_CHARS = 40  # a player's name or a dealer's id, on a card


def _ago(now_ns: int, then_ns: int) -> int:
    return max(0, (now_ns - then_ns) // 1_000_000)


def integer(value: Any) -> int | None:
    """A JSON integer as itself (never a bool), anything else as None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _name(value: Any) -> str:
    return str(value)[:NAME_CHARS] if isinstance(value, str) and value else ""


def _seat_number(key: Any) -> int | None:
    """A seat's key as its number: one or two ASCII digits ("²" is a digit to
    ``str.isdigit`` and no number to ``int()``)."""
    if isinstance(key, str) and 0 < len(key) <= 2 and key.isascii() and key.isdigit():
        return int(key)
    return None


def seat_rows(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every occupied seat of a state, in seat order: the player, the stack, the status
    and what a supervisor looks for (`away`: sitting out, `all_in`, `owes`: a missed
    blind to post)."""
    seats = state.get("seats")
    if not isinstance(seats, Mapping):
        return []
    rows: list[dict[str, Any]] = []
    for key, seat in seats.items():
        number = _seat_number(key)
        if number is None or not isinstance(seat, Mapping):
            continue
        status = seat.get("status") if isinstance(seat.get("status"), str) else None
        missed = seat.get("missed")
        rows.append(
            {
                "seat": number,
                "player": _name(seat.get("player")),
                "stack": integer(seat.get("stack")),
                "status": status,
                "away": status == "sitting_out",
                "all_in": status == "all_in",
                "owes": bool(missed) if isinstance(missed, list) else False,
            }
        )
    return sorted(rows, key=lambda row: int(row["seat"]))[:64]


def shift_money(state: Mapping[str, Any]) -> dict[str, int] | None:
    """The shift's drop (rake, jackpot drop and time fees) and tips, from the state's
    `meters`; None from a table that sends none."""
    meters = state.get("meters")
    if not isinstance(meters, Mapping):
        return None
    drop = sum(integer(meters.get(k)) or 0 for k in ("rake", "jackpot", "time_fees"))
    return {"drop": drop, "tips": integer(meters.get("tips")) or 0}


def _word(value: Any) -> str:
    """A figure or a word of a message as text, short whatever was sent."""
    return str(value)[:NAME_CHARS] if isinstance(value, str | int) else "?"


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value[:20] if isinstance(value, list) else []


def _who(payload: Mapping[str, Any]) -> str:
    player = _name(payload.get("player"))
    return f"SEAT {_word(payload.get('seat'))}" + (f" {player}" if player else "")


def _action_line(payload: Mapping[str, Any]) -> str:
    action = _word(payload.get("action")).upper()
    text = f"{_who(payload)} {action}"
    if action in ("BET", "RAISE"):
        text += f" TO {_word(payload.get('to'))}"
    elif action == "CALL" and integer(payload.get("amount")):
        text += f" {_word(payload.get('amount'))}"
    text += " ALL-IN" if payload.get("all_in") is True else ""
    return text + (" (CLOCK)" if payload.get("cause") == "clock" else "")


def _award_line(payload: Mapping[str, Any]) -> str:
    parts = [
        f"{_word(pot.get('amount'))} TO SEAT {' '.join(_word(w) for w in _list(pot.get('winners')))}"
        for pot in map(_mapping, _list(payload.get("pots")))
    ]
    return "POT " + "; ".join(parts) if parts else "AWARD"


def _hand_end_line(payload: Mapping[str, Any]) -> str:
    rake = integer(_mapping(payload.get("fees")).get("rake")) or 0
    return (
        f"HAND {_word(payload.get('hand'))} ENDED ({_word(payload.get('ended_by'))}): "
        f"POT {_word(payload.get('pot_total'))}" + (f", RAKE {rake}" if rake else "")
    )


_LINES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "action": _action_line,
    "hand_start": lambda p: (
        f"HAND {_word(p.get('hand'))} DEALT: BUTTON {_word(p.get('button'))}, "
        f"SEATS {' '.join(_word(s) for s in _list(p.get('dealt_in')))}"
    ),
    "award": _award_line,
    "hand_end": _hand_end_line,
    "clock": lambda p: f"CLOCK {_word(p.get('clock')).upper()} {_who(p)}",
    "correction": lambda p: f"CORRECTION {_word(p.get('correction'))} {_who(p)}",
    "refusal": lambda p: f"REFUSED: {str(_mapping(p.get('error')).get('message'))[:LINE_CHARS]}",
}


def play_line(payload: Mapping[str, Any]) -> str | None:
    """One line of a hand's play-by-play for a floor message (`action`, `award`,
    `hand_start`, `hand_end`, `clock`, `correction`, `refusal`), or None for a message
    that is not part of it."""
    line = _LINES.get(str(payload.get("kind")))
    return line(payload)[:LINE_CHARS] if line is not None else None


@dataclass
class TableLog:
    """What one card remembers over time (all bounded)."""

    dealer: str | None = None
    dealer_since_ns: int | None = None
    dealer_change_seen: bool = False  # False: it was on when the board first heard it
    pace: deque[tuple[int, int]] = field(default_factory=lambda: deque(maxlen=PACE_SAMPLES))
    hands: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HANDS_KEPT))
    last_action: tuple[int, str] | None = None
    alarms: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=ALARMS_KEPT))
    open_alarms: dict[str, dict[str, Any]] = field(default_factory=dict)
    seen_state: bool = False

    def state(self, state: Mapping[str, Any], received_ns: int) -> None:
        """A new state: the dealer signed in and the hand number."""
        dealer = state.get("dealer")
        dealer = str(dealer)[:NAME_CHARS] if isinstance(dealer, str | int) and dealer else None
        if dealer != self.dealer:
            self.dealer_change_seen = self.seen_state and dealer != self.dealer
            self.dealer = dealer
            self.dealer_since_ns = received_ns if dealer is not None else None
        self.seen_state = True
        hand = integer(state.get("hand"))
        if hand is None:
            return
        if self.pace and hand < self.pace[-1][1]:
            self.pace.clear()  # a new journal counts from 0 again
        if not self.pace or hand > self.pace[-1][1]:
            self.pace.append((received_ns, hand))

    def play(self, payload: Mapping[str, Any], received_ns: int) -> None:
        """A message of the feed: a line of its hand's play-by-play, when it is one."""
        text = play_line(payload)
        if text is None:
            return
        text = text[:LINE_CHARS]
        if payload.get("kind") == "action":
            self.last_action = (received_ns, text)
        hand = integer(payload.get("hand"))
        entry = next((h for h in self.hands if h["hand"] == hand), None)
        if entry is None:
            entry = {"hand": hand, "lines": []}
            self.hands.append(entry)
        if len(entry["lines"]) < LINES_PER_HAND:
            entry["lines"].append((received_ns, text))

    def alarms_now(self, alarms: list[dict[str, str]], received_ns: int) -> None:
        """The card's alarms after a message: each one raised goes in the log with its
        time, each one gone is marked cleared."""
        now = {a["code"]: a for a in alarms if a["level"] == "alarm"}
        for code in [c for c in self.open_alarms if c not in now]:
            self.open_alarms.pop(code)["cleared_ns"] = received_ns
        for code, alarm in now.items():
            if code not in self.open_alarms:
                entry = {"code": code, "text": alarm["text"], "raised_ns": received_ns}
                entry["cleared_ns"] = None
                self.alarms.append(entry)
                self.open_alarms[code] = entry

    def hands_per_hour(self, now_ns: int) -> float | None:
        """Hands started per hour over the last hour (over the time since the board
        first saw a hand, when that is shorter); None before it has seen two, or
        watched for `PACE_MIN_NS` (two hands a second apart are no pace)."""
        if len(self.pace) < 2 or now_ns - self.pace[0][0] < PACE_MIN_NS:
            return None
        start = now_ns - PACE_WINDOW_NS
        before = [s for s in self.pace if s[0] <= start]
        base_ns, base_hand = before[-1] if before else self.pace[0]
        span = now_ns - max(start, base_ns)
        if span <= 0:
            return None
        return round((self.pace[-1][1] - base_hand) * 3600e9 / span, 1)

    def as_json(
        self, now_ns: int, push_after_ms: int | None, push_due: bool | None = None
    ) -> dict[str, Any]:
        """``push_after_ms``: a dealer down this long is due a push (None: never);
        ``push_due``: the table says whether it is (None: the board counts)."""
        down_ms = _ago(now_ns, self.dealer_since_ns) if self.dealer_since_ns is not None else None
        told = push_due is not None
        if push_due is None:
            push_due = (
                down_ms is not None and push_after_ms is not None and down_ms >= push_after_ms
            )
        return {
            "dealer": self.dealer,
            "dealer_ms": down_ms,
            "dealer_change_seen": self.dealer_change_seen,
            "push_after_ms": push_after_ms,
            "push_due": push_due and self.dealer is not None,
            "push_told": told,
            "hands_per_hour": self.hands_per_hour(now_ns),
            "last_action": self.last_action[1] if self.last_action else None,
            "alarm_log": [
                {
                    "code": a["code"],
                    "text": a["text"],
                    "ms_ago": _ago(now_ns, a["raised_ns"]),
                    "cleared_ms_ago": _ago(now_ns, a["cleared_ns"])
                    if a["cleared_ns"] is not None
                    else None,
                }
                for a in reversed(self.alarms)
            ],
        }

    def hands_json(self, now_ns: int) -> list[dict[str, Any]]:
        """The last hands' play-by-play, the newest hand first."""
        return [
            {
                "hand": h["hand"],
                "lines": [{"ms_ago": _ago(now_ns, at), "text": text} for at, text in h["lines"]],
            }
            for h in reversed(self.hands)
        ]
