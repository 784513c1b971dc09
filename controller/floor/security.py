"""TLS and credentials for the floor link's MQTT clients (the publisher, `floor watch`).

Secrets stay out of logs and reprs: the password is read from its file just before it
is handed to paho, and only the file's path appears in messages. A password file or a
private key that group or others can read is still used (the link matters more than
the warning) but logged as a warning every time it is read.
"""

from __future__ import annotations

import logging
import ssl
import stat
from pathlib import Path

import paho.mqtt.client as mqtt

from controller.floor.settings import FloorConfigError, TlsSettings


def warn_if_exposed(path: Path, option: str, logger: logging.Logger) -> None:
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # reading it reports the problem
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        logger.warning(
            "%s %s is readable by group or others (mode %03o); "
            "make it mode 600, owned by the service user",
            option,
            path,
            stat.S_IMODE(mode),
        )


def read_password(path: Path, logger: logging.Logger) -> str:
    warn_if_exposed(path, "floor.password_file", logger)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise FloorConfigError(f"floor.password_file: cannot read {path}: {reason}") from None
    password = text.rstrip("\r\n")
    if not password:
        raise FloorConfigError(f"floor.password_file: {path} is empty")
    return password


def tls_context(tls: TlsSettings, logger: logging.Logger) -> ssl.SSLContext:
    """Verify the broker against the casino's CA (host name included), TLS 1.2 or
    later; present the table's client certificate when there is one."""
    try:
        context = ssl.create_default_context(
            cafile=str(tls.ca_file) if tls.ca_file is not None else None
        )
    except (OSError, ssl.SSLError) as exc:
        raise FloorConfigError(f"floor.tls.ca_file: cannot load {tls.ca_file}: {exc}") from None
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if tls.cert_file is not None:
        key_file = tls.key_file or tls.cert_file
        warn_if_exposed(key_file, "floor.tls.key_file", logger)
        try:
            context.load_cert_chain(str(tls.cert_file), str(key_file))
        except (OSError, ssl.SSLError) as exc:
            raise FloorConfigError(
                f"floor.tls.cert_file: cannot load {tls.cert_file} with key {key_file}: {exc}"
            ) from None
    return context


def configure(
    client: mqtt.Client,
    *,
    tls: TlsSettings | None,
    username: str | None,
    password_file: Path | None,
    logger: logging.Logger,
) -> None:
    """TLS and username/password on a paho client; FloorConfigError when unusable."""
    if tls is not None:
        client.tls_set_context(tls_context(tls, logger))
    if username is not None:
        password = read_password(password_file, logger) if password_file is not None else None
        client.username_pw_set(username, password)
