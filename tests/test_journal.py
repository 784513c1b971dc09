"""The journal on real SQLite files: writing, reading, faults, retention, salvage."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.journal import (
    ChainBroken,
    ConfigMismatch,
    Journal,
    JournalBusy,
    JournalCorrupt,
    JournalError,
    JournalIntegrityError,
    JournalNotFound,
    LogKind,
    SnapshotMissing,
    TornTail,
    WallClock,
    salvage,
    verify_archive,
)

CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"
OTHER_CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 4\n"
OUTBOX_SQL = (
    "CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER, "
    "topic TEXT NOT NULL, payload TEXT NOT NULL, qos INTEGER NOT NULL DEFAULT 1, "
    "retain INTEGER NOT NULL DEFAULT 0, created_ns INTEGER NOT NULL, "
    "sent INTEGER NOT NULL DEFAULT 0)"
)


def sit(n: int) -> dict[str, object]:
    return {"type": "sit", "seat": n % 9 + 1, "player": f"player-{n:04d}", "chips": 1000}


@pytest.fixture
def journal_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def journal(journal_dir: Path) -> Iterator[Journal]:
    j = Journal.open(journal_dir, CONFIG)
    yield j
    j.close()


def fill(j: Journal, count: int, *, per_hand: int = 8, snapshot_every: int = 10) -> None:
    for _ in range(count):
        n = j.last_seq + 1
        j.append(
            sit(n),
            accepted=True,
            by="dealer-7",
            hand=n // per_hand,
            snapshot=json.dumps({"after": n}) if n % snapshot_every == 0 else None,
        )


def crash_image(source: Path, target: Path) -> None:
    """The files as a SIGKILL would leave them (page cache included): no close, no checkpoint."""
    target.mkdir(parents=True)
    for name in ("journal.sqlite3", "journal.sqlite3-wal", "journal.ack"):
        if (source / name).exists():
            shutil.copyfile(source / name, target / name)


def written(directory: Path, count: int, **kwargs: int) -> None:
    with Journal.open(directory, CONFIG) as j:
        fill(j, count, **kwargs)


def detect(directory: Path) -> JournalIntegrityError | None:
    """What a daemon start would report: an error at open, the sticky fault, or verify's."""
    try:
        j = Journal.open(directory, CONFIG)
    except JournalIntegrityError as error:
        return error
    try:
        if j.fault is not None:
            return j.fault
        return j.verify().first_problem
    finally:
        j.close()


def sql(directory: Path, statement: str, *args: object) -> None:
    conn = sqlite3.connect(directory / "journal.sqlite3")
    try:
        conn.execute(statement, args)
        conn.commit()
    finally:
        conn.close()


def flip_in_file(path: Path, needle: bytes, offset: int, mask: int = 0x01) -> None:
    data = bytearray(path.read_bytes())
    at = data.find(needle)
    assert at >= 0, needle
    assert data.find(needle, at + 1) < 0, "needle must be unique"
    data[at + offset] ^= mask
    path.write_bytes(bytes(data))


# ---------------------------------------------------------------------------- writing


def test_new_journal_records_its_configuration(journal: Journal) -> None:
    assert journal.last_seq == 0
    assert journal.config_text == CONFIG
    assert journal.config_sha256 == hashlib.sha256(CONFIG.encode()).hexdigest()
    loaded = list(journal.iter_system_log(kinds=[LogKind.CONFIG_LOADED]))
    assert loaded[-1].detail["sha256"] == journal.config_sha256


def test_append_returns_consecutive_seqs_and_everything_reads_back(journal: Journal) -> None:
    first = journal.append(sit(1), accepted=True, by="dealer-7", hand=0)
    second = journal.append(
        {"type": "act", "seat": 4, "action": "check"},
        accepted=False,
        by="dealer-7",
        result={
            "seq": 2,
            "ok": False,
            "error": {"code": "not_to_act", "message": "SEAT 4 IS NOT TO ACT"},
        },
        hand=1,
    )
    third = journal.append(
        {"type": "tick", "ms": 100},
        accepted=False,
        by=None,
        result={"code": "bad", "message": "BAD"},
    )
    assert (first, second, third) == (1, 2, 3)
    assert journal.last_seq == 3
    records = list(journal.iter_events())
    assert [r.seq for r in records] == [1, 2, 3]
    assert records[0].event == sit(1)
    assert records[0].accepted and records[0].by == "dealer-7" and records[0].hand == 0
    assert records[0].refusal_code is None
    assert (records[1].refusal_code, records[1].refusal_message) == (
        "not_to_act",
        "SEAT 4 IS NOT TO ACT",
    )
    assert not records[1].accepted and records[1].hand == 1
    assert records[2].by is None and records[2].hand is None
    assert records[0].mono_ns <= records[1].mono_ns <= records[2].mono_ns
    assert [r.seq for r in journal.iter_events(after_seq=2)] == [3]


