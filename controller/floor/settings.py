"""The `floor:` section: where and how a table reaches the casino floor system.

The configuration loader (`controller.config`) reads and checks the YAML;
`FloorSettings.adapt(settings.floor)` turns its `floor` value into these settings (no
`floor:` section: no floor link at all, the daemon runs exactly as without it). The
checks here repeat the loader's bounds for code that builds settings directly (tests,
benchmarks). The password is never part of the configuration: only the path of a file
holding it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from controller.floor.topics import TableTopics, level_problem, prefix_problem

DEFAULT_PORT = 1883
DEFAULT_TLS_PORT = 8883


class FloorConfigError(ValueError):
    """A technician's mistake in the `floor:` section; the message names the option."""


@dataclass(frozen=True, kw_only=True)
class TlsSettings:
    """`floor.tls`: TLS with the casino's CA, optionally a per-table client certificate."""

    ca_file: Path | None = None  # the casino's CA certificate (PEM); None: the system CAs
    cert_file: Path | None = None  # this table's client certificate (PEM)
    key_file: Path | None = None  # its private key (PEM); None: the key is in cert_file

    def __post_init__(self) -> None:
        if self.key_file is not None and self.cert_file is None:
            raise FloorConfigError("floor.tls.key_file: needs floor.tls.cert_file")


@dataclass(frozen=True, kw_only=True)
class FloorSettings:
    """`floor:`: the broker, the credentials, the topic tree and the outbox bound."""

    site: str  # this casino's site name, one topic level
    host: str  # the broker's host name or address
    port: int | None = None  # None: 1883, or 8883 with TLS
    tls: TlsSettings | None = None  # None: plain TCP (a closed floor network only)
    username: str | None = None
    password_file: Path | None = None  # readable only by the service user
    topic_prefix: str = "casino"
    outbox_max_messages: int = 10_000  # the outbox bound, sent and unsent rows together
    outbox_alarm_percent: int = 80  # alarm when unsent rows pass this share of the bound
    keepalive: int = 30  # seconds; a dead link is noticed within about 1.5 x this

    def __post_init__(self) -> None:
        problem = level_problem(self.site)
        if problem:
            raise FloorConfigError(f"floor.site: {problem} (got {self.site!r})")
        if not self.host or self.host != self.host.strip():
            raise FloorConfigError(
                f"floor.host: must be a host name or address (got {self.host!r})"
            )
        if self.port is not None and not 1 <= self.port <= 65535:
            raise FloorConfigError(f"floor.port: must be 1..65535 (got {self.port})")
        problem = prefix_problem(self.topic_prefix)
        if problem:
            raise FloorConfigError(f"floor.topic_prefix: {problem} (got {self.topic_prefix!r})")
        if self.password_file is not None and self.username is None:
            raise FloorConfigError("floor.password_file: needs floor.username")
        if self.username is not None and not self.username:
            raise FloorConfigError("floor.username: must not be empty")
        if self.outbox_max_messages < 100:
            raise FloorConfigError(
                f"floor.outbox_max_messages: must be at least 100 (got {self.outbox_max_messages})"
            )
        if not 1 <= self.outbox_alarm_percent <= 100:
            raise FloorConfigError(
                f"floor.outbox_alarm_percent: must be 1..100 (got {self.outbox_alarm_percent})"
            )
        if not 5 <= self.keepalive <= 3600:
            raise FloorConfigError(
                f"floor.keepalive: must be 5..3600 seconds (got {self.keepalive})"
            )

    @property
    def broker_port(self) -> int:
        if self.port is not None:
            return self.port
        return DEFAULT_TLS_PORT if self.tls is not None else DEFAULT_PORT

    @property
    def alarm_threshold(self) -> int:
        """The unsent-row count at which the outbox alarm is raised."""
        return max(1, math.ceil(self.outbox_max_messages * self.outbox_alarm_percent / 100))

    def topics_for(self, table_id: str) -> TableTopics:
        return TableTopics(self.topic_prefix, self.site, table_id)

    @classmethod
    def adapt(cls, other: Any) -> FloorSettings:
        """These settings from any object with the same field names (the configuration
        loader's `controller.config.FloorSettings`); missing fields take the defaults."""
        if isinstance(other, cls):
            return other
        defaults: dict[str, Any] = {
            f.name: f.default for f in fields(cls) if f.name not in ("site", "host")
        }
        values = {name: getattr(other, name, default) for name, default in defaults.items()}
        tls = values["tls"]
        if tls is not None and not isinstance(tls, TlsSettings):
            values["tls"] = TlsSettings(
                ca_file=getattr(tls, "ca_file", None),
                cert_file=getattr(tls, "cert_file", None),
                key_file=getattr(tls, "key_file", None),
            )
        return cls(site=other.site, host=other.host, **values)
