"""Floor messages that belong to no event, claimed by a ``floor_queued`` system log entry
(controller/journal/floorclaims.py): an outbox row of theirs added, changed or removed
by hand is caught at the next start and by ``tablectl journal verify``; rows 0.2.x
queued outside events (written here the old way: a transaction of their own under the
last seq, nothing covering them) are recognised and adopted, and what recognises them
cannot be used to slip in a row of another kind or beyond the occasions the log records.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.floor import outbox
from controller.floor.messages import fault_message, state_message
from controller.floor.topics import TableTopics
from controller.journal import Journal, LogKind
from controller.journal.schema import META_FLOOR_CLAIMS
from tests.cli import tablectl_in_process

CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"
TOPICS = TableTopics("casino", "lv", "T1")


def sit(journal: Journal, seat: int) -> int:
    seq = journal.last_seq + 1
    return journal.append(
        {"type": "sit", "seat": seat, "player": f"p{seat}", "chips": 100},
        accepted=True,
        by="dealer-7",
        hand=0,
        outbox=[(TOPICS.events, json.dumps({"kind": "event", "seq": seq}))],
    )


def state_row(seq: int) -> tuple[str, str, int, bool]:
    return state_message(TOPICS, {"seats": {}}, seq=seq)


def fault_row(seq: int, *, active: bool = True) -> tuple[str, str, int, bool]:
    return fault_message(TOPICS, "keypad_lost", device="keypad", active=active, seq=seq)


def opened(state: Path) -> Journal:
    return Journal.open(state, CONFIG, allow_config_change=True, table_id="T1")


def new_journal(state: Path) -> None:
    """A journal this release writes: events with floor messages, the start-up state
    and a device fault and its clear queued between them, claimed."""
    with opened(state) as journal:
        journal.queue_floor([state_row(0)], about="state")
        sit(journal, 2)
        sit(journal, 5)
        journal.log_system(LogKind.DEVICE_FAULT, {"device": "keypad", "code": "keypad_lost"})
        journal.queue_floor([fault_row(2)], about="fault")
        sit(journal, 7)
        journal.log_system(LogKind.DEVICE_CLEAR, {"device": "keypad", "code": "keypad_lost"})
        journal.queue_floor([fault_row(3, active=False)], about="fault")
    with opened(state) as journal:  # a clean restart: its state, under seq 3
        journal.queue_floor([state_row(3)], about="state")
        sit(journal, 9)


def sql(state: Path, statement: str, *args: object) -> None:
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn:
        conn.execute(statement, args)
        conn.commit()


def claimed_id(state: Path, about: str) -> int:
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn:
        row = conn.execute(
            "SELECT json_extract(detail, '$.outbox.ids[0]') FROM system_log "
            "WHERE kind = 'floor_queued' AND json_extract(detail, '$.about') = ? ORDER BY id",
            (about,),
        ).fetchone()
    return int(row[0])


def start_problems(state: Path) -> list[str]:
    """What the daemon's start finds (open, then the check after the verified mark)."""
    with opened(state) as journal:
        if journal.fault is not None:
            return [journal.fault.message]
        result = journal.verify(whole=False)
        return [problem.message for problem in result.problems]


def verify_problems(state: Path) -> list[str]:
    with Journal.open_readonly(state) as journal:
        return [problem.message for problem in journal.verify(log=False).problems]


def test_a_journal_with_floor_messages_of_no_event_verifies_after_restarts(tmp_path: Path) -> None:
    state = tmp_path / "state"
    new_journal(state)
    with opened(state) as journal:  # and again, with a full check this time
        journal.queue_floor([state_row(4)], about="state")
        assert journal.verify().ok
    assert verify_problems(state) == []
    done = tablectl_in_process("journal", "verify", "--state-dir", str(state))
    assert done.returncode == 0, done.stdout + done.stderr


