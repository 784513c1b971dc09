"""The software check on small environments made here (a virtual environment's layout,
its base interpreter's folders beside it): what it covers and how it compares, each a
change to ``controller/software.py`` that no other test would see (issue 32, item 10).

- A covered file deleted is missing, and a verdict with only missing files is not ok; a
  covered file that cannot be read is said, never skipped; a manifest line with a short
  or non-hex digest is refused.
- A link to a folder (``lib64``) is an entry: re-pointed, it is changed.
- A module of the system's site packages (``lgpio.py``, ``_lgpio*.so``) is covered when
  the environment sees them; a ``sitecustomize/`` package is covered file by file.
- The environment's path, as given and resolved, is replaced by ``{prefix}``; the digest
  frames each entry with its length.
- The manifest reaches the disk (fsync) before it replaces the old one.
- The service's environment: a drop-in setting ``PYTHONPATH``/``LD_PRELOAD``,
  ``/etc/ld.so.preload``, a daemon started with them, each named by the check.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import socket
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest

from controller import software

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "controller" / "software.py"
SITE = "lib/python3.11/site-packages"
EXTENSION = "_lgpio.cpython-311-x86_64-linux-gnu.so"


def make_environment(folder: Path, base: Path) -> Path:
    """A virtual environment's layout: a package, a script naming the environment's
    resolved path, ``lib64 -> lib``, ``pyvenv.cfg`` seeing ``base``'s site packages."""
    site = folder / SITE
    (site / "pkg").mkdir(parents=True)
    (site / "pkg" / "__init__.py").write_text("x = 1\n")
    (site / "pkg" / "mod.py").write_text("y = 2\n")
    (folder / "lib64").symlink_to("lib")
    (folder / "bin").mkdir()
    (folder / "bin" / "tool").write_text(f"#!{folder.resolve()}/bin/python\nimport pkg\n")
    (folder / "pyvenv.cfg").write_text(
        f"home = {base}/bin\ninclude-system-site-packages = true\nversion = 3.11.7\n"
    )
    return folder


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """The base interpreter's folders: its standard library, its site packages with the
    GPIO library from apt (a module and its extension) and a module never covered."""
    folder = tmp_path / "base"
    system = folder / SITE
    system.mkdir(parents=True)
    (system / "lgpio.py").write_text("import _lgpio\n")
    (system / EXTENSION).write_bytes(b"\x7fELF extension")
    (system / "other.py").write_text("z = 3\n")
    return folder


@pytest.fixture
def env(tmp_path: Path, base: Path) -> Path:
    venv = make_environment(tmp_path / "env", base)
    software.write_manifest(venv)
    return venv


def board(venv: Path) -> software.Board:
    return software.here(venv)


def names(venv: Path) -> list[str]:
    lines = (venv / software.MANIFEST_NAME).read_text().splitlines()
    return [line.split("  ", 1)[1] for line in lines]


def test_a_deleted_file_is_missing_and_only_missing_files_are_not_ok(env: Path) -> None:
    assert software.check(env).result == "verified"
    (env / SITE / "pkg" / "mod.py").unlink()
    verdict = software.check(env)  # in a Python of its own
    assert verdict.missing == (f"{SITE}/pkg/mod.py",)
    assert verdict.changed == verdict.added == ()
    assert not verdict.ok and verdict.result == "modified"
    assert verdict.summary().startswith(f"software modified: 1 missing ({SITE}/pkg/mod.py)")


def test_a_covered_file_that_cannot_be_read_is_said_not_skipped(env: Path) -> None:
    # A socket is listed like a file and cannot be read, even by root. Bound by a
    # relative name: the whole path can pass the 107 bytes a socket's address holds.
    listener = socket.socket(socket.AF_UNIX)
    with contextlib.chdir(env / SITE / "pkg"):
        listener.bind("sock")
    try:
        verdict = software.check_board(board(env))
    finally:
        listener.close()
    assert not verdict.ok and verdict.result == "modified"
    assert verdict.changed == (f"{env / SITE / 'pkg' / 'sock'}: No such device or address",)


@pytest.mark.parametrize("digest", ["a" * 63, "g" * 64])
def test_a_manifest_line_without_a_full_hex_digest_is_refused(env: Path, digest: str) -> None:
    manifest = env / software.MANIFEST_NAME
    lines = manifest.read_text().splitlines()
    lines[1] = f"{digest}  {lines[1].split('  ', 1)[1]}"
    manifest.chmod(0o644)
    manifest.write_text("\n".join(lines) + "\n")
    verdict = software.check_board(board(env))
    assert verdict.result == "unverified"
    assert verdict.unverified == f"{manifest}: {manifest}:2: not a manifest line (SHA256  NAME)"


