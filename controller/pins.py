"""Supervisor PINs: salted ``hashlib.scrypt`` hashes in a file only the service reads.

The rules core never sees this file. The shell builds a verifier here and injects it
into the ``Table`` (``Table(settings, pin_verifier=PinFile(path))``); the keypad calls
it with the supervisor id and the PIN typed when a supervisor PIN entry ends (see
``controller.rules.keypad.supervisor``). The daemon may also record the verdict in the
key event (``pin_ok``) so that replaying the journal never depends on today's file.

File format, one supervisor a line (``#`` comments and blank lines allowed)::

    1042 scrypt$16384$8$1$<salt, base64>$<hash, base64>

The file is written with mode 0600 by ``tablectl pin set`` (``controller.commands.pin``),
atomically (a new file renamed over the old one).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import tempfile
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

DEFAULT_PATH = Path("/etc/table-controller/pins")
ENV_PATH = "TABLECTL_PINS"
#: scrypt cost: about 16 MiB and some tens of milliseconds a check on a Pi-class board.
N, R, P = 2**14, 8, 1
SALT_BYTES = 16
HASH_BYTES = 32
PIN_PATTERN = re.compile(r"\d{4,12}\Z")
ID_PATTERN = re.compile(r"\d{1,12}\Z")


class PinFileError(ValueError):
    """The PIN file cannot be used: a bad line, or a bad hash."""


def default_path() -> Path:
    return Path(os.environ.get(ENV_PATH, str(DEFAULT_PATH)))


def check_pin_text(pin: str) -> None:
    if not PIN_PATTERN.match(pin):
        raise ValueError("a PIN is 4 to 12 digits (the keypad has only digits)")


def check_supervisor_id(supervisor: str) -> None:
    if not ID_PATTERN.match(supervisor):
        raise ValueError("a supervisor id is 1 to 12 digits (it is typed on the keypad)")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_pin(pin: str, *, salt: bytes | None = None, n: int = N, r: int = R, p: int = P) -> str:
    """The stored form of ``pin``: ``scrypt$n$r$p$salt$hash`` with a fresh random salt."""
    check_pin_text(pin)
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, dklen=HASH_BYTES)
    return f"scrypt${n}${r}${p}${_b64(salt)}${_b64(digest)}"


def _decode(encoded: str) -> tuple[int, int, int, bytes, bytes]:
    try:
        scheme, n, r, p, salt, digest = encoded.split("$")
        if scheme != "scrypt":
            raise ValueError(scheme)
        return int(n), int(r), int(p), base64.b64decode(salt), base64.b64decode(digest)
    except ValueError:
        raise PinFileError("not a scrypt PIN hash") from None


def verify_pin(pin: str, encoded: str) -> bool:
    """Whether ``pin`` matches the stored hash (compared in constant time)."""
    n, r, p, salt, digest = _decode(encoded)
    got = hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, dklen=len(digest))
    return hmac.compare_digest(got, digest)


def parse_pins(text: str, source: str = "<pins>") -> dict[str, str]:
    pins: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise PinFileError(f"{source}:{number}: expected 'SUPERVISOR_ID HASH'")
        supervisor, encoded = parts
        _decode(encoded)
        pins[supervisor] = encoded
    return pins


def load_pins(path: str | os.PathLike[str]) -> dict[str, str]:
    """The file's supervisor -> hash map (a missing file: no supervisors)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    return parse_pins(text, os.fspath(path))


def save_pins(path: str | os.PathLike[str], pins: Mapping[str, str]) -> None:
    """Write the file atomically with mode 0600."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# supervisor PINs (tablectl pin set): id, then scrypt hash"]
    lines += [f"{supervisor} {pins[supervisor]}" for supervisor in sorted(pins)]
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".pins.")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


@cache
def _dummy() -> str:
    return hash_pin("0000", salt=b"\0" * SALT_BYTES)


def verifier_from_hashes(pins: Mapping[str, str]) -> Callable[[str, str], bool]:
    """A verifier over a fixed supervisor -> hash map (from a config section, a test)."""
    def verify(supervisor: str, pin: str) -> bool:
        encoded = pins.get(supervisor)
        if encoded is None:
            verify_pin(pin, _dummy())  # same work for an unknown id: no timing hint
            return False
        return verify_pin(pin, encoded)
    return verify


class PinFile:
    """The verifier the daemon injects: reads the PIN file when it changed, and
    remembers its last answer (the rules check a key once to test it and once more
    to apply it, and scrypt is deliberately slow)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._stamp: tuple[int, int] | None = None
        self._pins: dict[str, str] = {}
        self._last: tuple[str, str, bool] | None = None

    def _refresh(self) -> None:
        try:
            info = self.path.stat()
            stamp = (info.st_mtime_ns, info.st_size)
        except FileNotFoundError:
            stamp = (0, 0)
        if stamp != self._stamp:
            self._pins = load_pins(self.path)
            self._stamp = stamp
            self._last = None

    def __call__(self, supervisor: str, pin: str) -> bool:
        self._refresh()
        if self._last is not None and self._last[:2] == (supervisor, pin):
            return self._last[2]
        ok = verifier_from_hashes(self._pins)(supervisor, pin)
        self._last = (supervisor, pin, ok)
        return ok
