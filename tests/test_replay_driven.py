"""`tablectl replay` driven by another program (docs/replay.md, the replay contract): a
driver writes one line, reads its answer, then writes the next. From standard input
(``-``) each answer is flushed as soon as its event is processed; from a named file,
answers are flushed whenever replay is about to read (and may wait), so a named pipe
is answered line by line too. The output is the same text either way; how
``dumps`` writes the common line does not change a byte of it."""

from __future__ import annotations

import errno
import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.replay import dumps
from tests.cli import ROOT, daemon_env, tablectl_command
from tests.daemon_helpers import WAIT

SAMPLE = ROOT / "docs" / "samples" / "side-pot.yaml"
LINES = [
    b'{"type": "sit", "seat": 2, "player": "ana", "chips": 1000}\n',
    b"# a comment: no answer\n",
    b"not json\n",
    b'{"type": "sit", "seat": 5, "player": "luis", "chips": 1000}\n',
    b'{"type": "state"}\n',
]


class Driver:
    """The answers of a running replay, one at a time, each waited for at most WAIT."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.answers: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.put(line)

    def answer(self) -> dict[str, Any]:
        try:
            return dict(json.loads(self.answers.get(timeout=WAIT)))
        except queue.Empty:
            raise AssertionError(f"no answer within {WAIT} s") from None


def drive(proc: subprocess.Popen[bytes], writer: IO[bytes]) -> list[dict[str, Any]]:
    """Each line written on its own, its answer read before the next is written."""
    driver = Driver(proc)
    answers = []
    for line in LINES:
        writer.write(line)
        writer.flush()
        if not line.startswith(b"#"):
            answers.append(driver.answer())
    writer.close()
    assert proc.wait(WAIT) == 0
    return answers


def check(answers: list[dict[str, Any]]) -> None:
    assert [(a["seq"], a["ok"]) for a in answers] == [
        (1, True),
        (2, False),
        (3, True),
        (4, True),
    ]
    assert answers[1]["error"]["code"] == "bad_event"
    assert set(answers[3]["state"]["seats"]) == {"2", "5"}


@contextmanager
def replay_process(events: str) -> Iterator[subprocess.Popen[bytes]]:
    """Replay with its standard output block-buffered, as Python makes it by default
    for a pipe (unless PYTHONUNBUFFERED is set, as it may be where the tests run):
    the answers come only through replay's own flushes."""
    env = daemon_env()
    env.pop("PYTHONUNBUFFERED", None)
    proc = subprocess.Popen(
        tablectl_command("replay", "--config", str(SAMPLE), events),
        stdin=subprocess.PIPE if events == "-" else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(WAIT)


def test_a_driver_on_standard_input_is_answered_line_by_line() -> None:
    with replay_process("-") as proc:
        assert proc.stdin is not None
        check(drive(proc, proc.stdin))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_driver_on_a_named_pipe_is_answered_line_by_line(tmp_path: Path) -> None:
    fifo = tmp_path / "events"
    os.mkfifo(fifo)
    with replay_process(str(fifo)) as proc, write_end(fifo, proc) as writer:
        check(drive(proc, writer))


def write_end(fifo: Path, proc: subprocess.Popen[bytes]) -> IO[bytes]:
    """The write end of ``fifo`` once replay has opened it for reading (a plain open
    would wait for ever if replay never did)."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:  # ENXIO: no reader yet
            if error.errno != errno.ENXIO or proc.poll() is not None:
                raise
            assert time.monotonic() < deadline, f"replay did not open {fifo} within {WAIT} s"
            time.sleep(0.01)
        else:
            os.set_blocking(fd, True)
            return os.fdopen(fd, "wb", buffering=0)


def test_a_file_and_standard_input_give_the_same_output(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_bytes(b"".join(LINES))
    outputs = []
    for name, stdin in ((str(events), None), ("-", b"".join(LINES))):
        done = subprocess.run(
            tablectl_command("replay", "--config", str(SAMPLE), name),
            input=stdin,
            capture_output=True,
            cwd=ROOT,
            timeout=120,
            check=True,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and outputs[0].count(b"\n") == 4


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a busy machine
@given(
    st.dictionaries(
        st.sampled_from(["seq", "ok", "error", "state"]),
        st.integers() | st.booleans() | st.none() | st.text(max_size=3),
        max_size=4,
    )
)
def test_dumps_writes_every_line_as_json_dumps_does(line: dict[str, Any]) -> None:
    assert dumps(line) == json.dumps(line)


@pytest.mark.parametrize("seq", [0, 1, -3, 2**53, 10**40])
def test_dumps_writes_the_common_line_as_json_dumps_does(seq: int) -> None:
    for line in ({"seq": seq, "ok": True}, {"ok": True, "seq": seq}, {"seq": seq, "ok": 1}):
        assert dumps(line) == json.dumps(line)
