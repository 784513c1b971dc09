"""Each `tablectl` command imports only what it needs: a Pi's core pays tens of
milliseconds for gpiozero, pyserial, paho-mqtt (and ssl), sqlite3 or the bench screen,
so `replay`, `check-config` and the like must not load them."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main

ROOT = Path(__file__).resolve().parent.parent
HEAVY = (
    "gpiozero",
    "serial",
    "paho",
    "ssl",
    "sqlite3",
    "curses",
    "controller.bench",
    "drivers.build",
    "controller.floor",
    "controller.daemon.service",
    "controller.daemon.process",
)

PROBE = """\
import json, sys
from controller.cli import main
code = main(sys.argv[2:])
heavy = sorted({name for name in sys.modules for prefix in sys.argv[1].split(",")
                if name == prefix or name.startswith(prefix + ".")})
print(json.dumps({"code": code, "heavy": heavy}), file=sys.stderr)
"""


def loaded(*arguments: str, modules: tuple[str, ...] = HEAVY) -> dict[str, object]:
    """`tablectl ARGUMENTS` run in a new process: its exit code, and which of
    ``modules`` (and their submodules) it loaded."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(modules), *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return dict(json.loads(result.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "arguments",
    [
        ("replay", "--config", "docs/samples/side-pot.yaml", "docs/samples/side-pot.jsonl"),
        ("check-config", "config/bench.yaml"),
        ("pin", "--file", "/nonexistent/pins", "list"),
    ],
)
def test_a_command_loads_none_of_the_heavy_libraries(arguments: tuple[str, ...]) -> None:
    found = loaded(*arguments)
    assert found["heavy"] == [], found


#: What plain replay's start does without (issue 14, "Fast on a Pi"): OpenSSL for
#: ``hashlib`` (the configuration's digest is the daemon's), ``string`` (the catalogue
#: tests' placeholders), "did you mean" suggestions, the user's name, threads, the
#: display's wording, the journal.
NOT_FOR_REPLAY = (
    "hashlib",
    "string",
    "difflib",
    "getpass",
    "threading",
    "textwrap",
    "controller.lights",
    "controller.durable",
    "controller.journal",
    "controller.daemon",
)


def test_replay_loads_only_what_replay_needs() -> None:
    found = loaded(
        "replay",
        "--config",
        "docs/samples/side-pot.yaml",
        "docs/samples/side-pot.jsonl",
        modules=NOT_FOR_REPLAY,
    )
    assert found == {"code": 0, "heavy": []}, found


def test_replay_loads_the_keypad_grammar_with_the_first_key(tmp_path: Path) -> None:
    """The keypad grammar (and its pages) comes with the first ``key`` event or
    ``state`` query, not with the table: a file of plain events does without it."""
    sample = (ROOT / "docs/samples/side-pot.jsonl").read_text().splitlines()
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(line + "\n" for line in sample if '"state"' not in line))
    keyed = tmp_path / "keyed.jsonl"
    keyed.write_text(plain.read_text() + '{"type": "key", "key": "NEXT"}\n')
    config = "docs/samples/side-pot.yaml"
    keypad = ("controller.rules.keypad",)
    assert loaded("replay", "--config", config, str(plain), modules=keypad) == {
        "code": 0,
        "heavy": [],
    }
    found = loaded("replay", "--config", config, str(keyed), modules=keypad)
    assert found["code"] == 0 and "controller.rules.keypad.grammar" in found["heavy"], found


def test_the_program_keeps_its_start_out_of_the_collectors_way() -> None:
    """Run as the program, `tablectl` freezes what its start made (``gc.freeze``) and
    leaves the collector on; a caller in the same process keeps its collector as is."""
    probe = (
        "import gc, sys\n"
        "from controller.cli import main\n"
        "sys.argv = ['tablectl', '--version']\n"
        "main()\n"
        "print(gc.isenabled(), gc.get_freeze_count() > 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.stdout.splitlines()[-1] == "True True"
    frozen = gc.get_freeze_count()
    assert main(["--version"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen
