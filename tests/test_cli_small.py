"""Small things a supervisor meets at the command line (issue 11 item 9), through the real
``tablectl`` process: a terminal (a pty) for the PIN prompts, a pipe closed early like
``| head``."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller import supervisor_pins

ROOT = Path(__file__).resolve().parents[1]


def on_a_terminal(args: list[str], typed: list[str], timeout: float = 20.0) -> tuple[str, int]:
    """Run ``tablectl args`` with a pty as its terminal; type each of ``typed`` after
    each prompt ending in ": "; return everything it wrote and its exit status."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: tablectl, with the pty as its controlling terminal
        try:
            os.chdir(ROOT)
            os.execv(sys.executable, [sys.executable, "-m", "controller", *args])
        finally:
            os._exit(127)  # never back into pytest
    seen = b""
    answers = list(typed)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 1024)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
        if answers and chunk.endswith(b": "):  # a prompt, just written
            time.sleep(0.2)  # getpass flushes what was typed before it was ready
            os.write(fd, answers.pop(0).encode() + b"\n")
    done, status = os.waitpid(pid, os.WNOHANG)
    settle = time.monotonic() + 10  # closing the terminal comes just before exiting
    while done == 0 and time.monotonic() < settle:
        time.sleep(0.05)
        done, status = os.waitpid(pid, os.WNOHANG)
    if done == 0:
        os.kill(pid, 9)  # still asking: the test fails on what it saw
        _, status = os.waitpid(pid, 0)
    os.close(fd)
    return seen.decode(errors="replace"), os.waitstatus_to_exitcode(status)


@pytest.mark.slow  # two commands on a pseudo-terminal (1.2 s)
def test_pin_set_says_a_short_pin_is_too_short_before_asking_again(tmp_path: Path) -> None:
    path = tmp_path / "pins"
    out, status = on_a_terminal(["pin", "set", "1042", "--file", str(path)], ["12", "12"])
    assert status == 2, out
    assert "4 to 12 digits" in out and "nothing changed" in out
    assert "again" not in out  # never asked for the second time
    assert not path.exists()
    out, status = on_a_terminal(["pin", "set", "1042", "--file", str(path)], ["2468", "2468"])
    assert status == 0 and "again" in out, out
    assert supervisor_pins.PinFile(path)("1042", "2468")