TAMPERING: dict[str, Callable[[Path], None]] = {
    "a row added under an event": lambda state: sql(
        state,
        "INSERT INTO outbox (seq, topic, payload, qos, retain, created_ns) VALUES (?, ?, ?, 1, 0, 1)",
        2,
        fault_row(2)[0],
        fault_row(2)[1],
    ),
    "a row added under seq 0": lambda state: sql(
        state,
        "INSERT INTO outbox (seq, topic, payload, qos, retain, created_ns) VALUES (0, ?, ?, 1, 1, 1)",
        *state_row(0)[:2],
    ),
    "a row added under no seq": lambda state: sql(
        state,
        "INSERT INTO outbox (seq, topic, payload, qos, retain, created_ns) "
        "VALUES (NULL, 'x', '{}', 1, 0, 1)",
    ),
    "a claimed row changed": lambda state: sql(
        state,
        "UPDATE outbox SET payload = replace(payload, 'keypad_lost', 'tray_lost') WHERE id = ?",
        claimed_id(state, "fault"),
    ),
    "a claimed row removed": lambda state: sql(
        state, "DELETE FROM outbox WHERE id = ?", claimed_id(state, "state")
    ),
    "a claimed row given another id": lambda state: sql(
        state, "UPDATE outbox SET id = 1000 WHERE id = ?", claimed_id(state, "fault")
    ),
    "a claimed row moved under another seq": lambda state: sql(
        state, "UPDATE outbox SET seq = 1 WHERE id = ?", claimed_id(state, "fault")
    ),
    "the marker deleted and a row of an old shape added": lambda state: (
        sql(state, "DELETE FROM meta WHERE key = ?", META_FLOOR_CLAIMS),
        old_queue(state, fault_row(4), 4),
    ),
}


@pytest.mark.parametrize("how", sorted(TAMPERING))
def test_a_floor_message_tampered_with_is_caught_at_start_and_by_verify(
    tmp_path: Path, how: str
) -> None:
    state = tmp_path / "state"
    new_journal(state)
    TAMPERING[how](state)
    found = verify_problems(state)
    assert found, how
    assert all("chain broken" in text for text in found), found
    assert start_problems(state), how
    done = tablectl_in_process("journal", "verify", "--state-dir", str(state))
    assert done.returncode == 3 and "chain_broken" in done.stdout, done.stdout


# -- journals of 0.2.0 and 0.2.1 ----------------------------------------------------------


def old_queue(state: Path, message: tuple[str, str, int, bool], seq: int) -> None:
    """What 0.2.x's ``Publisher.enqueue`` did: the row under the last seq, in a
    transaction of its own, nothing in the journal covering it."""
    with contextlib.closing(outbox.connect(state / "journal.sqlite3")) as conn:
        conn.execute("BEGIN IMMEDIATE")
        outbox.enqueue(conn, [message], seq=seq)
        conn.execute("COMMIT")


def old_journal(state: Path) -> None:
    """A journal as 0.2.1 wrote it on a floor-linked table: started (state at seq 0),
    two players, a keypad fault and clear, a clean restart (state at seq 3)."""
    with opened(state) as journal:
        sql(state, "DELETE FROM meta WHERE key = ?", META_FLOOR_CLAIMS)  # 0.2.x wrote none
        old_queue(state, state_row(0), 0)
        sit(journal, 2)
        journal.log_system(LogKind.DEVICE_FAULT, {"device": "keypad", "code": "keypad_lost"})
        old_queue(state, fault_row(1), 1)
        sit(journal, 5)
        journal.log_system(LogKind.DEVICE_CLEAR, {"device": "keypad", "code": "keypad_lost"})
        old_queue(state, fault_row(2, active=False), 2)
        sit(journal, 7)
    with Journal.open_readonly(state) as journal:  # what 0.2.1's own start did
        assert journal.last_seq == 3
    sql(state, "DELETE FROM meta WHERE key = ?", META_FLOOR_CLAIMS)


def test_a_journal_of_0_2_x_upgrades_without_a_fault_or_a_salvage(tmp_path: Path) -> None:
    state = tmp_path / "state"
    old_journal(state)
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn:
        rows = conn.execute("SELECT * FROM outbox ORDER BY id").fetchall()
    assert verify_problems(state) == []  # recognised while read only
    assert start_problems(state) == []  # adopted at the start
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn:
        assert conn.execute("SELECT * FROM outbox ORDER BY id").fetchall()[: len(rows)] == rows
        adopted = conn.execute(
            "SELECT json_extract(detail, '$.outbox.seq'), json_extract(detail, '$.outbox.ids') "
            "FROM system_log WHERE kind = 'floor_queued' ORDER BY id"
        ).fetchall()
        marker = conn.execute("SELECT value FROM meta WHERE key = ?", (META_FLOOR_CLAIMS,))
        assert marker.fetchone() == ("1",)
    assert adopted == [(0, "[1]"), (1, "[3]"), (2, "[5]")]
    assert verify_problems(state) == []
    # adopted once: a row of the same shape added now is caught
    old_queue(state, fault_row(3), 3)
    assert verify_problems(state) and start_problems(state)


