"""The salvage's last resort: journal rows read straight from the pages of the files.

SQLite cannot read a database whose schema page is damaged, whose b-tree interior
pages are gone (a file truncated half-way) or whose first configuration record no
longer matches its hash, although most of its events are intact. The hash chain does
not need SQLite to vouch for a row: a row that links to the previous hash *is* the
event that was written. So this module reads every b-tree leaf page of
``journal.sqlite3`` and every **committed** frame of ``journal.sqlite3-wal`` (frames
checked by their salts and cumulative checksums up to the last commit frame, exactly
what SQLite itself would replay; a half-written transaction was never acknowledged
and is never revived), decodes the records (SQLite's documented file format), sorts
them into the journal's tables by shape, and walks the chain from every possible start
(the genesis of the first configuration's stored or actual SHA-256, the one of the
configuration file given to the salvage, or a prune checkpoint found in ``meta``),
keeping the longest prefix that holds. Configuration texts and snapshots are kept only
when they match the SHA-256 the chain vouches for.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.journal.errors import ChainBroken, JournalIntegrityError
from controller.journal.integrity import ChainBase, LogBase, ScannedRow, check_row, log_base
from controller.journal.recovered import Recovered, keep_matching_outbox
from controller.journal.schema import (
    DB_NAME,
    META_CHAIN_BASE_HASH,
    META_CHAIN_BASE_SEQ,
    META_FLOOR_CLAIMS,
    META_OUTBOX_PRUNED_THROUGH,
    META_SNAPSHOTS_PRUNED_THROUGH,
    META_TABLE_ID,
    genesis_hash,
    log_digest,
    log_genesis,
    sha256_hex,
    snapshot_digest,
)

_WAL_MAGIC = (0x377F0682, 0x377F0683)
_LEAF_TABLE = 0x0D
_LEAF_INDEX = 0x0A
_DEFAULT_PAGE = 4096
_HEX = frozenset(b"0123456789abcdef")


@dataclass(frozen=True, slots=True)
class Cell:
    """One record found on a leaf page; ``order`` grows with how recent its page is."""

    rowid: int | None  # None for an index (WITHOUT ROWID) record
    values: tuple[Any, ...]
    order: int


# ------------------------------------------------------------------ the file format


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9


def _record(payload: bytes) -> tuple[Any, ...]:
    """A record's values; text stays bytes (decoded where the chain is checked)."""
    header_size, at = _varint(payload, 0)
    types: list[int] = []
    while at < header_size:
        serial, at = _varint(payload, at)
        types.append(serial)
    body = header_size
    values: list[Any] = []
    for serial in types:
        if serial == 0:
            values.append(None)
        elif serial in (8, 9):
            values.append(serial - 8)
        elif 1 <= serial <= 6:
            width = (0, 1, 2, 3, 4, 6, 8)[serial]
            values.append(int.from_bytes(payload[body : body + width], "big", signed=True))
            body += width
        elif serial == 7:
            values.append(struct.unpack(">d", payload[body : body + 8])[0])
            body += 8
        elif serial >= 12:
            width = (serial - 12) // 2
            if body + width > len(payload):
                raise ValueError("record runs past its payload")
            values.append(bytes(payload[body : body + width]))
            body += width
        else:
            raise ValueError(f"reserved serial type {serial}")
    return tuple(values)