def test_pin_list_says_when_there_are_none(tmp_path: Path) -> None:
    path = tmp_path / "pins"
    done = subprocess.run(
        [sys.executable, "-m", "controller", "pin", "list", "--file", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
    )
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr == f"no supervisor PINs in {path}\n"


def closed_early(args: list[str]) -> subprocess.CompletedProcess[str]:
    """``tablectl args | head -0``: the reader is gone before the first line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "controller", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read()
    return subprocess.CompletedProcess(args, process.wait(timeout=60), "", err)


@pytest.mark.slow
def test_commands_piped_into_head_end_quietly(tmp_path: Path) -> None:
    samples = ROOT / "docs" / "samples"
    state = tmp_path / "state"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "controller",
            "replay",
            "--config",
            str(samples / "side-pot.yaml"),
            "--state-dir",
            str(state),
            str(samples / "side-pot.jsonl"),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    for args in (
        ["tray", "--state-dir", str(state)],
        ["recall", "--state-dir", str(state)],
        ["state", "--state-dir", str(state)],
        ["journal", "--help"],
        [
            "tray",
            "--events",
            str(samples / "side-pot.jsonl"),
            "--config",
            str(samples / "side-pot.yaml"),
        ],
        ["replay", "--config", str(samples / "side-pot.yaml"), str(samples / "side-pot.jsonl")],
        ["check-config", str(ROOT / "config" / "bench.yaml")],  # no devices to look for
        ["--help"],
    ):
        done = closed_early(args)
        assert done.stderr == "", (args, done.stderr)
        assert done.returncode == 0, (args, done.returncode)


def tablectl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def sample_journal(tmp_path: Path, name: str = "side-pot") -> Path:
    samples = ROOT / "docs" / "samples"
    state = tmp_path / "state"
    done = tablectl(
        "replay",
        "--config",
        str(samples / f"{name}.yaml"),
        "--state-dir",
        str(state),
        str(samples / f"{name}.jsonl"),
    )
    assert done.returncode == 0, done.stderr
    return state


def test_recall_shows_times_seats_by_role_and_all_ins(tmp_path: Path) -> None:
    from controller.journal import Journal

    state = sample_journal(tmp_path)
    with Journal.open_readonly(state) as journal:
        synced = next(iter(journal.iter_events())).clock_synced
    done = tablectl("recall", "--state-dir", str(state))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "button seat 8, SB seat 2, BB seat 5" in text
    assert "posts: SB seat 2 5; BB seat 5 10" in text
    assert "small blind" not in text
    mark = "" if synced else " unsynced"
    assert re.search(
        rf"^HAND 1  seq 4-16  \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\dZ{mark}  \[ended\]$", text, re.M
    ), text
    assert re.search(
        rf"^    \d\d:\d\d:\d\dZ{mark}  seq 8  seat 8 raise to 120 ALL-IN$", text, re.M
    ), text
    assert re.search(r"seq 13  seat 2 bet to 180 ALL-IN$", text, re.M)
    assert re.search(r"seq 14  seat 5 call 180$", text, re.M)  # luis had chips left
    assert all(len(line) <= 100 for line in text.splitlines())


@pytest.mark.slow  # 1.4 s of the edit loop at 0.3.0 (measured with --durations)
def test_recall_one_hand(tmp_path: Path) -> None:
    events = tmp_path / "three.jsonl"
    sits = [
        {"type": "sit", "seat": s, "player": p, "chips": 500}
        for s, p in ((2, "ana"), (5, "luis"), (8, "marta"))
    ]
    keys = [{"type": "key", "key": k} for k in ["NEXT", "FOLD", "FOLD"] * 3]
    events.write_text("".join(json.dumps(e) + "\n" for e in sits + keys))
    state = tmp_path / "state"
    done = tablectl(
        "replay",
        "--config",
        str(ROOT / "docs" / "samples" / "side-pot.yaml"),
        "--state-dir",
        str(state),
        str(events),
    )
    assert done.returncode == 0 and '"ok": false' not in done.stdout, done.stdout
    every = tablectl("recall", "--state-dir", str(state)).stdout
    assert every.count("HAND ") == 3
    one = tablectl("recall", "--hand", "2", "--state-dir", str(state))
    assert one.returncode == 0 and one.stdout.count("HAND ") == 1
    assert one.stdout.startswith("HAND 2 ")
    assert one.stdout in every
    missing = tablectl("recall", "--hand", "99", "--state-dir", str(state))
    assert missing.returncode == 1 and "no hand 99: the hands played are 1-" in missing.stderr


@pytest.mark.slow  # 1.9 s of the edit loop at 0.3.0 (measured with --durations)
def test_state_is_readable_on_a_terminal_and_json_for_programs(tmp_path: Path) -> None:
    state = sample_journal(tmp_path)
    out, status = on_a_terminal(["state", "--state-dir", str(state)], [])
    assert status == 0, out
    lines = out.replace("\r\n", "\n").splitlines()
    assert lines[0] == "between hands, after hand 1   (journal seq 17)"
    assert "button seat 8, SB seat 2, BB seat 5" in lines
    assert any(line.split() == ["8", "marta", "345", "0", "playing"] for line in lines), lines
    assert not out.lstrip().startswith("{")
    # a program reading a pipe gets the contract's JSON line, as before
    piped = tablectl("state", "--state-dir", str(state))
    assert json.loads(piped.stdout)["last_seq"] == 17
    assert json.loads(piped.stdout)["state"]["seats"]["8"]["stack"] == 345
    out, _ = on_a_terminal(["state", "--json", "--state-dir", str(state)], [])
    assert json.loads(out)["last_seq"] == 17
    assert tablectl("state", "--summary", "--state-dir", str(state)).stdout.startswith(
        "between hands, after hand 1"
    )


def test_system_log_lines_are_wrapped_and_times_marked(tmp_path: Path) -> None:
    from controller.journal import Journal, LogKind

    state = sample_journal(tmp_path)
    with Journal.open(state, (ROOT / "docs" / "samples" / "side-pot.yaml").read_text()) as j:
        path = "/dev/serial/by-id/usb-Table_Keypad_0123456789abcdef-if00-port0" * 2
        j.log_system(
            LogKind.DEVICE_FAULT,
            {"device": "keypad", "message": f"keypad is missing: nothing at {path}"},
        )
    done = tablectl("journal", "log", "--state-dir", str(state))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100, lines
    assert not any("time unknown" in line for line in lines)
    fault = next(i for i, line in enumerate(lines) if "device_fault" in line)
    assert re.match(
        r"^ +\d+  \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ( unsynced)?  device_fault", lines[fault]
    )
    rest = "".join(line.strip() for line in lines[fault + 1 : fault + 4])
    assert path in rest  # every character kept, wrapped under the entry


@pytest.mark.slow  # five commands started, each writing to /dev/full (1.4 s)
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full to write into")
def test_output_to_a_full_disk_is_a_message_and_a_failure_not_a_traceback(
    tmp_path: Path,
) -> None:
    """Standard output on a full disk (/dev/full refuses every write): replay, plain or
    durable, from a file or standard input, and a report, end with a failure status
    and one line saying the output could not be written."""
    samples = ROOT / "docs" / "samples"
    config, events = str(samples / "side-pot.yaml"), str(samples / "side-pot.jsonl")
    for args, stdin in (
        (["replay", "--config", config, events], None),
        (["replay", "--config", config, "-"], events),
        (["replay", "--config", config, "--state-dir", str(tmp_path / "state"), events], None),
        (["tray", "--events", events, "--config", config], None),
    ):
        with open("/dev/full", "w") as full, open(stdin or os.devnull, "rb") as given:
            done = subprocess.run(
                [sys.executable, "-m", "controller", *args],
                cwd=ROOT,
                stdin=given,
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
            )
        assert done.returncode == 1, (args, done.stderr)
        assert done.stderr == "tablectl: cannot write the output: No space left on device\n", (
            args,
            done.stderr,
        )