def test_events_are_stored_as_canonical_json(journal: Journal, journal_dir: Path) -> None:
    journal.append({"b": 1, "a": {"z": [1, 2], "y": "é"}}, accepted=True, by=None)
    conn = sqlite3.connect(journal_dir / "journal.sqlite3")
    (text,) = conn.execute("SELECT event FROM events WHERE seq = 1").fetchone()
    conn.close()
    assert text == json.dumps(
        {"b": 1, "a": {"z": [1, 2], "y": "é"}}, sort_keys=True, separators=(",", ":")
    )


def test_bad_appends_are_refused_and_record_nothing(journal: Journal) -> None:
    with pytest.raises(ValueError, match="accepted event cannot carry a refusal"):
        journal.append({"type": "x"}, accepted=True, by=None, result={"code": "c", "message": "m"})
    with pytest.raises(ValueError):
        journal.append({"type": "x", "ms": float("nan")}, accepted=True, by=None)
    with pytest.raises(TypeError):
        journal.append({"type": "x", "what": object()}, accepted=True, by=None)
    with pytest.raises(ValueError, match="outbox qos"):
        journal.append({"type": "x"}, accepted=True, by=None, outbox=[("t", "p", 3, False)])
    assert journal.last_seq == 0
    assert journal.verify().ok


def test_outbox_schema_is_exactly_the_agreed_one(journal: Journal, journal_dir: Path) -> None:
    conn = sqlite3.connect(journal_dir / "journal.sqlite3")
    (created,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'outbox'").fetchone()
    conn.close()
    assert created == OUTBOX_SQL


def test_outbox_rows_are_written_with_their_event_and_readable_by_the_publisher(
    journal: Journal, journal_dir: Path
) -> None:
    seq = journal.append(
        {"type": "start_hand"},
        accepted=True,
        by="dealer-7",
        outbox=[("table/T1/state", '{"hand":1}'), ("table/T1/alert", "fault", 2, True)],
    )
    publisher = sqlite3.connect(journal_dir / "journal.sqlite3")
    rows = publisher.execute(
        "SELECT id, seq, topic, payload, qos, retain, created_ns, sent FROM outbox ORDER BY id"
    ).fetchall()
    assert [row[1:6] for row in rows] == [
        (seq, "table/T1/state", '{"hand":1}', 1, 0),
        (seq, "table/T1/alert", "fault", 2, 1),
    ]
    assert all(row[6] > 0 and row[7] == 0 for row in rows)
    # The publisher marks rows sent on its own connection while the daemon appends.
    publisher.execute("UPDATE outbox SET sent = 1 WHERE id = ?", (rows[0][0],))
    publisher.commit()
    journal.append({"type": "tick", "ms": 1}, accepted=True, by=None, outbox=[("t", "p")])
    assert publisher.execute("SELECT COUNT(*) FROM outbox WHERE sent = 0").fetchone()[0] == 2
    publisher.close()


def test_snapshots_are_kept_with_their_seq(journal: Journal) -> None:
    assert journal.latest_snapshot() is None
    fill(journal, 25, snapshot_every=10)
    assert journal.latest_snapshot() == (20, json.dumps({"after": 20}))
    assert [r.seq for r in journal.iter_events() if r.has_snapshot] == [10, 20]


def test_reopening_continues_the_sequence(journal_dir: Path) -> None:
    written(journal_dir, 5)
    with Journal.open(journal_dir, CONFIG) as j:
        assert j.last_seq == 5
        assert j.append({"type": "tick", "ms": 5}, accepted=True, by=None) == 6
        assert j.verify().ok


def test_head_is_the_last_seq_and_its_chain_hash(journal: Journal) -> None:
    fill(journal, 3)
    seq, digest = journal.head()
    assert seq == 3 and len(digest) == 64


def test_appends_from_several_threads_get_distinct_seqs(journal: Journal) -> None:
    def worker() -> None:
        for _ in range(20):
            journal.append({"type": "tick", "ms": 1}, accepted=True, by=None)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.seq for r in journal.iter_events()] == list(range(1, 81))
    assert journal.verify().ok


def test_checkpoint_empties_the_wal(journal: Journal, journal_dir: Path) -> None:
    fill(journal, 20)
    assert (journal_dir / "journal.sqlite3-wal").stat().st_size > 0
    journal.checkpoint()
    assert (journal_dir / "journal.sqlite3-wal").stat().st_size == 0
    assert journal.last_seq == 20


# ---------------------------------------------------------------------------- opening


def test_a_second_writer_is_refused(journal: Journal, journal_dir: Path) -> None:
    with pytest.raises(JournalBusy, match="systemctl stop table-controller"):
        Journal.open(journal_dir, CONFIG)


def test_read_only_open_reads_alongside_the_writer(journal: Journal, journal_dir: Path) -> None:
    fill(journal, 12)
    reader = Journal.open_readonly(journal_dir)
    try:
        assert reader.last_seq == 12
        assert reader.latest_snapshot() == (10, json.dumps({"after": 10}))
        assert reader.verify().ok
        with pytest.raises(JournalError, match="read-only"):
            reader.append({"type": "tick", "ms": 1}, accepted=True, by=None)
    finally:
        reader.close()
    assert journal.append({"type": "tick", "ms": 1}, accepted=True, by=None) == 13


