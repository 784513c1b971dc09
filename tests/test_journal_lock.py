"""Issue 22 item 2: the writer's lock holds however its file is treated. Two real
processes: the first writes the journal (`tablectl replay --state-dir`, reading its
events from a pipe); ``journal.lock`` is deleted (or replaced) between them; the second
writer is refused with the first one's pid, and nothing of it reaches the journal."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.journal import Journal
from controller.journal.files import writer_running
from tests.cli import tablectl, tablectl_command

CONFIG = """\
table: {id: "T7", seats: 9}
game: {structure: no_limit, small_blind: 5, big_blind: 10, smallest_chip: 5}
"""
SIT = '{"type": "sit", "seat": SEAT, "player": "pSEAT", "chips": 1000}\n'


@pytest.fixture
def first_writer(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path, Path]]:
    """A replay writing ``tmp_path/state``, one event journalled, still running."""
    config = tmp_path / "table.yaml"
    config.write_text(CONFIG)
    state = tmp_path / "state"
    writer = subprocess.Popen(
        tablectl_command("replay", "--config", str(config), "--state-dir", str(state), "-"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert writer.stdin is not None and writer.stdout is not None
    try:
        writer.stdin.write(SIT.replace("SEAT", "2"))
        writer.stdin.flush()
        answer = json.loads(writer.stdout.readline())  # printed once it is journalled
        assert answer["ok"] is True and answer["seq"] == 1
        yield writer, config, state
    finally:
        writer.kill()
        writer.communicate(timeout=30)


def second_replay(config: Path, state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        tablectl_command("replay", "--config", str(config), "--state-dir", str(state), "-"),
        input=SIT.replace("SEAT", "2"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_second_writer_is_refused_after_the_lock_file_is_deleted(
    first_writer: tuple[subprocess.Popen[str], Path, Path],
) -> None:
    writer, config, state = first_writer
    (state / "journal.lock").unlink()
    second = second_replay(config, state)
    assert second.returncode != 0 and second.stdout == ""
    assert f"process {writer.pid}" in second.stderr, second.stderr
    assert "systemctl stop table-controller" in second.stderr
    salvage = tablectl("journal", "salvage", "--state-dir", str(state), "--force")
    assert salvage.returncode == 3 and f"process {writer.pid}" in salvage.stderr
    assert not (state / "damaged").exists()
    assert writer_running(state)
    writer.kill()
    writer.communicate(timeout=30)
    assert not writer_running(state)
    with Journal.open_readonly(state) as journal:  # only the first writer's event
        assert [record.event["seat"] for record in journal.iter_events()] == [2]


def test_a_lock_file_replaced_by_another_file_does_not_let_a_second_writer_in(
    first_writer: tuple[subprocess.Popen[str], Path, Path],
) -> None:
    writer, config, state = first_writer
    (state / "journal.lock").unlink()
    (state / "journal.lock").write_text("not a pid\n")
    second = second_replay(config, state)
    assert second.returncode != 0 and f"process {writer.pid}" in second.stderr
