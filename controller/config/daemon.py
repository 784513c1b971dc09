"""The daemon's own small sections: `journal:`, `display:`, `lights:`, `supervisor:`,
`puck:`, `tray:`, `logging:`, `software:`.

Each is a frozen dataclass whose fields are the YAML keys (except `tray.float`, held
in `float_counts`), with the defaults `config/table.example.yaml` documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Literal, cast, get_args

from controller.config.reader import Section
from controller.light_patterns import PATTERN_NAMES, LightPatterns
from controller.rules.limits import MAX_AMOUNT, MAX_PIN_DIGITS, MIN_PIN_DIGITS
from controller.statedir import text_problem

Language = Literal["en", "es"]
MismatchPolicy = Literal["warn", "block"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

LANGUAGES: tuple[str, ...] = get_args(Language)
MISMATCH_POLICIES: tuple[str, ...] = get_args(MismatchPolicy)
LOG_LEVELS: tuple[str, ...] = get_args(LogLevel)

#: Game recall shows the last 10 hands, so the journal never keeps fewer.
RECALL_HANDS = 10


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalSettings:
    """`journal:` where and how the event journal is kept."""

    state_dir: Path = Path("/var/lib/table-controller")
    """Directory of the journal database. A relative path is taken from the daemon's
    working directory."""

    snapshot_every: int = 100
    """Write a state snapshot every this many events (bounds recovery time)."""

    keep_hands: int = 200
    """Hands kept in the journal (at least 10, for recall); older ones are pruned or
    archived."""

    archive: bool = False
    """Move hands older than `keep_hands` into archive files instead of deleting them."""


#: Seconds between two verifications of the software while the daemon runs.
VERIFY_EVERY_DEFAULT = 86_400
VERIFY_EVERY_MIN = 60
VERIFY_EVERY_MAX = 30 * 86_400


@dataclass(frozen=True, slots=True, kw_only=True)
class SoftwareSettings:
    """`software:` how often the running daemon verifies what runs against the
    install's manifest (`controller/software.py`; it also does at start and on demand)."""

    verify_every: int = VERIFY_EVERY_DEFAULT
    """Seconds between two verifications, each run at a moment between hands."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DisplaySettings:
    """`display:` the dealer display's wording."""

    language: Language = "en"


@dataclass(frozen=True, slots=True, kw_only=True)
class SupervisorSettings:
    """`supervisor:` where the supervisors' PINs are kept (salted scrypt hashes written
    by `tablectl pin set`, a file readable by the service alone)."""

    pin_file: Path | None = None
    """None (not configured): `$TABLECTL_PINS`, else /etc/table-controller/pins, the
    same file `tablectl pin set` writes by default (``controller.supervisor_pins.default_path``)."""
    pin_digits: int = MIN_PIN_DIGITS
    """The fewest digits a PIN has (4 to 12): `tablectl pin set --config` refuses a
    shorter one, and the keypad judges a shorter one wrong without asking the file."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PuckCheckSettings:
    """`puck:` what happens when the button-puck sensor disagrees with the button the
    rules placed: `warn` shows it to the dealer, `block` also refuses to start the next
    hand until the puck is on the right seat."""

    mismatch: MismatchPolicy = "warn"


@dataclass(frozen=True, slots=True, kw_only=True)
class TrayFloatSettings:
    """`tray:` the chip float the RFID tray should hold."""

    float_counts: Mapping[int, int] = field(default_factory=dict)
    """YAML `float`: chip value -> number of chips. Empty: the float is not checked."""

    stable_seconds: float = 2.0
    """A tray reading must hold this long before it is compared with the float."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "float_counts", MappingProxyType(dict(self.float_counts)))

    @property
    def float_total(self) -> int:
        return sum(value * count for value, count in self.float_counts.items())


@dataclass(frozen=True, slots=True, kw_only=True)
class LoggingSettings:
    """`logging:` the least severe level written to the log."""

    level: LogLevel = "INFO"


def read_journal(section: Section) -> JournalSettings:
    state_dir = section.get_text(
        "state_dir", "/var/lib/table-controller", pattern_help="a directory path"
    )
    wrong = text_problem(state_dir)
    if wrong is not None:
        section.fail("state_dir", wrong)
    return JournalSettings(
        state_dir=Path(state_dir),
        snapshot_every=section.get_int("snapshot_every", 100, 1, 100_000),
        keep_hands=section.get_int("keep_hands", 200, RECALL_HANDS, 1_000_000),
        archive=section.get_bool("archive", False),
    )


def read_display(section: Section) -> DisplaySettings:
    return DisplaySettings(language=cast(Language, section.get_choice("language", LANGUAGES, "en")))


def read_puck(section: Section) -> PuckCheckSettings:
    mismatch = section.get_choice("mismatch", MISMATCH_POLICIES, "warn")
    return PuckCheckSettings(mismatch=cast(MismatchPolicy, mismatch))


def read_tray(section: Section, smallest_chip: int | None) -> TrayFloatSettings:
    entries = section.get_int_map(
        "float", "chip value", (1, MAX_AMOUNT), "number of chips", (0, 100_000)
    )
    if smallest_chip is not None:
        for value in sorted(entries):
            if value % smallest_chip:
                section.fail(
                    "float",
                    f"chip value {value} is not a multiple of game.smallest_chip "
                    f"({smallest_chip}); smaller chips do not play",
                    where=entries[value].key_node,
                    name=f"tray.float.{value}",
                )
    return TrayFloatSettings(
        float_counts={value: entry.value for value, entry in entries.items()},
        stable_seconds=section.get_number("stable_seconds", 2.0, 0.0, 60.0),
    )


def read_logging(section: Section) -> LoggingSettings:
    node = section.get_node("level")
    if node is None:
        return LoggingSettings()
    # Levels are accepted in any case (`info`, `Info`) and kept in Python's spelling.
    text = str(node.value).upper() if node.tag.endswith(":str") else ""
    if text in LOG_LEVELS:
        return LoggingSettings(level=cast(LogLevel, text))
    section.choice_of("level", node, LOG_LEVELS, "INFO")
    return LoggingSettings()


def read_lights(section: Section) -> LightPatterns:
    """`lights:` the pattern shown for each seat condition (controller/lights.py)."""
    defaults = LightPatterns()
    chosen = {
        name: section.get_choice(name, PATTERN_NAMES, getattr(defaults, name))
        for name in LIGHT_CONDITIONS
    }
    return LightPatterns(**chosen)


LIGHT_CONDITIONS: tuple[str, ...] = tuple(LightPatterns.__dataclass_fields__)


def read_software(section: Section) -> SoftwareSettings:
    return SoftwareSettings(
        verify_every=section.get_int(
            "verify_every", VERIFY_EVERY_DEFAULT, VERIFY_EVERY_MIN, VERIFY_EVERY_MAX
        )
    )


def read_supervisor(section: Section) -> SupervisorSettings:
    path = section.get_optional_text("pin_file", pattern_help="a file path")
    digits = section.get_int("pin_digits", MIN_PIN_DIGITS, MIN_PIN_DIGITS, MAX_PIN_DIGITS)
    return SupervisorSettings(pin_file=None if path is None else Path(path), pin_digits=digits)
