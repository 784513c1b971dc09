"""The technician's error: a configuration file that cannot be used."""

from __future__ import annotations


class ConfigError(ValueError):
    """Every problem found in one configuration file, each already formatted as
    ``FILE:LINE:COL: message``. Raised once, after the whole file was read."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))