def test_a_link_to_a_folder_is_an_entry_and_re_pointed_is_changed(env: Path) -> None:
    assert "lib64" in names(env)
    (env / "lib64").unlink()
    (env / "lib64").symlink_to("/usr/lib")
    verdict = software.check_board(board(env))
    assert verdict.changed == ("lib64",) and verdict.missing == verdict.added == ()


def test_the_system_gpio_library_and_its_extension_are_covered(env: Path, base: Path) -> None:
    system = base / SITE
    covered = names(env)
    assert f"{system}/lgpio.py" in covered and f"{system}/{EXTENSION}" in covered
    assert f"{system}/other.py" not in covered
    (system / EXTENSION).write_bytes(b"\x7fELF planted")
    assert software.check_board(board(env)).changed == (f"{system}/{EXTENSION}",)


def test_a_sitecustomize_package_is_covered_file_by_file(tmp_path: Path, base: Path) -> None:
    hook = base / "lib" / "python3.11" / "sitecustomize"
    hook.mkdir()
    (hook / "__init__.py").write_text("import os\n")
    venv = make_environment(tmp_path / "env", base)
    software.write_manifest(venv)  # no "Is a directory"
    assert f"{hook}/__init__.py" in names(venv)
    assert software.check_board(board(venv)).result == "verified"
    (hook / "__init__.py").write_text("import os  # planted\n")
    assert software.check_board(board(venv)).changed == (f"{hook}/__init__.py",)


def test_a_start_hook_that_is_a_link_is_read_where_it_leads(tmp_path: Path, base: Path) -> None:
    # Debian's /usr/lib/python3.11/sitecustomize.py is a link to /etc/python3.11/.
    target = tmp_path / "etc" / "sitecustomize.py"
    target.parent.mkdir()
    target.write_text("import os\n")
    hook = base / "lib" / "python3.11" / "sitecustomize.py"
    hook.symlink_to(target)
    venv = make_environment(tmp_path / "env", base)
    software.write_manifest(venv)
    target.write_text("import os  # planted\n")
    assert software.check_board(board(venv)).changed == (str(hook),)


def test_the_python_entry_is_the_running_interpreters_in_the_checks_own_python(
    tmp_path: Path, base: Path
) -> None:
    """The check's own Python (``bin/python -I -S``: no site, so ``sys.prefix`` is not
    the environment) reads the interpreter it is, not what ``pyvenv.cfg`` was written
    with: an interpreter upgraded under the environment is a change. From a card read
    elsewhere, ``pyvenv.cfg``'s version and the machine told."""
    venv = make_environment(tmp_path / "env", base)
    cfg = venv / "pyvenv.cfg"
    cfg.write_text(cfg.read_text().replace("version = 3.11.7", "version = 3.0.0"))
    (venv / "bin" / "python").symlink_to(Path(sys.executable).resolve())
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); from pathlib import Path; "
        f"from controller import software; print(software.interpreter(software.here(Path({str(venv)!r}))).decode())"
    )
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-I", "-S", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={},
    ).stdout.strip()
    live = f"{sys.implementation.name} {platform.python_version()} {platform.machine()}"
    assert found == live
    card = software.Board(tmp_path / "card", PurePosixPath("/env"), machine="aarch64")
    shutil.copytree(venv, tmp_path / "card" / "env", symlinks=True)
    assert software.interpreter(card) == b"cpython 3.0.0 aarch64"


def test_the_environments_path_given_or_resolved_is_replaced(tmp_path: Path, base: Path) -> None:
    first = make_environment(tmp_path / "one", base)
    second = make_environment(tmp_path / "real" / "two", base)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    through_link = tmp_path / "link" / "two"  # the script names the resolved path
    assert software.program_digest(root=first) == software.program_digest(root=through_link)
    assert b"{prefix}/bin/python" in software.entry_bytes(
        second / "bin" / "tool", software._prefixes(board(through_link))
    )


def test_the_digest_frames_each_entry_with_its_length(tmp_path: Path, base: Path) -> None:
    # Without lengths, "a" = "x" then "b" = "y" reads as "a" = "x" + "b\0y".
    apart = make_environment(tmp_path / "apart", base)
    (apart / "a").write_bytes(b"x")
    (apart / "b").write_bytes(b"y")
    joined = make_environment(tmp_path / "joined", base)
    (joined / "a").write_bytes(b"xb\0y")
    assert software.program_digest(root=apart) != software.program_digest(root=joined)


def test_check_and_program_digest_read_the_same_digest(env: Path) -> None:
    verdict = software.check(env)
    assert verdict.digest == software.program_digest(root=env)
    assert software.check(env, seed=b"\x5e\xed").keyed == software.program_digest(
        root=env, seed=b"\x5e\xed"
    )


