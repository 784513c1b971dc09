"""The salvage's marker ``salvage.pending`` and the report an interrupted salvage gives.

The marker says what the run that finds it must finish (``salvage.py``): the id of the
new journal (``token``), where the damaged files go (``moved_to``, relative to the state
directory), the ack mark to write (``ack_seq``, ``ack_hash``, ``owner``), the
interrupted run's ``before`` and its ``report``. It is a file anyone with write access
can change, so nothing in it is taken on trust:

- a marker that is not a JSON object, lacks one of its keys or holds a value of the
  wrong kind is refused, each with its own message, nothing moved;
- ``moved_to`` must be ``damaged/NAME``: never an absolute path, ``..`` or a symbolic
  link, so the evidence never leaves the state directory;
- the report is read from the new journal's own ``salvage`` entry (chained in its
  system log) and its counts from the rows it holds, never from the marker, and the ack
  mark the marker names must be the new journal's own end.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path, PurePosixPath
from typing import Any

from controller.journal.errors import JournalError
from controller.journal.opening import SALVAGE_MARKER as MARKER_NAME
from controller.journal.records import LogKind, SalvageReport
from controller.journal.schema import DAMAGED_DIR, META_TABLE_ID, install_file

MARKER_KEYS = ("token", "moved_to", "ack_seq", "ack_hash", "owner", "before", "report")
_HEX = re.compile(r"[0-9a-f]+")


def write_marker(directory: Path, marker: dict[str, Any]) -> None:
    temp = directory / f"{MARKER_NAME}.part"
    temp.write_text(json.dumps(marker, sort_keys=True), encoding="utf-8")
    install_file(temp, directory / MARKER_NAME)


def read_marker(directory: Path) -> dict[str, Any] | None:
    """The marker of an interrupted salvage, checked (module docstring); None if none."""
    path = directory / MARKER_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise _refused(directory, f"it cannot be read ({error})") from None
    try:
        marker = json.loads(text)
    except ValueError as error:
        raise _refused(directory, f"it is not JSON ({error})") from None
    if not isinstance(marker, dict):
        raise _refused(directory, "it is not a JSON object")
    missing = [key for key in MARKER_KEYS if key not in marker]
    if missing:
        raise _refused(
            directory,
            f"it lacks the key(s) {', '.join(missing)} that every salvage writes "
            f"({', '.join(MARKER_KEYS)}), so it was cut short or written by hand",
        )
    problem = marker_problem(directory, marker)
    if problem is not None:
        raise _refused(directory, problem)
    return marker


def marker_problem(directory: Path, marker: dict[str, Any]) -> str | None:
    """What is wrong with the marker's values, or None."""
    token, ack_hash = marker["token"], marker["ack_hash"]
    if not isinstance(token, str) or len(token) != 32 or not _HEX.fullmatch(token):
        return f"its token {token!r} is not a salvage's id (32 hex digits)"
    if not isinstance(ack_hash, str) or len(ack_hash) != 64 or not _HEX.fullmatch(ack_hash):
        return f"its ack_hash {ack_hash!r} is not a SHA-256 in hex"
    if not _count(marker["ack_seq"]):
        return f"its ack_seq {marker['ack_seq']!r} is not a seq"
    if marker["before"] is not None and not _count(marker["before"]):
        return f"its before {marker['before']!r} is not a seq"
    if marker["owner"] is not None and not isinstance(marker["owner"], str):
        return f"its owner {marker['owner']!r} is not a table id"
    if not isinstance(marker["report"], dict):
        return "its report is not a JSON object"
    return moved_to_problem(directory, marker["moved_to"])


def moved_to_problem(directory: Path, moved_to: object) -> str | None:
    """Why ``moved_to`` may not receive the evidence (it must be ``damaged/NAME``)."""
    if not isinstance(moved_to, str):
        return f"its moved_to {moved_to!r} is not a folder's name"
    parts = PurePosixPath(moved_to).parts
    if (
        len(parts) != 2
        or parts[0] != DAMAGED_DIR
        or parts[1] in (".", "..")
        or "\\" in moved_to
        or "\0" in moved_to
    ):
        return (
            f"its moved_to {moved_to!r} is not a folder directly under {DAMAGED_DIR}/ "
            f"of the state directory, where a salvage puts the damaged files"
        )
    for place in (directory / DAMAGED_DIR, directory / moved_to):
        if place.is_symlink():
            return f"{place} is a symbolic link: the evidence would leave the state directory"
    return None


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _refused(directory: Path, why: str) -> JournalError:
    path = directory / MARKER_NAME
    return JournalError(
        f"{path}, left by an interrupted salvage, is refused: {why}. Nothing was moved. "
        f"Keep the state directory for the supervisor; then move the marker aside (mv "
        f"{path} {directory}/{MARKER_NAME}.bad) and run the salvage again: it starts over "
        f"from what is in place, and when the database was already moved it names the "
        f"copy under {directory / DAMAGED_DIR}/ to move back"
    )


def journal_report(
    directory: Path, journal: Path, marker: dict[str, Any]
) -> tuple[SalvageReport, str | None]:
    """The report of the salvage the marker names, read from the new journal it built
    (``journal``): its ``salvage`` entry and the rows it holds; and the table it is for.
    Refused when the marker's ack mark is not that journal's end."""
    token = str(marker["token"])
    conn = sqlite3.connect(f"{journal.absolute().as_uri()}?immutable=1", uri=True)
    try:
        row = conn.execute(
            "SELECT detail FROM system_log WHERE kind = ? AND instr(detail, ?) > 0 "
            "ORDER BY id LIMIT 1",
            (LogKind.SALVAGE.value, f'"salvage_id":"{token}"'),
        ).fetchone()
        detail = json.loads(row[0]) if row else {}
        last = int(detail.get("kept_last_seq", -1))
        kept_events, snapshots, end = conn.execute(
            "SELECT (SELECT COUNT(*) FROM events WHERE seq <= :last), "
            "(SELECT COUNT(*) FROM snapshots WHERE seq <= :last), "
            "(SELECT hash FROM events WHERE seq = :last)",
            {"last": last},
        ).fetchone()
        owner = conn.execute("SELECT value FROM meta WHERE key = ?", (META_TABLE_ID,)).fetchone()
    finally:
        conn.close()
    disagree = _disagreement(marker, last, end, owner[0] if owner else None)
    if disagree is not None:
        raise _refused(directory, f"it does not agree with the new journal {journal}: {disagree}")
    report = SalvageReport(
        moved_to=directory / str(marker["moved_to"]),
        kept_last_seq=last,
        damaged_last_seq=detail.get("damaged_last_seq"),
        acknowledged_seq=detail.get("acknowledged_seq"),
        reason=str(detail.get("reason", "")),
        snapshots_kept=int(snapshots),
        notes=tuple(str(note) for note in detail.get("notes", ())),
        kept_events=int(kept_events),
        dropped_events=int(detail.get("dropped_events", 0)),
    )
    return report, owner[0] if owner else None


def _disagreement(
    marker: dict[str, Any], last: int, end: bytes | None, owner: str | None
) -> str | None:
    if last < 0:
        return "the journal holds no salvage entry with the marker's id"
    if marker["ack_seq"] != last:
        return (
            f"the marker's ack_seq is {marker['ack_seq']}, the journal's kept events end at {last}"
        )
    if end is not None and bytes(end).hex() != marker["ack_hash"]:
        return f"the marker's ack_hash is not the chain hash of seq {last}"
    if owner is not None and marker["owner"] not in (None, owner):
        return f"the marker names table {marker['owner']}, the journal table {owner}"
    return None
