"""Scenario files: a table configuration, the events of a replay file, and what each
event must produce.

A scenario is a YAML file in ``tests/scenarios/`` named after the rule it proves
(``B7_new_player_behind_blinds.yaml``)::

    rule: B7
    title: a new player between the button and the big blind waits
    config:            # merged over BASE_CONFIG, section by section
      game: {button: dead}
    events:
      - {type: sit, seat: 1, player: ana, chips: 1000}
      - {type: act, seat: 4, action: raise, to: 30, refused: bad_amount}
      - {type: state, expect: {button: 8, seats: {"2": {stack: 995}}}}

``refused: CODE`` says the event must be refused with that code (``refused: true``:
any code); every other event must be accepted. ``message: TEXT`` (with ``refused``)
says the refusal's message must contain TEXT ("MIN RAISE TO 20"). ``expect`` is matched against the
state printed by a ``state`` event: every key given must be equal, keys not given
are not checked (dicts compare key by key, lists and values exactly). Two YAML tags
make a claim about what is *not* there, so that it can fail:

- ``!exactly {...}``: the object must have exactly these keys, no more
  (``seats: !exactly {"1": {...}, "3": {...}}``: seats 1 and 3 are the only ones
  taken; each listed value is still matched as usual);
- ``!absent``: the key must not be there at all (``seats: {"7": !absent }``: seat 7
  is empty, its player gone; in a ``{...}`` mapping leave a space before ``}``).

A plain ``seats`` listing that names every seat taken is reported: it must be written
``!exactly`` (``loose_full_listing``), so that a listing of all seats can fail.
The events run through ``controller.replay``, the code behind ``tablectl replay``.
``{keys: "FUNC 1 3 ENTER"}`` stands for one ``key`` event per key (see ``expand_keys``).
``pins: {SUPERVISOR_ID: PIN}`` gives the table a supervisor PIN verifier, as the daemon
does (``controller.supervisor_pins``); without it supervisor PINs are refused as unavailable.
``rules_edition: N`` folds the events as the release of that rules edition played them
(``controller.rules.state.RULES_EDITION``: a journal an earlier release recorded).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from controller.config import load_config_text
from controller.replay import decode, dumps, process, replay
from controller.rules import Refusal, RuleSettings, Table
from controller.rules.state import RULES_EDITION, TableState

SCENARIOS = Path(__file__).parent / "scenarios"

BASE_CONFIG: dict[str, Any] = {
    "table": {"id": "T1", "seats": 9},
    "game": {
        "structure": "no_limit",
        "small_blind": 5,
        "big_blind": 10,
        "smallest_chip": 5,
        "button": "dead",
        "first_button": "last_seat",
    },
}


def merged_config(overrides: dict[str, Any] | None) -> dict[str, Any]:
    config = copy.deepcopy(BASE_CONFIG)
    for section, values in (overrides or {}).items():
        if isinstance(values, dict) and isinstance(config.get(section), dict):
            config[section].update(values)
        else:
            config[section] = values
    return config


class Absent:
    """``!absent``: the key must not be in the state."""

    def __repr__(self) -> str:
        return "!absent"


ABSENT = Absent()


class Exactly(dict[str, Any]):
    """``!exactly {...}``: an object with exactly these keys (values matched as usual)."""


class ScenarioLoader(yaml.SafeLoader):
    pass


def _absent(loader: yaml.SafeLoader, node: yaml.Node) -> Absent:
    return ABSENT


def _exactly(loader: yaml.SafeLoader, node: yaml.Node) -> Exactly:
    assert isinstance(node, yaml.MappingNode), "!exactly takes a mapping"
    return Exactly(loader.construct_mapping(node, deep=True))


ScenarioLoader.add_constructor("!absent", _absent)
ScenarioLoader.add_constructor("!exactly", _exactly)


def subset_mismatches(expected: Any, actual: Any, path: str = "") -> list[str]:
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path or 'state'}: expected an object, got {actual!r}"]
        problems = []
        if isinstance(expected, Exactly):
            extra = sorted(set(actual) - {str(k) for k in expected})
            if extra:
                problems.append(
                    f"{path or 'state'}: unexpected keys {extra} (expected exactly "
                    f"{sorted(str(k) for k in expected)})"
                )
        for key, value in expected.items():
            if value is ABSENT:
                if str(key) in actual:
                    problems.append(f"{path}.{key}: expected absent, got {actual[str(key)]!r}")
                continue
            if str(key) not in actual:
                problems.append(f"{path}.{key}: missing (have {sorted(actual)})")
                continue
            problems += subset_mismatches(value, actual[str(key)], f"{path}.{key}")
        return problems
    if expected != actual:
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


def load(path: Path) -> dict[str, Any]:
    return load_text(path.read_text(encoding="utf-8"), path.name)


def load_text(text: str, name: str = "<scenario>") -> dict[str, Any]:
    data = yaml.load(text, Loader=ScenarioLoader)  # a SafeLoader with two tags
    assert isinstance(data, dict) and "events" in data, f"{name}: needs events"
    data["events"] = expand_keys(data["events"])
    return data


def expand_keys(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{keys: "FUNC 1 3 ENTER"}`` is shorthand for one ``key`` event per key; other
    fields (``by``) go on each, ``refused``/``message`` on the last key only."""
    out = []
    for event in events:
        if "keys" not in event:
            out.append(event)
            continue
        keys = str(event["keys"]).split()
        common = {k: v for k, v in event.items() if k not in ("keys", "refused", "message")}
        last = {k: v for k, v in event.items() if k in ("refused", "message")}
        for index, key in enumerate(keys):
            out.append(
                {"type": "key", "key": key, **common, **(last if index == len(keys) - 1 else {})}
            )
    return out


