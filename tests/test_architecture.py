"""The rules of the program's structure, in one place, each with why it exists.

Behaviour has its own tests, module by module; these hold the shape that keeps the
behaviour easy to keep right: which layer may import which (docs/architecture.md,
"The layers"), what a command loads at its start, and facts written in one place only
(one source each), read from the source files themselves (``ast``) or from a process
started for the purpose. A failure names the rule and the reason; change the rule here,
with its reason, rather than work around it.
"""

from __future__ import annotations

import ast
import gc
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from drivers.interfaces import Pattern

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "controller" / "rules"
JOURNAL = ROOT / "controller" / "journal"
DRIVERS = ROOT / "drivers"
OWN = ("controller", "drivers")


@cache
def _tree(path: Path) -> ast.Module:
    """A source file's syntax tree, parsed once for all the scans below."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _imported(path: Path) -> Iterator[str]:
    """Every module a source file imports, wherever in the file (absolute names)."""
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


# -- the layers -------------------------------------------------------------------------

#: What the rules core may import besides itself: pure parts of the standard library.
PURE_STANDARD_LIBRARY = frozenset(
    {
        "__future__",
        "collections",
        "collections.abc",
        "copy",
        "dataclasses",
        "enum",
        "functools",
        "itertools",
        "math",
        "operator",
        "re",
        "string",
        "types",
        "typing",
    }
)


def test_the_rules_core_imports_only_itself_and_pure_standard_modules() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {module}"
        for path in sorted(RULES.rglob("*.py"))
        for module in _imported(path)
        if not module.startswith("controller.rules") and module not in PURE_STANDARD_LIBRARY
    ]
    assert found == [], (
        "the rules core does no I/O, reads no clock, starts no thread and draws no random "
        "number, so that the daemon, replay, recovery and the tests fold the same events "
        "to the same state; it imports nothing of the shell or the drivers. Add a standard "
        "module to PURE_STANDARD_LIBRARY only if it does none of those: " + str(found)
    )


def test_the_drivers_never_import_the_controller() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {module}"
        for path in sorted(DRIVERS.rglob("*.py"))
        for module in _imported(path)
        if module.split(".")[0] == "controller"
    ]
    assert found == [], (
        "the drivers report device-level events in their own types and the shell turns "
        "them into rules events; a driver that imports the controller ties the hardware "
        "layer to the rules and the daemon: " + str(found)
    )


def test_the_code_cites_only_documents_in_the_repository() -> None:
    cited = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in OWN
        for path in sorted((ROOT / package).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\b(DESIGN|RULES)\.md\b", line)
    ]
    assert cited == [], (
        "DESIGN.md and RULES.md were the project's design card and rule book, which are "
        "not in the repository: cite docs/architecture.md, docs/replay.md, "
        "docs/rulebook.md or docs/rules.md instead: " + str(cited)
    )


# -- what a command loads at its start --------------------------------------------------
# Each `tablectl` command imports only what it needs: a Pi's core pays tens of
# milliseconds for gpiozero, pyserial, paho-mqtt (and ssl), sqlite3 or the bench screen,
# so `replay`, `check-config` and the like must not load them.

HEAVY = (
    "gpiozero",
    "serial",
    "paho",
    "ssl",
    "sqlite3",
    "curses",
    "controller.bench",
    "drivers.build",
    "controller.floor",
    "controller.daemon.service",
    "controller.daemon.process",
)

PROBE = """\
import json, sys
from controller.cli import main
code = main(sys.argv[2:])
heavy = sorted({name for name in sys.modules for prefix in sys.argv[1].split(",")
                if name == prefix or name.startswith(prefix + ".")})
print(json.dumps({"code": code, "heavy": heavy}), file=sys.stderr)
"""


def loaded(*arguments: str, modules: tuple[str, ...] = HEAVY) -> dict[str, object]:
    """`tablectl ARGUMENTS` run in a new process: its exit code, and which of
    ``modules`` (and their submodules) it loaded."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(modules), *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return dict(json.loads(result.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "arguments",
    [
        ("replay", "--config", "docs/samples/side-pot.yaml", "docs/samples/side-pot.jsonl"),
        ("check-config", "config/bench.yaml"),
        ("pin", "--file", "/nonexistent/pins", "list"),
    ],
)
def test_a_command_loads_none_of_the_heavy_libraries(arguments: tuple[str, ...]) -> None:
    found = loaded(*arguments)
    assert found["heavy"] == [], (
        "a command that needs no device, broker, journal or screen must not pay for their "
        f"libraries at its start (tens of milliseconds on a Pi's core): {found}"
    )


