"""The outbox's bound and the journal's chain (found by ``bench/casino_day.py``, seed 1,
step 178: a floor-linked table locked itself with MEMORY FAULT CHAIN after about 75
hands). Past ``floor.outbox_max_messages`` the publisher deletes the oldest sent floor
messages; the chain check then found the events and the ``floor_queued`` claims whose
messages had gone and called them changed or removed. Messages the bound deleted are
passed over by the check, as those of pruned hands are; a row changed or removed by
hand among those still kept is still caught."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from controller.floor import outbox
from controller.journal import Journal
from tests.daemon_helpers import fold_hands, running, seat_players, view, wait_for
from tests.localbroker import LocalBroker
from tests.test_daemon_floor import floor_config


def play_and_send(config: Path, state: Path, hands: int) -> None:
    """Hands played with the floor link up, until the broker has every message."""
    with running(config) as daemon:
        if not view(daemon)["seats"]:
            seat_players(daemon, {2: "ana", 5: "luis"})
        fold_hands(daemon, hands)

        def all_sent() -> bool:
            with contextlib.closing(outbox.connect(state / "journal.sqlite3")) as conn:
                return outbox.count_unsent(conn) == 0

        wait_for(all_sent, what="every floor message sent")


def verify(state: Path) -> list[str]:
    with Journal.open_readonly(state) as journal:
        return [problem.message for problem in journal.verify(log=False).problems]


@pytest.mark.slow  # two daemon runs against a real broker (3 s)
def test_floor_messages_deleted_by_the_outbox_bound_break_no_chain(
    tmp_path: Path, broker: LocalBroker
) -> None:
    config = floor_config(tmp_path, broker)
    state = tmp_path / "state"
    play_and_send(config, state, hands=4)  # the start-up state: a claim; events' rows
    with contextlib.closing(outbox.connect(state / "journal.sqlite3")) as conn:
        before = outbox.count_rows(conn)
        deleted = outbox.enforce_bound(conn, 10)  # the publisher's housekeeping
        assert deleted >= before - 10 and outbox.count_rows(conn) == before - deleted
    assert verify(state) == []
    play_and_send(config, state, hands=1)  # starts unlocked, and plays on
    assert verify(state) == []


@pytest.mark.slow
def test_a_kept_row_changed_after_the_bound_deleted_older_ones_is_still_caught(
    tmp_path: Path, broker: LocalBroker
) -> None:
    config = floor_config(tmp_path, broker)
    state = tmp_path / "state"
    play_and_send(config, state, hands=4)
    with contextlib.closing(outbox.connect(state / "journal.sqlite3")) as conn:
        outbox.enforce_bound(conn, 10)
        (last,) = conn.execute("SELECT MAX(id) FROM outbox").fetchone()
    with contextlib.closing(sqlite3.connect(state / "journal.sqlite3")) as conn, conn:
        conn.execute("UPDATE outbox SET payload = '{\"forged\": 1}' WHERE id = ?", (last,))
    problems = verify(state)
    assert len(problems) == 1 and "journal hash chain broken" in problems[0], problems


@pytest.mark.slow  # a daemon run against a real broker (2 s)
def test_the_bound_deleting_rows_while_the_chain_is_checked_breaks_no_chain(
    tmp_path: Path, broker: LocalBroker
) -> None:
    """The publisher's thread deletes the oldest sent messages (and moves the mark the
    check passes over them by) on its own connection, at any moment. A check that read
    the mark and then, in another read, the rows found the rows gone and called a
    claim's messages removed: a floor-linked table locked itself with MEMORY FAULT
    CHAIN between two hands (the 30-day casino day, seed 30, day 2). The check reads
    the journal as of one moment."""
    config = floor_config(tmp_path, broker)
    state = tmp_path / "state"
    play_and_send(config, state, hands=4)  # the start-up state: a claim; events' rows
    publisher = outbox.connect(state / "journal.sqlite3")
    deleted: list[int] = []

    def meanwhile(statement: str) -> None:
        if not deleted and "FROM outbox" in statement:  # the check's first outbox read
            deleted.append(outbox.enforce_bound(publisher, 10))

    try:
        with Journal.open_readonly(state) as journal:
            journal.connection.set_trace_callback(meanwhile)
            problems = [problem.message for problem in journal.verify(log=False).problems]
    finally:
        publisher.close()
    assert deleted and deleted[0] > 0  # the bound did delete, in the middle of the check
    assert problems == []
    assert verify(state) == []  # and the next check, after it, passes over them