def test_read_only_open_of_an_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(JournalNotFound):
        Journal.open_readonly(tmp_path)


def test_a_different_configuration_is_refused_naming_the_difference(journal_dir: Path) -> None:
    written(journal_dir, 3)
    with pytest.raises(ConfigMismatch) as caught:
        Journal.open(journal_dir, OTHER_CONFIG)
    error = caught.value
    assert "-  big_blind: 2" in error.diff and "+  big_blind: 4" in error.diff
    assert "big_blind: 4" in str(error)
    assert error.recorded_sha256 == hashlib.sha256(CONFIG.encode()).hexdigest()
    # The refusal changed nothing and released the lock.
    with Journal.open(journal_dir, CONFIG) as j:
        assert j.last_seq == 3


def test_a_long_configuration_difference_is_cut_short(journal_dir: Path) -> None:
    long_config = "".join(f"key{n}: {n}\n" for n in range(200))
    with Journal.open(journal_dir, long_config):
        pass
    changed = "".join(f"key{n}: {n + 1}\n" for n in range(200))
    with pytest.raises(ConfigMismatch) as caught:
        Journal.open(journal_dir, changed)
    assert len(caught.value.diff.splitlines()) <= 21
    assert "more diff lines" in caught.value.diff


def test_daemon_records_a_configuration_change_between_hands(journal_dir: Path) -> None:
    written(journal_dir, 4)
    with Journal.open(journal_dir, OTHER_CONFIG, allow_config_change=True) as j:
        assert j.config_text == CONFIG  # recovery runs under the recorded configuration
        assert not j.config_matches(OTHER_CONFIG)
        record = j.record_config(OTHER_CONFIG, by="supervisor-2")
        assert (record.id, record.from_seq, record.by) == (2, 5, "supervisor-2")
        j.append({"type": "start_hand"}, accepted=True, by="dealer-7")
        assert j.config_for_seq(4).text == CONFIG
        assert j.config_for_seq(5).text == OTHER_CONFIG
        assert [r.config_id for r in j.iter_events()] == [1, 1, 1, 1, 2]
        change = list(j.iter_system_log(kinds=[LogKind.CONFIG_CHANGE]))
        assert change[0].detail["from_seq"] == 5 and "big_blind: 4" in change[0].detail["diff"]
        assert j.verify().ok
    with Journal.open(journal_dir, OTHER_CONFIG) as j:  # now the recorded one
        assert j.verify().ok
    with pytest.raises(ConfigMismatch):
        Journal.open(journal_dir, CONFIG)


# ---------------------------------------------------------------------------- system log


def test_system_log_records_start_configuration_and_orderly_shutdown(journal_dir: Path) -> None:
    written(journal_dir, 2)
    with Journal.open(journal_dir, CONFIG) as j:
        kinds = [r.kind for r in j.iter_system_log()]
        entry = j.log_system(LogKind.DEVICE_FAULT, {"device": "chip tray", "reason": "unplugged"})
        j.log_system(LogKind.DEVICE_CLEAR, {"device": "chip tray"})
        faults = list(j.iter_system_log(after_id=entry - 1))
    assert kinds[:3] == ["power_up", "config_loaded", "shutdown"]
    assert kinds[3:] == ["power_up", "config_loaded"]
    assert "unclean_shutdown" not in kinds
    assert [(r.kind, r.detail.get("device")) for r in faults] == [
        ("device_fault", "chip tray"),
        ("device_clear", "chip tray"),
    ]
    assert faults[0].last_seq == 2


def test_unclean_shutdown_is_detected_at_the_next_start(journal: Journal, tmp_path: Path) -> None:
    fill(journal, 3)
    crashed = tmp_path / "crashed"
    crash_image(journal.directory, crashed)
    with Journal.open(crashed, CONFIG) as j:
        unclean = list(j.iter_system_log(kinds=[LogKind.UNCLEAN_SHUTDOWN]))
        assert len(unclean) == 1 and unclean[0].detail["last_seq"] == 3
        assert j.fault is None and j.verify().ok


def test_a_system_log_entry_needs_a_kind(journal: Journal) -> None:
    with pytest.raises(ValueError):
        journal.log_system("", {})


# ---------------------------------------------------------------------------- clock


class FakeBoard:
    """A board without RTC that gets NTP after a while; monotonic time moved by hand."""

    def __init__(self) -> None:
        self.synced = False
        self.probes = 0
        self.mono = 1_000_000_000

    def probe(self) -> bool:
        self.probes += 1
        return self.synced

    def clock(self) -> WallClock:
        return WallClock(self.probe, time_ns=lambda: 86_400 * 10**9, monotonic_ns=lambda: self.mono)


