"""Typed getters over a YAML node tree, in Klipper's manner, with file positions.

Theory of operation: the YAML text is composed (not constructed) into PyYAML's node
tree, so every key and value keeps its line and column. Each section of the file is
wrapped in a `Section`; the code that builds a settings dataclass asks the section for
each option with a typed getter (`get_int`, `get_choice`, ...) giving the default and
the bounds. A getter that finds a bad value records a problem at the value's position
and returns the default, so reading goes on and every problem of the file is found in
one pass. Every key a getter asked for is *known*; when all sections have been read,
`Report.check_unknown` reports every key nobody asked for, with a suggestion.

Money options (`money=True`) are integers only: a decimal number is refused with a
message saying so, never rounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from controller.config.errors import ConfigError

Kind = Literal["null", "bool", "int", "float", "str", "list", "mapping", "other"]

_TAG = "tag:yaml.org,2002:"
_KINDS: dict[str, Kind] = {
    _TAG + "null": "null",
    _TAG + "bool": "bool",
    _TAG + "int": "int",
    _TAG + "float": "float",
    _TAG + "str": "str",
    # A date is only ever wanted as text (a site name like 2024-01-01, say).
    _TAG + "timestamp": "str",
}


class Position(NamedTuple):
    line: int  # 1-based
    column: int  # 1-based


START = Position(1, 1)


def position(node: Node) -> Position:
    mark = node.start_mark
    return Position(mark.line + 1, mark.column + 1)


Where = Node | Position


def where_position(where: Where) -> Position:
    return where if isinstance(where, Position) else position(where)


@dataclass(frozen=True, slots=True)
class Value:
    """A node read as a plain Python value; `text` is the value as written."""

    kind: Kind
    value: object
    text: str


_constructor = SafeConstructor()


def read_value(node: Node) -> Value:
    if isinstance(node, MappingNode):
        return Value("mapping", None, "")
    if isinstance(node, SequenceNode):
        return Value("list", None, "")
    text = str(node.value)
    kind = _KINDS.get(node.tag)
    if kind is None:
        return Value("other", None, f"{node.tag} {text}".strip())
    if kind == "str":
        return Value("str", text, text)
    try:
        constructed = _constructor.construct_object(node)
    except (ValueError, ArithmeticError, LookupError, TypeError, yaml.YAMLError):
        # Scalars that resolve as numbers but are not (`0b_`, `!!float ""`, 5,000 digits).
        return Value("str", text, text)
    return Value(kind, constructed, text)


def describe(value: Value) -> str:
    """A value as a technician wrote it, for 'got ...' in messages."""
    shown = value.text if len(value.text) <= 40 else value.text[:37] + "..."
    match value.kind:
        case "mapping":
            return "a mapping"
        case "list":
            return "a list"
        case "null":
            return "nothing (null)"
        case "bool":
            return f"the boolean {shown}"
        case "int":
            return shown
        case "float":
            return f"the decimal number {shown}"
        case "other":
            return f"a value tagged {shown}"
        case _:
            return f"the text {shown!r}"


def one_of(choices: Iterable[str]) -> str:
    return ", ".join(choices)


def suggestion(word: str, candidates: Iterable[str]) -> str | None:
    candidates = list(candidates)
    lowered = {c.lower(): c for c in candidates}
    if word.lower() in lowered:
        return lowered[word.lower()]
    import difflib  # only for a misspelt key: a good file's start does without it

    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return close[0] if close else None


class IntEntry(NamedTuple):
    """One entry of an integer mapping, with both nodes for later cross-checks."""

    value: int
    key_node: Node
    value_node: Node


UNKNOWN_SHOWN = 20
"""Unknown keys reported one by one (with a suggestion); the rest are counted."""


class Report:
    """The problems and warnings found in one file, and the sections read from it."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self._errors: list[tuple[Position, int, str]] = []
        self._warnings: list[tuple[Position, int, str]] = []
        self.sections: list[Section] = []

    def error(self, where: Where, message: str) -> None:
        self._errors.append((where_position(where), len(self._errors), message))

    def warn(self, where: Where, message: str) -> None:
        self._warnings.append((where_position(where), len(self._warnings), message))

    def _format(self, entries: list[tuple[Position, int, str]], prefix: str = "") -> list[str]:
        return [
            f"{self.filename}:{at.line}:{at.column}: {prefix}{message}"
            for at, _, message in sorted(entries)
        ]

    def problems(self) -> list[str]:
        return self._format(self._errors)

    def warnings(self) -> list[str]:
        return self._format(self._warnings, "warning: ")

    def raise_if_failed(self) -> None:
        if self._errors:
            raise ConfigError(self.problems())

    def check_unknown(self) -> None:
        """Report every key that no getter asked for: the first ``UNKNOWN_SHOWN`` with a
        suggestion each, then one line counting the rest (a file of 100,000 stray keys
        is checked in a moment, not in 20 s of spelling suggestions)."""
        every_path = [s.path_of(k) for s in self.sections for k in s.known]
        shown = 0
        more: list[Node] = []
        for section in self.sections:
            for key, (key_node, _) in section.entries.items():
                if key in section.known:
                    continue
                if shown < UNKNOWN_SHOWN:
                    self.error(key_node, section.unknown_message(key, every_path))
                    shown += 1
                else:
                    more.append(key_node)
        if more:
            first = min(more, key=lambda node: where_position(node))
            self.error(
                first,
                f"... and {len(more)} more unknown key(s) from here on; fix the ones above first",
            )


