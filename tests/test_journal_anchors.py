"""Issue 13 item 5: tamper evidence that means something. The chain covers the events
(with their snapshots and floor messages) and the system log; its head goes to the
floor with every hand, and the back office checks a journal against the heads it got."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from controller.journal import ChainBroken, Journal
from controller.journal.ackmark import AckMark, write_acks
from controller.journal.schema import RowContent, log_genesis
from tests.cli import tablectl_in_process
from tests.daemon_helpers import fold_hands, running, seat_players, write_config

CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"


def play(directory: Path, hands: int) -> list[str]:
    """Hands of 5 events, the last one an award with a floor message; returns the heads
    the floor got (one per hand, taken before its last event, as the daemon does)."""
    heads = []
    with Journal.open(directory, CONFIG, table_id="T1") as j:
        for hand in range(1, hands + 1):
            for step in range(4):
                j.append({"type": "tick", "ms": step}, accepted=True, by=None, hand=hand)
            heads.append(j.chain_head())
            j.append(
                {"type": "award", "seat": 3, "amount": 40 + hand},
                accepted=True,
                by="dealer-1",
                hand=hand,
                outbox=[("casino/s/table/T1/hands", json.dumps({"hand": hand}))],
            )
            j.log_system("device_fault", {"device": "keypad", "hand": hand})
    return heads


def rewrite_award_and_rechain(directory: Path, seq: int, amount: int) -> None:
    """What the probe did: change a past award and recompute every later hash, and the
    ack mark, with the project's own functions."""
    conn = sqlite3.connect(directory / "journal.sqlite3")
    rows = conn.execute(
        "SELECT e.seq, e.hand, c.sha256, e.event, e.accepted, e.refusal_code, "
        "e.refusal_message, e.by, e.wall_ns, e.clock_synced, e.mono_ns, e.snapshot_sha256, "
        "e.outbox_sha256 FROM events e JOIN configs c ON c.id = e.config_id ORDER BY seq"
    ).fetchall()
    previous = conn.execute("SELECT hash FROM events WHERE seq = ?", (seq - 1,)).fetchone()[0]
    for row in rows:
        if row[0] < seq:
            continue
        event = row[3]
        if row[0] == seq:
            changed = json.loads(event)
            changed["amount"] = amount
            event = json.dumps(changed, sort_keys=True, separators=(",", ":"))
        content = RowContent(*row[:3], event, *row[4:12], outbox_sha256=row[12])
        previous = content.digest(previous)
        conn.execute(
            "UPDATE events SET event = ?, hash = ? WHERE seq = ?", (event, previous, row[0])
        )
    conn.commit()
    last = rows[-1][0]
    conn.close()
    write_acks(directory, AckMark(last, previous, "T1"))