def test_records_say_whether_the_wall_clock_was_synchronised(journal_dir: Path) -> None:
    board = FakeBoard()
    with Journal.open(journal_dir, CONFIG, clock=board.clock()) as j:
        j.append({"type": "tick", "ms": 1}, accepted=True, by=None)
        board.synced = True
        board.mono += 30 * 10**9  # within the cache period: not looked at again
        j.append({"type": "tick", "ms": 1}, accepted=True, by=None)
        board.mono += 31 * 10**9
        j.append({"type": "tick", "ms": 1}, accepted=True, by=None)
        j.append({"type": "tick", "ms": 1}, accepted=True, by=None)
        assert [r.clock_synced for r in j.iter_events()] == [False, False, True, True]
        syncs = list(j.iter_system_log(kinds=[LogKind.CLOCK_SYNC]))
        assert len(syncs) == 1 and syncs[0].detail["mono_ns"] == board.mono
        assert board.probes == 2
        first = j.event(1)
        assert first is not None and first.wall_time.year == 1970


def test_kernel_clock_probe_answers_without_raising() -> None:
    from controller.journal import kernel_clock_synced

    assert kernel_clock_synced() in (True, False)


# ---------------------------------------------------------------------------- recall


def test_last_ten_hands_include_the_one_in_progress(journal: Journal) -> None:
    journal.append({"type": "sit"}, accepted=True, by=None, hand=0)
    for hand in range(1, 16):
        for action in range(3):
            journal.append({"type": "act", "n": action}, accepted=True, by=None, hand=hand)
    journal.append({"type": "tick", "ms": 1}, accepted=True, by=None, hand=None)
    recalled = journal.events_for_last_hands(10)
    assert {r.hand for r in recalled} == set(range(6, 16)) | {None}
    assert recalled[0].hand == 6 and recalled[0].event == {"type": "act", "n": 0}
    assert len(recalled) == 31
    assert [r.hand for r in journal.events_for_last_hands(1)] == [15, 15, 15, None]


def test_recall_of_a_short_game_returns_everything(journal: Journal) -> None:
    assert journal.events_for_last_hands() == []
    fill(journal, 5, per_hand=2)
    assert [r.seq for r in journal.events_for_last_hands()] == [1, 2, 3, 4, 5]


# ---------------------------------------------------------------------------- faults


def test_a_healthy_journal_verifies_and_logs_the_result(journal: Journal) -> None:
    fill(journal, 30)
    result = journal.verify()
    assert result.ok and result.quick_check == "ok"
    assert (result.last_seq, result.events_checked, result.checked_from_seq) == (30, 30, 1)
    logged = list(journal.iter_system_log(kinds=[LogKind.INTEGRITY]))
    assert logged[-1].detail["ok"] is True


def test_torn_wal_tail_is_detected(journal: Journal, tmp_path: Path) -> None:
    fill(journal, 40)
    crashed = tmp_path / "crashed"
    crash_image(journal.directory, crashed)
    wal = crashed / "journal.sqlite3-wal"
    os.truncate(wal, wal.stat().st_size - 3000)  # into the last frame's page
    with Journal.open(crashed, CONFIG) as j:
        assert isinstance(j.fault, TornTail)
        assert (j.fault.last_seq, j.fault.acknowledged_seq) == (39, 40)
        assert "salvage" in j.fault.message
        with pytest.raises(TornTail):  # play stays locked: nothing more is recorded
            j.append({"type": "tick", "ms": 1}, accepted=True, by=None)
        result = j.verify()
        assert not result.ok and isinstance(result.first_problem, TornTail)
        logged = list(j.iter_system_log(kinds=[LogKind.INTEGRITY]))
        assert logged and all(entry.detail["ok"] is False for entry in logged)


def test_a_lost_wal_is_a_torn_tail(journal: Journal, tmp_path: Path) -> None:
    fill(journal, 10)
    crashed = tmp_path / "crashed"
    crash_image(journal.directory, crashed)
    (crashed / "journal.sqlite3-wal").unlink()
    problem = detect(crashed)
    assert isinstance(problem, TornTail) and problem.acknowledged_seq == 10


def test_torn_database_tail_is_detected(journal_dir: Path) -> None:
    written(journal_dir, 40)
    db = journal_dir / "journal.sqlite3"
    os.truncate(db, db.stat().st_size - 2000)  # mid-page, after a clean close
    assert isinstance(detect(journal_dir), JournalCorrupt)


def test_a_missing_database_with_acknowledged_events_is_a_torn_tail(journal_dir: Path) -> None:
    written(journal_dir, 5)
    (journal_dir / "journal.sqlite3").unlink()
    with pytest.raises(TornTail, match="journal.sqlite3 is missing"):
        Journal.open(journal_dir, CONFIG)
    assert not (journal_dir / "journal.sqlite3").exists()  # no fresh journal over the evidence


def test_deleted_last_events_are_a_torn_tail(journal_dir: Path) -> None:
    written(journal_dir, 20)
    sql(journal_dir, "DELETE FROM events WHERE seq > 17")
    problem = detect(journal_dir)
    assert isinstance(problem, TornTail) and (problem.last_seq, problem.acknowledged_seq) == (
        17,
        20,
    )


