"""The acknowledged high-water mark, kept in two files that must agree with the database.

SQLite recovers a WAL by keeping every transaction up to the last complete commit and
dropping the rest silently. That is right after a crash in the middle of an append, but
it would also drop *acknowledged* events if the storage lost data it reported written
(a card that ignores flushes, a WAL deleted or copied half-way). The ack mark tells the
two apart: after every commit the seq and chain hash just acknowledged are written (one
``pwrite`` in place, not fsynced per event) to **two** files, ``journal.ack`` and
``journal.ack.mirror``. Each copy also names the table the journal belongs to.

At every open each readable copy is compared with the database: a copy ahead of the
last event is a torn tail, a copy whose hash differs from the event at its seq a broken
chain. One copy missing or unreadable is a warning (the other still guards the tail,
and both are rewritten once the check passes). Both missing or unreadable beside a
journal database is :class:`AckMarkLost`: whether acknowledged events vanished can no
longer be told, so it is a fault, never OK. Losing one file therefore never erases
acknowledged events unnoticed: deleting the WAL and one copy still leaves the other.

Both copies are created, filled and fsynced (seq 0 and the chain's genesis) before the
database is renamed into place, and are rewritten in place at their full size, so a
power cut leaves each either old or new, never empty.

Each copy also carries the **verified mark**: the seq and chain hash up to which the
whole chain last passed a check. Start-up and ``tablectl state`` check the chain only
after it (the row at the mark must still have the mark's hash); ``tablectl journal
verify`` checks everything. A mark of seq 0 (a journal made before the mark, a salvage)
means nothing is known verified: the next check is whole.

And each copy carries the **system log's head** when it was written: the id and hash of
the last entry committed. An entry at or before it that is gone (the log's tail deleted,
``DELETE FROM system_log WHERE id >= N``) or differs is a broken chain, whatever the
log's own chain says (it cannot see its end cut off). The mark is rewritten after every
log entry, as after every event. The head follows the 128 bytes of the verified mark's
format, with a CRC of its own over everything before it: an earlier release reads the
mark as before (a rollback), and a head that release left stale is no head.
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from controller.journal.schema import install_file

ACK_NAME = "journal.ack"
ACK_MIRROR_NAME = "journal.ack.mirror"
ACK_NAMES = (ACK_NAME, ACK_MIRROR_NAME)
TABLE_ID_BYTES = 32

_MAGIC_V1 = b"TCACK\x00\x01\x00"  # 52 bytes: magic, seq, hash, crc (before the mirror)
_MAGIC_V2 = b"TCACK\x00\x02\x00"  # 88 bytes: magic, seq, hash, table id, flags, crc
_MAGIC_V3 = b"TCACK\x00\x03\x00"  # 128 bytes: V2's fields, the verified mark, crc
_V1 = struct.Struct(">8sQ32s")
_V2 = struct.Struct(f">8sQ32s{TABLE_ID_BYTES}sI")
_V3 = struct.Struct(f">8sQ32s{TABLE_ID_BYTES}sIQ32s")
# After V3's 128 bytes (which an earlier release reads, ignoring what follows, so a
# rollback still reads the mark): the system log's head and a crc over all 168 before.
_LOG_HEAD = struct.Struct(">Q32s")
_CLEAN = 0x1  # written by an orderly close: the last run stopped cleanly
_CRC = struct.Struct(">I")


@dataclass(frozen=True, slots=True)
class AckMark:
    """The last seq acknowledged to a caller, its chain hash, and the table's id."""

    seq: int
    hash: bytes
    table_id: str | None = None
    clean: bool = False  # set by an orderly close (it needs no new disk space)
    verified: tuple[int, bytes] | None = None
    """(seq, chain hash) up to which the chain last passed a check; None: nothing known."""
    log_head: tuple[int, bytes] | None = None
    """(id, hash) of the last system log entry committed when it was written; None:
    not known (a mark of an earlier version, a salvage's)."""


class AckMarkDamaged(ValueError):
    """An ack mark file exists but does not hold a valid record."""


def encode_ack(mark: AckMark) -> bytes:
    table = (mark.table_id or "").encode("utf-8")
    if len(table) > TABLE_ID_BYTES:
        raise ValueError(f"table id {mark.table_id!r} is longer than {TABLE_ID_BYTES} bytes")
    verified_seq, verified_hash = mark.verified or (0, bytes(32))
    body = _V3.pack(
        _MAGIC_V3,
        mark.seq,
        mark.hash,
        table,
        _CLEAN if mark.clean else 0,
        verified_seq,
        verified_hash,
    )
    data = body + _CRC.pack(zlib.crc32(body)) + _LOG_HEAD.pack(*(mark.log_head or (0, bytes(32))))
    return data + _CRC.pack(zlib.crc32(data))


def decode_ack(data: bytes) -> AckMark:
    magic = data[:8]
    layout = {_MAGIC_V3: _V3, _MAGIC_V2: _V2}.get(magic, _V1)
    size = layout.size + _CRC.size
    if len(data) < size:
        raise AckMarkDamaged(f"it is {len(data)} bytes, expected {size}")
    body = data[: layout.size]
    (crc,) = _CRC.unpack(data[layout.size : size])
    if zlib.crc32(body) != crc:
        raise AckMarkDamaged("its checksum does not match")
    if magic == _MAGIC_V3:
        _magic, seq, digest, table, flags, verified_seq, verified_hash = _V3.unpack(body)
        name = table.rstrip(b"\x00").decode("utf-8", "replace") or None
        verified = (verified_seq, verified_hash) if verified_seq else None
        return AckMark(seq, digest, name, bool(flags & _CLEAN), verified, _log_head(data, size))
    if magic == _MAGIC_V2:
        _magic, seq, digest, table, flags = _V2.unpack(body)
        name = table.rstrip(b"\x00").decode("utf-8", "replace") or None
        return AckMark(seq, digest, name, bool(flags & _CLEAN))
    if magic != _MAGIC_V1:
        raise AckMarkDamaged("it has an unknown format")
    _magic, seq, digest = _V1.unpack(body)
    return AckMark(seq, digest)


