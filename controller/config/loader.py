"""`load_config` and `load_config_text`: YAML text -> `Settings`, or one `ConfigError`
listing every problem of the file as `FILE:LINE:COL: message`."""

from __future__ import annotations

import dataclasses
import os

import yaml
from yaml.nodes import MappingNode, Node

from controller.config.daemon import (
    TrayFloatSettings,
    read_display,
    read_journal,
    read_lights,
    read_logging,
    read_puck,
    read_software,
    read_supervisor,
    read_tray,
)
from controller.config.errors import ConfigError
from controller.config.floor import read_floor
from controller.config.hardware import read_hardware
from controller.config.reader import START, Position, Report, Section, describe, read_value
from controller.config.rules import read_rules
from controller.config.settings import Settings
from controller.rules.settings import RuleSettings
from drivers.settings import HardwareSettings

SECTIONS_HINT = "table:, game:, clock:, fees:, hardware:, journal: ..."
MAX_CONFIG_BYTES = 256 * 1024
"""A table's configuration is a few KB (the commented example is 14 KB); a larger file
is refused unread, so a runaway file never costs the board seconds and megabytes."""


def load_config(path: str | os.PathLike[str]) -> Settings:
    """Read and check a configuration file.

    Raises `ConfigError` for anything wrong in the file (including text that is not
    UTF-8), and lets `OSError` through when the file cannot be read at all.
    """
    filename = os.fspath(path)
    with open(filename, "rb") as file:
        data = file.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError([_too_big(filename)])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise ConfigError(
            [
                f"{filename}:{line}:{column}: the file is not UTF-8 text (byte 0x{data[error.start]:02x})"
            ]
        ) from None
    return load_config_text(text, filename)


def load_config_text(text: str, filename: str = "<config>") -> Settings:
    """Check configuration text; `filename` is only used in messages."""
    if len(text) > MAX_CONFIG_BYTES or len(text.encode("utf-8")) > MAX_CONFIG_BYTES:
        raise ConfigError([_too_big(filename)])
    report = Report(filename)
    node = _compose(text, report)
    report.raise_if_failed()
    settings = _read(report, node, text)
    report.check_unknown()
    report.raise_if_failed()
    return settings


def _too_big(filename: str) -> str:
    return (
        f"{filename}:1:1: the file is larger than {MAX_CONFIG_BYTES:,} bytes; a table "
        f"configuration is a few KB (the commented example is about 14 KB), so it is "
        f"refused unread. Is it the right file?"
    )


def option_paths() -> list[str]:
    """Every option the loader reads, as dotted paths (`game.big_blind`), in the order
    they are read: the list `config/table.example.yaml` must document."""
    report = Report("<options>")
    _read(report, None, "")
    return [
        section.path_of(key)
        for section in report.sections
        for key in section.known
        if key not in section.children
    ]


def _read(report: Report, node: MappingNode | None, text: str) -> Settings:
    root = Section(report, "", node, START)
    rules = read_rules(root)
    chip_ok = root.get_section("game").ok("smallest_chip")
    return Settings(
        rules=rules,
        hardware=_read_hardware(root, rules),
        journal=read_journal(root.get_section("journal")),
        display=read_display(root.get_section("display")),
        lights=read_lights(root.get_section("lights")),
        supervisor=read_supervisor(root.get_section("supervisor")),
        floor=read_floor(root.get_section("floor")),
        puck=read_puck(root.get_section("puck")),
        tray=_read_tray(root, rules, chip_ok),
        logging=read_logging(root.get_section("logging")),
        software=read_software(root.get_section("software")),
        source=report.filename,
        config_text=text,
        warnings=tuple(report.warnings()),
    )


def _read_tray(root: Section, rules: RuleSettings, chip_ok: bool) -> TrayFloatSettings:
    section = root.get_section("tray")
    tray = read_tray(section, rules.game.smallest_chip if chip_ok else None)
    if rules.tournament is not None and tray.float_counts:
        # T8: the tray reconciles nothing in tournament chips
        section.warn("float", "is not checked at a tournament table (rules T8)")
        return dataclasses.replace(tray, float_counts={})
    return tray