def test_a_byte_flipped_in_an_event_breaks_the_chain_at_that_event(journal_dir: Path) -> None:
    written(journal_dir, 40)
    flip_in_file(journal_dir / "journal.sqlite3", b"player-0017", 7)  # "player-0117"
    with Journal.open(journal_dir, CONFIG) as j:
        result = j.verify()
        assert result.quick_check == "ok"  # SQLite cannot see it; the chain does
        assert isinstance(result.first_problem, ChainBroken) and result.first_problem.seq == 17
        assert "changed after it was written" in result.first_problem.message
        with pytest.raises(ChainBroken):
            j.append({"type": "tick", "ms": 1}, accepted=True, by=None)


def test_a_flipped_byte_that_is_not_text_breaks_the_chain(journal_dir: Path) -> None:
    written(journal_dir, 20)
    flip_in_file(journal_dir / "journal.sqlite3", b"player-0012", 3, 0x80)
    problem = detect(journal_dir)
    assert isinstance(problem, ChainBroken) and problem.seq == 12


def events_leaf_page(db: Path, cell: int = 0) -> tuple[int, int]:
    """(page size, number of the events table's leaf page left of the root's ``cell``)."""
    conn = sqlite3.connect(db)
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchone()
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    data = db.read_bytes()
    offset = (root - 1) * page_size
    assert data[offset] == 0x05, "expected an interior table page at the root"
    pointer = offset + 12 + 2 * cell
    (cell_at,) = struct.unpack(">H", data[pointer : pointer + 2])
    (child,) = struct.unpack(">I", data[offset + cell_at : offset + cell_at + 4])
    return page_size, child


def test_a_damaged_page_is_reported_by_quick_check(journal_dir: Path) -> None:
    written(journal_dir, 60)
    db = journal_dir / "journal.sqlite3"
    page_size, leaf = events_leaf_page(db)
    data = bytearray(db.read_bytes())
    offset = (leaf - 1) * page_size
    data[offset + 8 : offset + 10] = b"\x00\x01"  # first cell pointer into the page header
    db.write_bytes(bytes(data))
    with Journal.open(journal_dir, CONFIG) as j:
        result = j.verify()
    assert isinstance(result.first_problem, JournalCorrupt)
    assert "quick_check" in result.first_problem.message
    assert result.quick_check != "ok"


def test_a_file_that_is_not_a_journal_is_corrupt(journal_dir: Path) -> None:
    journal_dir.mkdir()
    (journal_dir / "journal.sqlite3").write_bytes(b"this is not sqlite" * 300)
    with pytest.raises(JournalCorrupt):
        Journal.open(journal_dir, CONFIG)


def test_a_deleted_snapshot_is_detected(journal_dir: Path) -> None:
    written(journal_dir, 35)
    sql(journal_dir, "DELETE FROM snapshots WHERE seq = 20")
    problem = detect(journal_dir)
    assert isinstance(problem, SnapshotMissing) and problem.seq == 20


def test_a_changed_snapshot_is_detected(journal_dir: Path) -> None:
    written(journal_dir, 35)
    sql(journal_dir, "UPDATE snapshots SET state = '{\"after\": 999}' WHERE seq = 30")
    problem = detect(journal_dir)
    assert isinstance(problem, ChainBroken) and problem.seq == 30


def test_a_removed_middle_event_breaks_the_chain(journal_dir: Path) -> None:
    written(journal_dir, 20)
    sql(journal_dir, "DELETE FROM events WHERE seq = 9")
    problem = detect(journal_dir)
    assert isinstance(problem, ChainBroken) and problem.seq == 9
    assert "missing" in problem.message


def test_a_rewritten_event_with_its_hash_recomputed_still_breaks_the_chain(
    journal_dir: Path,
) -> None:
    # Forging one row is not enough: the next row's hash covers the previous hash.
    written(journal_dir, 10)
    from controller.journal.schema import RowContent

    conn = sqlite3.connect(journal_dir / "journal.sqlite3")
    row = conn.execute(
        "SELECT hand, event, accepted, by, wall_ns, clock_synced, mono_ns FROM events WHERE seq = 5"
    ).fetchone()
    (previous,) = conn.execute("SELECT hash FROM events WHERE seq = 4").fetchone()
    forged_event = row[1].replace("player-0005", "player-9999")
    content = RowContent(
        seq=5, hand=row[0], config_sha256=hashlib.sha256(CONFIG.encode()).hexdigest(),
        event=forged_event, accepted=row[2], refusal_code=None, refusal_message=None, by=row[3],
        wall_ns=row[4], clock_synced=row[5], mono_ns=row[6], snapshot_sha256=None,
    )  # fmt: skip
    conn.execute(
        "UPDATE events SET event = ?, hash = ? WHERE seq = 5",
        (forged_event, content.digest(previous)),
    )
    conn.commit()
    conn.close()
    problem = detect(journal_dir)
    assert isinstance(problem, ChainBroken) and problem.seq == 6


