"""The back office checking a journal against the heads the floor received
(`tablectl journal verify --heads FILE`), as a back office gathers them: with
`mosquitto_sub` from a real Mosquitto while the daemon plays hands; and a journal whose
last hands were removed (the ack mark recomputed) presented as the whole journal."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from controller.journal.ackmark import AckMark, write_acks
from tests.cli import tablectl_in_process
from tests.daemon_helpers import (
    WAIT,
    fold_hands,
    running,
    seat_players,
    wait_for,
    write_config,
)
from tests.localbroker import LocalBroker
from tests.system_tools import needs
from tests.test_journal_anchors import play


def subscribed(broker: LocalBroker, received: Path) -> None:
    """Until ``mosquitto_sub`` prints a probe (a JSON line without a head, which the
    check ignores): its subscription is then in place."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect(broker.host, broker.port)
    client.loop_start()

    def probed() -> bool:
        client.publish("casino/probe", '{"probe": true}', qos=1).wait_for_publish(WAIT)
        return '"probe"' in received.read_text()

    try:
        wait_for(probed, what="mosquitto_sub's subscription")
    finally:
        client.disconnect()  # before loop_stop: it would wait out the loop's 1 s select
        client.loop_stop()
        client.disconnect()


def heads_file(path: Path, heads: list[str]) -> Path:
    path.write_text(
        "".join(
            json.dumps({"kind": "hand_end", "table_id": "T1", "chain_head": h}) + "\n"
            for h in heads
        )
    )
    return path


def remove_after(directory: Path, last: int, *, last_log: int | None = None) -> None:
    """The attacker's cut: events after ``last`` (and system log entries after
    ``last_log``) deleted, the ack mark recomputed with the project's own function."""
    conn = sqlite3.connect(directory / "journal.sqlite3")
    conn.execute("DELETE FROM outbox WHERE seq > ?", (last,))
    conn.execute("DELETE FROM events WHERE seq > ?", (last,))
    if last_log is not None:
        conn.execute("DELETE FROM system_log WHERE id > ?", (last_log,))
    digest = conn.execute("SELECT hash FROM events WHERE seq = ?", (last,)).fetchone()[0]
    conn.commit()
    conn.close()
    write_acks(directory, AckMark(last, digest, "T1"))


def test_a_journal_with_its_last_hands_removed_fails_against_the_heads(tmp_path: Path) -> None:
    """Heads beyond the journal's end were "not checkable" and the verdict OK (exit 0):
    two hands erased, the ack mark recomputed, and the back office was told all is well."""
    state = tmp_path / "state"
    heads = heads_file(tmp_path / "heads.jsonl", play(state, 6))
    remove_after(state, 20)  # hands 5 and 6 never happened
    result = tablectl_in_process(
        "journal", "verify", "--state-dir", str(state), "--heads", str(heads)
    )
    assert result.returncode == 3, result.stdout
    assert "heads: 4 match, 0 DIFFER, 2 MISSING, 0 not checkable" in result.stdout
    assert "MISSING v1:24:" in result.stdout and "this journal ends at seq 20" in result.stdout
    as_json = json.loads(
        tablectl_in_process(
            "journal", "verify", "--state-dir", str(state), "--heads", str(heads), "--json"
        ).stdout
    )
    assert [head for head, _ in as_json["heads"]["missing"]] == json.loads(
        "["
        + ",".join(
            json.dumps(json.loads(line)["chain_head"])
            for line in heads.read_text().splitlines()[4:]
        )
        + "]"
    )


def test_system_log_entries_removed_from_the_end_fail_against_the_heads(tmp_path: Path) -> None:
    """The last hand's system log entries (a correction, a device fault) cut off, with
    the events kept: the heads sent after them name entries the journal lacks."""
    state = tmp_path / "state"
    heads = heads_file(tmp_path / "heads.jsonl", play(state, 6))
    last_head_log = int(json.loads(heads.read_text().splitlines()[-1])["chain_head"].split(":")[2])
    with sqlite3.connect(state / "journal.sqlite3") as conn:
        conn.execute("DELETE FROM system_log WHERE id >= ?", (last_head_log,))
    result = tablectl_in_process(
        "journal", "verify", "--state-dir", str(state), "--heads", str(heads)
    )
    assert result.returncode == 3, result.stdout
    assert "1 MISSING" in result.stdout and f"system log entry {last_head_log}" in result.stdout


def test_an_older_copy_of_the_journal_is_told_apart_from_tampering(tmp_path: Path) -> None:
    """A copy taken after hand 3, checked against the heads of six hands: not DIFFER
    (nothing differs), but MISSING, with the advice to check a later copy, which passes."""
    state = tmp_path / "state"
    heads = heads_file(tmp_path / "heads.jsonl", play(state, 6))
    early = tmp_path / "early"
    shutil.copytree(state, early)
    remove_after(
        early,
        15,
        last_log=int(json.loads(heads.read_text().splitlines()[3])["chain_head"].split(":")[2]),
    )
    full = tablectl_in_process(
        "journal", "verify", "--state-dir", str(state), "--heads", str(heads)
    )
    old = tablectl_in_process("journal", "verify", "--state-dir", str(early), "--heads", str(heads))
    assert "0 MISSING" in full.stdout
    assert "3 MISSING" in old.stdout and "taken before that hand ended" in old.stdout


@needs("mosquitto", "heads gathered from a real broker")
@needs("mosquitto_sub", "heads gathered as the back office gathers them")
@pytest.mark.parametrize("verbose", [True, False])
def test_heads_gathered_with_mosquitto_sub_during_hands(tmp_path: Path, verbose: bool) -> None:
    """`mosquitto_sub -v` prints each message as "TOPIC PAYLOAD": every line was taken for
    a bare head and reported DIFFER ("it is not a chain head"), a false alarm of
    tampering; without -v, JSON lines. Both, with the other kinds of messages."""
    broker = LocalBroker(tmp_path / "broker")
    broker.start()
    received = tmp_path / "received.txt"
    try:
        with received.open("w") as out:
            sub = subprocess.Popen(
                [
                    "mosquitto_sub",
                    "-h",
                    broker.host,
                    "-p",
                    str(broker.port),
                    "-q",
                    "1",
                    "-t",
                    "casino/#",
                    *(["-v"] if verbose else []),
                ],
                stdout=out,
                stderr=subprocess.DEVNULL,
            )
            try:
                config = write_config(tmp_path)
                config.write_text(
                    config.read_text() + f"floor: {{site: lv, host: {broker.host},"
                    f" port: {broker.port}}}\n"
                )
                subscribed(broker, received)
                with running(config) as daemon:
                    seat_players(daemon, {2: "ana", 5: "luis"})
                    fold_hands(daemon, 3)
                    wait_for(
                        lambda: received.read_text().count('"hand_end"') == 3,
                        what="three hand_end messages at mosquitto_sub",
                    )
            finally:
                sub.terminate()
                sub.wait(10)
    finally:
        broker.kill()
    lines = received.read_text().splitlines()
    assert len(lines) > 3 and all(line.startswith("casino/") == verbose for line in lines)
    result = tablectl_in_process(
        "journal", "verify", "--state-dir", str(tmp_path / "state"), "--heads", str(received)
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "heads: 3 match, 0 DIFFER, 0 MISSING, 0 not checkable" in result.stdout