#: What plain replay's start does without (issue 14, "Fast on a Pi"): OpenSSL for
#: ``hashlib`` (the configuration's digest is the daemon's), ``string`` (the catalogue
#: tests' placeholders), "did you mean" suggestions, the user's name, threads, the
#: display's wording, the journal.
NOT_FOR_REPLAY = (
    "hashlib",
    "string",
    "difflib",
    "getpass",
    "threading",
    "textwrap",
    "controller.lights",
    "controller.durable",
    "controller.journal",
    "controller.daemon",
)


def test_replay_loads_only_what_replay_needs() -> None:
    found = loaded(
        "replay",
        "--config",
        "docs/samples/side-pot.yaml",
        "docs/samples/side-pot.jsonl",
        modules=NOT_FOR_REPLAY,
    )
    assert found == {"code": 0, "heavy": []}, (
        "replay's start is part of its measured whole-process figure (README, Measured): "
        f"load these only where they are used: {found}"
    )


def test_replay_loads_the_keypad_grammar_with_the_first_key(tmp_path: Path) -> None:
    """The keypad grammar (and its pages) comes with the first ``key`` event or
    ``state`` query, not with the table: a file of plain events does without it."""
    sample = (ROOT / "docs/samples/side-pot.jsonl").read_text().splitlines()
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(line + "\n" for line in sample if '"state"' not in line))
    keyed = tmp_path / "keyed.jsonl"
    keyed.write_text(plain.read_text() + '{"type": "key", "key": "NEXT"}\n')
    config = "docs/samples/side-pot.yaml"
    keypad = ("controller.rules.keypad",)
    assert loaded("replay", "--config", config, str(plain), modules=keypad) == {
        "code": 0,
        "heavy": [],
    }
    found = loaded("replay", "--config", config, str(keyed), modules=keypad)
    assert found["code"] == 0 and "controller.rules.keypad.grammar" in found["heavy"], (
        f"the first key loads the grammar: {found}"
    )


def test_the_program_keeps_its_start_out_of_the_collectors_way() -> None:
    """Run as the program, `tablectl` freezes what its start made (``gc.freeze``) and
    leaves the collector on; a caller in the same process keeps its collector as is."""
    probe = (
        "import gc, sys\n"
        "from controller.cli import main\n"
        "sys.argv = ['tablectl', '--version']\n"
        "main()\n"
        "print(gc.isenabled(), gc.get_freeze_count() > 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.stdout.splitlines()[-1] == "True True", (
        "the records and tables made at start never become garbage: frozen, the collector "
        "does not walk them again on every collection of a long run"
    )
    frozen = gc.get_freeze_count()
    assert main(["--version"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen


# -- handlers that hide mistakes (issue 16, item 3) ------------------------------------
# - An ``except ImportError`` around an import of the project's own modules turns a
#   renamed or broken module into a feature that quietly goes missing (a daemon without
#   supervisor PINs, without the floor link) instead of an error at start.
# - An ``except (JournalError, OSError, Exception)`` reads as if it caught three things
#   and catches everything: say ``except Exception`` and why, or name what is meant.


def _sources() -> Iterator[tuple[Path, ast.Module]]:
    for package in OWN:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path, _tree(path)


def _names(handler: ast.ExceptHandler) -> list[str]:
    kind = handler.type
    items = kind.elts if isinstance(kind, ast.Tuple) else [kind] if kind is not None else []
    return [ast.unparse(item) for item in items]


def _own_imports(body: list[ast.stmt]) -> list[str]:
    found = []
    for node in body:
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and inner.module and inner.level == 0:
                modules = [inner.module]
            elif isinstance(inner, ast.Import):
                modules = [alias.name for alias in inner.names]
            else:
                continue
            found += [m for m in modules if m.split(".")[0] in OWN]
    return found


def test_no_import_error_guard_on_the_projects_own_modules() -> None:
    guarded = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Try):
                continue
            catches = {name for h in node.handlers for name in _names(h)}
            if catches & {"ImportError", "ModuleNotFoundError"}:
                guarded += [
                    f"{path.relative_to(ROOT)}:{node.lineno}: {module}"
                    for module in _own_imports(node.body)
                ]
    assert guarded == [], (
        "a guarded import of our own module turns a broken module into a feature that "
        f"quietly goes missing, instead of an error at start: {guarded}"
    )


def test_no_handler_lists_exception_beside_other_types() -> None:
    redundant = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler):
                names = _names(node)
                if len(names) > 1 and ({"Exception", "BaseException"} & set(names)):
                    redundant.append(f"{path.relative_to(ROOT)}:{node.lineno}: {names}")
    assert redundant == [], (
        "a handler that names Exception beside other types reads as if it caught those "
        f"and catches everything: write `except Exception` and why: {redundant}"
    )