def _read_hardware(root: Section, rules: RuleSettings) -> HardwareSettings | None:
    section = root.get_section("hardware")
    hardware = read_hardware(section, rules.seats)
    if not section.present:
        if not section.lenient:  # absent, not merely wrong
            root.report.warn(
                START,
                "no hardware: section: fine for replay and tests, but the daemon will not start",
            )
        return None
    puck = section.get_section("puck")
    if rules.game.first_button == "puck" and not hardware.puck.pins and puck.ok("pins"):
        root.get_section("game").fail(
            "first_button", "puck needs the puck sensors (hardware.puck.pins), and none are set"
        )
    return hardware


def _compose(text: str, report: Report) -> MappingNode | None:
    """The file's node tree, or None with the problem reported."""
    fast = getattr(yaml, "CSafeLoader", None)  # libyaml: 30x faster on a huge file
    if fast is not None:
        try:
            node: Node | None = yaml.compose(text, Loader=fast)
        except Exception:  # noqa: BLE001 - read again below for the exact message and place
            node = None
        else:
            return _top_mapping(node, report)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        _report_syntax(error, report, text)
        return None
    except yaml.reader.ReaderError as error:
        before = text[: error.position]
        at = Position(before.count("\n") + 1, error.position - (before.rfind("\n") + 1) + 1)
        report.error(
            at, f"YAML syntax error: unacceptable character #x{error.character:04x}: {error.reason}"
        )
        return None
    except yaml.YAMLError as error:
        report.error(START, f"YAML syntax error: {str(error).splitlines()[0]}")
        return None
    except RecursionError:
        report.error(START, "YAML nests too deeply to be a configuration")
        return None
    return _top_mapping(node, report)


def _top_mapping(node: Node | None, report: Report) -> MappingNode | None:
    if node is None:
        report.error(START, f"the file is empty: expected a mapping of sections ({SECTIONS_HINT})")
        return None
    if not isinstance(node, MappingNode):
        report.error(
            node,
            f"expected a mapping of sections ({SECTIONS_HINT}), got {describe(read_value(node))}",
        )
        return None
    return node


#: a flow collection's context in PyYAML's words -> its name and its brackets
FLOW = {
    "while parsing a flow sequence": ("flow sequence", "[", "]"),
    "while parsing a flow mapping": ("flow mapping", "{", "}"),
}


def _report_syntax(error: yaml.MarkedYAMLError, report: Report, text: str = "") -> None:
    mark = error.problem_mark or error.context_mark
    at = Position(mark.line + 1, mark.column + 1) if mark else START
    problem, context = error.problem or "", error.context or ""
    flow = FLOW.get(context)
    if flow is not None and error.context_mark is not None and mark is not None:
        # where the fix goes: the bracket never closed, not where the parser gave up
        start = error.context_mark
        name, opening, _ = flow
        report.error(
            Position(start.line + 1, start.column + 1),
            f"YAML syntax error: the {name} '{opening}' started here is not closed "
            f"(at line {at.line}, column {at.column}: {problem})",
        )
        return
    if context.startswith("while") and error.context_mark is not None:
        start = error.context_mark
        message = (
            f"{problem} ({context} started at line {start.line + 1}, column {start.column + 1})"
        )
    elif context:
        message = f"{context}, {problem}" if problem else context
    else:
        message = problem
    if "'\\t'" in message:
        message += " (indent with spaces, never tabs)"
    elif mark is not None:
        message += _indentation_hint(text, mark.line)
    report.error(at, f"YAML syntax error: {message}")


def _indentation_hint(text: str, index: int) -> str:
    """Why line ``index`` (from 0) may be wrong: it is indented more than the line
    before it, which opens no block, or back to a depth no enclosing line has; ""
    when it is not."""
    lines = text.splitlines()
    if index >= len(lines):
        return ""
    before = [line for line in lines[:index] if line.strip() and not line.lstrip().startswith("#")]
    if not before:
        return ""
    indent, previous = _indent(lines[index]), _indent(before[-1])
    opens = before[-1].rstrip().endswith((":", "-"))
    enclosing = {_indent(line) for line in before if _indent(line) < previous} | {previous}
    if not ((indent > previous and not opens) or (indent < previous and indent not in enclosing)):
        return ""
    spaces = "space" if indent == 1 else "spaces"
    return (
        f" (line {index + 1} is indented {indent} {spaces}, the line before it {previous}: "
        "indent each level of the file by the same number of spaces, and only under a line "
        "that ends in ':')"
    )


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))