def test_a_changed_configuration_record_is_detected(journal_dir: Path) -> None:
    written(journal_dir, 5)
    sql(journal_dir, "UPDATE configs SET text = ? WHERE id = 1", CONFIG.replace("2", "3"))
    with Journal.open(journal_dir, CONFIG.replace("2", "3"), allow_config_change=True) as j:
        result = j.verify()
    assert isinstance(result.first_problem, ChainBroken)
    assert "configuration" in result.first_problem.message


def test_an_unreadable_ack_mark_is_a_warning_not_a_fault(journal_dir: Path) -> None:
    written(journal_dir, 5)
    (journal_dir / "journal.ack").write_bytes(b"garbage")
    with Journal.open(journal_dir, CONFIG) as j:
        result = j.verify()
        assert result.ok and "unreadable" in result.warnings[0]
        assert j.append({"type": "tick", "ms": 1}, accepted=True, by=None) == 6
    assert detect(journal_dir) is None  # the next append rewrote the mark


# ---------------------------------------------------------------------------- retention


def play_hands(j: Journal, hands: int, *, events_per_hand: int = 6) -> None:
    """Hands with a snapshot at each hand's end and one floor message per event."""
    previous = j.event(j.last_seq)
    start = (previous.hand or 0) if previous is not None else 0
    for hand in range(start + 1, start + hands + 1):
        for step in range(events_per_hand):
            last = step == events_per_hand - 1
            j.append(
                {"type": "act", "hand": hand, "step": step},
                accepted=True,
                by="dealer-7",
                hand=hand,
                snapshot=json.dumps({"hand": hand}) if last else None,
                outbox=[("table/T1/state", json.dumps({"hand": hand, "step": step}))],
            )


def test_prune_keeps_recall_and_recovery_and_the_chain(journal: Journal) -> None:
    play_hands(journal, 40)
    sql(journal.directory, "UPDATE outbox SET sent = 1 WHERE seq <= 200")
    before = journal.events_for_last_hands(10)
    report = journal.prune(keep_hands=10)
    # Kept: the last ten hands (from seq 181), and the snapshot recall folds them from
    # (the end of hand 30, seq 180) with its event, so that verify() still checks it.
    assert before[0].seq == 30 * 6 + 1 and report.kept_from_seq == 30 * 6
    assert report.removed_events == 179 and report.removed_snapshots == 29
    assert report.removed_outbox == 179  # sent ones only
    assert report.bytes_after < report.bytes_before
    assert journal.events_for_last_hands(10) == before
    assert journal.latest_snapshot() == (240, json.dumps({"hand": 40}))
    with sqlite3.connect(journal.directory / "journal.sqlite3") as conn:
        kept = [row[0] for row in conn.execute("SELECT seq FROM snapshots ORDER BY seq")]
    assert kept == list(range(180, 241, 6))  # from the one before the recall window on
    result = journal.verify()
    assert result.ok and result.checked_from_seq == 180 and result.events_checked == 61
    play_hands(journal, 1)
    assert journal.verify().ok
    with sqlite3.connect(journal.directory / "journal.sqlite3") as conn:
        unsent_old = conn.execute("SELECT COUNT(*) FROM outbox WHERE seq < 180").fetchone()[0]
    assert unsent_old == 0


def test_prune_keeps_the_snapshot_recall_folds_from(journal: Journal) -> None:
    """Snapshots every 7 events, hands of 6: the newest snapshot lies inside the last
    ten hands, and recall needs the one before them."""
    for n in range(1, 241):
        journal.append(
            {"type": "act", "n": n},
            accepted=True,
            by=None,
            hand=(n - 1) // 6 + 1,
            snapshot=json.dumps({"after": n}) if n % 7 == 0 else None,
        )
    window = journal.first_seq_of_last_hands(10)
    assert window == 181 and journal.latest_snapshot() == (238, json.dumps({"after": 238}))
    report = journal.prune(keep_hands=10)
    assert report.kept_from_seq == 175  # the newest snapshot before seq 181, with its event
    with sqlite3.connect(journal.directory / "journal.sqlite3") as conn:
        kept = [row[0] for row in conn.execute("SELECT seq FROM snapshots ORDER BY seq")]
    assert kept == [175, 182, 189, 196, 203, 210, 217, 224, 231, 238]
    assert journal.verify().ok
    # Retention still bounds the size: the next prunes move the kept snapshot along.
    for hand in range(41, 81):
        for step in range(6):
            journal.append(
                {"type": "act"},
                accepted=True,
                by=None,
                hand=hand,
                snapshot=json.dumps({"hand": hand}) if step == 5 else None,
            )
    assert journal.prune(keep_hands=10).kept_from_seq == 70 * 6
    sql(journal.directory, "DELETE FROM snapshots WHERE seq = 420")  # the one recall needs
    problem = journal.verify().first_problem
    assert isinstance(problem, SnapshotMissing) and problem.seq == 420


def test_prune_keeps_every_event_while_no_snapshot_precedes_the_recall_window(
    journal: Journal,
) -> None:
    for n in range(1, 121):  # 20 hands of 6, one snapshot, inside the last ten hands
        journal.append(
            {"type": "act"},
            accepted=True,
            by=None,
            hand=(n - 1) // 6 + 1,
            snapshot=json.dumps({"after": n}) if n == 100 else None,
        )
    report = journal.prune(keep_hands=10)
    assert report.removed_events == 0 and report.kept_from_seq == 1
    assert journal.latest_snapshot() == (100, json.dumps({"after": 100}))


