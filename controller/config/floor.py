"""`floor:` the optional link to the casino floor system (an MQTT broker).

Absent (or empty) means the table runs on its own. The password never appears in the
YAML: the technician puts it in a file readable only by the service and names the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from controller.config.reader import Section

NAME_PATTERN = r"[A-Za-z0-9_-]{1,32}"
NAME_HELP = "a name of 1 to 32 letters, digits, '_' or '-'"
HOST_PATTERN = r"[A-Za-z0-9_.:\[\]-]{1,253}"
HOST_HELP = "a host name or IP address, without scheme or port (like floor.example or 10.0.0.5)"
TOPIC_PATTERN = r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*"
TOPIC_HELP = (
    "topic levels of letters, digits, '_' or '-' separated by '/' (like casino or casino/east)"
)
PATH_HELP = "a file path"
#: A broker user name stands for the table in ACL patterns (`%u`, one topic level):
#: '/', '+', '#', '$', '%', spaces or control characters could widen what it may write.
USERNAME_PATTERN = r"[A-Za-z0-9_.@-]{1,64}"
USERNAME_HELP = (
    "a user name of 1 to 64 letters, digits, '_', '-', '.' or '@' (it stands for one "
    "topic level in the broker's ACL: '/', '+' or '#' would widen what the table may write)"
)

MQTT_PORT, MQTT_TLS_PORT = 1883, 8883


@dataclass(frozen=True, slots=True, kw_only=True)
class TlsSettings:
    """`floor.tls:` TLS to the broker; present means on."""

    ca_file: Path | None = None
    """CA certificate(s) that signed the broker's certificate; none: the system's CAs."""

    cert_file: Path | None = None
    """Client certificate, when the broker asks for one (with `key_file`)."""

    key_file: Path | None = None
    """The client certificate's private key (with `cert_file`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FloorSettings:
    """`floor:` the broker and what the table publishes there."""

    site: str
    """The casino (site) name, a topic level: `{topic_prefix}/{site}/{table.id}/...`."""

    host: str
    """The broker's host name or address."""

    port: int = MQTT_PORT
    """The broker's port; default 1883, or 8883 when `tls` is given."""

    tls: TlsSettings | None = None

    username: str | None = None

    password_file: Path | None = None
    """A file holding the password (first line), readable only by the service."""

    topic_prefix: str = "casino"

    outbox_max_messages: int = 10_000
    """The outbox's bound while the broker is unreachable. Unsent messages are never
    dropped: past the bound the oldest *sent* rows are deleted first, the table keeps
    playing, and the `FLOOR OUTBOX FULL` alarm stays until the whole backlog is sent."""

    outbox_alarm_percent: int = 80
    """Raise the link alarm (dealer display, event log) when the outbox is this full;
    it clears by itself once the backlog drains."""


def read_floor(section: Section) -> FloorSettings | None:
    # Read even when absent, so that its keys are known for "did you mean" elsewhere.
    section.lenient = section.lenient or not section.present
    if section.has("password"):
        section.get_node("password")
        section.fail(
            "password",
            "never put the password in the configuration: write it to a file readable "
            "only by the service and give that file as floor.password_file",
        )
    site = section.get_text("site", "", required=True, pattern=NAME_PATTERN, pattern_help=NAME_HELP)
    host = section.get_text("host", "", required=True, pattern=HOST_PATTERN, pattern_help=HOST_HELP)
    tls = _read_tls(section.get_section("tls"))
    port = section.get_int("port", MQTT_TLS_PORT if tls else MQTT_PORT, 1, 65535)
    username = section.get_optional_text(
        "username", pattern=USERNAME_PATTERN, pattern_help=USERNAME_HELP
    )
    password_file = section.get_optional_text("password_file", pattern_help=PATH_HELP)
    if password_file is not None and username is None and section.ok("username"):
        section.fail("password_file", "needs floor.username (a password goes with a user name)")
    settings = FloorSettings(
        site=site,
        host=host,
        port=port,
        tls=tls,
        username=username,
        password_file=Path(password_file) if password_file else None,
        topic_prefix=section.get_text(
            "topic_prefix", "casino", pattern=TOPIC_PATTERN, pattern_help=TOPIC_HELP
        ),
        outbox_max_messages=section.get_int("outbox_max_messages", 10_000, 100, 1_000_000),
        outbox_alarm_percent=section.get_int("outbox_alarm_percent", 80, 1, 100),
    )
    return settings if section.present else None


def _read_tls(section: Section) -> TlsSettings | None:
    files = {
        key: section.get_optional_text(key, pattern_help=PATH_HELP)
        for key in ("ca_file", "cert_file", "key_file")
    }
    if (files["cert_file"] is None) != (files["key_file"] is None) and section.ok(
        "cert_file", "key_file"
    ):
        given, missing = (
            ("cert_file", "key_file") if files["key_file"] is None else ("key_file", "cert_file")
        )
        section.fail(
            given, f"needs floor.tls.{missing} too (a client certificate and its key go together)"
        )
    if not section.present:
        return None
    return TlsSettings(**{key: Path(value) if value else None for key, value in files.items()})
