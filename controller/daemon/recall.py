"""Game recall: the last hands rebuilt from the journal, with every action.

The journal holds input events, not hands; a hand's posts, pots, fees and awards are
what the rules made of them. So recall folds the journal again, from the newest
snapshot taken before the first recalled hand, and listens to the effects the rules
return (``HandStarted``, ``Posted``, ``Acted``, ``StreetDealt``, ``UncalledReturned``,
``PotAwarded``, ``FeesTaken``, ``ClockStarted`` (called, or a time bank spent),
``ClockWarning``, ``ClockExpired``, ``Corrected``, ``HandEnded``,
``PlayStopped`` (the door opened or closed, the keypad or display lost or back,
during the hand, with the corrections), ``Tipped`` (a tip, listed with the hand before
it, as a transfer is; ``TipCorrected``, a tip put right, beside it) and
``Transferred``: a supervisor's transfer, listed with the hand before it (so are a
tournament table's ``LevelChanged`` and ``Eliminated``, with the hand they happened in
or after); one made
before the journal's first hand, chips misplaced at seating say, is listed in an entry
of its own, hand 0, ``before the first hand``, shown with hand 1). Each hand names
its dealer, the one signed in when it was dealt (``TableState.hand_dealer``). Each
action keeps its journal seq, who entered it and when (wall times are marked when the
clock was not synchronised; see ``timekeeping.WallDating``). A ``device`` event (a
device lost or back) is listed too; in the text every correction (the door, a device,
the clock ...) comes among the actions where it happened. An undo is listed among
the actions where it happened, and the action it took back keeps its line, marked
with the undo's seq (``undone_seq``): a dispute is read in the order of the table.

Retention keeps the newest snapshot before the last 10 hands (``journal.retention``).
When a journal has none before the first recalled hand (pruned by an older firmware,
or more than 10 hands asked for), the hands that cannot be rebuilt are listed from
their raw events (``rebuilt: false``). So are the hands before the earliest snapshot
kept when the first event's snapshot was pruned (by 0.3.0): a fold from the
journal's start would not know under which rules they were recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from controller.daemon.recovery import (
    RulesBook,
    first_seq,
    fold_records,
    snapshot_before,
    start_table,
)
from controller.daemon.timekeeping import WallDating
from controller.journal import EventRecord, Journal, LogKind
from controller.rules import Table, state_view
from controller.rules import effects as fx
from controller.rules.ops import TipCorrected, Tipped
from controller.rules.state import ROUNDS
from controller.rules.tournament import effect_fields

RECALL_HANDS = 10


@dataclass
class RecalledHand:
    """One hand rebuilt from the journal for game recall: its seats, posts, actions and result."""

    hand: int
    first_seq: int
    last_seq: int
    started: dict[str, Any]
    rebuilt: bool = True
    button: int | None = None
    small_blind: int | None = None
    big_blind: int | None = None
    dealt: list[int] = field(default_factory=list)
    seats: dict[str, dict[str, Any]] = field(default_factory=dict)  # at the start
    posts: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    streets: list[dict[str, Any]] = field(default_factory=list)
    uncalled: list[dict[str, Any]] = field(default_factory=list)
    pots: list[dict[str, Any]] = field(default_factory=list)  # as paid
    fees: dict[str, int] = field(default_factory=lambda: {"rake": 0, "jackpot": 0})
    corrections: list[dict[str, Any]] = field(default_factory=list)
    # a supervisor's transfers between this hand and the next (they correct its payout)
    transfers: list[dict[str, Any]] = field(default_factory=list)
    dealer: str | None = None  # who dealt it (the ``dealer`` signed in)
    tips: list[dict[str, Any]] = field(default_factory=list)  # tips after the hand
    # a tournament table: the level clock's changes during the hand or after it, and the
    # players out at its end (rules T1, T4)
    tournament: list[dict[str, Any]] = field(default_factory=list)
    # power losses during the hand or after it (``powerloss``: the system log's entries)
    power_losses: list[dict[str, Any]] = field(default_factory=list)
    result: str = "in progress"
    now: dict[str, Any] | None = None  # the hand in progress: phase, to act, pots
    raw: list[dict[str, Any]] = field(default_factory=list)  # only when not rebuilt

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.rebuilt:
            data.pop("raw")
        return data


def recall(journal: Journal, count: int = RECALL_HANDS) -> list[RecalledHand]:
    """The last ``count`` hands, oldest first, the one in progress included."""
    start = journal.first_seq_of_last_hands(count)
    if start is None:
        return []
    wider = journal.first_seq_of_last_hands(count + 1)  # hand 0: before the first hand
    if wider is not None and wider < start and _hand_at(journal, wider) == 0:
        start = wider
    dating = WallDating.from_log(journal.iter_system_log())
    book = RulesBook(journal)
    snapshot = snapshot_before(journal, start - 1)
    if snapshot is None and (first_seq(journal) > 1 or _first_snapshot_pruned(journal)):
        snapshot = _earliest_snapshot(journal)
    if snapshot is None and first_seq(journal) > 1:
        return _raw_hands(journal, start, dating)
    table, after, config_id = start_table(journal, book, snapshot)
    builder = _Builder(dating)
    before = _before(table)
    for record, effects in fold_records(
        table, journal.iter_events(after_seq=after), book, config_id
    ):
        if record.seq >= start:
            first_round = ROUNDS[table.settings.game.form][0]
            builder.dealer = table.state.hand_dealer  # who dealt the hand
            builder.record(record, effects, *before, first_round)
        before = _before(table)  # the state the next record meets
    builder.finish(table)
    hands = builder.hands
    if after >= start:  # no snapshot early enough: the hands before it are raw
        hands = _raw_hands(journal, start, dating, until=after) + hands
    hands = hands[-count:]
    if builder.before is not None and (not hands or hands[0].hand == 1):
        hands.insert(0, builder.before)
    _place_power_losses(journal, hands)
    return hands


def _place_power_losses(journal: Journal, hands: list[RecalledHand]) -> None:
    """Each ``power_loss`` entry with the hand it happened in (``hand`` in play) or
    after (between hands: the last hand begun by its ``last_seq``)."""
    for entry in journal.iter_system_log(kinds=[LogKind.POWER_LOSS]):
        detail = entry.detail
        seq = detail.get("last_seq")
        if not isinstance(seq, int):
            continue
        listed = next((h for h in reversed(hands) if h.first_seq <= seq), None)
        if listed is not None:
            listed.power_losses.append({"log_id": entry.id, **detail})


def _hand_at(journal: Journal, seq: int) -> int | None:
    return next((r.hand for r in journal.iter_events(after_seq=seq - 1)), None)


def _before(table: Table) -> tuple[dict[int, tuple[str, int, int]], str | None]:
    """What a record's recall needs of the table before it: each seat's player, stack
    and bet, and the betting round."""
    seats = {n: (s.player, s.stack, s.bet) for n, s in table.state.seats.items()}
    hand = table.state.hand
    return seats, hand.street if hand is not None else None


class _Builder:
    def __init__(self, dating: WallDating) -> None:
        self.dating = dating
        self.hands: list[RecalledHand] = []
        self.current: RecalledHand | None = None
        self.before: RecalledHand | None = None  # transfers before the first hand
        self.dealer: str | None = None  # the hand's dealer after the record

    def record(
        self,
        record: EventRecord,
        effects: list[fx.Effect],
        seats_before: dict[int, tuple[str, int, int]],
        street: str | None,
        first_round: str = "preflop",
    ) -> None:
        """``seats_before``: each seat's (player, stack, bet) before the record;
        ``street``: the round before this record; ``first_round``: the game form's
        first betting round (preflop, or predraw in the draw games)."""
        stamp = self.dating.for_event(
            record.seq, record.wall_ns, record.clock_synced, record.mono_ns
        ).as_json()
        for effect in effects:
            if isinstance(effect, fx.HandStarted):
                self._start(effect, record, stamp, seats_before)
                street = first_round
        hand = self.current
        for effect in effects:
            if isinstance(effect, Tipped | TipCorrected):
                tip: dict[str, Any] = {
                    "seat": effect.seat,
                    "amount": effect.amount,
                    "dealer": effect.dealer,
                    "seq": record.seq,
                    "by": record.by,
                    "time": stamp,
                }
                if isinstance(effect, TipCorrected):  # put right: what it was, by whom
                    tip["was"] = effect.was
                    tip["by"] = effect.by if effect.by is not None else record.by
                self._between(hand, record, stamp).tips.append(tip)
            if isinstance(effect, fx.LevelChanged | fx.Eliminated):
                self._between(hand, record, stamp).tournament.append(
                    {**_tournament_entry(effect), "seq": record.seq, "by": record.by, "time": stamp}
                )
            if isinstance(effect, fx.Transferred):
                self._between(hand, record, stamp).transfers.append(
                    {
                        "from": effect.from_seat,
                        "to": effect.to_seat,
                        "amount": effect.amount,
                        "reason": effect.reason,
                        "seq": record.seq,
                        "by": effect.by if effect.by is not None else record.by,
                        "time": stamp,
                    }
                )
        if hand is None or hand.result != "in progress":
            return
        hand.last_seq = record.seq
        at = _At(record, {"seq": record.seq, "by": record.by, "time": stamp}, seats_before, street)
        _device(hand, at)
        for effect in effects:
            step = _IN_HAND.get(type(effect))
            if step is not None:
                step(hand, effect, at)

    def _start(
        self,
        effect: fx.HandStarted,
        record: EventRecord,
        stamp: Any,
        seats_before: dict[int, tuple[str, int, int]],
    ) -> None:
        self.current = RecalledHand(
            hand=effect.hand,
            first_seq=record.seq,
            last_seq=record.seq,
            started=stamp,
            button=effect.button,
            small_blind=effect.small_blind,
            big_blind=effect.big_blind,
            dealt=list(effect.dealt),
            dealer=self.dealer,
            seats={
                str(n): {"player": p, "stack": stack + bet}
                for n, (p, stack, bet) in sorted(seats_before.items())
            },
        )
        self.hands.append(self.current)

    def _between(self, hand: RecalledHand | None, record: EventRecord, stamp: Any) -> RecalledHand:
        """The hand an event between hands is listed with: the one before it, or the
        entry before the journal's first hand."""
        if hand is not None:
            return hand
        listed = self.before = self.before or RecalledHand(
            hand=0,
            first_seq=record.seq,
            last_seq=record.seq,
            started=stamp,
            result="before the first hand",
        )
        listed.last_seq = record.seq
        return listed

    def finish(self, table: Table) -> None:
        hand = self.current
        if hand is None or hand.result != "in progress":
            return
        view = state_view(table)
        hand.now = {
            "phase": view["phase"],
            "to_act": view["to_act"],
            "pot_total": view["pot_total"],
            "pots": view["pots"],
            "seats": {
                k: {"stack": v["stack"], "bet": v["bet"], "status": v["status"]}
                for k, v in view["seats"].items()
            },
        }