def test_prune_never_removes_unsent_floor_messages(journal: Journal) -> None:
    play_hands(journal, 20)
    journal.prune(keep_hands=10)
    with sqlite3.connect(journal.directory / "journal.sqlite3") as conn:
        assert conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] == 120


def test_prune_keeps_everything_after_the_latest_snapshot(journal: Journal) -> None:
    play_hands(journal, 20)
    # Ten more hands without snapshots: recovery needs them all.
    for hand in range(21, 31):
        journal.append({"type": "act"}, accepted=True, by=None, hand=hand)
    report = journal.prune(keep_hands=10)
    assert report.kept_from_seq == 120  # the latest snapshot's event
    assert journal.verify().ok


def test_prune_without_a_snapshot_removes_no_events(journal: Journal) -> None:
    for hand in range(1, 30):
        journal.append({"type": "act"}, accepted=True, by=None, hand=hand)
    report = journal.prune(keep_hands=10)
    assert report.removed_events == 0 and journal.last_seq == 29
    assert [r.seq for r in journal.iter_events()][0] == 1


def test_prune_refuses_to_drop_recall(journal: Journal) -> None:
    with pytest.raises(ValueError, match="at least 10"):
        journal.prune(keep_hands=9)


def test_pruning_twice_and_reopening_keeps_the_journal_valid(journal_dir: Path) -> None:
    with Journal.open(journal_dir, CONFIG) as j:
        play_hands(j, 25)
        j.prune(keep_hands=10)
        play_hands(j, 25)
        second = j.prune(keep_hands=12)
        assert second.kept_from_seq == (50 - 12) * 6 + 1
    with Journal.open(journal_dir, CONFIG) as j:
        assert j.fault is None and j.verify().ok
        assert len(j.events_for_last_hands(12)) == 72


def test_prune_archive_holds_the_removed_events_with_a_checkable_chain(journal: Journal) -> None:
    play_hands(journal, 30)
    removed = list(journal.iter_events())[:119]  # seq 120 holds the snapshot recall needs
    report = journal.prune(keep_hands=10, archive=True)
    assert (
        report.archive is not None
        and report.archive.name == "journal-0000000001-0000000119.sqlite3"
    )
    archived = verify_archive(report.archive)
    assert archived.ok and archived.events_checked == 119 and archived.last_seq == 119
    with sqlite3.connect(report.archive) as conn:
        events = [row[0] for row in conn.execute("SELECT event FROM events ORDER BY seq")]
    assert [json.loads(e) for e in events] == [r.event for r in removed]
    play_hands(journal, 10)
    second = journal.prune(keep_hands=10, archive=True)
    assert second.archive is not None and verify_archive(second.archive).ok
    assert second.archive.name == "journal-0000000120-0000000179.sqlite3"


def test_a_tampered_archive_fails_its_check(journal: Journal) -> None:
    play_hands(journal, 30)
    report = journal.prune(keep_hands=10, archive=True)
    assert report.archive is not None
    with sqlite3.connect(report.archive) as conn:
        conn.execute(
            """UPDATE events SET event = '{"type":"act","hand":5,"step":9}' WHERE seq = 30"""
        )
    result = verify_archive(report.archive)
    assert isinstance(result.first_problem, ChainBroken) and result.first_problem.seq == 30


@pytest.mark.slow  # many hands pruned: out of the edit loop
def test_size_stays_bounded_with_regular_pruning(journal: Journal) -> None:
    sizes = []
    for _ in range(5):
        play_hands(journal, 20, events_per_hand=8)
        sql(journal.directory, "UPDATE outbox SET sent = 1")
        journal.prune(keep_hands=10)
        sizes.append(journal.size_bytes())
    assert max(sizes[2:]) <= sizes[1] * 1.2, sizes


# ---------------------------------------------------------------------------- salvage


def file_digests(directory: Path) -> dict[str, str]:
    return {
        name: hashlib.sha256((directory / name).read_bytes()).hexdigest()
        for name in ("journal.sqlite3", "journal.sqlite3-wal", "journal.ack")
        if (directory / name).exists()
    }