def _log_head(data: bytes, start: int) -> tuple[int, bytes] | None:
    """The system log's head after a V3 mark; None when absent (a mark of an earlier
    release) or not matching the mark before it (an earlier release, rolled back to,
    rewrote only the mark's first 128 bytes)."""
    end = start + _LOG_HEAD.size
    if (
        len(data) < end + _CRC.size
        or zlib.crc32(data[:end]) != _CRC.unpack(data[end : end + _CRC.size])[0]
    ):
        return None
    log_id, log_hash = _LOG_HEAD.unpack(data[start:end])
    return (log_id, log_hash) if log_id else None


@dataclass(frozen=True, slots=True)
class AckCopy:
    """One of the two files: its mark, or why it has none."""

    name: str
    mark: AckMark | None
    problem: str | None  # "missing", "empty", or why it cannot be decoded
    legacy_empty: bool = False  # an empty journal.ack as versions before the mirror left it


@dataclass(frozen=True, slots=True)
class AckReading:
    """Both copies as found at open."""

    copies: tuple[AckCopy, ...]

    @property
    def marks(self) -> list[AckMark]:
        return [copy.mark for copy in self.copies if copy.mark is not None]

    @property
    def high(self) -> AckMark | None:
        """The highest mark found: the acknowledged high-water mark."""
        marks = self.marks
        return max(marks, key=lambda mark: mark.seq) if marks else None

    @property
    def lost(self) -> bool:
        """No copy is readable (a journal made before the mirror with nothing acknowledged
        yet, an empty ``journal.ack`` and no mirror, is not lost)."""
        if self.marks:
            return False
        primary, mirror = self.copies
        return not (primary.legacy_empty and mirror.problem == "missing")

    @property
    def table_id(self) -> str | None:
        for mark in self.marks:
            if mark.table_id:
                return mark.table_id
        return None

    @property
    def verified(self) -> tuple[int, bytes] | None:
        """The verified mark both readable copies allow: the lower one (a copy left
        behind checks more, never less); None when a copy has none."""
        marks = self.marks
        if not marks or any(mark.verified is None for mark in marks):
            return None
        return min((mark.verified for mark in marks if mark.verified is not None), key=_seq)

    def clean_at(self, seq: int) -> bool:
        """Did the last run close cleanly at ``seq``? (The marks are rewritten in place,
        so this holds when the database had no room left for its own marker.)"""
        return any(mark.clean and mark.seq == seq for mark in self.marks)

    def describe(self) -> str:
        return "; ".join(
            f"{copy.name} at seq {copy.mark.seq}"
            if copy.mark is not None
            else f"{copy.name} {copy.problem}"
            for copy in self.copies
        )

    def warnings(self) -> list[str]:
        """Copies that are missing or unreadable while another one still guards the tail."""
        if not self.marks:
            return []
        return [
            f"{copy.name} is {copy.problem}; the tail was checked against the other copy, "
            f"and both are rewritten when the check passes"
            for copy in self.copies
            if copy.problem is not None and not copy.legacy_empty
        ]


def _seq(verified: tuple[int, bytes]) -> int:
    return verified[0]


def read_copy(path: Path) -> AckCopy:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return AckCopy(path.name, None, "missing")
    except OSError as error:
        return AckCopy(path.name, None, f"unreadable ({error.strerror or error})")
    if not data:
        return AckCopy(path.name, None, "empty", legacy_empty=path.name == ACK_NAME)
    try:
        return AckCopy(path.name, decode_ack(data), None)
    except AckMarkDamaged as error:
        return AckCopy(path.name, None, f"unreadable ({error})")


def read_acks(directory: Path) -> AckReading:
    return AckReading(tuple(read_copy(directory / name) for name in ACK_NAMES))


class AckWriter:
    """Both copies, open: rewritten in place (one ``pwrite`` each) after every commit."""

    def __init__(
        self,
        directory: Path,
        table_id: str | None,
        verified: tuple[int, bytes] | None = None,
    ) -> None:
        self.table_id = table_id
        self.verified = verified  # written with every mark (``Journal.verify``)
        self._fds: list[int] = []
        try:
            for name in ACK_NAMES:
                self._fds.append(
                    os.open(directory / name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
                )
        except BaseException:
            self.close()
            raise

    def write(
        self,
        seq: int,
        digest: bytes,
        *,
        clean: bool = False,
        log_head: tuple[int, bytes] | None = None,
    ) -> None:
        data = encode_ack(AckMark(seq, digest, self.table_id, clean, self.verified, log_head))
        for fd in self._fds:
            os.pwrite(fd, data, 0)

    def sync(self) -> None:
        for fd in self._fds:
            os.fsync(fd)

    def close(self) -> None:
        fds, self._fds = self._fds, []
        for fd in fds:
            os.close(fd)


def write_acks(directory: Path, mark: AckMark) -> None:
    """Both copies made whole (creation, salvage, repair after a passed check), one after
    the other, each written under a temporary name, fsynced and renamed into place: a
    power cut leaves each copy old or new, never torn (a first-release 52-byte mark
    grows to 88 bytes here, and the mirror is new), and never both in flight at once."""
    data = encode_ack(mark)
    for name in ACK_NAMES:
        temp = directory / f"{name}.new"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o640)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        install_file(temp, directory / name)