@pytest.mark.slow  # 1.3 s of the edit loop at 0.3.0 (measured with --durations)
def test_the_manifest_reaches_the_disk_before_it_replaces_the_old_one(
    tmp_path: Path, base: Path
) -> None:
    venv = make_environment(tmp_path / "env", base)
    trace = tmp_path / "trace"
    subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-e",
            "trace=openat,fsync,rename",
            "-o",
            str(trace),
            sys.executable,
            "-c",
            f"from controller import software; software.write_manifest(__import__('pathlib').Path({str(venv)!r}))",
        ],
        check=True,
        cwd=ROOT,
        timeout=120,
    )
    calls = [line.split(None, 1)[1] for line in trace.read_text().splitlines()]
    manifest = f"{venv}/{software.MANIFEST_NAME}"
    opened = next(c for c in calls if c.startswith("openat(") and f'"{manifest}.new"' in c)
    fd = opened.rsplit("= ", 1)[1]
    renamed = next(i for i, c in enumerate(calls) if c.startswith(f'rename("{manifest}.new"'))
    assert f"fsync({fd})" in [
        c.split(" =")[0].strip() for c in calls[calls.index(opened) : renamed]
    ]
    folder = next(
        c for c in calls[renamed:] if c.startswith("openat(") and f'"{venv}"' in c
    ).rsplit("= ", 1)[1]
    assert f"fsync({folder})" in [c.split(" =")[0].strip() for c in calls[renamed:]]


# -- the service's environment ---------------------------------------------------------