#: The most lines a function of the program may span (its signature and docstring
#: included); its branching is held below (and by ruff's C901, pyproject.toml).
FUNCTION_LINES_MAX = 80

#: The most branches a function of the program may have (``complexity``).
COMPLEXITY_MAX = 20

#: What adds a way through a function: a branch or loop, a conditional expression, an
#: except clause, an assert, a case of a match, each ``for`` and ``if`` of a
#: comprehension (each ``and``/``or`` operand and a loop's or try's ``else`` are
#: counted in ``complexity``).
_BRANCHES = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.IfExp,
    ast.ExceptHandler,
    ast.Assert,
    ast.match_case,
)


def complexity(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """A function's cyclomatic complexity as radon counts it, the functions and lambdas
    written inside it included (they are read with it): 1, and one for each way through
    it more (``_BRANCHES``, each boolean operand after the first, a comprehension's
    loops and conditions). ruff's C901 counts no boolean operand and no comprehension,
    so a function of 31 passed it (issue 31, item 19)."""
    count = 1
    for node in ast.walk(function):
        if isinstance(node, _BRANCHES):
            count += 1
        if isinstance(node, ast.BoolOp):
            count += len(node.values) - 1
        if isinstance(node, ast.comprehension):
            count += 1 + len(node.ifs)
        if isinstance(node, ast.Try | ast.For | ast.AsyncFor | ast.While) and node.orelse:
            count += 1
    return count


def test_no_function_is_over_complexity_20() -> None:
    over = [
        f"{path.relative_to(ROOT)}:{node.lineno}: {node.name} ({complexity(node)})"
        for path, tree in _sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and complexity(node) > COMPLEXITY_MAX
    ]
    assert over == [], (
        f"a function of more than {COMPLEXITY_MAX} ways through cannot be tested way by way, "
        "and its next reader changes one branch without seeing the others: split it into "
        "named steps, or a table of handlers as controller/rules/table.py does (issue 31, "
        f"item 19): {over}"
    )


def test_complexity_counts_what_ruff_does_not() -> None:
    """The measure is the one the issue's figures were taken with: a guard of three
    conditions and a comprehension with a filter are five ways more than a plain
    statement."""
    source = "def f(a, b, c, xs):\n    if a and b or c:\n        return [x for x in xs if x]\n"
    (function,) = ast.parse(source).body
    assert isinstance(function, ast.FunctionDef)
    assert complexity(function) == 1 + 1 + 2 + 2


def test_no_function_is_80_lines_or_longer() -> None:
    long = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines >= FUNCTION_LINES_MAX:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.name} ({lines})")
    assert long == [], (
        f"a function of {FUNCTION_LINES_MAX} lines or more cannot be read in one screen, "
        "so its next reader changes one branch without seeing the others: split it into "
        "named steps, or a table of handlers as controller/rules/table.py does (issue 26, "
        f"item 5): {long}"
    )


def test_a_class_written_in_parts_declares_its_attributes_once() -> None:
    """The controller, the journal and the floor publisher are each written in several
    modules; their attributes are declared once, in the host class the parts derive from
    (``controller/daemon/host.py``, ``controller/journal/host.py``,
    ``controller/floor/host.py``)."""
    again = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(base).endswith("Host") for base in node.bases
            ):
                again += [
                    f"{path.relative_to(ROOT)}:{item.lineno}: {node.name}.{ast.unparse(item.target)}"
                    for item in node.body
                    if isinstance(item, ast.AnnAssign)
                ]
    assert again == [], (
        "a part that declares its host's attributes again can give one a second type "
        f"that nothing checks against the first: declare it in the host (issue 26, item 4): {again}"
    )


def test_every_part_of_a_class_written_in_parts_derives_from_its_host() -> None:
    """A part (a ``...Mixin`` class) that does not derive from its host escapes the test
    above: it can declare the host's attributes again with types of its own (``Any``)
    that nothing checks (issue 31, item 21)."""
    loose = [
        f"{path.relative_to(ROOT)}:{node.lineno}: {node.name}"
        for path, tree in _sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and node.name.endswith("Mixin")
        and not any(ast.unparse(base).endswith("Host") for base in node.bases)
    ]
    assert loose == [], f"a part of a class written in parts must derive from its host: {loose}"


# -- one source each: a fact written in one place ---------------------------------------