def _tournament_entry(effect: fx.LevelChanged | fx.Eliminated) -> dict[str, Any]:
    kind = "level" if isinstance(effect, fx.LevelChanged) else "elimination"
    return {"kind": kind, **effect_fields(effect)}


@dataclass
class _At:
    """What an effect of a hand in progress is recorded with: its record, the entry
    fields (seq, by, time), each seat's (player, stack, bet) before the record and the
    betting round (moved on by a street dealt within the record)."""

    record: EventRecord
    entry: dict[str, Any]
    seats_before: dict[int, tuple[str, int, int]]
    street: str | None


def _posted(hand: RecalledHand, effect: fx.Posted, at: _At) -> None:
    hand.posts.append(
        {"seat": effect.seat, "kind": effect.kind, "live": effect.live, "dead": effect.dead}
        | at.entry
    )


def _acted(hand: RecalledHand, effect: fx.Acted, at: _At) -> None:
    _, stack, bet = at.seats_before.get(effect.seat, ("", 0, 0))
    put = effect.total - bet
    all_in = effect.action == "all_in" or (
        effect.action in ("call", "bet", "raise") and 0 < stack <= put
    )
    hand.actions.append(
        {
            "street": at.street,
            "seat": effect.seat,
            "action": effect.action,
            "to": effect.total,
            "all_in": all_in,
            "entered": _entered(at.record.event),
            "undone_seq": None,
        }
        | at.entry
    )