def board_root(tmp_path: Path, env: Path) -> Path:
    """A board's root holding ``env`` at the path it has here (so its scripts' ``#!``
    lines name it), the files it covers outside it, and the service's unit file."""
    root = tmp_path / "board"
    shutil.copytree(env, root / env.relative_to("/"), symlinks=True)
    for name in software.covered(env):
        if name.startswith("/"):
            (root / name[1:]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(name, root / name[1:])
    units = root / "etc" / "systemd" / "system"
    units.mkdir(parents=True)
    shutil.copy(ROOT / "systemd" / "table-controller.service", units / software.SERVICE)
    return root


def inspect(root: Path, env: Path) -> subprocess.CompletedProcess[str]:
    """The inspector's script from a medium of its own: no site, no start hook."""
    return subprocess.run(
        [sys.executable, "-I", "-S", str(SCRIPT), "--root", str(root), "--venv", str(env)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={},
    )


def test_the_inspectors_script_names_what_the_units_environment_loads(
    tmp_path: Path, env: Path
) -> None:
    root = board_root(tmp_path, env)
    approved = software.program_digest(root=env)
    clean = inspect(root, env)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert f"sha256: {approved}" in clean.stdout.splitlines()
    drop_ins = root / "etc" / "systemd" / "system" / f"{software.SERVICE}.d"
    drop_ins.mkdir()
    (drop_ins / "zz.conf").write_text(
        "[Service]\nEnvironment=PYTHONPATH=/srv/x \\\n  LD_PRELOAD=/srv/x.so\n"
    )
    (root / "etc" / "ld.so.preload").write_text("/srv/y.so\n")
    planted = inspect(root, env)
    assert planted.returncode == 3, planted.stdout + planted.stderr
    dropin = f"/etc/systemd/system/{software.SERVICE}.d/zz.conf"
    assert planted.stdout.splitlines()[2] == (
        "software modified: 3 in the service's environment ("
        f"PYTHONPATH=/srv/x ({dropin}: Environment=), LD_PRELOAD=/srv/x.so ({dropin}: "
        "Environment=), /etc/ld.so.preload preloads /srv/y.so) against "
        f"{root / env.relative_to('/') / software.MANIFEST_NAME}"
    )
    assert f"sha256: {approved}" not in planted.stdout


def test_an_exec_start_that_runs_something_first_is_named(tmp_path: Path, env: Path) -> None:
    root = board_root(tmp_path, env)
    drop_ins = root / "etc" / "systemd" / "system" / f"{software.SERVICE}.d"
    drop_ins.mkdir()
    (drop_ins / "wrap.conf").write_text(
        f"[Service]\nExecStart=\nExecStart=/usr/bin/env FOO=1 {env}/bin/tablectl run\n"
    )
    findings = software.environment_findings(software.Board(root, PurePosixPath(env)))
    where = f"/etc/systemd/system/{software.SERVICE}.d/wrap.conf"
    assert findings == (f"ExecStart runs /usr/bin/env, not the program ({where})",)


def test_the_daemons_own_environment_counts_as_it_started(env: Path) -> None:
    """The daemon's check reads the process's environment as it started (/proc): a
    variable the process removed since is still found."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys; os.environ.pop('PYTHONPATH'); print('popped', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": "/srv/planted"},
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == b"popped\n"
        environ = software.read_process_environment(child.pid)
        found = software.environment_findings(
            software.Board(Path("/"), PurePosixPath(env), environ, refuse_process=True)
        )
    finally:
        child.communicate(b"", timeout=30)
    assert "PYTHONPATH=/srv/planted (the daemon's own environment)" in found


def test_a_daemon_whose_environment_cannot_be_read_is_not_verified(env: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)  # its pid is free: nothing at /proc/PID/environ
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(SCRIPT), "--venv", str(env)]
        + ["--process", str(gone.pid), "--daemon"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={},
    )
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stdout.splitlines()[2].startswith(
        "software modified: 1 in the service's environment (the daemon's own environment "
        f"cannot be read (/proc/{gone.pid}/environ: No such file or directory))"
    )


# -- an unverified program plays only on a bench ------------------------------------------

#: Not a bench: the pins are gpiozero's (its mock pins), only the serial devices simulated.
TABLE = """\
table: {{id: T1, seats: 9}}
game: {{structure: no_limit, smallest_chip: 5, small_blind: 5, big_blind: 10}}
hardware:
  pin_factory: mock
  lights: {{pins: {{1: 16, 2: 17, 3: 18, 4: 19, 5: 20, 6: 21, 7: 22, 8: 23, 9: 24}}}}
  keypad: {{simulated: true}}
  tray: {{simulated: true}}
  display: {{simulated: true}}
journal: {{state_dir: {state}}}
"""


def test_the_editable_install_never_plays_outside_a_bench(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """This checkout's editable install has no manifest: on a table that is not a bench
    (gpiozero's pins, only the serial devices simulated) play is locked."""
    from controller.config import load_config
    from controller.daemon.service import Daemon

    assert software.check().development
    config = tmp_path / "table.yaml"
    config.write_text(TABLE.format(state=tmp_path / "state"))
    daemon = Daemon(load_config(config), config_path=str(config))
    daemon.start()
    daemon.run_in_thread()
    try:
        outcome = daemon.submit({"type": "sit", "seat": 2, "player": "ana", "chips": 1000})
    finally:
        daemon.stop()
        if daemon.thread is not None:
            daemon.thread.join(30)
        daemon.close()
    error = outcome.error or {}
    assert not outcome.ok and error == {
        "code": "software_fault",
        "message": "SOFTWARE FAULT: CALL TECHNICIAN",
    }
    assert "SOFTWARE UNVERIFIED (start): sha256 : software unverified: an editable install" in (
        caplog.text
    )


def test_an_environment_named_through_a_link_is_read_as_its_own_folder(
    tmp_path: Path, base: Path
) -> None:
    """Seen under emulation (bench/board_digest.py): the inspector's script against an
    arm64 board's files, with its default ``--venv /opt/table-controller/current/.venv``
    (``current`` a link to the release's folder), found ``controller/software.py`` and
    its ``.pyc`` changed: they name that path, which the check took for the
    environment's own and replaced by ``{prefix}``, and the install never does (it names
    a release by its own folder). The daemon names its environment the same way (the
    unit runs ``current/.venv/bin/python``)."""
    release = make_environment(tmp_path / "releases" / "r1" / ".venv", base)
    link = tmp_path / "current"
    (release / SITE / "pkg" / "where.py").write_text(f"HOME = {str(link / '.venv')!r}\n")
    software.write_manifest(release)
    approved = software.program_digest(root=release)
    root = board_root(tmp_path, release)
    (root / link.relative_to("/")).symlink_to("releases/r1")
    ran = inspect(root, link / ".venv")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert f"sha256: {approved}" in ran.stdout.splitlines()


def test_an_environment_named_with_a_double_slash_verifies_as_installed(
    tmp_path: Path, base: Path
) -> None:
    """``DESTDIR=/ release/install.sh`` (a root that is not booted: bench/board_digest.py)
    makes the environment at ``//opt/...``, the name its scripts then carry, and writes
    the manifest and prints the digest there: that name is the environment's own too."""
    release = make_environment(tmp_path / "r1" / ".venv", base)
    doubled = "/" + str(release)
    (release / "bin" / "tool").write_text(f"#!{doubled}/bin/python\nimport pkg\n")
    software.write_manifest(Path(doubled))
    approved = software.program_digest(root=Path(doubled))
    ran = subprocess.run(
        [sys.executable, "-I", "-S", str(SCRIPT), "--venv", doubled],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={},
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert f"sha256: {approved}" in ran.stdout.splitlines()
