"""`Settings`: everything one configuration file says, as frozen values."""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from controller.config.daemon import (
    DisplaySettings,
    JournalSettings,
    LoggingSettings,
    PuckCheckSettings,
    SoftwareSettings,
    SupervisorSettings,
    TrayFloatSettings,
)
from controller.config.floor import FloorSettings
from controller.light_patterns import LightPatterns
from controller.rules.settings import RuleSettings
from drivers.settings import HardwareSettings

_RULE_KEYS = {"table_id": "table.id", "seats": "table.seats"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """A whole configuration file. `rules` is what the rules core is built with and
    what replay compares; the rest belongs to the daemon."""

    rules: RuleSettings
    hardware: HardwareSettings | None
    """None when the file has no `hardware:` section: enough for replay and tests; the
    daemon refuses to start without it."""
    journal: JournalSettings
    display: DisplaySettings
    floor: FloorSettings | None
    puck: PuckCheckSettings
    tray: TrayFloatSettings
    logging: LoggingSettings
    source: str
    """The file name the settings were read from (as given), used in messages."""
    config_text: str
    """The file's text, exactly as read, for the journal's record of what was loaded."""
    lights: LightPatterns = LightPatterns()
    """`lights:` the pattern of each seat condition."""
    supervisor: SupervisorSettings = SupervisorSettings()
    """`supervisor:` where the PIN hashes are kept."""
    software: SoftwareSettings = SoftwareSettings()
    """`software:` how often the running daemon verifies the software."""
    warnings: tuple[str, ...] = ()
    """`FILE:LINE:COL: warning: ...` for settings that are valid but probably not meant."""

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the file's UTF-8 bytes (worked out when asked: replay never
        asks, and its start does without loading OpenSSL for ``hashlib``)."""
        import hashlib

        return hashlib.sha256(self.config_text.encode("utf-8")).hexdigest()

    def summary(self) -> str:
        rules = self.rules
        game = rules.game
        stakes = f"{game.sb_amount}/{game.big_blind}"
        if game.form != "flop":
            stakes = f"{game.form} {stakes}"
        if game.ante:  # A1, A2
            stakes += f" {'big blind ' if game.ante_form == 'big_blind' else ''}ante {game.ante}"
        if game.structure == "fixed_limit":
            stakes += f", bets {game.small_bet_amount}/{game.big_bet_amount}"
        tournament = rules.tournament
        if tournament is not None:  # T1: the stakes are the levels'
            first, last = tournament.levels[0], tournament.levels[-1]
            where = "single table" if tournament.single_table else "one table of several"
            name = f" {tournament.id}" if tournament.id else ""
            stakes = (
                f"tournament{name} ({where}), {len(tournament.levels)} levels "
                f"{first.small_blind}/{first.big_blind} to {last.small_blind}/{last.big_blind}"
            )
        floor = f"{self.floor.host}:{self.floor.port}" if self.floor else "off"
        if self.hardware is None:
            hardware = "none (replay only)"
        else:
            hardware = "simulated" if self.hardware.simulated else "real"
        return (
            f"table {rules.table_id}: {rules.seats} seats, {game.structure} {stakes} "
            f"(smallest chip {game.smallest_chip}), {game.button} button, "
            f"clock {rules.clock.seconds}s, fees {rules.fees.mode}; hardware {hardware}, "
            f"floor {floor}, journal {self.journal.state_dir}"
        )


def rules_differences(old: RuleSettings, new: RuleSettings) -> list[str]:
    """The rule settings that differ, as `key: old -> new` with the YAML's dotted keys
    (`game.big_blind: 10 -> 20`), for refusing a journal started with other rules."""
    return [
        f"{_RULE_KEYS.get(path, path)}: {a!r} -> {b!r}" for path, a, b in _differences(old, new, "")
    ]


_TOPICS = {"fees": "rake", "table.seats": "seats", "table.id": "table", "clock": "clock"}
_STAKES = (
    "big_blind",
    "small_blind",
    "small_bet",
    "big_bet",
    "structure",
    "form",
    "ante",
    "ante_form",
)
_OTHER_PARTS = ("display", "lights", "puck", "tray", "logging", "supervisor")
_RESTART_PARTS = ("hardware", "journal", "floor")


def settings_changes(old: Settings, new: Settings) -> str:
    """What differs from ``old`` to ``new``, in one line for the log and the journal:
    the rule settings by topic (`stakes: game.big_blind 10 -> 20; rake: fees.mode
    'none' -> 'rake', fees.rake_percent 10 -> 5`), then the other sections by name."""
    topics: dict[str, list[str]] = {}
    for line in rules_differences(old.rules, new.rules):
        key, _, change = line.partition(": ")
        first = key.split(".")[0]
        topic = _TOPICS.get(key) or _TOPICS.get(first)
        if topic is None:
            topic = "stakes" if key.split(".")[-1] in _STAKES else first
        topics.setdefault(topic, []).append(f"{key} {change}")
    parts = [f"{topic}: {', '.join(changes)}" for topic, changes in topics.items()]
    parts += [
        f"{part}: section" for part in _OTHER_PARTS if getattr(old, part) != getattr(new, part)
    ]
    parts += [
        f"{part}: section (at the next restart)"
        for part in _RESTART_PARTS
        if getattr(old, part) != getattr(new, part)
    ]
    return "; ".join(parts) or "no setting (comments or layout only)"


def _differences(old: Any, new: Any, prefix: str) -> list[tuple[str, Any, Any]]:
    if is_dataclass(old) and type(old) is type(new):
        found: list[tuple[str, Any, Any]] = []
        for item in fields(old):
            path = f"{prefix}{item.name}"
            found += _differences(getattr(old, item.name), getattr(new, item.name), path + ".")
        return found
    return [] if old == new else [(prefix.rstrip("."), old, new)]
