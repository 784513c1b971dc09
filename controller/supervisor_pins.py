"""Supervisor PINs: salted ``hashlib.scrypt`` hashes in a file only the service reads.
(Not the GPIO pins of the devices: those are ``drivers.pins``.)

The rules core never sees this file. The shell builds a verifier here and injects it
into the ``Table`` (``Table(settings, pin_verifier=PinFile(path))``); the keypad calls
it with the supervisor id and the PIN typed when a supervisor PIN entry ends (see
``controller.rules.keypad.supervisor``). The daemon may also record the verdict in the
key event (``pin_ok``) so that replaying the journal never depends on today's file.

File format, one supervisor a line (``#`` comments and blank lines allowed)::

    1042 scrypt$16384$8$1$<salt, base64>$<hash, base64>

Who may read and write it: the file must be owned by root or by the user reading it
(the service user), writable by its owner only, and readable by no one outside its
group; anything else is refused (``PinFileUnsafe``, saying the command that fixes it),
because a file others may write lets them install their own PIN, and one others may
read gives away hashes of short PINs. ``tablectl pin set`` (``controller.commands.pin``)
writes it atomically (a new file renamed over the old one), owned by whoever runs it,
so that the service can still read it (``_new_file_owner``): ``sudo tablectl pin set``
leaves ``root:tablectl 0640`` in the install's ``root:tablectl 0750``
``/etc/table-controller``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import stat
import tempfile
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

from controller.rules.limits import MAX_PIN_DIGITS, MIN_PIN_DIGITS
from controller.rules.text import msg, phrase, render

DEFAULT_PATH = Path("/etc/table-controller/pins")
ENV_PATH = "TABLECTL_PINS"
#: scrypt cost: about 16 MiB and some tens of milliseconds a check on a Pi-class board.
N, R, P = 2**14, 8, 1
SALT_BYTES = 16
HASH_BYTES = 32
ID_PATTERN = re.compile(r"\d{1,12}\Z")


class PinFileError(ValueError):
    """The PIN file cannot be used: a bad line, or a bad hash."""


class PinFileUnsafe(PinFileError):
    """The PIN file's owner or mode would let someone else read or change it."""


class PinFileMissing(PinFileError):
    """There is no PIN file: no PIN can be checked (not a wrong PIN)."""


#: Mode bits a PIN file may not have: written by the group or others, read by others.
UNSAFE_BITS = stat.S_IWGRP | stat.S_IWOTH | stat.S_IROTH | stat.S_IXOTH


def default_path() -> Path:
    return Path(os.environ.get(ENV_PATH, str(DEFAULT_PATH)))


def check_pin_text(pin: str, digits: int = MIN_PIN_DIGITS) -> None:
    """Refuse a PIN that is not ``digits`` to ``MAX_PIN_DIGITS`` digits."""
    if not (pin.isascii() and pin.isdigit() and digits <= len(pin) <= MAX_PIN_DIGITS):
        raise ValueError(
            f"a PIN is {digits} to {MAX_PIN_DIGITS} digits (the keypad has only digits"
            + (f"; supervisor.pin_digits is {digits})" if digits != MIN_PIN_DIGITS else ")")
        )


def check_supervisor_id(supervisor: str) -> None:
    if not ID_PATTERN.match(supervisor):
        raise ValueError("a supervisor id is 1 to 12 digits (it is typed on the keypad)")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_pin(
    pin: str,
    *,
    salt: bytes | None = None,
    n: int = N,
    r: int = R,
    p: int = P,
    digits: int = MIN_PIN_DIGITS,
) -> str:
    """The stored form of ``pin`` (at least ``digits`` digits): ``scrypt$n$r$p$salt$hash``
    with a fresh random salt."""
    check_pin_text(pin, digits)
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


def check_safety(info: os.stat_result, path: str | os.PathLike[str], *, owner: bool = True) -> None:
    """Refuse a PIN file someone other than its owner may write, or others may read,
    or (``owner``) one owned by anyone but root or this process's user
    (``PinFileUnsafe``)."""
    name = os.fspath(path)
    mode = stat.S_IMODE(info.st_mode)
    if owner and info.st_uid not in (0, os.geteuid()):
        raise PinFileUnsafe(
            f"{name} is owned by uid {info.st_uid}, who could change it; the PIN file must "
            f"belong to root or to the service user: sudo chown root {name}"
        )
    problems = []
    if mode & stat.S_IWGRP:
        problems.append("its group can write it")
    if mode & stat.S_IWOTH:
        problems.append("anyone can write it")
    if mode & (stat.S_IROTH | stat.S_IXOTH):
        problems.append("anyone can read it")
    if problems:
        safe = mode & ~UNSAFE_BITS & 0o640
        raise PinFileUnsafe(
            f"{name} has mode {mode:04o}: {' and '.join(problems)}; the PIN file must be "
            f"written by its owner only and read by no one outside its group: "
            f"sudo chmod {safe or 0o600:04o} {name}"
        )


