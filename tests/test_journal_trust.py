"""Issue 13, items 1-4: nothing acknowledged vanishes unnoticed, and a journal belongs to
one table. Real SQLite files, damaged the way the reliability probe damaged them."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from controller.journal import (
    AckMarkLost,
    ChainBroken,
    ForeignJournal,
    Journal,
    JournalIntegrityError,
    TornTail,
    salvage,
)
from tests.cli import tablectl, tablectl_in_process

CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"
CONFIG_TB = "table: {id: TB, seats: 9}\ngame:\n  big_blind: 2\n"
ACKS = ("journal.ack", "journal.ack.mirror")


def sit(n: int) -> dict[str, object]:
    return {"type": "sit", "seat": n % 9 + 1, "player": f"player-{n:04d}", "chips": 1000}


def fill(j: Journal, count: int) -> None:
    for _ in range(count):
        n = j.last_seq + 1
        j.append(
            sit(n),
            accepted=True,
            by="dealer-7",
            hand=n // 8,
            snapshot=json.dumps({"after": n}) if n % 50 == 0 else None,
        )


def crashed_after(directory: Path, target: Path, count: int, table_id: str = "T1") -> None:
    """``count`` acknowledged events, then the files as a SIGKILL leaves them: no close,
    no checkpoint, so the events live only in the WAL."""
    j = Journal.open(directory, CONFIG if table_id == "T1" else CONFIG_TB, table_id=table_id)
    fill(j, count)
    target.mkdir(parents=True)
    for name in ("journal.sqlite3", "journal.sqlite3-wal", *ACKS):
        if (directory / name).exists():
            shutil.copyfile(directory / name, target / name)
    j.close()


def detect(directory: Path, table_id: str | None = "T1") -> JournalIntegrityError | None:
    """What a daemon start reports: an error at open, the sticky fault, or verify's."""
    try:
        j = Journal.open(directory, CONFIG, allow_config_change=True, table_id=table_id)
    except JournalIntegrityError as error:
        return error
    try:
        return j.fault or j.verify().first_problem
    finally:
        j.close()


def flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x40
    path.write_bytes(bytes(data))


# ------------------------------------------------------------------ item 1: the ack mark


@pytest.mark.slow  # a damaged journal: out of the edit loop
def test_deleting_the_ack_mark_with_the_wal_no_longer_erases_600_events(tmp_path: Path) -> None:
    crashed = tmp_path / "crashed"
    crashed_after(tmp_path / "live", crashed, 600)
    (crashed / "journal.ack").unlink()
    (crashed / "journal.sqlite3-wal").unlink()
    problem = detect(crashed)
    assert isinstance(problem, TornTail)
    assert (problem.last_seq, problem.acknowledged_seq) == (0, 600)
    verify = tablectl_in_process("journal", "verify", "--state-dir", str(crashed))
    assert verify.returncode == 3 and "FAILED" in verify.stdout and "torn_tail" in verify.stdout


