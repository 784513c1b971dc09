"""Chip-tray reconciliation and the shift report: pure functions of the folded state
(``TableState``, whose tray ledger the rules core keeps, ``controller.rules.tray_ledger``)
and the `tray:` configuration (``TrayFloatSettings``).

    expected = opening float - chips sold at the table + fills - credits

- *opening float*: `tray.float` (chip value -> count). Empty: the tray is not checked.
- *chips sold*: every buy-in keyed at the table, ``sit`` chips and ``chips`` events
  (``TableState.bought_in``). Players who bring chips from another table are keyed the
  same way and so count as sold here; a supervisor acknowledges the difference.
- *fills* and *credits*: ``tray_fill`` / ``tray_credit`` events (FUNC 0 4 / 5).
- *rake, jackpot drop, time fees*: not counted. They go through the table slot into the
  drop box, never into the tray (the journal still reports them, per hand).
- *tips* (``tip`` events): not counted either; they go to the dealers' toke box. The
  report lists them beside the rake, never as a difference.
- players leaving with their chips take them to the cage: no tray movement either.

The tray's value is the sum of value x count of the last reading. It is compared once
the reading and the ledger have both been unchanged for `tray.stable_seconds` of table
time (``tick`` events): chips in the dealer's hand or a buy-in not yet paid out do not
raise an alarm. A non-zero difference is an alarm (display, state, log) until a
supervisor acknowledges it (``tray_ack``, FUNC 0 6): the acknowledged difference is
remembered, and only a different non-zero difference raises the alarm again.

Everything here is folded from journalled events, so ``tablectl tray`` rebuilds the
same figures from the journal or a replay file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from controller.config.daemon import TrayFloatSettings
from controller.replay import step
from controller.rules import RuleSettings, Table
from controller.rules.effects import SeatChanged
from controller.rules.state import TableState
from controller.rules.text import Message, from_json, msg, render, to_json
from controller.rules.tray_ledger import totals


@dataclass(frozen=True)
class TrayStatus:
    """The chip tray's reckoning: what it should hold, what it holds, and whether that calls
    for the alarm."""

    checked: bool  # a float is configured
    float_total: int
    sold: int
    fills: int
    credits: int
    expected: int
    counted: int | None  # None until the first reading
    difference: int | None  # counted - expected
    stable: bool
    acknowledged: int | None  # the difference the last acknowledgement accepted
    alarm: bool
    acknowledged_by: str | None = None  # the supervisor who made that acknowledgement

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def expected_value(float_total: int, sold: int, fills: int, credits: int) -> int:
    return float_total - sold + fills - credits


def status(state: TableState, settings: TrayFloatSettings) -> TrayStatus:
    fills, credits = totals(state)
    float_total = settings.float_total
    expected = expected_value(float_total, state.bought_in, fills, credits)
    counted = sum(v * c for v, c in state.tray.items()) if state.tray_read else None
    difference = counted - expected if counted is not None else None
    stable = state.tray_read and (
        state.elapsed_ms - state.tray_since_ms >= round(settings.stable_seconds * 1000)
    )
    acknowledged = None
    acknowledged_by = None
    for ack in reversed(state.tray_acks):
        if ack["read"]:
            then = expected_value(float_total, ack["sold"], ack["fills"], ack["credits"])
            acknowledged = ack["counted"] - then
            acknowledged_by = str(ack["by"]) if ack.get("by") else None
            break
    checked = bool(settings.float_counts)
    alarm = (
        checked
        and stable
        and difference is not None
        and difference != 0
        and difference != acknowledged
    )
    return TrayStatus(
        checked,
        float_total,
        state.bought_in,
        fills,
        credits,
        expected,
        counted,
        difference,
        stable,
        acknowledged,
        alarm,
        acknowledged_by,
    )


def _signed(difference: int) -> str:
    return f"+{difference}" if difference > 0 else str(difference)


def alarm_message(tray: TrayStatus) -> Message | None:
    """The display's alert (``lights.dealer_lines(alerts=...)``), or None."""
    if not tray.alarm or tray.difference is None:
        return None
    return msg("tray.alarm", difference=_signed(tray.difference))


def with_figures(view: dict[str, Any], tray: TrayStatus) -> dict[str, Any]:
    """The state view with the tray's figure on the display's words where the rules
    core cannot give it (it does not know the float): the prompt to acknowledge the
    tray names the difference (``ACKNOWLEDGE TRAY OFF BY +3400: ENTER``), and the
    acknowledgement the difference it accepted (``TRAY OFF BY +3400 ACKNOWLEDGED BY
    1042``). Without a float, or a reading, the core's words stay."""
    shown = view.get("display_text") or []
    if not tray.checked or not shown:
        return view
    key, args = shown[0][0], shown[0][1]
    if key == "prompt.tray_ack" and tray.difference is not None:
        told = msg("prompt.tray_ack_off", difference=_signed(tray.difference))
    elif key == "notice.tray_ack" and tray.acknowledged is not None:
        told = msg(
            "notice.tray_acked",
            difference=_signed(tray.acknowledged),
            supervisor=args.get("supervisor", ""),
        )
    else:
        return view
    display_text = [to_json(told), *shown[1:]]
    display = [render(from_json(m)) for m in display_text]
    return {**view, "display_text": display_text, "display": display}


def changes(before: TrayStatus, after: TrayStatus) -> list[str]:
    """What the daemon logs when an event changes the alarm (``tray_alarm``/``tray_clear``)."""
    if after.alarm and (not before.alarm or before.difference != after.difference):
        return [
            f"tray_alarm: counted {after.counted}, expected {after.expected}, "
            f"difference {after.difference}"
        ]
    if before.alarm and not after.alarm:
        by = after.acknowledged_by
        acked = (
            f" acknowledged by supervisor {by}"
            if by and after.difference and after.difference == after.acknowledged
            else ""
        )
        return [f"tray_clear: difference {after.difference}{acked}"]
    return []