def test_refusals_are_folded_in_one_place() -> None:
    """Outside the rules core only ``controller/replay.py`` folds a refusal
    (``Table.refused``): replay, the tray report, the recorder, recovery and recall
    all go through ``refuse``, so none can fold one differently (issue 16, item 7)."""
    callers = []
    for path in sorted((ROOT / "controller").rglob("*.py")):
        if "rules" in path.relative_to(ROOT / "controller").parts[:1]:
            continue
        for node in ast.walk(_tree(path)):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "refused"
                and isinstance(node.ctx, ast.Load)
            ):
                callers.append(str(path.relative_to(ROOT)))
    assert sorted(set(callers)) == ["controller/replay.py"], (
        "replay, the tray report, the recorder, recovery and recall must fold a refusal "
        f"the same way: through controller.replay.refuse only: {sorted(set(callers))}"
    )


def test_the_rules_core_refuses_only_through_the_catalogue() -> None:
    """One source for each refusal: no module of the core writes a refusal's words; it
    names a code and a catalogue message (``text.refuse``)."""
    found = []
    for path in sorted(RULES.rglob("*.py")):
        if path.name in ("errors.py", "text.py"):
            continue
        for node in ast.walk(_tree(path)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Refusal"
            ):
                found.append(f"{path.relative_to(RULES)}:{node.lineno}")
    assert not found, "raise text.refuse(code, key, ...) instead of Refusal at " + str(found)


def test_the_pattern_names_are_listed_only_by_the_drivers() -> None:
    """``drivers.interfaces.Pattern`` is the one list of the light patterns: the daemon's
    configuration, the bench's lamps and the bench's figures take them from there
    (issue 16, item 7). A literal collection of two or more of their names elsewhere
    in the firmware or the benches is a second list."""
    names = {p.value for p in Pattern}
    lists = []
    for folder in ("controller", "drivers", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(_tree(path)):
                items: list[ast.expr | None] = []
                if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                    items = list(node.elts)
                elif isinstance(node, ast.Dict):
                    items = list(node.keys)
                written = {
                    i.value for i in items if isinstance(i, ast.Constant) and i.value in names
                }
                if len(written) >= 2:
                    lists.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert lists == [], (
        "a second list of the light patterns falls out of step with drivers.interfaces."
        f"Pattern when a pattern is added: take them from there: {lists}"
    )


def test_the_creation_settings_are_applied_in_one_place() -> None:
    users = []
    for path in sorted(JOURNAL.rglob("*.py")):
        tree = _tree(path)
        for func in ast.walk(tree):
            if isinstance(func, ast.FunctionDef) and any(
                isinstance(n, ast.Name)
                and n.id in ("CREATION_PRAGMAS", "schema_statements")
                and isinstance(n.ctx, ast.Load)
                for n in ast.walk(func)
            ):
                users.append(f"{path.stem}.{func.name}")
    assert users == ["files.begin_new_database"], (
        "the journal, its archives and the salvage's new database must be made alike: "
        f"only files.begin_new_database applies the creation settings: {users}"
    )


def test_only_the_base_makes_a_link() -> None:
    makers = []
    for path in sorted(DRIVERS.rglob("*.py")):
        for node in ast.walk(_tree(path)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "SerialLink"
            ):
                makers.append(str(path.relative_to(DRIVERS)))
    assert makers == ["serial_device.py"], (
        "every serial device's link is made from its settings in one place "
        f"(drivers/serial_device.py), so no driver reads them differently: {makers}"
    )


def _functions_that(match: type[ast.AST], test: Callable[[Any], bool]) -> list[str]:
    """``module.function`` for every node of type ``match`` in the rules core for which
    ``test(node)`` holds."""
    found = []
    for path in sorted(RULES.rglob("*.py")):
        tree = _tree(path)
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, match) and test(node):
                    found.append(f"{path.stem}.{func.name}")
    return sorted(set(found))


def _assigns(node: ast.Assign, name: str) -> bool:
    targets: list[ast.expr] = []
    for target in node.targets:
        targets += target.elts if isinstance(target, ast.Tuple) else [target]
    return any(isinstance(t, ast.Attribute) and t.attr == name for t in targets)


def test_a_seats_part_in_a_hand_is_set_in_one_place() -> None:
    """Dealing a seat in and clearing it after the hand were written out three times
    (the hand's start, its end, B11's keep ruling); now only ``hand`` does it."""
    why = "a seat dealt in or cleared in a second place drifts from the first (fields missed)"
    assert _functions_that(ast.Assign, lambda n: _assigns(n, "in_hand")) == [
        "hand.clear_hand",
        "hand.deal_in",
    ], why
    assert _functions_that(ast.Assign, lambda n: _assigns(n, "gathered")) == ["hand.clear_hand"], (
        why
    )