@pytest.mark.slow  # a damaged journal: out of the edit loop
def test_a_truncated_wal_and_one_flipped_ack_byte_is_a_fault_not_a_warning(
    tmp_path: Path,
) -> None:
    crashed = tmp_path / "crashed"
    crashed_after(tmp_path / "live", crashed, 600)
    wal = crashed / "journal.sqlite3-wal"
    os.truncate(wal, wal.stat().st_size // 2)
    flip(crashed / "journal.ack", 12)
    problem = detect(crashed)
    assert isinstance(problem, TornTail) and problem.acknowledged_seq == 600
    assert 0 < problem.last_seq < 600


def test_both_copies_gone_beside_a_journal_is_a_sticky_fault(tmp_path: Path) -> None:
    crashed = tmp_path / "crashed"
    crashed_after(tmp_path / "live", crashed, 30)
    for name in ACKS:
        (crashed / name).unlink()
    with Journal.open(crashed, CONFIG, table_id="T1") as j:
        assert isinstance(j.fault, AckMarkLost) and "ends at seq 30" in j.fault.message
        with pytest.raises(AckMarkLost):
            j.append({"type": "tick", "ms": 1}, accepted=True, by=None)
        assert not j.verify().ok
    assert isinstance(detect(crashed), AckMarkLost)  # sticky: the next start too
    assert not (crashed / "journal.ack").exists()  # the evidence is left as it was found
    report = salvage(crashed, CONFIG, table_id="T1")
    assert report.kept_last_seq == 30 and "the ack mark was lost" in report.notes[0]
    assert detect(crashed) is None


@pytest.mark.slow  # a damaged journal: out of the edit loop
def test_both_copies_and_the_wal_gone_is_still_a_fault(tmp_path: Path) -> None:
    crashed = tmp_path / "crashed"
    crashed_after(tmp_path / "live", crashed, 600)
    for name in (*ACKS, "journal.sqlite3-wal"):
        (crashed / name).unlink()
    assert isinstance(detect(crashed), AckMarkLost)


def test_both_copies_unreadable_is_a_fault(tmp_path: Path) -> None:
    crashed = tmp_path / "crashed"
    crashed_after(tmp_path / "live", crashed, 30)
    for name in ACKS:
        flip(crashed / name, 20)
    problem = detect(crashed)
    assert isinstance(problem, AckMarkLost) and "checksum" in problem.message


def test_one_lost_copy_is_a_warning_and_is_rewritten(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        fill(j, 20)
    (directory / "journal.ack.mirror").unlink()
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        result = j.verify()
        assert result.ok and "journal.ack.mirror is missing" in result.warnings[0]
    assert (directory / "journal.ack.mirror").read_bytes() == (
        directory / "journal.ack"
    ).read_bytes()
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        assert j.verify().warnings == ()


def test_each_copy_is_checked_against_the_database(tmp_path: Path) -> None:
    """A copy from another moment of the chain (an old file put back) breaks the chain."""
    directory = tmp_path / "state"
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        fill(j, 10)
    old_mirror = (directory / "journal.ack.mirror").read_bytes()
    shutil.rmtree(directory)
    with Journal.open(directory, CONFIG.replace("9}", "9} "), table_id="T1") as j:
        fill(j, 12)  # another journal of the same table, past seq 10
    (directory / "journal.ack.mirror").write_bytes(old_mirror)
    problem = detect(directory)
    assert isinstance(problem, ChainBroken) and problem.seq == 10


def test_a_journal_made_before_the_mirror_is_upgraded(tmp_path: Path) -> None:
    """The 52-byte mark of earlier versions, no mirror, no table id: accepted, then both
    copies are written with the table's id."""
    directory = tmp_path / "state"
    with Journal.open(directory, CONFIG) as j:
        fill(j, 5)
        seq, digest = j.head()
    import struct
    import zlib

    body = struct.pack(">8sQ32s", b"TCACK\x00\x01\x00", seq, bytes.fromhex(digest))
    (directory / "journal.ack").write_bytes(body + struct.pack(">I", zlib.crc32(body)))
    (directory / "journal.ack.mirror").unlink()
    sql = sqlite3.connect(directory / "journal.sqlite3")
    sql.execute("DELETE FROM meta WHERE key = 'table_id'")
    sql.commit()
    sql.close()
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        assert j.fault is None and j.verify().ok
    assert (
        len((directory / "journal.ack.mirror").read_bytes()) == 172
    )  # the mark with the verified mark (issue 22) and the system log's head (issue 30)
    assert isinstance(detect(directory, "T2"), ForeignJournal)  # the id is now recorded


def test_a_new_journal_has_both_copies_before_its_first_event(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    with Journal.open(directory, CONFIG, table_id="T1"):
        pass
    assert all(len((directory / name).read_bytes()) == 172 for name in ACKS)
    assert detect(directory) is None


# ------------------------------------------------------------------ item 3: one table


def test_another_tables_state_directory_is_refused_naming_both(tmp_path: Path) -> None:
    directory = tmp_path / "tb"
    with Journal.open(directory, CONFIG_TB, table_id="TB") as j:
        fill(j, 10)
    before = (directory / "journal.sqlite3").read_bytes()
    problem = detect(directory, "TA")
    assert isinstance(problem, ForeignJournal)
    assert "table TB" in problem.message and "table TA" in problem.message
    assert (directory / "journal.sqlite3").read_bytes() == before  # nothing written to it
    assert isinstance(detect(directory, "TA"), ForeignJournal)  # every start, until fixed


def test_only_the_database_swapped_is_refused(tmp_path: Path) -> None:
    ta, tb = tmp_path / "ta", tmp_path / "tb"
    with Journal.open(ta, CONFIG, table_id="TA") as j:
        fill(j, 10)
    with Journal.open(tb, CONFIG_TB, table_id="TB") as j:
        fill(j, 30)
    shutil.copyfile(tb / "journal.sqlite3", ta / "journal.sqlite3")
    problem = detect(ta, "TA")
    assert isinstance(problem, ForeignJournal) and "TB" in problem.message
    # no table given: the files
    verify = tablectl_in_process("journal", "verify", "--state-dir", str(ta))
    assert verify.returncode == 3 and "journal_foreign" in verify.stdout + verify.stderr
    assert "swapped" in verify.stdout + verify.stderr


def test_salvage_refuses_another_tables_database(tmp_path: Path) -> None:
    ta, tb = tmp_path / "ta", tmp_path / "tb"
    with Journal.open(ta, CONFIG, table_id="TA") as j:
        fill(j, 10)
    with Journal.open(tb, CONFIG_TB, table_id="TB") as j:
        fill(j, 30)
    shutil.copyfile(tb / "journal.sqlite3", ta / "journal.sqlite3")
    with pytest.raises(ForeignJournal, match="TB"):
        salvage(ta, CONFIG, table_id="TA")
    with pytest.raises(ForeignJournal, match="TB"):
        salvage(ta)  # the ack mark beside it still says TA
    assert not (ta / "damaged").exists()  # nothing moved


# ------------------------------------------------------------------ item 4: tablectl state


@pytest.mark.slow  # a damaged journal: out of the edit loop
def test_tablectl_state_reports_a_missing_database_with_acknowledged_events(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "state"
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        fill(j, 1200)
    (directory / "journal.sqlite3").unlink()
    state = tablectl("state", "--state-dir", str(directory))
    assert state.returncode == 3
    line = json.loads(state.stdout)
    assert line["fault"]["code"] == "torn_tail" and "1200" in line["fault"]["message"]
    assert "MEMORY FAULT" in state.stderr


def test_tablectl_state_of_a_folder_without_a_journal_says_so(tmp_path: Path) -> None:
    """Issue 21 item 5: a folder with no journal (a mistyped path) printed an empty
    table and exit status 0. Now it is said as `tablectl recall` says it, with the same
    exit status; the JSON line for programs is still the contract's ``0`` and ``null``."""
    recall = tablectl_in_process("recall", "--state-dir", str(tmp_path))
    assert recall.returncode == 3
    state = tablectl_in_process("state", "--state-dir", str(tmp_path))
    assert state.returncode == recall.returncode
    assert json.loads(state.stdout) == {"last_seq": 0, "state": None}
    assert state.stderr == recall.stderr.replace("tablectl recall:", "tablectl state:")
    assert f"no journal in {tmp_path}" in state.stderr
    readable = tablectl_in_process("state", "--summary", "--state-dir", str(tmp_path))
    assert readable.returncode == 3 and readable.stdout == ""
    assert readable.stderr == state.stderr


# ------------------------------------------------------------------ item 2: salvage keeps the prefix


def closed_journal(directory: Path, count: int) -> Path:
    """``count`` events, closed (checkpointed): everything is in the database file."""
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        fill(j, count)
    return directory / "journal.sqlite3"


def damage(db: Path, needle: bytes | None, offset: int, mask: int = 0x01) -> None:
    data = bytearray(db.read_bytes())
    at = data.find(needle) if needle is not None else 0
    assert at >= 0
    data[at + offset] ^= mask
    db.write_bytes(bytes(data))


@pytest.mark.slow  # a salvage per damage: out of the edit loop
@pytest.mark.parametrize(
    ("what", "needle", "offset", "mask"),
    [
        ("a byte of the first configuration record", b"big_blind: 2", 3, 0x01),
        ("a byte of the schema page's SQL", b"CREATE TABLE events", 14, 0x01),
        ("the schema page's cell count", None, 103, 0x7F),
    ],
)
def test_salvage_keeps_every_event_that_still_verifies(
    tmp_path: Path, what: str, needle: bytes | None, offset: int, mask: int
) -> None:
    directory = tmp_path / "state"
    damage(closed_journal(directory, 1200), needle, offset, mask)
    assert detect(directory) is not None, what
    report = salvage(directory, CONFIG, table_id="T1")
    assert report.kept_last_seq == 1200
    assert (report.kept_events, report.dropped_events) == (1200, 0)
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        assert j.verify().ok and j.last_seq == 1200
        assert j.latest_snapshot() == (1200, json.dumps({"after": 1200}))
        assert j.event(777) is not None and j.event(777).event == sit(777)  # type: ignore[union-attr]
        assert j.append({"type": "tick", "ms": 1}, accepted=True, by=None) == 1201


@pytest.mark.slow  # a damaged journal: out of the edit loop
def test_salvage_of_a_half_truncated_database_keeps_the_longest_prefix(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    db = closed_journal(directory, 1200)
    os.truncate(db, db.stat().st_size // 2)
    report = salvage(directory, CONFIG, table_id="T1")
    assert 300 < report.kept_last_seq < 1200
    assert report.kept_events == report.kept_last_seq
    assert report.dropped_events == 1200 - report.kept_last_seq  # acknowledged, now gone
    assert f"acknowledged events {report.kept_last_seq + 1}..1200" in " ".join(report.notes)
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        assert j.verify().ok and j.last_seq == report.kept_last_seq


def test_salvage_reads_committed_wal_frames_and_never_an_unfinished_one(tmp_path: Path) -> None:
    """The events live only in the WAL and the database's schema page is damaged: the
    salvage reads the committed frames; a torn last frame is not revived."""
    crashed = tmp_path / "crashed"
    crashed_after(tmp_path / "live", crashed, 200)
    wal = crashed / "journal.sqlite3-wal"
    os.truncate(wal, wal.stat().st_size - 100)  # the last commit is torn: seq 200 never was
    damage(crashed / "journal.sqlite3", None, 103, 0x7F)
    report = salvage(crashed, CONFIG, table_id="T1")
    assert report.kept_last_seq == 199
    assert report.dropped_events == 1
    with Journal.open(crashed, CONFIG, table_id="T1") as j:
        assert j.verify().ok and j.last_seq == 199


@pytest.mark.slow  # a damaged journal: out of the edit loop
def test_salvage_on_the_command_line_says_what_it_kept_and_dropped(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    db = closed_journal(directory, 300)
    os.truncate(db, db.stat().st_size * 2 // 3)
    config = tmp_path / "table.yaml"
    config.write_text(CONFIG)
    done = tablectl("journal", "salvage", "--state-dir", str(directory), "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert "events kept: " in done.stdout and "dropped: " in done.stdout
    other = tmp_path / "tb.yaml"
    other.write_text(CONFIG_TB)
    refused = tablectl("journal", "salvage", "--state-dir", str(directory), "--config", str(other))
    assert refused.returncode == 3 and "table T1" in refused.stderr and "table TB" in refused.stderr


def test_a_legacy_database_swapped_in_is_not_adopted(tmp_path: Path) -> None:
    """Another table's journal from before the table id (nothing in its meta) put beside
    this table's ack mark: the tail check fails, and the id is not written into it."""
    ta, tb = tmp_path / "ta", tmp_path / "tb"
    with Journal.open(ta, CONFIG, table_id="TA") as j:
        fill(j, 10)
    with Journal.open(tb, CONFIG, table_id="TB") as j:
        fill(j, 30)
    sql = sqlite3.connect(tb / "journal.sqlite3")
    sql.execute("DELETE FROM meta WHERE key = 'table_id'")
    sql.commit()
    sql.close()
    shutil.copyfile(tb / "journal.sqlite3", ta / "journal.sqlite3")
    assert isinstance(detect(ta, "TA"), ChainBroken)
    sql = sqlite3.connect(ta / "journal.sqlite3")
    assert sql.execute("SELECT value FROM meta WHERE key = 'table_id'").fetchone() is None
    sql.close()
