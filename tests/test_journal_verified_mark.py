"""The verified mark (issue 22 item 5): start-up and `tablectl state` check the chain
only after the point where it last passed a check, so that they do not grow with the
history kept; `tablectl journal verify` still checks everything, in flat memory."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import struct
import tempfile
import tracemalloc
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.journal import Journal
from controller.journal.ackmark import ACK_NAMES, read_acks
from tests.cli import tablectl_in_process

CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"


def sit(n: int) -> dict[str, object]:
    return {"type": "sit", "seat": 1 + n % 9, "player": f"p{n}", "chips": 100}


def fill(j: Journal, count: int, *, outbox: bool = False) -> None:
    for _ in range(count):
        n = j.last_seq + 1
        j.append(
            sit(n),
            accepted=True,
            by="dealer-7",
            hand=n // 8,
            snapshot=json.dumps({"after": n}) if n % 10 == 0 else None,
            outbox=[(f"casino/east/table/T1/events/{n}", json.dumps({"seq": n}))] if outbox else (),
        )


@pytest.fixture
def fast_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory when the machine has one (an fsync there costs nothing), for
    journals of thousands of events."""
    if not os.path.isdir("/dev/shm"):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="verified-mark-", dir="/dev/shm"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def tamper(directory: Path, seq: int) -> None:
    """Change an event's text behind the journal's back (its hash left as it was)."""
    with sqlite3.connect(directory / "journal.sqlite3") as sql:
        sql.execute(
            "UPDATE events SET event = ? WHERE seq = ?",
            (json.dumps({"type": "sit", "seat": 9, "player": "forged", "chips": 9999}), seq),
        )


def checked(directory: Path, *, first: int = 40, then: int = 25) -> None:
    """``first`` events, a passed start-up check (the mark at ``first``), ``then`` more."""
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        fill(j, first)
        assert j.verify(whole=False).ok
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        fill(j, then)


def test_a_passed_check_keeps_the_mark_with_the_ack_mark(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    checked(directory)
    acks = read_acks(directory)
    assert acks.verified is not None and acks.verified[0] == 40
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        tail = j.verify(whole=False)
        assert tail.ok and (tail.checked_from_seq, tail.events_checked) == (41, 25)
        assert tail.quick_check.startswith("skipped")
        whole = j.verify()
        assert whole.ok and (whole.checked_from_seq, whole.events_checked) == (1, 65)
        head = bytes.fromhex(j.head()[1])
    assert read_acks(directory).verified == (65, head)


def test_the_tail_check_catches_tampering_after_the_mark(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    checked(directory)
    tamper(directory, 50)
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        verdict = j.verify(whole=False)
    assert [(p.code, getattr(p, "seq", None)) for p in verdict.problems] == [("chain_broken", 50)]
    result = tablectl_in_process("state", "--state-dir", str(directory))
    assert result.returncode != 0 and "chain broken at seq 50" in result.stdout + result.stderr


def test_tampering_before_the_mark_is_caught_by_journal_verify(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    checked(directory)
    tamper(directory, 7)
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        # start-up checks what follows the mark only: this is left to the whole check
        assert j.verify(whole=False).ok
    result = tablectl_in_process("journal", "verify", "--state-dir", str(directory))
    assert result.returncode == 3  # damaged
    assert "chain broken at seq 7" in result.stdout


def test_the_mark_itself_must_match_its_row(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    checked(directory)
    # the rows up to the mark rewritten with a new chain (as the program's own functions
    # could): the row at the mark no longer has the mark's hash
    with sqlite3.connect(directory / "journal.sqlite3") as sql:
        sql.execute("UPDATE events SET hash = zeroblob(32) WHERE seq = 40")
    with Journal.open_readonly(directory) as j:
        verdict = j.verify(log=False, whole=False)
    codes = [(p.code, getattr(p, "seq", None)) for p in verdict.problems]
    assert ("chain_broken", 40) in codes
    assert "verified mark" in " ".join(p.message for p in verdict.problems)


def test_a_mark_moved_forward_in_the_ack_files_is_refused(tmp_path: Path) -> None:
    """A mark edited to skip the tail must name a row with that hash; a forged hash
    (the CRC recomputed) is refused."""
    directory = tmp_path / "state"
    checked(directory)
    tamper(directory, 60)
    for name in ACK_NAMES:
        data = bytearray((directory / name).read_bytes())
        struct.pack_into(">Q32s", data, 84, 64, bytes(32))  # the verified seq and hash
        struct.pack_into(">I", data, 124, zlib.crc32(bytes(data[:124])))
        (directory / name).write_bytes(bytes(data))
    assert read_acks(directory).verified == (64, bytes(32))
    with Journal.open_readonly(directory) as j:
        verdict = j.verify(log=False, whole=False)
    codes = [(p.code, getattr(p, "seq", None)) for p in verdict.problems]
    assert ("chain_broken", 64) in codes and ("chain_broken", 60) in codes


def peak_bytes(directory: Path) -> int:
    with Journal.open_readonly(directory) as j:
        tracemalloc.start()
        try:
            assert j.verify(log=False).ok
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


@pytest.mark.slow  # 2.4 s of the edit loop at 0.3.0 (measured with --durations)
def test_the_whole_check_runs_in_flat_memory(fast_dir: Path) -> None:
    small, large = fast_dir / "small", fast_dir / "large"
    for directory, count in ((small, 1_000), (large, 6_000)):
        with Journal.open(directory, CONFIG, table_id="T1") as j:
            fill(j, count, outbox=True)
    peak_bytes(small)  # once first: what a first check sets up once (caches) is not growth
    ratio = peak_bytes(large) / peak_bytes(small)
    assert ratio < 1.2, f"six times the events take {ratio:.2f}x the memory to check"


def test_the_daemon_moves_the_mark_between_hands(tmp_path: Path) -> None:
    """The next start has only the hands since the last prune to walk."""
    from controller.daemon.reconfig import PRUNE_EVERY_HANDS
    from tests.daemon_helpers import running, seat_players, view, wait_for, write_config

    config = write_config(tmp_path)
    with running(config) as daemon:
        journal = daemon.journal
        assert journal is not None
        seat_players(daemon, {2: "ana", 5: "luis"})
        for _ in range(PRUNE_EVERY_HANDS):
            assert daemon.submit({"type": "start_hand"}).ok
            assert daemon.submit(
                {"type": "act", "seat": view(daemon)["to_act"], "action": "fold"}
            ).ok
        at_prune = journal.last_seq
        wait_for(lambda: (read_acks(tmp_path / "state").verified or (0, b""))[0] == at_prune)
        assert daemon.submit({"type": "start_hand"}).ok
    with Journal.open(tmp_path / "state", config.read_text(), table_id="T1") as j:
        verdict = j.verify(whole=False)
        last = j.last_seq
    assert verdict.ok and verdict.checked_from_seq == at_prune + 1
    assert verdict.events_checked == last - at_prune