def _corrected(hand: RecalledHand, effect: fx.Corrected, at: _At) -> None:
    if effect.kind == "undo":
        hand.actions.append(_undo(hand.actions, effect.seat, at.street, at.record, at.entry))
    else:
        hand.corrections.append({"kind": effect.kind, "seat": effect.seat} | at.entry)


def _street_dealt(hand: RecalledHand, effect: fx.StreetDealt, at: _At) -> None:
    at.street = effect.street
    hand.streets.append({"street": effect.street, "seq": at.record.seq})


def _uncalled(hand: RecalledHand, effect: fx.UncalledReturned, at: _At) -> None:
    hand.uncalled.append({"seat": effect.seat, "amount": effect.amount})


def _pot_awarded(hand: RecalledHand, effect: fx.PotAwarded, at: _At) -> None:
    hand.pots.append(
        {
            "pot": "main" if effect.index == 0 else f"side {effect.index}",
            "amount": effect.amount,
            "shares": [{"seat": s, "amount": a} for s, a in effect.shares],
        }
        | at.entry
    )


def _fees_taken(hand: RecalledHand, effect: fx.FeesTaken, at: _At) -> None:
    hand.fees = {
        "rake": hand.fees["rake"] + effect.rake,
        "jackpot": hand.fees["jackpot"] + effect.jackpot,
    }