def test_a_seat_comes_back_in_one_place() -> None:
    """Sitting in and a busted seat's new chips (B12) both end the seat's absence."""

    def back(node: ast.Assign) -> bool:
        return (
            _assigns(node, "away")
            and isinstance(node.value, ast.Constant)
            and node.value.value is False
        )

    assert _functions_that(ast.Assign, back) == ["seating.come_back"], (
        "ending an absence also settles its markers and waits: one function does it all"
    )


def test_the_button_fallback_is_written_once() -> None:
    """``positions.button or hand.dealt[-1]`` stood in four places."""

    def fallback(node: ast.BoolOp) -> bool:
        first, *rest = node.values
        return (
            isinstance(first, ast.Attribute)
            and first.attr == "button"
            and any(
                isinstance(v, ast.Subscript)
                and isinstance(v.value, ast.Attribute)
                and v.value.attr == "dealt"
                for v in rest
            )
        )

    assert _functions_that(ast.BoolOp, fallback) == ["hand.button_seat"], (
        "where a hand counts from is one rule: call hand.button_seat"
    )


def test_a_seats_standing_in_the_hand_is_tested_in_one_place() -> None:
    """``in_hand and not folded`` (``Seat.live``) and ``... and not all_in``
    (``Seat.can_act``) were written out in five places of ``betting`` and ``hand`` for
    speed; the properties cost nothing the bench can see (bench/rules_throughput.py)."""

    def written_out(node: ast.BoolOp) -> bool:
        names = {
            v.attr if isinstance(v, ast.Attribute) else getattr(v.operand, "attr", None)
            for v in node.values
            if isinstance(v, ast.Attribute)
            or (isinstance(v, ast.UnaryOp) and isinstance(v.operand, ast.Attribute))
        }
        return isinstance(node.op, ast.And) and {"in_hand", "folded"} <= names

    assert _functions_that(ast.BoolOp, written_out) == ["state.can_act", "state.live"], (
        "whether a seat is still in the hand is one rule: read Seat.live or Seat.can_act"
    )


def test_the_raise_cap_is_written_once() -> None:
    """R4's cap (the bets of the street, three or more able to act) stood in both the
    refusal of a raise and the action that reaches it."""

    def reads_the_cap(node: ast.Attribute) -> bool:
        return node.attr == "cap_raises" and isinstance(node.ctx, ast.Load)

    assert _functions_that(ast.Attribute, reads_the_cap) == ["betting.cap_reached"], (
        "a cap worked out in two places drifts: call betting.cap_reached"
    )


def test_the_table_keeps_nothing_between_a_check_and_its_deed() -> None:
    """``Table.check`` kept what it found (a hand's plan, an action's kind and total, an
    award's pots) in hidden fields that the next deed reused when handed the same event,
    and every copy of a table had to carry them. A check returns it (``Found``) and
    ``apply`` hands it to the deed."""
    from controller.rules import Table, parse_event
    from controller.rules.settings import GameSettings, RuleSettings
    from controller.rules.table import Found

    table = Table(RuleSettings(seats=6, game=GameSettings(small_blind=1, big_blind=2)))
    own = set(vars(table))
    for seat in (1, 2, 3):
        table.apply(parse_event({"type": "sit", "seat": seat, "player": f"p{seat}", "chips": 100}))
    start = parse_event({"type": "start_hand"})
    found = table.check(start)
    assert isinstance(found, Found) and found.plan is not None
    assert set(vars(table)) == own, "a check leaves nothing on the table for the deed"
    table.apply(start)
    to_act = table.state.hand.to_act if table.state.hand else None
    act = parse_event({"type": "act", "seat": to_act, "action": "raise", "to": 6})
    assert table.check(act) == Found(action=("raise", 6))
    assert set(vars(table)) == own


def test_a_snapshot_reads_a_records_field_types_not_their_text() -> None:
    """A snapshot copies only the fields that may hold more than a plain value; which
    they are was decided by splitting each annotation's text on ``|``, so that a name
    for a plain type (``Phase``, a ``Literal`` of words) read as a record. The types
    themselves are read once (``typing.get_type_hints``)."""
    from controller.rules import state

    def nested(kind: type) -> set[str]:
        shape = state._shape(kind)
        return {shape.names[at] for at in shape.nested}

    assert {"seats", "positions", "hand", "clock", "before_hand"} <= nested(state.TableState)
    assert not {"phase", "hand_number", "puck", "dealer"} & nested(state.TableState)
    assert nested(state.Hand) >= {"dealt", "log"} and "street" not in nested(state.Hand)
    assert nested(state.Seat) == set()
