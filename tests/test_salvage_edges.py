"""Issue 30 items 6 and 7: the salvage's own edges, each a test that a changed salvage
(a mutant the rest of the suite let through) fails. Real SQLite files; where an order
of file operations is the property, a thin spy records the real ``os`` calls and still
performs them."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from controller.journal import Journal, JournalError, LogKind, salvage
from controller.journal.ackmark import AckMark, write_acks
from tests.test_journal import CONFIG, fill, flip_in_file, written

DB, NEW, MARKER = "journal.sqlite3", "journal.sqlite3.new", "salvage.pending"


class Cut(BaseException):
    """A power cut at a chosen call: nothing after it runs (no ``except Exception``)."""


def damaged(state: Path, events: int = 40, at: int = 17) -> None:
    """``events`` events, then one byte of the event of seq ``at`` changed."""
    written(state, events)
    flip_in_file(state / DB, f"player-{at:04d}".encode(), 7)


def crashed(state: Path, tmp: Path, events: int = 40) -> None:
    """What a power cut leaves: the events still in the WAL (no checkpoint, no close),
    the last frame cut short so the tail is torn."""
    with Journal.open(tmp / "live", CONFIG) as live:
        fill(live, events)
        state.mkdir()
        for name in (DB, f"{DB}-wal", f"{DB}-shm", "journal.ack", "journal.ack.mirror"):
            if (live.directory / name).exists():
                shutil.copyfile(live.directory / name, state / name)
    wal = state / f"{DB}-wal"
    os.truncate(wal, wal.stat().st_size - 3000)


def events_of(state: Path) -> list[tuple[int, bytes]]:
    conn = sqlite3.connect(f"{(state / DB).as_uri()}?mode=ro", uri=True)
    try:
        return [(int(s), bytes(h)) for s, h in conn.execute("SELECT seq, hash FROM events")]
    finally:
        conn.close()


def opened_clean(state: Path) -> Journal:
    journal = Journal.open(state, CONFIG)
    assert journal.fault is None, journal.fault
    assert journal.verify(log=False).ok
    return journal


@dataclass
class Spy:
    """Records the renames and directory fsyncs the salvage makes (and makes them)."""

    state: Path
    calls: list[tuple[str, ...]] = field(default_factory=list)
    cut_when: Callable[[str, str], bool] = field(default=lambda op, target: False)

    def new_journal_complete(self) -> bool:
        """Whether ``journal.sqlite3.new`` holds the salvage entry (it is committed last)."""
        new = self.state / NEW
        if not new.exists():
            return False
        conn = sqlite3.connect(f"{new.as_uri()}?immutable=1", uri=True)
        try:
            row = conn.execute("SELECT 1 FROM system_log WHERE kind = 'salvage'").fetchone()
        except sqlite3.Error:
            return False
        finally:
            conn.close()
        return row is not None

    def _moved(self, op: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def move(src: Any, dst: Any, *args: Any, **kwargs: Any) -> Any:
            if not Path(dst).is_relative_to(self.state):
                return real(src, dst, *args, **kwargs)
            self.calls.append((op, Path(src).name, str(Path(dst).relative_to(self.state))))
            if Path(dst).name == MARKER:
                self.calls.append(("marker with the new journal", str(self.new_journal_complete())))
            if self.cut_when(op, str(Path(dst).relative_to(self.state))):
                raise Cut(f"{op} {src} -> {dst}")
            return real(src, dst, *args, **kwargs)

        return move

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real_fsync = os.fsync

        def fsync(fd: int) -> None:
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                where = os.readlink(f"/proc/self/fd/{fd}")
                if Path(where) == self.state.resolve():
                    self.calls.append(("fsync dir", str(self.new_journal_complete())))
            real_fsync(fd)

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "rename", self._moved("rename", os.rename))
        monkeypatch.setattr(os, "replace", self._moved("replace", os.replace))


@pytest.fixture
def spy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Spy]:
    recorder = Spy(tmp_path / "state")
    recorder.install(monkeypatch)
    yield recorder


def interrupted(state: Path, spy: Spy, when: Callable[[str, str], bool], **options: Any) -> None:
    """The salvage cut (as by a power cut) at the first move ``when`` picks."""
    spy.cut_when = when
    with pytest.raises(Cut):
        salvage(state, **options)
    spy.cut_when = lambda op, target: False


def new_journal_installed(op: str, target: str) -> bool:
    return op == "replace" and target == DB


# ------------------------------------------------------------------ the order of the steps


def test_the_marker_is_written_once_the_new_journal_is_complete_and_its_name_durable(
    spy: Spy,
) -> None:
    damaged(spy.state)
    spy.calls.clear()
    salvage(spy.state)
    marker_at = spy.calls.index(("replace", f"{MARKER}.part", MARKER))
    assert spy.calls[marker_at + 1] == ("marker with the new journal", "True")
    # the directory holding the whole new journal was fsynced before the marker went in
    assert ("fsync dir", "True") in spy.calls[:marker_at]


def test_the_database_is_moved_aside_after_its_side_files(spy: Spy, tmp_path: Path) -> None:
    crashed(spy.state, tmp_path)
    salvage(spy.state)
    moved = [call[1] for call in spy.calls if call[0] == "rename" and call[2].startswith("damaged")]
    assert moved.index(f"{DB}-wal") < moved.index(DB)
    assert moved.index(f"{DB}-shm") < moved.index(DB)
    assert moved[-1] == DB


def test_a_plan_that_fails_leaves_no_half_built_journal(spy: Spy) -> None:
    """The marker cannot be written (a full disk, say): nothing was moved, and the new
    journal it had built is removed with its temporary marker."""
    damaged(spy.state)
    spy.cut_when = lambda op, target: target == MARKER
    with pytest.raises(Cut):
        salvage(spy.state)
    left = sorted(p.name for p in spy.state.iterdir())
    assert left == ["journal.ack", "journal.ack.mirror", "journal.lock", DB]


# ------------------------------------------------------------------ a resumed salvage


def test_a_resumed_forced_salvage_rebuilds_from_the_copy_moved_aside(spy: Spy) -> None:
    """Forced (a healthy journal), cut once the database was moved aside, the new journal
    then removed (as a start of the service does): the next run, without --force, ends
    with what the forced run would have kept."""
    written(spy.state, 12)
    reference = events_of(spy.state)
    interrupted(spy.state, spy, new_journal_installed, force=True)
    (spy.state / NEW).unlink()
    report = salvage(spy.state)
    assert events_of(spy.state) == reference and report.kept_last_seq == 12
    with opened_clean(spy.state) as journal:
        assert journal.last_seq == 12


def test_a_resumed_salvage_keeps_the_interrupted_runs_before(spy: Spy) -> None:
    written(spy.state, 12)
    reference = events_of(spy.state)[:4]
    interrupted(spy.state, spy, new_journal_installed, before=5)
    (spy.state / NEW).unlink()
    report = salvage(spy.state)  # the technician runs the salvage again, plain
    assert (report.kept_last_seq, report.reason) == (
        4,
        "cut before seq 5, as the salvage was asked to",
    )
    assert events_of(spy.state) == reference


# ------------------------------------------------------------------ what is a journal


def test_a_lone_unreadable_ack_mirror_is_no_journal_to_salvage(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "journal.ack.mirror").write_bytes(b"\xff" * 128)
    with pytest.raises(JournalError, match="there is no journal in"):
        salvage(state, CONFIG)
    assert sorted(p.name for p in state.iterdir()) == ["journal.ack.mirror", "journal.lock"]


# ------------------------------------------------------------------ what it keeps and says


def test_a_forced_salvage_of_a_healthy_journal_notes_nothing_lost(tmp_path: Path) -> None:
    state = tmp_path / "state"
    written(state, 12)
    report = salvage(state, force=True)
    assert (report.kept_last_seq, report.acknowledged_seq, report.dropped_events) == (12, 12, 0)
    assert report.notes == ()


def test_a_forced_salvage_carves_events_deleted_from_a_journal_that_still_verifies(
    tmp_path: Path,
) -> None:
    """Acknowledged events deleted by hand and the ack mark set back to match: the
    journal verifies, so only the raw pages (the WAL's earlier frames) still hold them;
    a forced salvage (what the technician runs on a doubt) finds them there, each linked
    to the chain."""
    state = tmp_path / "state"
    crashed(state, tmp_path)  # 39 events in the WAL, the 40th torn
    conn = sqlite3.connect(state / DB)  # held open: its close would fold the WAL in
    try:
        with conn:
            conn.execute("DELETE FROM events WHERE seq > 30")
            conn.execute("DELETE FROM snapshots WHERE seq > 30")
        (hash_30,) = conn.execute("SELECT hash FROM events WHERE seq = 30").fetchone()
        write_acks(state, AckMark(30, bytes(hash_30), None))
        with pytest.raises(JournalError, match="passes every integrity check"):
            salvage(state)
        report = salvage(state, force=True)
    finally:
        conn.close()
    assert report.kept_last_seq == 39 and report.kept_events == 39
    with opened_clean(state) as journal:
        assert journal.last_seq == 39


def test_snapshots_that_cannot_be_kept_count_as_pruned_so_the_salvaged_journal_verifies(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    written(state, 40)
    flip_in_file(state / DB, b'{"after": 20}', 11)
    report = salvage(state)
    assert report.kept_last_seq == 40 and report.snapshots_kept == 3
    assert "snapshots for seq [20] could not be kept" in report.notes
    with opened_clean(state) as journal:
        assert journal.latest_snapshot() == (40, json.dumps({"after": 40}))


def test_the_log_chain_goes_on_from_its_base_not_from_an_entry_before_it(tmp_path: Path) -> None:
    """Entries kept from before the log's base (its oldest, when the base moved past them)
    do not chain the salvage's entry: the base does."""
    state = tmp_path / "state"
    written(state, 5)
    conn = sqlite3.connect(state / DB)
    (last,) = conn.execute("SELECT MAX(id) FROM system_log").fetchone()
    with conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'log_base_id'", (str(last + 1),))
        conn.execute("UPDATE meta SET value = ? WHERE key = 'log_base_hash'", ("ab" * 32,))
    conn.close()
    salvage(state, force=True)
    with opened_clean(state) as journal:
        assert [e.kind for e in journal.iter_system_log()][-3] == LogKind.SALVAGE


def test_the_malformed_rows_note_reaches_the_report_as_well_as_the_log(tmp_path: Path) -> None:
    """A row the new journal cannot take (a text where a time belongs, as read from a
    damaged page) is left behind: the technician's report says so, not only the log."""
    state = tmp_path / "state"
    written(state, 5)
    conn = sqlite3.connect(state / DB)
    with conn:  # a journal from before the log's chain keeps every readable entry
        conn.execute("DELETE FROM meta WHERE key IN ('log_base_id', 'log_base_hash')")
        conn.execute("UPDATE system_log SET wall_ns = 'garbled' WHERE id = 1")
    conn.close()
    report = salvage(state, force=True)
    note = "1 malformed system log or outbox row(s) left behind"
    assert note in report.notes
    with opened_clean(state) as journal:
        entry = next(iter(journal.iter_system_log(kinds=[LogKind.SALVAGE])))
        assert note in entry.detail["notes"]
        assert tuple(entry.detail["notes"]) == report.notes


# ------------------------------------------------------------------ a corrupt marker


def with_marker(spy: Spy, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A salvage cut before it moved anything, its marker then changed by ``change``."""
    damaged(spy.state)
    interrupted(spy.state, spy, lambda op, target: target.startswith("damaged"))
    marker = json.loads((spy.state / MARKER).read_text())
    change(marker)
    (spy.state / MARKER).write_text(json.dumps(marker))
    return marker


@pytest.mark.parametrize("moved_to", ["ABSOLUTE", "../elsewhere", "damaged/../../x", "."])
def test_a_marker_cannot_send_the_evidence_out_of_the_state_directory(
    spy: Spy, moved_to: str
) -> None:
    elsewhere = spy.state.parent / "elsewhere"
    moved_to = str(elsewhere) if moved_to == "ABSOLUTE" else moved_to
    with_marker(spy, lambda marker: marker.update(moved_to=moved_to))
    before = sorted(p.name for p in spy.state.iterdir())
    with pytest.raises(JournalError, match=f"its moved_to '{moved_to}' is not a folder directly"):
        salvage(spy.state)
    assert sorted(p.name for p in spy.state.iterdir()) == before  # nothing moved
    assert not elsewhere.exists() and not (spy.state.parent / "x").exists()


def test_a_marker_cannot_send_the_evidence_through_a_symbolic_link(
    spy: Spy, tmp_path: Path
) -> None:
    marker = with_marker(spy, lambda marker: None)
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(spy.state / marker["moved_to"])  # the ack mark's copies, made before the cut
    (spy.state / marker["moved_to"]).symlink_to(outside)
    with pytest.raises(JournalError, match="is a symbolic link"):
        salvage(spy.state)
    assert list(outside.iterdir()) == [] and (spy.state / DB).exists()


def test_a_salvage_never_moves_the_evidence_through_a_symbolic_link_named_damaged(
    tmp_path: Path,
) -> None:
    state, outside = tmp_path / "state", tmp_path / "outside"
    damaged(state)
    outside.mkdir()
    (state / "damaged").symlink_to(outside)
    with pytest.raises(JournalError, match="moves nothing: .*damaged is a symbolic link"):
        salvage(state)
    assert list(outside.iterdir()) == [] and (state / DB).exists()
    assert not (state / NEW).exists() and not (state / MARKER).exists()


def test_a_marker_missing_keys_is_refused_with_its_own_message(spy: Spy) -> None:
    def cut_short(marker: dict[str, Any]) -> None:
        del marker["owner"], marker["before"]

    with_marker(spy, cut_short)
    with pytest.raises(JournalError) as raised:
        salvage(spy.state)
    assert "it lacks the key(s) owner, before that every salvage writes" in raised.value.message
    assert "Traceback" not in raised.value.message and (spy.state / DB).exists()


def test_the_report_counts_what_the_new_journal_holds_not_what_the_marker_says(
    spy: Spy, tmp_path: Path
) -> None:
    reference = tmp_path / "reference"
    damaged(reference)
    expected = salvage(reference)
    shutil.rmtree(reference)

    def inflate(marker: dict[str, Any]) -> None:
        marker["report"].update(kept_events=999, snapshots_kept=99, dropped_events=0)

    with_marker(spy, inflate)
    report = salvage(spy.state)
    assert (
        (report.kept_events, report.snapshots_kept, report.dropped_events)
        == (
            expected.kept_events,
            expected.snapshots_kept,
            expected.dropped_events,
        )
        == (16, 1, 24)
    )
    assert report.notes == expected.notes and report.reason == expected.reason


def test_a_marker_naming_another_end_than_its_journal_is_refused(spy: Spy) -> None:
    with_marker(spy, lambda marker: marker.update(ack_hash="ab" * 32))
    with pytest.raises(JournalError, match="the marker's ack_hash is not the chain hash of seq 16"):
        salvage(spy.state)
    assert (spy.state / DB).exists() and not (spy.state / "damaged" / "x").exists()