def _clock_expired(hand: RecalledHand, effect: fx.ClockExpired, at: _At) -> None:
    hand.corrections.append(
        {"kind": "clock_expired", "seat": effect.seat, "action": effect.action} | at.entry
    )


def _clock_started(hand: RecalledHand, effect: fx.ClockStarted, at: _At) -> None:
    """The clock called on a seat, or its time bank spent (a shot clock's start at
    each decision is no event of its own)."""
    kind = {"call_clock": "clock_called", "tick": "time_bank"}.get(str(at.record.event.get("type")))
    if kind is not None:
        hand.corrections.append({"kind": kind, "seat": effect.seat} | at.entry)


def _clock_warning(hand: RecalledHand, effect: fx.ClockWarning, at: _At) -> None:
    hand.corrections.append({"kind": "clock_warning", "seat": effect.seat} | at.entry)


def _device(hand: RecalledHand, at: _At) -> None:
    """A device lost or back during the hand (a lost keypad or display also stops play:
    its ``play_stopped`` follows)."""
    event = at.record.event
    if event.get("type") == "device" and at.record.accepted:
        hand.corrections.append(
            {"kind": "device", "device": event.get("device"), "status": event.get("status")}
            | at.entry
        )


def _play_stopped(hand: RecalledHand, effect: fx.PlayStopped, at: _At) -> None:
    """The door opened, a device lost ... or play going on again, among the corrections."""
    hand.corrections.append({"kind": "play_stopped", "causes": list(effect.causes)} | at.entry)


def _hand_ended(hand: RecalledHand, effect: fx.HandEnded, at: _At) -> None:
    if effect.hand == hand.hand:
        hand.result = "voided (misdeal)" if effect.voided else "ended"


#: What each kind of effect adds to the hand in progress it belongs to (one step each;
#: an effect not listed adds nothing).
_IN_HAND: dict[type[fx.Effect], Callable[[RecalledHand, Any, _At], None]] = {
    fx.Posted: _posted,
    fx.Acted: _acted,
    fx.Corrected: _corrected,
    fx.StreetDealt: _street_dealt,
    fx.UncalledReturned: _uncalled,
    fx.PotAwarded: _pot_awarded,
    fx.FeesTaken: _fees_taken,
    fx.ClockStarted: _clock_started,
    fx.ClockWarning: _clock_warning,
    fx.ClockExpired: _clock_expired,
    fx.PlayStopped: _play_stopped,
    fx.HandEnded: _hand_ended,
}


def _undo(
    actions: list[dict[str, Any]],
    seat: int | None,
    street: str | None,
    record: EventRecord,
    entry: dict[str, Any],
) -> dict[str, Any]:
    """The undo as a line of the hand's actions, where it happened; the action it took
    back (the seat's latest one still standing: an undo takes back the last action)
    is marked with the undo's seq."""
    undone = next(
        (
            a
            for a in reversed(actions)
            if a["action"] != "undo" and a["undone_seq"] is None and a["seat"] == seat
        ),
        None,
    )
    if undone is not None:
        undone["undone_seq"] = record.seq
    return {
        "street": street,
        "seat": seat,
        "action": "undo",
        "to": None,
        "all_in": False,
        "entered": _entered(record.event),
        "undone_seq": None,
        "undoes": undone["seq"] if undone is not None else None,
        **entry,
    }


