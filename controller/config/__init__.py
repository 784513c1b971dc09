"""The configuration: one YAML file read into typed, frozen, checked settings.

    settings = load_config("/etc/table-controller/table.yaml")

Every problem of the file is collected and raised at once as a `ConfigError` whose
`problems` are `FILE:LINE:COL: message` lines naming the option (`game.big_blind`) and
what it allows. `config/table.example.yaml` documents every option with its default;
`docs/configuration.md` is the technician's guide.
"""

from controller.config.daemon import (
    DisplaySettings,
    JournalSettings,
    LoggingSettings,
    PuckCheckSettings,
    TrayFloatSettings,
)
from controller.config.errors import ConfigError
from controller.config.floor import FloorSettings, TlsSettings
from controller.config.loader import load_config, load_config_text
from controller.config.settings import Settings, rules_differences

__all__ = [
    "ConfigError",
    "DisplaySettings",
    "FloorSettings",
    "JournalSettings",
    "LoggingSettings",
    "PuckCheckSettings",
    "Settings",
    "TlsSettings",
    "TrayFloatSettings",
    "load_config",
    "load_config_text",
    "rules_differences",
]