def report(
    state: TableState,
    settings: TrayFloatSettings,
    *,
    table_id: str = "",
    buy_ins: Iterable[Mapping[str, Any]] = (),
) -> list[str]:
    """The shift report: the float, the movements and any discrepancy.

    ``buy_ins`` (``{"hand", "at_ms", "seat", "amount", "by"}``, from ``fold``) lists the chips sold one by one
    when the caller folded the events itself (``tablectl tray``); the state keeps only
    their total.
    """
    tray = status(state, settings)
    out = [f"TRAY REPORT {table_id}".rstrip(), ""]
    if settings.float_counts:
        detail = ", ".join(f"{c} x {v}" for v, c in sorted(settings.float_counts.items()))
        out.append(f"opening float     {tray.float_total:>10}   ({detail})")
    else:
        out.append("opening float     (none configured: the tray is not checked)")
    out.append(f"chips sold        {-tray.sold:>10}")
    out.append(f"fills             {tray.fills:>+10}")
    out.append(f"credits           {-tray.credits:>+10}")
    out.append(f"expected          {tray.expected:>10}")
    out += _counted_lines(state, tray)
    out += _drop_lines(state)
    out += ["", "movements:"]
    return out + _movement_lines(state, buy_ins)


def _counted_lines(state: TableState, tray: TrayStatus) -> list[str]:
    """What the tray counted and its difference from what was expected, with the
    verdict (alarm, acknowledged, a reading not yet stable)."""
    if tray.counted is None:
        return ["counted           (no tray reading)"]
    counts = ", ".join(f"{c} x {v}" for v, c in sorted(state.tray.items())) or "empty"
    acked = tray.difference == tray.acknowledged and tray.difference
    by = f" by supervisor {tray.acknowledged_by}" if tray.acknowledged_by else ""
    verdict = "ALARM" if tray.alarm else (f"acknowledged{by}" if acked else "")
    if not tray.stable:
        verdict = (verdict + " (reading not yet stable)").strip()
    return [
        f"counted           {tray.counted:>10}   ({counts})",
        f"difference        {tray.difference:>+10}   {verdict}".rstrip(),
    ]


def _drop_lines(state: TableState) -> list[str]:
    """What went to the drop box and the toke box, never the tray."""
    out = [
        f"rake dropped      {state.rake_total:>10}   (drop box, not the tray)",
        f"jackpot dropped   {state.jackpot_total:>10}   (drop box, not the tray)",
    ]
    if state.time_fees_total:
        out.append(f"time fees         {state.time_fees_total:>10}   (drop box, not the tray)")
    if state.tips_total:
        out.append(f"tips              {state.tips_total:>10}   (toke box, not the tray)")
    return out


def _movement_lines(state: TableState, buy_ins: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every chip sold, fill, credit and acknowledgement, in table order."""
    rows: list[tuple[int, int, str]] = []
    for b in buy_ins:
        rows.append(
            (
                int(b["hand"]),
                int(b.get("at_ms", 0)),
                f"  hand {b['hand']:>4}  sold {b['amount']:>9}  seat {b['seat']}{_by(b.get('by'))}",
            )
        )
    for m in state.tray_moves:
        moved = m["counts"] or {}
        detail = " (" + ", ".join(f"{c} x {v}" for v, c in moved.items()) + ")" if moved else ""
        rows.append(
            (
                int(m["hand"]),
                int(m["at_ms"]),
                f"  hand {m['hand']:>4}  {m['kind']:<6}{m['amount']:>9}{detail}{_by(m['by'])}",
            )
        )
    for a in state.tray_acks:
        rows.append(
            (
                int(a["hand"]),
                int(a["at_ms"]),
                f"  hand {a['hand']:>4}  acknowledged at counted "
                f"{a['counted']}{_by(a['by'], 'supervisor ')}",
            )
        )
    return [text for _, _, text in sorted(rows, key=lambda r: r[:2])] or ["  (none)"]


def _by(who: Any, role: str = "") -> str:
    return f"  by {role}{who}" if who else ""


SOLD = ("sat", "chips", "chips_pending")


def fold(
    rules: RuleSettings,
    events: Iterable[Mapping[str, Any]],
    pin_verifier: Callable[[str, str], bool] | None = None,
    settings_for: Callable[[int], RuleSettings] | None = None,
    *,
    recorded: bool = False,
) -> tuple[Table, list[dict[str, Any]]]:
    """Replay input events (as in a journal or a replay file) and list every buy-in.

    ``settings_for(n)``, if given, gives the rules in force for the n-th event (a
    journal records configuration changes between hands). Refused events change
    nothing, as in replay.
    """
    table = Table(rules, pin_verifier=pin_verifier)
    buy_ins: list[dict[str, Any]] = []
    for number, obj in enumerate(events, start=1):
        if settings_for is not None:
            table.reconfigure(settings_for(number))
        before = table.state.bought_in
        done = step(table, obj, recorded=recorded)
        sold = table.state.bought_in - before
        if done.ok and sold > 0:
            seat = next(
                (e.seat for e in done.effects if isinstance(e, SeatChanged) and e.change in SOLD),
                None,
            )
            buy_ins.append(
                {
                    "hand": table.state.hand_number,
                    "at_ms": table.state.elapsed_ms,
                    "seat": seat,
                    "amount": sold,
                    "by": obj.get("by"),
                }
            )
    return table, buy_ins