SLIPPED: dict[str, tuple[str, str, int, int]] = {
    "another kind of message": (TOPICS.events, json.dumps({"kind": "event", "seq": 3}), 1, 0),
    "a fault on the state topic": (TOPICS.state, fault_row(3)[1], 1, 0),
    "a state not retained": (TOPICS.state, state_row(3)[1], 1, 0),
    "a fault naming another seq": (TOPICS.faults, fault_row(2)[1], 1, 0),
    "a fault of another table": (
        TableTopics("casino", "lv", "T9").faults,
        fault_message(TableTopics("casino", "lv", "T9"), "x", active=True, seq=3)[1],
        1,
        0,
    ),
    "a fault beyond the occasions logged": (TOPICS.faults, fault_row(3)[1], 1, 0),
    "not JSON": (TOPICS.faults, "{", 1, 0),
}


@pytest.mark.parametrize("how", sorted(SLIPPED))
def test_recognising_old_rows_lets_no_other_row_in(tmp_path: Path, how: str) -> None:
    """The old journal has occasions for one state (its start) and two faults (the
    fault and the clear: the budget of two per fault entry and one per clear leaves
    one more fault for the entry that may carry a clear and a raise); each row slipped
    in under seq 3 must still break the chain, before and at the upgrade."""
    state = tmp_path / "state"
    old_journal(state)
    if how == "a fault beyond the occasions logged":  # use up the fault entry's second
        old_queue(state, fault_row(3), 3)
    sql(
        state,
        "INSERT INTO outbox (seq, topic, payload, qos, retain, created_ns) VALUES (3, ?, ?, ?, ?, 1)",
        *SLIPPED[how],
    )
    assert verify_problems(state), how
    assert start_problems(state), how


def outbox_table(state: Path) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn:
        return conn.execute("SELECT id, seq, topic, payload FROM outbox ORDER BY id").fetchall()


@pytest.mark.parametrize("journal_of", ["this release", "0.2.x"])
def test_a_salvage_keeps_the_floor_messages_of_no_event(tmp_path: Path, journal_of: str) -> None:
    """A salvage (forced: the journal is whole) keeps every floor message, claimed or
    old, and the journal it builds verifies, and still after its next start."""
    state = tmp_path / "state"
    (new_journal if journal_of == "this release" else old_journal)(state)
    rows = outbox_table(state)
    report = Journal.salvage(state, CONFIG, force=True, table_id="T1")
    assert report.kept_events == 4 if journal_of == "this release" else 3
    assert outbox_table(state) == rows
    assert verify_problems(state) == []
    assert start_problems(state) == []
    assert verify_problems(state) == []


def test_the_outbox_bound_taking_sent_messages_leaves_a_journal_that_verifies(
    tmp_path: Path,
) -> None:
    """The publisher keeps `floor.outbox_max_messages` by deleting the oldest sent rows
    (a long day, the broker back after an outage): whole seqs, recorded as pruned, so
    neither the start nor verify reads them as removed by hand (before: `chain_broken`
    at seq 1); a row changed after them is still caught."""
    state = tmp_path / "state"
    new_journal(state)
    with opened(state) as journal:
        for seat in range(1, 9):
            sit(journal, seat)
        journal.queue_floor([fault_row(journal.last_seq)], about="fault")
    with contextlib.closing(outbox.connect(state / "journal.sqlite3")) as conn:
        conn.execute("UPDATE outbox SET sent = 1 WHERE id <= 9")
        # the six oldest reach seq 3: every sent row up to seq 3 goes (ids 1 to 7)
        assert outbox.enforce_bound(conn, outbox.count_rows(conn) - 6) == 7
        assert [r[0] for r in conn.execute("SELECT id FROM outbox")] == list(range(8, 18))
    assert verify_problems(state) == []
    assert start_problems(state) == []
    sql(state, "UPDATE outbox SET payload = '{}' WHERE id = (SELECT MAX(id) FROM outbox)")
    assert verify_problems(state) and start_problems(state)