def _entered(event: dict[str, Any]) -> str:
    if event.get("type") == "key":
        return f"key {event.get('key')}"
    return str(event.get("type"))


def _earliest_snapshot(journal: Journal) -> tuple[int, str] | None:
    with journal.mutex:
        row = journal.connection.execute(
            "SELECT seq, state FROM snapshots ORDER BY seq LIMIT 1"
        ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def _first_snapshot_pruned(journal: Journal) -> bool:
    """Whether the first event that recorded a snapshot no longer has it (pruned by a
    release that did not keep it): a fold from the journal's start could not tell
    under which rules the events were recorded (``recovery.edition_marks``)."""
    with journal.mutex:
        row = journal.connection.execute(
            "SELECT seq FROM events WHERE snapshot_sha256 IS NOT NULL ORDER BY seq LIMIT 1"
        ).fetchone()
        return (
            row is not None
            and not journal.connection.execute(
                "SELECT 1 FROM snapshots WHERE seq = ?", (row[0],)
            ).fetchone()
        )


def _raw_hands(
    journal: Journal, start: int, dating: WallDating, until: int | None = None
) -> list[RecalledHand]:
    hands: dict[int, RecalledHand] = {}
    for record in journal.iter_events(after_seq=start - 1):
        if until is not None and record.seq > until:
            break
        number = record.hand or 0
        stamp = dating.for_event(
            record.seq, record.wall_ns, record.clock_synced, record.mono_ns
        ).as_json()
        hand = hands.get(number)
        if hand is None:
            hand = hands[number] = RecalledHand(
                hand=number,
                first_seq=record.seq,
                last_seq=record.seq,
                started=stamp,
                rebuilt=False,
                result="not rebuilt",
            )
        hand.last_seq = record.seq
        hand.raw.append(
            {
                "seq": record.seq,
                "event": record.event,
                "accepted": record.accepted,
                "refusal": record.refusal_message,
                "by": record.by,
                "time": stamp,
            }
        )
    return list(hands.values())


# -- text --------------------------------------------------------------------------------

POST_NAMES = {"small_blind": "SB", "big_blind": "BB", "big_blind_ante": "BB ante"}


def as_text(hands: list[RecalledHand]) -> str:
    if not hands:
        return "No hands recorded yet.\n"
    out: list[str] = []
    for hand in hands:
        if hand.hand == 0:
            out += _before_first_text(hand)
            continue
        out.append(
            f"HAND {hand.hand}  seq {hand.first_seq}-{hand.last_seq}  "
            f"{_when(hand.started)}  [{hand.result}]"
        )
        if not hand.rebuilt:
            out += _raw_text(hand)
            continue
        out += _positions_text(hand)
        power = sorted(hand.power_losses, key=lambda item: item.get("last_seq") or 0)
        out += _actions_text(hand, power)
        out += _ending_text(hand, power)
        out.append("")
    return "\n".join(out)


def _before_first_text(hand: RecalledHand) -> list[str]:
    """What happened before the journal's first hand (hand 0)."""
    return [
        f"BEFORE HAND 1  seq {hand.first_seq}-{hand.last_seq}  {_when(hand.started)}",
        *(_transfer_text(item, "before the first hand") for item in hand.transfers),
        *(_tip_text(item) for item in hand.tips),
        *(_tournament_text(item) for item in hand.tournament),
        *(_power_text(item) for item in hand.power_losses),
        "",
    ]


def _positions_text(hand: RecalledHand) -> list[str]:
    """The positions, the dealer, the seats and the posts."""
    sb = f"SB seat {hand.small_blind}" if hand.small_blind is not None else "SB dead"
    out = [
        f"  button seat {hand.button}, {sb}, BB seat {hand.big_blind}; "
        f"dealt {' '.join(str(s) for s in hand.dealt)}; "
        f"dealer {hand.dealer or '(none signed in)'}",
        "  seats: " + ", ".join(f"{n} {v['player']} {v['stack']}" for n, v in hand.seats.items()),
    ]
    if hand.posts:
        out.append("  posts: " + "; ".join(_post_text(p) for p in hand.posts))
    return out


def _post_text(post: dict[str, Any]) -> str:
    """A post: its live part, and its dead part; an ante is all dead (A1, A2)."""
    name = POST_NAMES.get(post["kind"], post["kind"].replace("_", " "))
    if post["kind"] in ("ante", "big_blind_ante"):
        return f"{name} seat {post['seat']} {post['dead']}"
    dead = f" + {post['dead']} dead" if post["dead"] else ""
    return f"{name} seat {post['seat']} {post['live']}{dead}"


def _actions_text(hand: RecalledHand, power: list[dict[str, Any]]) -> list[str]:
    """Every action by street, with a power loss (taken from ``power``) and the
    corrections (the door, a device, the clock, dealt in error ...) among them where
    they happened, then the uncalled bets."""
    out: list[str] = []
    street = None
    corrections = list(hand.corrections)
    for action in hand.actions:
        while power and (power[0].get("last_seq") or 0) < action["seq"]:
            out.append(_power_text(power.pop(0)))  # among the actions, where it was
        while corrections and corrections[0]["seq"] <= action["seq"]:  # (a clock's expiry
            out.append(_correction_text(corrections.pop(0)))  # before the fold it made)
        if action["street"] != street:
            street = action["street"]
            out.append(f"  {street}:")
        out.append(
            f"    {_clock(action['time'])}  seq {action['seq']}  "
            f"{_action_line(action, hand.actions)}{_by(action['by'])}"
            + (f"  UNDONE (seq {action['undone_seq']})" if action["undone_seq"] else "")
        )
    out += [_correction_text(item) for item in corrections]
    for item in hand.uncalled:
        out.append(f"  uncalled: seat {item['seat']} takes back {item['amount']}")
    return out


def _correction_text(item: dict[str, Any]) -> str:
    """``play stopped (door open)``, ``device: tray lost``, ``clock expired: seat 3
    (check)``, ``dealt in error: seat 4`` ... with its seq and time."""
    at = f" at seq {item['seq']}, {_clock(item['time'])}"
    if "causes" in item:  # play stopped, or going on again, during the hand
        causes = ", ".join(cause.replace("_", " ") for cause in item["causes"])
        return f"  {f'play stopped ({causes})' if causes else 'play goes on'}{at}"
    if item["kind"] == "device":
        return f"  device: {item['device']} {item['status']}{at}"
    what = item["kind"].replace("_", " ")
    action = f" ({item['action']})" if "action" in item else ""
    return f"  {what}: seat {item['seat']}{action}{at}"


def _ending_text(hand: RecalledHand, power: list[dict[str, Any]]) -> list[str]:
    """The pots, the fees, what came between this hand and the next, and where a hand
    in progress stands."""
    out: list[str] = []
    for pot in hand.pots:
        shares = ", ".join(f"seat {s['seat']} {s['amount']}" for s in pot["shares"])
        out.append(f"  {pot['pot']} pot {pot['amount']}: {shares}  ({_clock(pot['time'])})")
    if hand.result != "in progress":
        out.append(f"  fees: rake {hand.fees['rake']}, jackpot {hand.fees['jackpot']}")
    out += [_transfer_text(item, "after the hand") for item in hand.transfers]
    out += [_tip_text(item) for item in hand.tips]
    out += [_tournament_text(item) for item in hand.tournament]
    out += [_power_text(item) for item in power]
    if hand.now is not None:
        to_act = f", seat {hand.now['to_act']} to act" if hand.now["to_act"] else ""
        out.append(f"  now: {hand.now['phase']}{to_act}, pot {hand.now['pot_total']}")
    return out


def _raw_text(hand: RecalledHand) -> list[str]:
    """A hand the journal cannot rebuild: its events as recorded."""
    out = ["  (the journal no longer holds the state before this hand; its events as recorded:)"]
    for item in hand.raw:
        verdict = "ok" if item["accepted"] else f"refused: {item['refusal']}"
        out.append(
            f"  seq {item['seq']} {_clock(item['time'])}: "
            f"{_event_text(item['event'])} -> {verdict}{_by(item['by'])}"
        )
    out.append("")
    return out


def _transfer_text(item: dict[str, Any], when: str) -> str:
    return (
        f"  transfer {when}: {item['amount']} from seat {item['from']} "
        f"to seat {item['to']} ({item['reason'].replace('_', ' ')})"
        f"{_by(item['by'])} at seq {item['seq']}, {_clock(item['time'])}"
    )


def _action_line(action: dict[str, Any], actions: list[dict[str, Any]]) -> str:
    """An action's words; an undo names the action it took back and its seq."""
    if action["action"] != "undo":
        return _action_text(action)
    undone = next((a for a in actions if a["seq"] == action["undoes"]), None)
    if undone is None:
        return f"UNDO: seat {action['seat']}'s last action taken back"
    return f"UNDO: {_action_text(undone)} (seq {undone['seq']}) taken back"


def _tournament_text(item: dict[str, Any]) -> str:
    """A level clock's change, or a player out (rules T1, T4)."""
    at = f"at seq {item['seq']}, {_clock(item['time'])}"
    if item["kind"] == "elimination":
        place = f", place {item['place']}" if item["place"] is not None else ""
        return (
            f"  out: {item['player']} (seat {item['seat']}), began the hand with "
            f"{item['stack_at_start']}{place} {at}"
        )
    stakes = f"{item['small_blind']}/{item['big_blind']} ante {item['ante']}"
    what = {
        "start": "tournament started",
        "pause": "level clock paused",
        "resume": "level clock resumed",
        "level": "level set",
        "clock": "level up",
        "break": "break",
    }[item["why"]]
    when = "after the break" if item["break"] else "from the next hand"
    return f"  {what}: level {item['level']} ({stakes}) {when}{_by(item['by'])} {at}"


def _tip_text(item: dict[str, Any]) -> str:
    to = f"dealer {item['dealer']}" if item["dealer"] else "the dealer"
    if "was" in item:  # a supervisor's correction of the last tip
        back = item["was"] - item["amount"]
        return (
            f"  tip put right: seat {item['seat']}'s tip to {to} was {item['was']}, is "
            f"{item['amount']} ({back} back to the stack){_by(item['by'])} at seq "
            f"{item['seq']}, {_clock(item['time'])}"
        )
    return (
        f"  tip: seat {item['seat']} gave {item['amount']} to {to} (toke box)"
        f"{_by(item['by'])} at seq {item['seq']}, {_clock(item['time'])}"
    )


def _power_text(item: dict[str, Any]) -> str:
    """A power loss: when the last record was written, when the table came back."""
    last = item.get("last_record")
    since = f"after {last['wall']}" if isinstance(last, dict) else "(time unknown)"
    restart = item.get("restart") or {}
    if item.get("hand") is not None:
        where = f"during the hand ({item.get('phase')})"
    else:
        where = "after the hand" if item.get("phase") is not None else "(hand not known)"
    return (
        f"  POWER LOST {where} {since}, last seq {item.get('last_seq')}; "
        f"back {restart.get('wall', '?')}"
    )


def _action_text(action: dict[str, Any]) -> str:
    kind = action["action"]
    if kind == "all_in":
        return f"seat {action['seat']} ALL-IN to {action['to']}"
    to = (
        f" to {action['to']}"
        if kind in ("bet", "raise")
        else f" {action['to']}"
        if kind == "call"
        else ""
    )
    return f"seat {action['seat']} {kind}{to}" + (" ALL-IN" if action.get("all_in") else "")


def _when(stamp: dict[str, Any]) -> str:
    """The recorded date and time; ``unsynced`` when the board's clock was not synced
    (then also the re-dated time, when a later clock sync allows it)."""
    if stamp["clock_synced"]:
        return str(stamp["wall"])
    if stamp["redated"]:
        return f"{stamp['wall']} unsynced (re-dated {stamp['redated']})"
    return f"{stamp['wall']} unsynced"


def _clock(stamp: dict[str, Any]) -> str:
    """The time of day alone (the hand's line has the date), marked when unsynced."""
    time_of_day = str(stamp["wall"]).split(" ")[-1]
    return time_of_day if stamp["clock_synced"] else f"{time_of_day} unsynced"


def _by(by: str | None) -> str:
    return f" (by {by})" if by else ""


def _event_text(event: dict[str, Any]) -> str:
    fields = " ".join(f"{k}={v}" for k, v in event.items() if k not in ("type", "by"))
    return f"{event.get('type')} {fields}".strip()
