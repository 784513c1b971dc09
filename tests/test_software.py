"""Software verification on real installs: the release's wheel built here, installed by
pip into virtual environments as ``systemd/install.sh`` installs it (pip taken out, the
manifest written), then checked with the installed ``tablectl verify-software`` and
daemon.

- The same release gives the same digest on every install, wherever and whenever it is
  installed (pip's own ``.pyc`` files carry the install's time; the scripts name the
  environment's path).
- Code added beside ours is a modification: a ``.pth`` file, a line appended to an
  installed dependency, a ``sitecustomize``/``usercustomize`` module (in the
  environment or in the user's site folder), a compiled module changed behind its
  source, the interpreter's version.
- Code planted so that the program's own process cannot see it is refused at start and
  named by the check, the inspector's script from a medium of its own included: a
  ``.pth`` file that takes itself out of what the process covers, ``PYTHONPATH`` with a
  ``yaml.py`` shadowing PyYAML, a library in ``LD_PRELOAD`` (issue 32, item 8).
- Modified or unverified software locks play outside a bench, and every verification
  goes into the journal's system log with the digest: at start, on demand (SIGUSR2)
  and periodically between hands (``software.verify_every``); a program modified while
  it runs is locked by the next check.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import time
import tomllib
import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from controller.floor.consumer import Collector, FloorMessage
from controller.journal import Journal
from tests.daemon_helpers import WAIT, press, running, seat_players, view, wait_for, write_config
from tests.localbroker import LocalBroker
from tests.mock_clock import MockClock
from tests.test_floor_publisher import back_office
from tests.test_install import BOARD_PYTHON, wheelhouse
from tests.test_software_check import TABLE

__all__ = ["back_office", "wheelhouse"]  # pytest fixtures, used by name

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


#: The digest each install printed, by environment.
PRINTED: dict[Path, str] = {}


def install(target: Path, wheelhouse: Path) -> Path:
    """A virtual environment with the release in it, made by the script every install
    runs (``systemd/install-program.sh``: the dependencies from requirements.lock with
    the system's site packages hidden, pip taken out, the manifest written)."""
    venv = target / ".venv"
    result = subprocess.run(
        [str(ROOT / "systemd" / "install-program.sh"), str(venv), str(ROOT), str(wheelhouse)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    printed = [line.split()[-1] for line in result.stdout.splitlines() if "digest" in line]
    assert len(printed) == 1 and len(printed[0]) == 64, result.stdout
    PRINTED[venv] = printed[0]
    assert not (venv / "bin" / "pip").exists()
    return venv


def tablectl(
    venv: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / "tablectl"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )


def digest(result: subprocess.CompletedProcess[str]) -> str:
    for line in result.stdout.splitlines():
        if line.startswith(("sha256: ", "hmac-sha256")):
            return line.split()[-1]
    raise AssertionError(result.stdout + result.stderr)


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Path:
    return install(tmp_path_factory.mktemp("installed"), wheelhouse)


@pytest.fixture
def user_base(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment whose user site folder (PYTHONUSERBASE) is the test's own."""
    yield {**os.environ, "PYTHONUSERBASE": str(tmp_path / "userbase")}


def test_the_same_release_gives_the_same_digest_on_every_install(
    venv: Path, wheelhouse: Path, tmp_path: Path
) -> None:
    time.sleep(1.1)  # another second: pip's .pyc files would say so
    other = install(tmp_path / "elsewhere" / "deeper", wheelhouse)
    first, second = tablectl(venv, "verify-software"), tablectl(other, "verify-software")
    assert first.returncode == second.returncode == 0, first.stdout + second.stdout
    assert digest(first) == digest(second) == PRINTED[venv] == PRINTED[other]
    seed = ("verify-software", "--seed", "5eed0f7a")
    assert digest(tablectl(venv, *seed)) == digest(tablectl(other, *seed)) != digest(first)
    assert (venv / "table-controller.manifest").read_text() == (
        other / "table-controller.manifest"
    ).read_text()
    # What is covered: our package, every dependency, the scripts and the interpreter.
    manifest = (venv / "table-controller.manifest").read_text().splitlines()
    names = [line.split("  ", 1)[1] for line in manifest]
    for wanted in ("controller/software.py", "yaml/__init__.py", "serial/", "gpiozero/"):
        assert any(wanted in name for name in names), wanted
    assert "bin/tablectl" in names and "pyvenv.cfg" in names and "<python>" in names
    assert not any(name.startswith(str(tmp_path)) for name in names)
    # The release's version, one source (pyproject.toml), as the installed program says it.
    with (ROOT / "pyproject.toml").open("rb") as file:
        release = tomllib.load(file)["project"]["version"]
    assert tablectl(venv, "--version").stdout.startswith(f"tablectl {release} from ")
    assert f"program: table-controller {release} in {venv}" in first.stdout


def modified(venv: Path, env: dict[str, str] | None = None) -> str:
    result = tablectl(venv, "verify-software", env=env)
    assert result.returncode == 3, result.stdout + result.stderr
    return result.stdout


def test_a_new_pth_file_is_a_modification(venv: Path) -> None:
    hook = site_packages(venv) / "zz_extra.pth"
    hook.write_text("import os\n")
    try:
        assert "1 added (lib/python3" in modified(venv) and "zz_extra.pth" in modified(venv)
    finally:
        hook.unlink()
    assert tablectl(venv, "verify-software").returncode == 0


def test_a_line_appended_to_a_dependency_is_a_modification(venv: Path) -> None:
    target = site_packages(venv) / "yaml" / "__init__.py"
    original = target.read_bytes()
    target.write_bytes(original + b"\nimport os  # added in the field\n")
    try:
        text = modified(venv)
        assert "changed (lib/python3" in text and "yaml/__init__.py" in text
    finally:
        target.write_bytes(original)
    assert tablectl(venv, "verify-software").returncode == 0


@pytest.mark.parametrize("name", ["sitecustomize.py", "usercustomize.py"])
def test_a_customize_module_in_the_environment_is_a_modification(venv: Path, name: str) -> None:
    hook = site_packages(venv) / name
    hook.write_text("print('hello')\n")
    try:
        assert name in modified(venv)
    finally:
        hook.unlink()
    assert tablectl(venv, "verify-software").returncode == 0


@pytest.mark.parametrize("name", ["usercustomize.py", "extra.pth"])
def test_a_start_hook_in_the_user_site_folder_is_a_modification(
    venv: Path, user_base: dict[str, str], name: str
) -> None:
    assert tablectl(venv, "verify-software", env=user_base).returncode == 0
    folder = Path(
        subprocess.run(
            [str(venv / "bin/python"), "-c", "import site; print(site.getusersitepackages())"],
            capture_output=True,
            text=True,
            env=user_base,
            check=True,
        ).stdout.strip()
    )
    folder.mkdir(parents=True)
    (folder / name).write_text("import os\n")
    assert f"{folder}/{name}" in modified(venv, user_base)


def test_a_compiled_module_changed_behind_its_source_is_a_modification(venv: Path) -> None:
    # The header (the source's hash) kept: Python would run this body.
    cache = site_packages(venv) / "paho" / "mqtt" / "__pycache__"
    target = next(cache.glob("client.cpython-*.pyc"))
    original = target.read_bytes()
    assert b"MQTT" in original[16:]
    target.write_bytes(original[:16] + original[16:].replace(b"MQTT", b"MQTX"))
    try:
        assert "1 changed (lib/python3" in modified(venv) and "client.cpython-" in modified(venv)
    finally:
        target.write_bytes(original)


def run_daemon(
    venv: Path,
    config: Path,
    *extra: str,
    env: dict[str, str] | None = None,
    command: list[str] | None = None,
) -> tuple[dict[str, object], str]:
    """The installed daemon (``tablectl``, or ``command``): one event in, its answer,
    then stopped; and its log."""
    log = config.parent / "daemon.log"
    program = command or [str(venv / "bin/tablectl")]
    with log.open("w") as errors:
        daemon = subprocess.Popen(
            [*program, "run", "--config", str(config), "--stdin-events", *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            cwd=config.parent,
            env=env,
        )
        assert daemon.stdin is not None and daemon.stdout is not None
        daemon.stdin.write('{"type": "sit", "seat": 2, "player": "ana", "chips": 1000}\n')
        daemon.stdin.flush()
        answer = json.loads(daemon.stdout.readline())
        daemon.send_signal(signal.SIGUSR2)  # on demand
        deadline = time.monotonic() + WAIT
        while "(on demand)" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        daemon.terminate()
        assert daemon.wait(60) == 0
    return answer, log.read_text()


def software_checks(state: Path) -> list[dict[str, object]]:
    """The ``software_check`` entries of the journal's system log, oldest first."""
    with Journal.open_readonly(state) as journal:
        return [
            dict(entry.detail)
            for entry in journal.iter_system_log()
            if entry.kind == "software_check"
        ]


def test_unverified_software_locks_play_outside_a_bench(venv: Path, tmp_path: Path) -> None:
    config = tmp_path / "table.yaml"
    config.write_text(TABLE.format(state=tmp_path / "state"))
    manifest = venv / "table-controller.manifest"
    kept = manifest.read_bytes()
    manifest.unlink()
    try:
        unverified = tablectl(venv, "verify-software")
        assert (
            unverified.returncode == 1 and "software unverified: no manifest" in unverified.stdout
        )
        answer, log = run_daemon(venv, config)
        assert answer["ok"] is False and answer["error"]["code"] == "software_fault", answer
        assert "software_unverified" in log and "SOFTWARE UNVERIFIED (start)" in log
        # A bench (every device simulated) plays on an unverified program.
        bench, log = run_daemon(venv, config, "--simulated")
        assert bench["ok"] is True, bench
    finally:
        manifest.write_bytes(kept)
        manifest.chmod(0o444)
    checks = software_checks(tmp_path / "state")
    assert [check["why"] for check in checks] == ["start", "on demand", "start", "on demand"]
    assert {check["result"] for check in checks} == {"unverified"}
    assert all(len(str(check["sha256"])) == 64 for check in checks)


def test_verified_and_modified_software_go_into_the_system_log(venv: Path, tmp_path: Path) -> None:
    config = tmp_path / "table.yaml"
    config.write_text(TABLE.format(state=tmp_path / "state"))
    answer, log = run_daemon(venv, config)
    assert answer["ok"] is True, answer
    assert "software verified (start)" in log and "software verified (on demand)" in log
    ready = next(line for line in log.splitlines() if "READY" in line)
    expected = digest(tablectl(venv, "verify-software"))
    assert f"software sha256 {expected} verified" in ready
    hook = site_packages(venv) / "zz_late.pth"
    hook.write_text("import os\n")
    try:
        answer, log = run_daemon(venv, config)
    finally:
        hook.unlink()
    assert answer["ok"] is False and "SOFTWARE MODIFIED (start)" in log
    checks = software_checks(tmp_path / "state")
    assert [(c["why"], c["result"]) for c in checks] == [
        ("start", "verified"),
        ("on demand", "verified"),
        ("start", "modified"),
        ("on demand", "modified"),
    ]
    assert checks[0]["sha256"] == expected and "zz_late.pth" in str(checks[2]["added"])


def test_a_program_modified_while_it_runs_is_locked_by_the_next_check(
    venv: Path, tmp_path: Path
) -> None:
    """Verified at start and playing; a start hook added beside it while it runs: the
    next check (on demand here; the periodic one hands its verdict to the same path)
    finds it modified, records it and locks play for the very next event."""
    config = tmp_path / "table.yaml"
    config.write_text(TABLE.format(state=tmp_path / "state"))
    log = tmp_path / "daemon.log"
    hook = site_packages(venv) / "zz_while_running.pth"
    with log.open("w") as errors:
        daemon = subprocess.Popen(
            [str(venv / "bin/tablectl"), "run", "--config", str(config), "--stdin-events"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            cwd=tmp_path,
        )
        assert daemon.stdin is not None and daemon.stdout is not None
        try:
            answers = []
            for seat, player in ((2, "ana"), (5, "luis")):
                if seat == 5:
                    hook.write_text("import os\n")
                    daemon.send_signal(signal.SIGUSR2)
                    deadline = time.monotonic() + WAIT
                    while "(on demand)" not in log.read_text() and time.monotonic() < deadline:
                        time.sleep(0.05)
                sit = {"type": "sit", "seat": seat, "player": player, "chips": 1000}
                daemon.stdin.write(json.dumps(sit) + "\n")
                daemon.stdin.flush()
                answers.append(json.loads(daemon.stdout.readline()))
        finally:
            hook.unlink(missing_ok=True)
            daemon.terminate()
            assert daemon.wait(60) == 0
    assert answers[0]["ok"] is True, answers
    assert answers[1]["ok"] is False and answers[1]["error"]["code"] == "software_fault", answers
    assert "SOFTWARE MODIFIED (on demand)" in log.read_text()
    checks = software_checks(tmp_path / "state")
    assert [(c["why"], c["result"]) for c in checks] == [
        ("start", "verified"),
        ("on demand", "modified"),
    ]
    assert "zz_while_running.pth" in str(checks[1]["added"])


def test_the_periodic_check_runs_between_hands(tmp_path: Path) -> None:
    """In-process from the source checkout on a bench (a development run is never locked
    there, but every check is recorded): none while a hand is played, one when it has
    ended."""
    config = write_config(tmp_path)
    config.write_text(config.read_text() + "software: {verify_every: 600}\n")
    clock = MockClock()
    with running(config, clock=clock) as daemon:
        journal = daemon.journal
        assert journal is not None

        def kinds() -> list[str]:
            return [
                entry.detail["why"]
                for entry in journal.iter_system_log(after_id=0)
                if entry.kind == "software_check"
            ]

        assert kinds() == ["start"]
        seat_players(daemon, {1: "ana", 2: "bob"})
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["phase"] == "preflop")
        clock.jump(601)
        time.sleep(0.5)
        assert kinds() == ["start"]  # not in a hand
        press(daemon, "FOLD")
        wait_for(lambda: view(daemon)["phase"] == "idle")
        deadline = time.monotonic() + WAIT
        while kinds() == ["start"] and time.monotonic() < deadline:
            clock.jump(1)
            time.sleep(0.05)
        assert kinds() == ["start", "periodic"]


def test_the_floor_status_names_the_release_and_its_digest(
    tmp_path: Path, broker: LocalBroker, back_office: Collector
) -> None:
    """The retained link status and the last will carry the version and the digest the
    daemon found at start (the fixture holds every message to docs/floor.schema.json)."""
    config = write_config(tmp_path)
    config.write_text(
        config.read_text() + f"floor: {{site: lv, host: {broker.host}, port: {broker.port}}}\n"
    )
    with running(config) as daemon:
        digest_at_start = daemon.software_digest
        statuses: list[dict[str, Any]] = []

        def said(messages: list[FloorMessage]) -> bool:
            statuses[:] = [
                dict(m.payload)
                for m in messages
                if m.payload is not None and m.payload.get("kind") == "status"
            ]
            return bool(statuses)

        assert back_office.wait_for(said, WAIT), "no status"
    assert statuses[0]["software"] == {
        "version": metadata.version("table-controller"),
        "sha256": digest_at_start,
    }


def test_the_lock_pins_every_dependency_and_refuses_another_file(
    wheelhouse: Path, tmp_path: Path
) -> None:
    """requirements.lock pins pyproject.toml's dependencies (and theirs) with hashes; a
    wheel whose bytes differ from the release's, even of the same name and version, is
    refused by the install's pip."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        wanted = tomllib.load(file)["project"]["dependencies"]
    lock = (ROOT / "requirements.lock").read_text()
    pinned = {line.split("==")[0].lower() for line in lock.splitlines() if "==" in line}
    for requirement in wanted:
        name = requirement.split(">")[0].split("=")[0].split("<")[0].strip().lower()
        assert name.replace("_", "-") in pinned, requirement
    assert all("--hash=sha256:" in part for part in lock.split("==")[1:])

    tampered = tmp_path / "wheelhouse"
    shutil.copytree(wheelhouse, tampered)
    [serial] = tampered.glob("pyserial-*.whl")
    with zipfile.ZipFile(serial, "a") as archive:
        archive.writestr("serial/extra.py", "import os\n")
    venv = tmp_path / ".venv"
    subprocess.run([BOARD_PYTHON, "-m", "venv", str(venv)], check=True, timeout=300)
    refused = subprocess.run(
        [
            *(str(venv / "bin/python"), "-m", "pip", "install", "--no-index", "--no-deps"),
            *("--find-links", str(tampered), "--require-hashes", "-r"),
            str(ROOT / "requirements.lock"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert refused.returncode != 0
    assert "DO NOT MATCH THE HASHES" in refused.stderr and "pyserial" in refused.stderr


@pytest.mark.parametrize(
    ("language", "first", "result"),
    [("en", "TABLE CONTROLLER", "UNVERIFIED"), ("es", "CONTROLADOR DE MESA", "NO VERIFICADO")],
)
def test_the_start_screen_names_the_release_and_its_digest(
    tmp_path: Path, language: str, first: str, result: str
) -> None:
    """Shown while the daemon starts, before the recovered state (from the source
    checkout, whose software is unverified but plays; an installed program's digest
    is shown by test_install's daemon)."""
    config = write_config(tmp_path)
    config.write_text(config.read_text() + f"display: {{language: {language}}}\n")
    with running(config) as daemon:
        assert daemon.devices is not None and daemon.devices.sim is not None
        display = daemon.devices.sim.display
        assert display is not None
        wait_for(lambda: len(display.history) > 1, what="the display told something")
        texts = [(m.line1, m.line2) for m in display.history if hasattr(m, "line1")]
        version = metadata.version("table-controller")
        assert texts[0] == (
            f"{first} {version}",
            f"SOFTWARE - {result}",  # a source checkout's environment is not read
        )
        assert texts[-1] != texts[0]  # then the table's own screen


# -- planted code (issue 32, item 8) ----------------------------------------------------


def table_config(folder: Path) -> Path:
    """A table that is not a bench, its journal in ``folder``/state."""
    config = folder / "table.yaml"
    config.write_text(TABLE.format(state=folder / "state"))
    return config


def inspector(
    venv: Path, root: Path | None = None, seed: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The inspector's check: the installed ``controller/software.py`` run as a script by
    a Python that imports nothing of the board's (``-I -S``, no environment)."""
    script = site_packages(venv) / "controller" / "software.py"
    command = [BOARD_PYTHON, "-I", "-S", str(script), "--venv", str(venv)]
    command += ["--root", str(root)] if root is not None else []
    command += ["--seed", seed] if seed is not None else []
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, env={})


def board_root(folder: Path, venv: Path, drop_in: str) -> Path:
    """A board's card as an inspector mounts it: the environment at its own path, the
    files it covers outside it, the service's unit and a drop-in."""
    root = folder / "board"
    shutil.copytree(venv, root / venv.relative_to("/"), symlinks=True)
    for line in (venv / "table-controller.manifest").read_text().splitlines():
        name = line.split("  ", 1)[1]
        if name.startswith("/"):
            (root / name[1:]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(name, root / name[1:])
    units = root / "etc" / "systemd" / "system"
    (units / "table-controller.service.d").mkdir(parents=True)
    shutil.copy(ROOT / "systemd" / "table-controller.service", units)
    (units / "table-controller.service.d" / "planted.conf").write_text(drop_in)
    return root


def test_the_inspectors_script_gives_the_approved_digest_for_the_approved_files(
    venv: Path, tmp_path: Path
) -> None:
    approved = PRINTED[venv]
    clean = inspector(venv)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert f"sha256: {approved}" in clean.stdout.splitlines()
    seeded = inspector(venv, seed="5eed0f7a")
    assert digest(seeded) == digest(tablectl(venv, "verify-software", "--seed", "5eed0f7a"))
    # A card mounted elsewhere, its unit clean: the same digest.
    root = board_root(tmp_path, venv, "[Service]\nRestartSec=3s\n")
    mounted = inspector(venv, root)
    assert mounted.returncode == 0, mounted.stdout + mounted.stderr
    assert digest(mounted) == approved


def test_a_pth_file_that_hides_itself_from_the_process_is_refused_and_named(
    venv: Path, tmp_path: Path
) -> None:
    """The .pth takes itself out of what the program's own process would cover (it
    widens the names left out); the check reads the files in a Python of its own."""
    config, mark = table_config(tmp_path), tmp_path / "planted-ran"
    hook = site_packages(venv) / "zz_hide.pth"
    hook.write_text(
        "import controller.software as s; "
        "s.UNCOVERED_NAMES = s.UNCOVERED_NAMES | {'zz_hide.pth'}; "
        f"open({str(mark)!r}, 'w').write('ran')\n"
    )
    try:
        answer, log = run_daemon(venv, config)
        checked = tablectl(venv, "verify-software")
        inspected = inspector(venv)
    finally:
        hook.unlink()
    assert mark.read_text() == "ran"  # the planted code did run in the daemon
    assert answer["ok"] is False and answer["error"]["code"] == "software_fault", answer
    added = f"1 added ({site_packages(venv).relative_to(venv)}/zz_hide.pth)"
    assert "SOFTWARE MODIFIED (start)" in log and added in log
    for result in (checked, inspected):
        assert result.returncode == 3, result.stdout + result.stderr
        assert added in result.stdout and digest(result) != PRINTED[venv]


def test_pythonpath_with_a_shadowing_module_is_refused_and_named(
    venv: Path, tmp_path: Path
) -> None:
    config = table_config(tmp_path)
    planted = tmp_path / "planted"
    planted.mkdir()
    mark = tmp_path / "planted-ran"
    (planted / "yaml.py").write_text(
        "import os, sys\n"
        f"open({str(mark)!r}, 'w').write('ran')\n"
        f"sys.path[:] = [p for p in sys.path if p != {str(planted)!r}]\n"
        "del sys.modules['yaml']\n"
        "import yaml as _real\n"
        "sys.modules['yaml'] = _real\n"
    )
    answer, log = run_daemon(venv, config, env={**os.environ, "PYTHONPATH": str(planted)})
    assert mark.read_text() == "ran"  # the daemon read its configuration through it
    assert answer["ok"] is False and answer["error"]["code"] == "software_fault", answer
    assert f"PYTHONPATH={planted} (the daemon's own environment)" in log
    assert "SOFTWARE MODIFIED (start)" in log
    # The inspector reads the unit's drop-in that set it.
    root = board_root(tmp_path, venv, f"[Service]\nEnvironment=PYTHONPATH={planted}\n")
    inspected = inspector(venv, root)
    assert inspected.returncode == 3, inspected.stdout + inspected.stderr
    where = "/etc/systemd/system/table-controller.service.d/planted.conf: Environment="
    assert f"1 in the service's environment (PYTHONPATH={planted} ({where}))" in inspected.stdout
    assert digest(inspected) != PRINTED[venv]


def test_a_preloaded_library_is_refused_and_named(venv: Path, tmp_path: Path) -> None:
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler to build the planted library")
    mark = tmp_path / "planted-ran"
    source = tmp_path / "planted.c"
    source.write_text(
        "#include <stdio.h>\n"
        "__attribute__((constructor)) static void planted(void) {\n"
        f'  FILE *f = fopen("{mark}", "w"); if (f) {{ fputs("ran", f); fclose(f); }}\n'
        "}\n"
    )
    library = tmp_path / "planted.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    config = table_config(tmp_path)
    answer, log = run_daemon(venv, config, env={**os.environ, "LD_PRELOAD": str(library)})
    assert mark.read_text() == "ran"  # loaded into the daemon
    assert answer["ok"] is False and answer["error"]["code"] == "software_fault", answer
    assert f"LD_PRELOAD={library} (the daemon's own environment)" in log
    root = board_root(tmp_path, venv, f"[Service]\nEnvironment=LD_PRELOAD={library}\n")
    (root / "etc" / "ld.so.preload").write_text(f"{library}\n")
    inspected = inspector(venv, root)
    assert inspected.returncode == 3, inspected.stdout + inspected.stderr
    where = "/etc/systemd/system/table-controller.service.d/planted.conf: Environment="
    assert (
        f"2 in the service's environment (LD_PRELOAD={library} ({where}), "
        f"/etc/ld.so.preload preloads {library})"
    ) in inspected.stdout


def unit_start(venv: Path) -> list[str]:
    """How the service starts the program (the unit's ``ExecStart=``), in ``venv``."""
    unit = (ROOT / "systemd" / "table-controller.service").read_text()
    (line,) = [x for x in unit.splitlines() if x.startswith("ExecStart=")]
    words = shlex.split(line.removeprefix("ExecStart="))
    assert words[0] == "/opt/table-controller/current/.venv/bin/python"
    return [str(venv / "bin" / "python"), *words[1 : words.index("run")]]


def test_no_pth_file_runs_in_the_service_and_a_planted_one_is_refused(
    venv: Path, tmp_path: Path
) -> None:
    """A .pth that replaces the daemon's own check to say "verified" with the approved
    digest: under ``tablectl`` it runs before the daemon does; started as the service
    starts it (no site), it never runs, and the check finds it."""
    config, mark = table_config(tmp_path), tmp_path / "planted-ran"
    hook = site_packages(venv) / "zz_smart.pth"
    hook.write_text(
        "import controller.software as s; exec(\"if '_orig' not in globals():\\n"
        "    _orig = check\\n"
        "    def check(*a, **k):\\n"
        "        import dataclasses\\n"
        f"        open({str(mark)!r}, 'w').write('ran')\\n"
        "        return dataclasses.replace(_orig(*a, **k), added=(), "
        f'digest={PRINTED[venv]!r})", s.__dict__)\n'
    )
    try:
        answer, log = run_daemon(venv, config, command=unit_start(venv))
        assert not mark.exists()  # it never ran
        assert answer["ok"] is False and answer["error"]["code"] == "software_fault", answer
        added = f"1 added ({site_packages(venv).relative_to(venv)}/zz_smart.pth)"
        assert "SOFTWARE MODIFIED (start)" in log and added in log
        run_daemon(venv, config)  # under tablectl the planted code is live
        assert mark.read_text() == "ran"
    finally:
        hook.unlink()
    config.write_text(TABLE.format(state=tmp_path / "clean"))
    answer, log = run_daemon(venv, config, command=unit_start(venv))
    assert answer["ok"] is True, answer  # the service's start plays an approved program
    assert f"READY: table-controller {metadata.version('table-controller')}" in log
    assert f"software sha256 {PRINTED[venv]} verified" in log