def test_salvage_keeps_the_valid_prefix_and_moves_the_damage_aside(journal_dir: Path) -> None:
    written(journal_dir, 40)
    flip_in_file(journal_dir / "journal.sqlite3", b"player-0017", 7)
    damaged = file_digests(journal_dir)
    report = Journal.salvage(journal_dir)
    assert report.kept_last_seq == 16
    assert report.damaged_last_seq == 40 and report.acknowledged_seq == 40
    assert "seq 17" in report.reason
    assert report.snapshots_kept == 1  # seq 10; 20, 30 and 40 came after the damage
    assert report.moved_to.parent == journal_dir / "damaged"
    assert file_digests(report.moved_to) == damaged  # the evidence, byte for byte
    with Journal.open(journal_dir, CONFIG) as j:
        assert j.fault is None and j.verify().ok
        assert j.last_seq == 16 and j.latest_snapshot() == (10, json.dumps({"after": 10}))
        entry = next(iter(j.iter_system_log(kinds=[LogKind.SALVAGE])))
        assert entry.detail["kept_last_seq"] == 16 and entry.detail["moved_to"] == str(
            report.moved_to
        )
        assert "acknowledged events 17..40" in " ".join(entry.detail["notes"])
        assert j.append({"type": "tick", "ms": 1}, accepted=True, by=None) == 17
        assert j.verify().ok
        kinds = [r.kind for r in j.iter_system_log()]
        assert kinds.count("power_up") >= 2  # the old log was carried over


def test_salvage_after_a_torn_tail_keeps_every_surviving_event(
    journal: Journal, tmp_path: Path
) -> None:
    fill(journal, 40)
    crashed = tmp_path / "crashed"
    crash_image(journal.directory, crashed)
    wal = crashed / "journal.sqlite3-wal"
    os.truncate(wal, wal.stat().st_size - 3000)
    report = salvage(crashed)
    assert (report.kept_last_seq, report.acknowledged_seq) == (39, 40)
    with Journal.open(crashed, CONFIG) as j:
        assert j.fault is None and j.verify().ok and j.last_seq == 39


def test_salvage_of_a_damaged_page_keeps_what_precedes_it(journal_dir: Path) -> None:
    written(journal_dir, 60)
    db = journal_dir / "journal.sqlite3"
    page_size, leaf = events_leaf_page(db, cell=1)
    data = bytearray(db.read_bytes())
    offset = (leaf - 1) * page_size
    data[offset + 8 : offset + 10] = b"\x00\x01"
    db.write_bytes(bytes(data))
    report = salvage(journal_dir)
    assert 0 < report.kept_last_seq < 60
    with Journal.open(journal_dir, CONFIG) as j:
        assert j.verify().ok and j.last_seq == report.kept_last_seq


def test_salvage_refuses_while_the_journal_is_in_use(journal: Journal) -> None:
    with pytest.raises(JournalBusy):
        salvage(journal.directory)


def test_salvage_without_a_readable_database_needs_the_configuration(journal_dir: Path) -> None:
    written(journal_dir, 5)
    (journal_dir / "journal.sqlite3").write_bytes(b"\x00" * 8192)
    with pytest.raises(JournalError, match="configuration file"):
        salvage(journal_dir)
    assert not (journal_dir / "damaged").exists()  # nothing was moved
    # Nothing can be kept while seq 5 was acknowledged: refused unless asked for.
    with pytest.raises(JournalError, match="seq 5 were acknowledged.*--start-empty"):
        salvage(journal_dir, CONFIG)
    assert not (journal_dir / "damaged").exists()
    report = salvage(journal_dir, CONFIG, start_empty=True)
    assert report.kept_last_seq == 0 and report.acknowledged_seq == 5
    assert (report.moved_to / "journal.sqlite3").read_bytes() == b"\x00" * 8192
    with Journal.open(journal_dir, CONFIG) as j:
        assert j.last_seq == 0 and j.fault is None and j.verify().ok


def test_salvage_of_a_pruned_journal_keeps_its_checkpoint(journal_dir: Path) -> None:
    with Journal.open(journal_dir, CONFIG) as j:
        play_hands(j, 30)
        j.prune(keep_hands=10)
    flip_in_file(journal_dir / "journal.sqlite3", b'"hand":28,"step":2', 9)
    report = salvage(journal_dir)
    assert report.kept_last_seq == 27 * 6 + 2
    with Journal.open(journal_dir, CONFIG) as j:
        result = j.verify()
        assert result.ok and result.checked_from_seq == 120


def test_salvage_leaves_a_healthy_journal_alone(journal_dir: Path) -> None:
    written(journal_dir, 5)
    with pytest.raises(JournalError, match="passes every integrity check"):
        salvage(journal_dir)
    assert not (journal_dir / "damaged").exists()
    report = salvage(journal_dir, force=True)
    assert report.kept_last_seq == 5
    with Journal.open(journal_dir, CONFIG) as j:
        assert j.verify().ok and j.last_seq == 5


def test_a_faulty_journal_is_not_pruned(journal: Journal, tmp_path: Path) -> None:
    play_hands(journal, 30)
    crashed = tmp_path / "crashed"
    crash_image(journal.directory, crashed)
    os.truncate(
        crashed / "journal.sqlite3-wal", (crashed / "journal.sqlite3-wal").stat().st_size - 100
    )
    with Journal.open(crashed, CONFIG) as j, pytest.raises(TornTail):
        j.prune(keep_hands=10)


def test_a_journal_without_events_has_no_ack_warning(journal_dir: Path) -> None:
    with Journal.open(journal_dir, CONFIG):
        pass
    with Journal.open(journal_dir, CONFIG) as j:
        result = j.verify()
        assert result.ok and result.warnings == ()