def event_lines(data: dict[str, Any]) -> list[str]:
    lines = []
    for event in data["events"]:
        clean = {k: v for k, v in event.items() if k not in ("expect", "refused", "message")}
        lines.append(dumps(clean))
    return lines


def replay_with_pins(
    rules: RuleSettings, lines: list[str], pins: dict[Any, Any], edition: int = RULES_EDITION
) -> list[dict[str, Any]]:
    """Replay with a supervisor PIN verifier, as the daemon injects one
    (controller.supervisor_pins), the events folded under the rules ``edition`` (a
    scenario's ``rules_edition``: as an earlier release played them, a journal it
    recorded)."""
    known = {str(k): str(v) for k, v in pins.items()}
    table = Table(
        rules,
        TableState(rules_edition=edition),
        pin_verifier=lambda supervisor, pin: known.get(supervisor) == pin,
    )
    results = []
    for seq, text in enumerate(lines, start=1):
        try:
            results.append(process(table, decode(text), seq))
        except Refusal as refusal:
            results.append({"seq": seq, "ok": False, "error": refusal.as_dict()})
    return results


def run(data: dict[str, Any]) -> list[str]:
    """Run a scenario; return every mismatch, described."""
    config = merged_config(data.get("config"))
    settings = load_config_text(yaml.safe_dump(config), "<scenario config>")
    if "pins" in data or "rules_edition" in data:
        edition = int(data.get("rules_edition", RULES_EDITION))
        results = replay_with_pins(settings.rules, event_lines(data), data.get("pins", {}), edition)
    else:
        results = list(replay(settings.rules, event_lines(data)))
    problems = []
    for event, result in zip(data["events"], results, strict=True):
        where = (
            f"event {result['seq']} {json.dumps({k: v for k, v in event.items() if k != 'expect'})}"
        )
        refused = event.get("refused")
        if refused:
            if result["ok"]:
                problems.append(f"{where}: accepted, expected refusal {refused}")
            elif refused is not True and result["error"]["code"] != refused:
                problems.append(f"{where}: refused with {result['error']}, expected {refused}")
            elif "message" in event and event["message"] not in result["error"]["message"]:
                problems.append(
                    f"{where}: refused with {result['error']}, "
                    f"expected a message with {event['message']!r}"
                )
        elif not result["ok"]:
            problems.append(f"{where}: refused: {result['error']}")
        if "expect" in event:
            if "state" not in result:
                problems.append(f"{where}: expect needs a state event")
            else:
                problems += [
                    f"{where}: {p}" for p in subset_mismatches(event["expect"], result["state"])
                ]
                problems += [
                    f"{where}: {p}" for p in loose_full_listing(event["expect"], result["state"])
                ]
    return problems


def loose_full_listing(expected: Any, state: dict[str, Any]) -> list[str]:
    """A ``seats`` expectation naming every seat taken must say so with ``!exactly``:
    as a subset it would still pass with another seat taken (issue 12)."""
    seats = expected.get("seats") if isinstance(expected, dict) else None
    if (
        not isinstance(seats, dict)
        or isinstance(seats, Exactly)
        or any(value is ABSENT for value in seats.values())
    ):
        return []
    if {str(key) for key in seats} != set(state.get("seats", {})):
        return []
    return [".seats: lists every seat taken: write it as !exactly {...}"]