def test_a_rewritten_award_passes_verify_but_not_the_heads_the_floor_got(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    heads = play(state, 6)
    (tmp_path / "heads.jsonl").write_text(
        "".join(
            json.dumps({"kind": "hand_end", "table_id": "T1", "hand": n + 1, "chain_head": h})
            + "\n"
            for n, h in enumerate(heads)
        )
        + json.dumps({"kind": "state"})
        + "\n"
    )
    before = tablectl_in_process(
        "journal", "verify", "--state-dir", str(state), "--heads", str(tmp_path / "heads.jsonl")
    )
    assert before.returncode == 0 and "heads: 6 match, 0 DIFFER" in before.stdout
    rewrite_award_and_rechain(state, 15, 4000)  # hand 3's award: 43 -> 4000
    with Journal.open_readonly(state) as j:
        assert j.verify(log=False).ok  # the chain alone cannot tell
    after = tablectl_in_process(
        "journal", "verify", "--state-dir", str(state), "--heads", str(tmp_path / "heads.jsonl")
    )
    assert after.returncode == 3
    assert "heads: 3 match, 3 DIFFER" in after.stdout  # hands 4-6 were sent after seq 15
    assert "1 line(s) without a head" in after.stdout


def test_heads_of_another_table_do_not_match(tmp_path: Path) -> None:
    state = tmp_path / "state"
    heads = play(state, 2)
    (tmp_path / "heads.jsonl").write_text(
        json.dumps({"table_id": "T9", "chain_head": heads[0]}) + "\n"
    )
    result = tablectl_in_process(
        "journal", "verify", "--state-dir", str(state), "--heads", str(tmp_path / "heads.jsonl")
    )
    assert result.returncode == 3 and "sent by table T9" in result.stdout


def test_a_changed_system_log_entry_breaks_the_chain(tmp_path: Path) -> None:
    state = tmp_path / "state"
    play(state, 3)
    conn = sqlite3.connect(state / "journal.sqlite3")
    conn.execute(
        "UPDATE system_log SET detail = ? WHERE kind = 'device_fault' AND id = "
        "(SELECT MIN(id) FROM system_log WHERE kind = 'device_fault')",
        ('{"x":1}',),
    )
    conn.commit()
    conn.close()
    with Journal.open_readonly(state) as j:
        problem = j.verify(log=False).first_problem
    assert isinstance(problem, ChainBroken) and "system log entry" in problem.message


def test_a_changed_floor_message_breaks_the_chain(tmp_path: Path) -> None:
    state = tmp_path / "state"
    play(state, 3)
    conn = sqlite3.connect(state / "journal.sqlite3")
    conn.execute("UPDATE outbox SET payload = ? WHERE seq = 10", ('{"hand": 99}',))
    conn.commit()
    conn.close()
    with Journal.open_readonly(state) as j:
        problem = j.verify(log=False).first_problem
    assert isinstance(problem, ChainBroken) and problem.seq == 10
    assert "floor messages" in problem.message


def test_a_journal_from_before_the_log_chain_is_upgraded(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with Journal.open(state, CONFIG, table_id="T1") as j:
        for n in range(5):
            j.append({"type": "tick", "ms": n}, accepted=True, by=None)
    conn = sqlite3.connect(state / "journal.sqlite3")  # the schema of the first release
    conn.execute("ALTER TABLE events DROP COLUMN outbox_sha256")
    conn.execute("ALTER TABLE system_log DROP COLUMN hash")
    conn.execute("DELETE FROM meta WHERE key IN ('log_base_id', 'log_base_hash')")
    conn.commit()
    conn.close()
    with Journal.open_readonly(state) as j:
        assert j.verify(log=False).ok and j.last_seq == 5
    with Journal.open(state, CONFIG, table_id="T1") as j:
        assert j.fault is None and j.verify().ok
        j.append(
            {"type": "tick", "ms": 9},
            accepted=True,
            by=None,
            outbox=[("casino/s/table/T1/events", "{}")],
        )
        head = j.chain_head()
    with Journal.open_readonly(state) as j:
        assert j.verify(log=False).ok
        meta = dict(j.connection.execute("SELECT key, value FROM meta").fetchall())
        assert meta["log_base_hash"] == log_genesis(j.configs()[0].sha256).hex()
    assert head.startswith("v1:6:")


def test_the_daemon_sends_the_chain_head_with_every_hand_end(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    config.write_text(config.read_text() + "floor: {site: lv, host: 127.0.0.1, port: 1}\n")
    with running(config) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis"})
        fold_hands(daemon, 3)
    conn = sqlite3.connect(tmp_path / "state" / "journal.sqlite3")
    payloads = [
        row[0]
        for row in conn.execute("SELECT payload FROM outbox WHERE topic LIKE '%/hands' ORDER BY id")
    ]
    conn.close()
    ends = [json.loads(p) for p in payloads if json.loads(p)["kind"] == "hand_end"]
    assert len(ends) == 3 and all(e["chain_head"].startswith("v1:") for e in ends)
    (tmp_path / "received.jsonl").write_text("".join(p + "\n" for p in payloads))
    result = tablectl_in_process(
        "journal",
        "verify",
        "--state-dir",
        str(tmp_path / "state"),
        "--heads",
        str(tmp_path / "received.jsonl"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "heads: 3 match, 0 DIFFER" in result.stdout