class _Pages:
    """The database's pages, newest version first: committed WAL frames over the file."""

    def __init__(self, db: bytes, wal: bytes) -> None:
        self.page_size = _page_size(db, wal)
        self.usable = self.page_size - (db[20] if len(db) >= 100 else 0)
        self.latest: dict[int, bytes] = {}
        self.versions: list[tuple[int, bytes]] = []
        size = self.page_size
        for index in range(len(db) // size):
            page = db[index * size : (index + 1) * size]
            self.versions.append((index + 1, page))
            self.latest[index + 1] = page
        for pgno, page in _committed_frames(wal, size):
            self.versions.append((pgno, page))
            self.latest[pgno] = page

    def overflow(self, first: int, needed: int) -> bytes:
        out = bytearray()
        page_no, seen = first, set()
        while needed > len(out) and page_no and page_no not in seen:
            seen.add(page_no)
            page = self.latest.get(page_no)
            if page is None:
                raise ValueError(f"overflow page {page_no} is missing")
            out += page[4 : self.usable][: needed - len(out)]
            page_no = int.from_bytes(page[:4], "big")
        if len(out) < needed:
            raise ValueError("overflow chain ends early")
        return bytes(out)

    def cells(self) -> Iterator[Cell]:
        for order, (pgno, page) in enumerate(self.versions):
            with suppress(IndexError, ValueError, struct.error):
                yield from self._page_cells(pgno, page, order)

    def _page_cells(self, pgno: int, page: bytes, order: int) -> Iterator[Cell]:
        start = 100 if pgno == 1 else 0
        kind = page[start]
        if kind not in (_LEAF_TABLE, _LEAF_INDEX):
            return
        count = int.from_bytes(page[start + 3 : start + 5], "big")
        usable = self.usable
        for n in range(count):
            pointer = int.from_bytes(page[start + 8 + 2 * n : start + 10 + 2 * n], "big")
            if not 0 < pointer < usable:
                continue
            with suppress(IndexError, ValueError, struct.error):
                size, at = _varint(page, pointer)
                rowid = None
                if kind == _LEAF_TABLE:
                    rowid, at = _varint(page, at)
                    most = usable - 35
                else:
                    most = (usable - 12) * 64 // 255 - 23
                if size <= most:
                    payload = page[at : at + size]
                else:
                    least = (usable - 12) * 32 // 255 - 23
                    local = least + (size - least) % (usable - 4)
                    local = local if local <= most else least
                    first = int.from_bytes(page[at + local : at + local + 4], "big")
                    payload = page[at : at + local] + self.overflow(first, size - local)
                if len(payload) == size:
                    yield Cell(rowid, _record(payload), order)


def _page_size(db: bytes, wal: bytes) -> int:
    if len(db) >= 100 and db[:16] == b"SQLite format 3\x00":
        size = int.from_bytes(db[16:18], "big")
        size = 65536 if size == 1 else size
        if size >= 512 and size & (size - 1) == 0:
            return size
    if len(wal) >= 32 and int.from_bytes(wal[:4], "big") in _WAL_MAGIC:
        size = int.from_bytes(wal[8:12], "big")
        if size >= 512 and size & (size - 1) == 0:
            return size
    return _DEFAULT_PAGE


def _checksum(data: bytes, s0: int, s1: int, order: str) -> tuple[int, int]:
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def _committed_frames(wal: bytes, page_size: int) -> list[tuple[int, bytes]]:
    """The WAL frames SQLite would replay: valid salts and checksums, up to the last commit."""
    if len(wal) < 32:
        return []
    magic = int.from_bytes(wal[:4], "big")
    if magic not in _WAL_MAGIC or int.from_bytes(wal[8:12], "big") != page_size:
        return []
    order = ">" if magic & 1 else "<"
    s0, s1 = _checksum(wal[:24], 0, 0, order)
    if (s0, s1) != struct.unpack(">II", wal[24:32]):
        return []
    salts = wal[16:24]
    frames: list[tuple[int, bytes]] = []
    committed: list[tuple[int, bytes]] = []
    at = 32
    while at + 24 + page_size <= len(wal):
        header = wal[at : at + 24]
        page = wal[at + 24 : at + 24 + page_size]
        if header[8:16] != salts:
            break
        s0, s1 = _checksum(header[:8] + page, s0, s1, order)
        if (s0, s1) != struct.unpack(">II", header[16:24]):
            break
        frames.append((int.from_bytes(header[:4], "big"), page))
        if int.from_bytes(header[4:8], "big"):
            committed = list(frames)
        at += 24 + page_size
    return committed


# ------------------------------------------------------------------ the journal's tables


@dataclass
class _Found:
    """The rows carved out of a damaged journal file, table by table."""

    events: dict[int, list[tuple[Any, ...]]]
    configs: dict[int, list[tuple[Any, ...]]]
    snapshots: dict[int, list[bytes]]
    log: dict[int, tuple[Any, ...]]
    outbox: dict[int, tuple[Any, ...]]
    meta: dict[str, list[str]]


def _is_int(value: Any) -> bool:
    return isinstance(value, int)


def _is_text(value: Any) -> bool:
    return isinstance(value, bytes)


def _sort_cells(pages: _Pages) -> _Found:
    found = _Found({}, {}, {}, {}, {}, {})
    for cell in pages.cells():
        v, rowid = cell.values, cell.rowid
        if rowid is None:
            if len(v) == 2 and _is_text(v[0]) and _is_text(v[1]):
                with suppress(UnicodeDecodeError):
                    found.meta.setdefault(v[0].decode(), []).append(v[1].decode())
            continue
        if v and v[0] is not None:
            continue  # not one of the journal's tables (sqlite_master, sqlite_sequence)
        if (
            len(v) in (13, 14)
            and _is_int(v[2])
            and _is_text(v[3])
            and _is_text(v[12])
            and len(v[12]) == 32
        ):
            found.events.setdefault(rowid, []).append((rowid, *v[1:]))
        elif (
            len(v) == 7
            and _is_text(v[1])
            and len(v[1]) == 64
            and set(v[1]) <= _HEX
            and _is_text(v[2])
        ):
            found.configs.setdefault(rowid, []).append((rowid, *v[1:]))
        elif len(v) in (7, 8) and _is_text(v[1]) and _is_text(v[2]) and _is_int(v[6]):
            found.log[rowid] = (rowid, *v[1:])
        elif len(v) == 8 and _is_text(v[2]) and _is_text(v[3]):
            found.outbox[rowid] = (rowid, *v[1:])
        elif len(v) == 2 and _is_text(v[1]):
            found.snapshots.setdefault(rowid, []).append(v[1])
    return found


def _config_candidates(found: _Found, config_text: str | None) -> dict[int, set[str]]:
    """The SHA-256 each configuration id may have: stored, actual, the given file's."""
    given = sha256_hex(config_text) if config_text is not None else None
    candidates: dict[int, set[str]] = {}
    for config_id, rows in found.configs.items():
        for row in rows:
            candidates.setdefault(config_id, set()).add(row[1].decode())
            candidates[config_id].add(hashlib.sha256(row[2]).hexdigest())
    if given is not None:
        for config_id in {row[2] for rows in found.events.values() for row in rows} | {1}:
            if isinstance(config_id, int):
                candidates.setdefault(config_id, set()).add(given)
    return candidates


def _bases(found: _Found, candidates: dict[int, set[str]]) -> list[ChainBase]:
    bases = [ChainBase(0, genesis_hash(sha)) for sha in sorted(candidates.get(1, ()))]
    for seq_text in found.meta.get(META_CHAIN_BASE_SEQ, []):
        for hash_text in found.meta.get(META_CHAIN_BASE_HASH, []):
            with suppress(ValueError):
                if int(seq_text) > 0:
                    bases.append(ChainBase(int(seq_text), bytes.fromhex(hash_text)))
    return bases


@dataclass
class _Walk:
    """The chain of events walked from one base, and the problem that ended it if any."""

    base: ChainBase
    rows: list[ScannedRow]
    problem: JournalIntegrityError | None


def _walk(
    found: _Found, base: ChainBase, candidates: dict[int, set[str]], resolved: dict[int, str]
) -> _Walk:
    rows: list[ScannedRow] = []
    previous, expected = base.hash, base.seq + 1
    while True:
        versions = found.events.get(expected)
        if not versions:
            later = [seq for seq in found.events if seq > expected]
            problem: JournalIntegrityError | None = (
                None
                if not later
                else ChainBroken(
                    expected,
                    f"event {expected} is missing from every readable page "
                    f"(events up to {max(later)} were found)",
                )
            )
            return _Walk(base, rows, problem)
        row, problem = _link(versions, expected, previous, candidates, resolved)
        if row is None:
            return _Walk(base, rows, problem)
        rows.append(row)
        previous, expected = row.hash, expected + 1


def _link(
    versions: list[tuple[Any, ...]],
    expected: int,
    previous: bytes,
    candidates: dict[int, set[str]],
    resolved: dict[int, str],
) -> tuple[ScannedRow | None, JournalIntegrityError | None]:
    problem: JournalIntegrityError | None = None
    for raw in reversed(versions):  # the newest version first
        config_id = raw[2]
        shas = (
            [resolved[config_id]]
            if config_id in resolved
            else sorted(candidates.get(config_id, ()))
        )
        if not shas:
            problem = ChainBroken(
                expected, f"its configuration record {config_id!r} is missing or damaged"
            )
        for sha in shas:
            try:
                row = check_row(raw, expected, previous, {config_id: sha})
            except JournalIntegrityError as error:
                problem = error
                continue
            resolved[config_id] = sha
            return row, None
    return None, problem


def carve_journal(directory: Path, config_text: str | None, before: int | None = None) -> Recovered:
    """Read what the chain vouches for from the raw files (see the module docstring),
    cut before seq ``before`` when given (``salvage --before``)."""
    recovered = Recovered()
    try:
        db = (directory / DB_NAME).read_bytes()
    except OSError:
        db = b""
    try:
        wal = (directory / f"{DB_NAME}-wal").read_bytes()
    except OSError:
        wal = b""
    found = _sort_cells(_Pages(db, wal))
    recovered.found_last_seq = max(found.events, default=None)
    recovered.damaged_last_seq = recovered.found_last_seq
    table_ids = found.meta.get(META_TABLE_ID)
    recovered.table_id = table_ids[-1] if table_ids else None
    candidates = _config_candidates(found, config_text)
    best: _Walk | None = None
    best_resolved: dict[int, str] = {}
    for base in _bases(found, candidates):
        resolved: dict[int, str] = {}
        walk = _walk(found, base, candidates, resolved)
        if best is None or len(walk.rows) + walk.base.seq > len(best.rows) + best.base.seq:
            best, best_resolved = walk, resolved
    if best is None:
        recovered.reason = (
            "no configuration record and no prune checkpoint could be read from the raw pages"
        )
        return recovered
    if best.base.seq == 0 and 1 not in best_resolved:
        for sha in candidates.get(1, ()):
            if genesis_hash(sha) == best.base.hash:
                best_resolved[1] = sha
    texts = _config_texts(found, best_resolved, config_text)
    rows = best.rows
    for index, row in enumerate(rows):
        if row.config_id not in texts:
            rows = rows[:index]
            best.problem = ChainBroken(
                row.content.seq,
                f"the text of its configuration record "
                f"{row.config_id} is damaged and no "
                f"matching configuration file was given",
            )
            break
    cut = before is not None and any(row.content.seq >= before for row in rows)
    if before is not None:
        rows = [row for row in rows if row.content.seq < before]
    recovered.base = best.base
    _fill(recovered, found, rows, texts, best_resolved)
    if cut:
        recovered.reason = f"cut before seq {before}, as the salvage was asked to"
    else:
        recovered.reason = (
            best.problem.message
            if best.problem is not None
            else "the hash chain held to the last event found in the raw pages"
        )
    recovered.notes.append(
        f"read from the raw pages of the files ({len(rows)} event(s) "
        f"linked, {len(found.events)} event row(s) found)"
    )
    return recovered


def _config_texts(
    found: _Found, resolved: dict[int, str], config_text: str | None
) -> dict[int, tuple[Any, ...]]:
    """``{config id: (text, from_seq, wall_ns, clock_synced, by)}`` matching the chain."""
    texts: dict[int, tuple[Any, ...]] = {}
    for config_id, sha in resolved.items():
        rows = found.configs.get(config_id, [])
        for row in reversed(rows):
            if hashlib.sha256(row[2]).hexdigest() == sha:
                with suppress(UnicodeDecodeError):
                    texts[config_id] = (row[2].decode(), *_texts(row[3:]))
                    break
        if config_id not in texts and config_text is not None and sha256_hex(config_text) == sha:
            uses = [
                seq
                for seq, versions in found.events.items()
                if any(raw[2] == config_id for raw in versions)
            ]
            meta = _texts(rows[-1][3:]) if rows else (min(uses, default=1), 0, 0, None)
            texts[config_id] = (config_text, *meta)
    return texts


def _fill(
    recovered: Recovered,
    found: _Found,
    rows: list[ScannedRow],
    texts: dict[int, tuple[Any, ...]],
    shas: dict[int, str],
) -> None:
    recovered.configs = [
        (config_id, shas[config_id], *texts[config_id])
        for config_id in sorted(shas)
        if config_id in texts
    ]
    recorded: dict[int, bytes] = {}
    for row in rows:
        c = row.content
        recovered.events.append(
            (
                c.seq,
                c.hand,
                row.config_id,
                c.event,
                c.accepted,
                c.refusal_code,
                c.refusal_message,
                c.by,
                c.wall_ns,
                c.clock_synced,
                c.mono_ns,
                c.snapshot_sha256,
                row.hash,
                c.outbox_sha256,
            )
        )
        if c.snapshot_sha256 is not None:
            recorded[c.seq] = c.snapshot_sha256
    for seq in sorted(recorded):
        for state in reversed(found.snapshots.get(seq, [])):
            with suppress(UnicodeDecodeError):
                text = state.decode()
                if snapshot_digest(text) == recorded[seq]:
                    recovered.snapshots.append((seq, text))
                    break
    kept = {seq for seq, _ in recovered.snapshots}
    lost = sorted(set(recorded) - kept)
    if lost:
        recovered.notes.append(f"snapshots for seq {lost} could not be kept")
    pruned = [int(v) for v in found.meta.get(META_SNAPSHOTS_PRUNED_THROUGH, []) if v.isdigit()]
    recovered.snapshots_pruned_through = max([*pruned[-1:], *lost, 0])
    meta = {key: values[-1] for key, values in found.meta.items() if values}
    _fill_log(recovered, [_log_row(row) for _, row in sorted(found.log.items())], meta)
    recovered.floor_claims = bool(found.meta.get(META_FLOOR_CLAIMS))
    outbox = [
        _texts(row)
        for _, row in sorted(found.outbox.items())
        if row[1] is None or isinstance(row[1], int)
    ]
    through = meta.get(META_OUTBOX_PRUNED_THROUGH, "0")
    keep_matching_outbox(recovered, outbox, int(through) if through.isdigit() else 0)


def _log_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """``(id, kind, detail, wall_ns, clock_synced, mono_ns, last_seq, hash)``, texts decoded."""
    values = (*_texts(row[:7]), row[7] if len(row) > 7 else None)
    return values


def _fill_log(recovered: Recovered, rows: list[tuple[Any, ...]], meta: dict[str, str]) -> None:
    base = log_base(meta)
    if base is None:  # a journal from before the log's chain
        first = str(recovered.configs[0][1]) if recovered.configs else ""
        recovered.log = rows
        recovered.log_base = LogBase(max((row[0] for row in rows), default=0), log_genesis(first))
        return
    recovered.log_base = base
    previous = base.hash
    kept = [row for row in rows if row[0] <= base.id]
    for row in rows:
        if row[0] <= base.id:
            continue
        if not isinstance(row[7], bytes) or log_digest(previous, row[:7]) != row[7]:
            later = sum(1 for other in rows if other[0] >= row[0])
            recovered.notes.append(
                f"system log: entry {row[0]} does not link to the one "
                f"before; {later} entr(ies) from there on are kept only "
                f"in the damaged copy"
            )
            break
        kept.append(row)
        previous = row[7]
    recovered.log = kept


def _texts(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in row)