def load_pins(path: str | os.PathLike[str], *, owner: bool = True) -> dict[str, str]:
    """The file's supervisor -> hash map (a missing file: no supervisors). An unsafe
    file (``check_safety``) raises ``PinFileUnsafe``."""
    try:  # O_NONBLOCK: a FIFO in its place must not hang the open
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return {}
    info = os.fstat(fd)  # the file read: no race
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise PinFileError(
            f"{os.fspath(path)} is not a regular file (a folder, a device or a pipe): "
            "point supervisor.pin_file at the file sudo tablectl pin set writes"
        )
    with os.fdopen(fd, "r", encoding="utf-8") as handle:
        check_safety(info, path, owner=owner)
        text = handle.read()
    return parse_pins(text, os.fspath(path))


def _new_file_owner(target: Path) -> tuple[int, int]:
    """``(gid, mode)`` for the file written over ``target`` (its owner: this user).

    An existing file keeps its group, readable by it when it was, or when it belonged
    to someone else (the service user, whose group it then is): so ``sudo tablectl pin
    set`` never leaves a file the service cannot read. A new file takes the group of
    its folder, readable by it, when that group may enter the folder and others may not
    (the install's ``root:tablectl 0750`` ``/etc/table-controller``); else it is 0600."""
    try:
        info = target.stat()
    except FileNotFoundError:
        folder = stat.S_IMODE(target.parent.stat().st_mode)
        if folder & stat.S_IXGRP and not folder & 0o007:  # its group enters, others not
            return target.parent.stat().st_gid, 0o640
        return os.getegid(), 0o600
    shared = info.st_mode & stat.S_IRGRP or info.st_uid != os.geteuid()
    return info.st_gid, 0o640 if shared else 0o600


def save_pins(path: str | os.PathLike[str], pins: Mapping[str, str]) -> None:
    """Write the file atomically, readable by the service (``_new_file_owner``) and
    written by no one but its owner."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# supervisor PINs (tablectl pin set): id, then scrypt hash"]
    lines += [f"{supervisor} {pins[supervisor]}" for supervisor in sorted(pins)]
    gid, mode = _new_file_owner(target)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".pins.")
    try:
        os.fchmod(fd, 0o600)
        if gid != os.getegid():
            try:
                os.fchown(fd, -1, gid)
            except PermissionError:  # not root and not in that group: keep it private
                mode = 0o600
        os.fchmod(fd, mode)
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

    def __init__(
        self, path: str | os.PathLike[str] | None = None, digits: int = MIN_PIN_DIGITS
    ) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.digits = digits  # a shorter PIN is wrong (supervisor.pin_digits)
        self._stamp: tuple[int, ...] | None = None
        self._pins: dict[str, str] = {}
        self._last: tuple[str, str, bool] | None = None

    def check(self) -> None:
        """Read the file now: ``PinFileError`` (``PinFileUnsafe``, ``PinFileMissing``)
        if it cannot be used."""
        self._refresh()
        if self._stamp == (0,):
            raise PinFileMissing(
                f"no supervisor PIN file at {self.path}: supervisor functions need one; "
                f"create it with: sudo tablectl pin set SUPERVISOR_ID"
            )

    def _refresh(self) -> None:
        try:
            info = self.path.stat()  # a chmod or chown counts as a change too
            stamp: tuple[int, ...] = (
                info.st_mtime_ns,
                info.st_size,
                info.st_ino,
                info.st_mode,
                info.st_uid,
                info.st_gid,
            )
        except FileNotFoundError:
            stamp = (0,)
        if stamp != self._stamp:
            self._pins = load_pins(self.path)
            self._stamp = stamp
            self._last = None

    def __call__(self, supervisor: str, pin: str) -> bool:
        """Whether ``pin`` is ``supervisor``'s; ``PinFileError`` when no verdict can be
        given (no file, an unsafe or broken one): the keypad then says PIN CHECK NOT
        AVAILABLE and no try is lost, where a file with no such supervisor is a wrong
        PIN."""
        self.check()
        if len(pin) < self.digits:  # wrong by the table's rule, whatever the file says
            return False
        if self._last is not None and self._last[:2] == (supervisor, pin):
            return self._last[2]
        ok = verifier_from_hashes(self._pins)(supervisor, pin)
        self._last = (supervisor, pin, ok)
        return ok


def unavailable_words() -> str:
    """What the dealer display says to a PIN that cannot be checked (no PIN file, or one
    that cannot be used): ``NO: PIN CHECK NOT AVAILABLE: CALL TECH``, the catalogue's
    words, for the log and ``check-config`` to say the same."""
    return render(msg("refused.line", reason=phrase("keypad.pin_unavailable")))