class Section:
    """One mapping of the file (the whole file, `game:`, `hardware.puck:` ...)."""

    def __init__(
        self,
        report: Report,
        path: str,
        node: Node | None,
        anchor: Where,
    ) -> None:
        self.report = report
        self.path = path
        self.anchor = anchor
        self.present = isinstance(node, MappingNode)
        self.lenient = False  # absent by choice, or not a mapping: required keys go unreported
        self.entries: dict[str, tuple[Node, Node]] = {}
        self.known: list[str] = []
        self.failed: set[str] = set()
        self.children: dict[str, Section] = {}
        report.sections.append(self)
        if isinstance(node, MappingNode):
            self.entries = _entries(report, path, node)

    # -- bookkeeping ---------------------------------------------------------------

    def path_of(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def has(self, key: str) -> bool:
        return key in self.entries

    def where(self, key: str) -> Where:
        """The value of `key`, or the section itself when the key is absent."""
        entry = self.entries.get(key)
        return entry[1] if entry else self.anchor

    def where_key(self, key: str) -> Where:
        entry = self.entries.get(key)
        return entry[0] if entry else self.anchor

    def ok(self, *keys: str) -> bool:
        return not any(key in self.failed for key in keys)

    def fail(
        self, key: str, message: str, *, where: Where | None = None, name: str | None = None
    ) -> None:
        """Report a problem with `key` (or with `name`, an item inside it, at `where`);
        cross-checks involving `key` are then skipped."""
        self.failed.add(key)
        self.report.error(
            self.where(key) if where is None else where, f"{name or self.path_of(key)}: {message}"
        )

    def warn(self, key: str, message: str) -> None:
        self.report.warn(self.where(key), f"{self.path_of(key)}: {message}")

    def _take(self, key: str, required: bool = False, expected: str = "") -> Node | None:
        if key not in self.known:
            self.known.append(key)
        entry = self.entries.get(key)
        if entry is None:
            if required and not self.lenient:
                self.fail(key, f"required, {expected}")
            elif required:
                self.failed.add(key)
            return None
        return entry[1]

    def _wrong(self, key: str, expected: str, value: Value) -> None:
        self.fail(key, f"expected {expected}, got {describe(value)}")

    def unknown_message(self, key: str, every_path: Sequence[str]) -> str:
        what = "option" if self.path else "section"
        name = self.path_of(key)
        close = suggestion(key, self.known)
        if close is not None:
            return f"unknown {what} {name} (did you mean {self.path_of(close)}?)"
        elsewhere = [p for p in every_path if p.rsplit(".", 1)[-1] == key and p != name]
        if elsewhere:
            return f"unknown {what} {name} (did you mean {' or '.join(elsewhere)}?)"
        if not self.known:
            return f"unknown {what} {name}"
        valid = f"options of {self.path}" if self.path else "sections"
        return f"unknown {what} {name}; valid {valid}: {one_of(self.known)}"

    # -- getters ------------------------------------------------------------------

    def get_int(
        self,
        key: str,
        default: int,
        lo: int,
        hi: int,
        *,
        money: bool = False,
        required: bool = False,
    ) -> int:
        expected = _int_expectation(lo, hi, money)
        node = self._take(key, required, expected)
        if node is None:
            return default
        number = self._int(key, node, expected, lo, hi, money)
        return default if number is None else number

    def get_optional_int(
        self,
        key: str,
        lo: int,
        hi: int,
        *,
        money: bool = False,
        none_means: str,
    ) -> int | None:
        expected = f"{_int_expectation(lo, hi, money)}, or null ({none_means})"
        node = self._take(key)
        if node is None or read_value(node).kind == "null":
            return None
        return self._int(key, node, expected, lo, hi, money)

    def _int(
        self, key: str, node: Node, expected: str, lo: int, hi: int, money: bool
    ) -> int | None:
        value = read_value(node)
        if value.kind == "int" and isinstance(value.value, int):
            number = value.value
            if lo <= number <= hi:
                return number
            self.fail(key, f"must be {_range(lo, hi)}, got {value.text}")
            return None
        if money and value.kind == "float":
            self.fail(
                key,
                f"expected {expected}, got {describe(value)} "
                "(money is a whole number of chip units, never a decimal)",
            )
        else:
            self._wrong(key, expected, value)
        return None

    def get_number(self, key: str, default: float, lo: float, hi: float) -> float:
        expected = f"a number from {lo:g} to {hi:g}"
        node = self._take(key)
        if node is None:
            return default
        value = read_value(node)
        if value.kind in ("int", "float") and isinstance(value.value, int | float):
            number = float(value.value)
            if lo <= number <= hi:
                return number
            self.fail(key, f"must be from {lo:g} to {hi:g}, got {value.text}")
            return default
        self._wrong(key, expected, value)
        return default

    def get_bool(self, key: str, default: bool) -> bool:
        node = self._take(key)
        if node is None:
            return default
        value = read_value(node)
        if value.kind == "bool" and isinstance(value.value, bool):
            return value.value
        self._wrong(key, "true or false", value)
        return default

    def get_choice(self, key: str, choices: Sequence[str], default: str) -> str:
        node = self._take(key)
        if node is None:
            return default
        return self.choice_of(key, node, choices, default)

    def choice_of(self, key: str, node: Node, choices: Sequence[str], default: str) -> str:
        value = read_value(node)
        if value.kind == "str" and value.text in choices:
            return value.text
        message = f"must be one of {one_of(choices)}, got {describe(value)}"
        close = suggestion(value.text, choices) if value.kind == "str" else None
        if close is not None:
            message += f" (did you mean {close}?)"
        self.fail(key, message)
        return default

    def get_text(
        self,
        key: str,
        default: str,
        *,
        required: bool = False,
        pattern: str | None = None,
        pattern_help: str = "",
    ) -> str:
        expected = pattern_help or "a text"
        node = self._take(key, required, expected)
        if node is None:
            return default
        text = self._text(key, node, expected, pattern)
        return default if text is None else text

    def get_optional_text(
        self, key: str, *, pattern: str | None = None, pattern_help: str = ""
    ) -> str | None:
        expected = pattern_help or "a text"
        node = self._take(key)
        if node is None or read_value(node).kind == "null":
            return None
        return self._text(key, node, expected, pattern)

    def _text(self, key: str, node: Node, expected: str, pattern: str | None) -> str | None:
        value = read_value(node)
        # Numbers are taken as written: `id: 7` is the table "7".
        if value.kind not in ("str", "int", "float"):
            self._wrong(key, expected, value)
            return None
        if not value.text.strip():
            self.fail(key, f"expected {expected}, got an empty text")
            return None
        if pattern is not None and not re.fullmatch(pattern, value.text):
            self._wrong(key, expected, value)
            return None
        return value.text

    def get_node(self, key: str) -> Node | None:
        """The raw value of an option with an unusual type, for a custom reader."""
        return self._take(key)

    def get_section(self, key: str) -> Section:
        """A nested mapping; absent or null gives an empty section (`present` False).
        Asking twice gives the same section."""
        if key in self.children:
            return self.children[key]
        self.children[key] = child = self._child(key)
        return child

    def _child(self, key: str) -> Section:
        node = self._take(key)
        anchor = self.where_key(key)
        if node is None or read_value(node).kind == "null":
            return Section(self.report, self.path_of(key), None, anchor)
        child = Section(self.report, self.path_of(key), node, anchor)
        if not isinstance(node, MappingNode):
            self._wrong(
                key, f"a mapping of options ({key}: followed by indented lines)", read_value(node)
            )
            child.lenient = True
        return child

    def get_section_list(self, key: str, item_name: str) -> list[Section] | None:
        """A list of mappings (a tournament's levels), one section each, named
        ``key[1]``, ``key[2]`` ...; None when absent, [] with the problem reported when
        it is not a list. An item that is not a mapping is reported and left out."""
        node = self._take(key)
        if node is None or read_value(node).kind == "null":
            return None
        if not isinstance(node, SequenceNode):
            self._wrong(
                key, f"a list of {item_name}s (one '- {{...}}' line each)", read_value(node)
            )
            return []
        items: list[Section] = []
        for index, item in enumerate(node.value, start=1):
            name = f"{self.path_of(key)}[{index}]"
            if not isinstance(item, MappingNode):
                self.fail(
                    key,
                    f"expected a mapping of the {item_name}'s options, got {describe(read_value(item))}",
                    where=item,
                    name=name,
                )
                continue
            items.append(Section(self.report, name, item, item))
        return items

    def get_int_map(
        self,
        key: str,
        key_name: str,
        key_bounds: tuple[int, int],
        value_name: str,
        value_bounds: tuple[int, int],
        *,
        key_note: str = "",
    ) -> dict[int, IntEntry]:
        """A mapping of integers to integers (seat -> pin, chip value -> count). Bad
        entries are reported and left out."""
        expected = f"a mapping of {key_name} to {value_name}"
        node = self._take(key)
        if node is None or read_value(node).kind == "null":
            return {}
        if not isinstance(node, MappingNode):
            self._wrong(key, expected, read_value(node))
            return {}
        result: dict[int, IntEntry] = {}
        first_line: dict[int, int] = {}
        k_lo, k_hi = key_bounds
        v_lo, v_hi = value_bounds
        for key_node, value_node in node.value:
            item = read_value(key_node)
            name = f"{self.path_of(key)}.{item.text}" if item.text else self.path_of(key)
            value = read_value(value_node)
            if item.kind != "int" or not isinstance(item.value, int):
                message = (
                    f"expected a {key_name} {_range(k_lo, k_hi)}{key_note}, got {describe(item)}"
                )
                self.fail(key, message, where=key_node, name=name)
                continue
            if not k_lo <= item.value <= k_hi:
                message = f"{key_name} must be {_range(k_lo, k_hi)}{key_note}, got {item.text}"
                self.fail(key, message, where=key_node, name=name)
                continue
            if item.value in first_line:
                message = f"duplicate {key_name} {item.value} (first set at line {first_line[item.value]})"
                self.fail(key, message, where=key_node, name=name)
                continue
            first_line[item.value] = position(key_node).line
            if value.kind != "int" or not isinstance(value.value, int):
                message = f"expected a {value_name}, an integer {_range(v_lo, v_hi)}, got {describe(value)}"
                self.fail(key, message, where=value_node, name=name)
            elif not v_lo <= value.value <= v_hi:
                message = f"{value_name} must be {_range(v_lo, v_hi)}, got {value.text}"
                self.fail(key, message, where=value_node, name=name)
            else:
                result[item.value] = IntEntry(value.value, key_node, value_node)
        return result


def _range(lo: int, hi: int) -> str:
    return f"from {lo} to {hi}"


def _int_expectation(lo: int, hi: int, money: bool) -> str:
    if money:
        return f"a whole number of chip units {_range(lo, hi)}"
    return f"an integer {_range(lo, hi)}"


def _entries(report: Report, path: str, node: MappingNode) -> dict[str, tuple[Node, Node]]:
    entries: dict[str, tuple[Node, Node]] = {}
    for key_node, value_node in node.value:
        if key_node.tag == _TAG + "merge":
            report.error(
                key_node,
                f"{path or 'the file'}: merge keys (<<) are not supported; write the options out",
            )
            continue
        if not isinstance(key_node, ScalarNode) or read_value(key_node).kind in ("null", "other"):
            report.error(
                key_node,
                f"{path or 'the file'}: a key must be a plain name, got {describe(read_value(key_node))}",
            )
            continue
        key = str(key_node.value)
        name = f"{path}.{key}" if path else key
        if key in entries:
            first = position(entries[key][0])
            report.error(key_node, f"duplicate key {name} (first set at line {first.line})")
            continue
        entries[key] = (key_node, value_node)
    return entries
