"""Upgrades with ``systemd/install.sh`` (issue 23, item 5): releases side by side, the link
``current`` switched in one rename, the journal copied before the switch, the service
restarted, an automatic roll back when the new release does not reach READY, and
``--rollback``. The upgrade is killed (SIGKILL, ``TABLE_CONTROLLER_INSTALL_KILL_AT``)
right after each of its steps: each time ``current`` names a complete release that
verifies, and the next run finishes the upgrade.

Into a scratch root (``DESTDIR``), with a stand-in for ``systemctl`` that keeps the
service's state in a file and records which release each start ran (no systemd here);
the release's program runs for real, at its board path in a private mount namespace."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.test_install import (  # noqa: F401 (wheelhouse: the fixture)
    PREFIX,
    ROOT,
    needs_root,
    printed_digest,
    scratch_root,
    staged_tablectl,
    wheelhouse,
)

pytestmark = [pytest.mark.slow, needs_root]

#: The steps of an upgrade, in order (systemd/install.sh, TABLE_CONTROLLER_INSTALL_KILL_AT).
STEPS = (
    "copied",
    "dependencies",
    "built",
    "placed",
    "stopped",
    "backed-up",
    "switched",
    "system-files",
    "started",
    "pruned",
)
#: systemctl as the script sees it: the service's state in FAKE_DIR/state, the calls in
#: FAKE_DIR/log, a start that fails for the release named by FAKE_FAILING; the daemon's
#: status (StatusText) in FAKE_DIR/status, which a start or restart clears unless
#: FAKE_LOCKED_AGAIN (a journal that locks play at every start).
SYSTEMCTL = """#!/bin/sh
echo "$*" >>"$FAKE_DIR/log"
case $1 in
    is-active)
        state=$(cat "$FAKE_DIR/state" 2>/dev/null || echo inactive)
        [ "$2" = --quiet ] || echo "$state"
        [ "$state" = active ] ;;
    show) cat "$FAKE_DIR/status" 2>/dev/null || echo ;;
    stop) echo inactive >"$FAKE_DIR/state" ;;
    restart | start)
        [ -n "${FAKE_LOCKED_AGAIN:-}" ] || echo ready >"$FAKE_DIR/status"
        running=$(readlink "$FAKE_DIR/root/opt/table-controller/current")
        echo "started $running" >>"$FAKE_DIR/log"
        if [ -n "${FAKE_FAILING:-}" ] && [ "$running" = "releases/$FAKE_FAILING" ]; then
            echo failed >"$FAKE_DIR/state"
            exit 1
        fi
        echo active >"$FAKE_DIR/state" ;;
esac
"""
JOURNAL = "var/lib/table-controller/journal.sqlite"


class Board:
    """The scratch root and its stand-in systemctl."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.root = scratch_root(folder / "root")
        self.systemctl = folder / "systemctl"
        self.systemctl.write_text(SYSTEMCTL)
        self.systemctl.chmod(0o755)

    def run(
        self,
        script: Path,
        *args: str,
        kill_at: str = "",
        failing: str = "",
        inside: tuple[str, ...] = (),
        locked_again: str = "",
    ) -> subprocess.CompletedProcess[str]:
        """SCRIPT run on the board; INSIDE a command line that runs it (a mount namespace)."""
        env = {
            **os.environ,
            "DESTDIR": str(self.root),
            "FAKE_DIR": str(self.folder),
            "FAKE_FAILING": failing,
            "FAKE_LOCKED_AGAIN": locked_again,
            "TABLE_CONTROLLER_SYSTEMCTL": str(self.systemctl),
            "TABLE_CONTROLLER_SETTLE": "0",
            "TABLE_CONTROLLER_INSTALL_KILL_AT": kill_at,
        }
        return subprocess.run(
            [*inside, str(script), *args], env=env, capture_output=True, text=True, timeout=600
        )

    def link(self, name: str) -> str:
        return os.readlink(self.root / PREFIX / name)

    @property
    def state(self) -> str:
        return (self.folder / "state").read_text().strip()

    def starts(self) -> list[str]:
        log = (self.folder / "log").read_text().splitlines()
        return [line.split()[1] for line in log if line.startswith("started ")]

    def verified_digest(self) -> str:
        """The program ``current`` names, run at its board path: verified, its digest."""
        ran = subprocess.run(
            [*staged_tablectl(self.root), "verify-software"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert ran.returncode == 0 and "software verified" in ran.stdout, ran.stdout + ran.stderr
        return next(line for line in ran.stdout.splitlines() if line.startswith("sha256: "))[8:]


def release_b(folder: Path, wheels: Path) -> tuple[Path, Path]:
    """The next release: the source with another version, its wheel beside the same
    dependencies."""
    source = folder / "source-b"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".venv",
            ".git",
            "__pycache__",
            "*.egg-info",
            "build",
            ".*_cache",
            ".hypothesis",
            ".lgd-nfy*",  # the real lgpio's notify pipe, left where a program imported it
        ),
    )
    pyproject = source / "pyproject.toml"
    current = version("table-controller")
    text = pyproject.read_text()
    assert f'version = "{current}"' in text
    pyproject.write_text(text.replace(f'version = "{current}"', f'version = "{current}.post1"'))
    house = folder / "wheelhouse-b"
    shutil.copytree(wheels, house, ignore=shutil.ignore_patterns("table_controller-*"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--wheel-dir",
            str(house),
            str(source),
        ],
        check=True,
        timeout=600,
    )
    return source, house


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Board:  # noqa: F811
    """Release A installed and running, a journal in the state directory."""
    board = Board(tmp_path_factory.mktemp("board"))
    first = board.run(ROOT / "systemd" / "install.sh", "--wheelhouse", str(wheelhouse), "--enable")
    assert first.returncode == 0, first.stdout + first.stderr
    digest = printed_digest(first)
    assert board.link("current") == f"releases/{version('table-controller')}-{digest[:12]}"
    assert board.state == "active" and board.starts() == [board.link("current")]
    (board.root / JOURNAL).write_bytes(b"the journal of release A")
    return board


@pytest.fixture(scope="module")
def upgrade(
    board: Board,
    tmp_path_factory: pytest.TempPathFactory,
    wheelhouse: Path,  # noqa: F811
) -> tuple[Path, Path]:
    return release_b(tmp_path_factory.mktemp("release-b"), wheelhouse)


def test_an_upgrade_killed_after_each_step_is_finished_by_the_next_run(
    board: Board, upgrade: tuple[Path, Path]
) -> None:
    source, house = upgrade
    old = board.link("current")
    old_digest = board.verified_digest()
    assert old.endswith(old_digest[:12])
    digests: list[str] = []
    for step in STEPS:
        killed = board.run(source / "systemd/install.sh", "--wheelhouse", str(house), kill_at=step)
        assert killed.returncode == -9, (step, killed.stdout, killed.stderr)
        if "software digest" in killed.stdout:
            digests.append(printed_digest(killed))
        current = board.link("current")
        # current names a complete release: the program it names verifies.
        assert current.endswith(board.verified_digest()[:12]), step
        if step in ("stopped", "backed-up", "switched", "system-files"):
            assert board.state == "inactive", step  # stopped, to be started by the next run
        if STEPS.index(step) < STEPS.index("switched"):
            assert current == old, step
        else:
            assert current != old, step
    done = board.run(source / "systemd/install.sh", "--wheelhouse", str(house))
    assert done.returncode == 0, done.stdout + done.stderr
    new = board.link("current")
    assert new.startswith(f"releases/{version('table-controller')}.post1-")
    assert board.link("previous") == old
    assert board.state == "active" and board.starts()[-1] == new
    # Started once after the switch (the kill after "started" came after that start).
    assert board.starts().count(new) == 1
    assert new.endswith(board.verified_digest()[:12])
    # The journal as it was before the switch, copied with the service stopped.
    backups = sorted((board.root / "var/backups/table-controller").iterdir())
    assert backups and all(path.name.endswith("-before-" + new[9:]) for path in backups)
    assert (backups[-1] / "journal.sqlite").read_bytes() == b"the journal of release A"
    assert not list((board.root / PREFIX / "releases").glob(".new*"))
    # Each build of the release printed the same digest (built again, later).
    assert set(digests) == {board.verified_digest()}, digests


def test_rollback_goes_back_to_the_previous_release_and_forward_again(board: Board) -> None:
    new, old = board.link("current"), board.link("previous")
    script = board.root / PREFIX / "current/systemd/install.sh"
    back = board.run(script, "--rollback")
    assert back.returncode == 0, back.stdout + back.stderr
    assert (board.link("current"), board.link("previous")) == (old, new)
    assert board.state == "active" and board.starts()[-1] == old
    assert old.endswith(board.verified_digest()[:12])
    again = board.run(board.root / PREFIX / "current/systemd/install.sh", "--rollback")
    assert again.returncode == 0, again.stdout + again.stderr
    assert (board.link("current"), board.link("previous")) == (new, old)
    assert board.starts()[-1] == new


def test_a_release_that_does_not_reach_ready_is_rolled_back_by_itself(
    board: Board,
    upgrade: tuple[Path, Path],
    wheelhouse: Path,  # noqa: F811
) -> None:
    new, old = board.link("current"), board.link("previous")
    back = board.run(board.root / PREFIX / "current/systemd/install.sh", "--rollback")
    assert back.returncode == 0 and board.link("current") == old
    source, house = upgrade
    failed = board.run(
        source / "systemd/install.sh", "--wheelhouse", str(house), failing=new[len("releases/") :]
    )
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert f"{new} did not reach READY" in failed.stdout
    assert board.link("current") == old and not (board.root / PREFIX / "previous").exists()
    assert board.state == "active" and board.starts()[-2:] == [new, old]
    assert old.endswith(board.verified_digest()[:12])
    # With nothing to go back to, --rollback says so and changes nothing.
    none = board.run(board.root / PREFIX / "current/systemd/install.sh", "--rollback")
    assert none.returncode == 1 and "no previous release" in none.stderr
    assert board.link("current") == old


def test_the_newest_releases_are_kept_and_the_layout_before_releases_goes(
    board: Board, upgrade: tuple[Path, Path]
) -> None:
    releases = board.root / PREFIX / "releases"
    for number in range(3):  # older releases, as earlier upgrades left them
        folder = releases / f"0.0.{number}-000000000000"
        folder.mkdir()
        os.utime(folder, (time.time() - 86400 * (10 - number),) * 2)
    legacy = board.root / PREFIX / ".venv"  # an install from before releases
    legacy.mkdir()
    source, house = upgrade
    ran = board.run(source / "systemd/install.sh", "--wheelhouse", str(house), "--keep", "2")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    kept = sorted(path.name for path in releases.iterdir())
    assert ["releases/" + name for name in kept] == sorted(
        {board.link("current"), board.link("previous")}
    )
    assert "release 0.0.0-000000000000 removed (--keep 2)" in ran.stdout
    assert not legacy.exists()
    assert sorted(path.name for path in (board.root / PREFIX).iterdir()) == [
        "current",
        "previous",
        "releases",
    ]
    bad = board.run(source / "systemd/install.sh", "--keep", "1")
    assert bad.returncode == 2 and "--keep needs a number from 2 to 99" in bad.stderr


def small_disk(folder: Path, size: str) -> tuple[str, ...]:
    """A command line that runs the rest with FOLDER on a tmpfs of SIZE (a full disk), in
    a private mount namespace (nothing on this machine changes)."""
    folder.mkdir(parents=True, exist_ok=True)
    mount = f'mount -t tmpfs -o size={size} tmpfs "{folder}" && exec "$@"'
    return ("unshare", "--mount", "--propagation", "private", "sh", "-c", mount, "sh")


def calls(board: Board) -> list[str]:
    return (board.folder / "log").read_text().splitlines()


def test_a_full_backup_disk_leaves_the_release_that_ran_running_and_says_so(
    board: Board, upgrade: tuple[Path, Path]
) -> None:
    """Seen on 0.2.1: ``cp: error writing ... No space left on device``, exit 1, the
    service left stopped on the old release and nothing said so. The copy fails here on
    a 1 MB filesystem (--rollback: no pre-flight check before it); the service the
    script stopped is started again on the release that ran."""
    source, house = upgrade
    if not (board.root / PREFIX / "previous").exists():
        board.run(source / "systemd/install.sh", "--wheelhouse", str(house))
    current, previous = board.link("current"), board.link("previous")
    assert board.state == "active"
    (board.root / JOURNAL).write_bytes(b"\0" * 2 * 2**20)  # 2 MB of journal
    backups = board.root / "var/backups/table-controller"
    full = board.run(
        board.root / PREFIX / "current/systemd/install.sh",
        "--rollback",
        inside=small_disk(backups, "1m"),
    )
    assert full.returncode == 1, full.stdout + full.stderr
    assert "No space left on device" in full.stderr
    assert full.stdout.splitlines()[-3:] == [
        "install: the journal could not be copied to /var/backups/table-controller (cp says"
        " why, above): no switch without its copy",
        f"install: service started: {current} is READY",
        f"install: stopped before the switch, nothing was changed: {current} still runs",
    ]
    assert (board.link("current"), board.link("previous")) == (current, previous)
    assert board.state == "active" and board.starts()[-1] == current
    (board.root / JOURNAL).write_bytes(b"the journal of release A")


def test_the_direct_command_runs_the_pre_flight_check_and_it_counts_the_journals_copy(
    board: Board, upgrade: tuple[Path, Path]
) -> None:
    """Seen on 0.2.1: ``systemd/install.sh --wheelhouse`` (the docs' direct command)
    skipped the pre-flight check, filled the disk and locked the table. The check runs,
    counts the journal's copy, and refuses before the service is touched."""
    source, house = upgrade
    current = board.link("current")
    (board.root / JOURNAL).write_bytes(b"\0" * 2 * 2**20)
    backups = board.root / "var/backups/table-controller"
    before = len(calls(board))
    full = board.run(
        source / "systemd/install.sh",
        "--wheelhouse",
        str(house),
        inside=small_disk(backups, "1m"),
    )
    assert full.returncode == 1, full.stdout + full.stderr
    assert full.stderr.splitlines() == [
        f"preflight: only 1 MB free on {backups}: free at least 2 MB there (the journal's"
        " copy 2 MB)"
    ]
    assert full.stdout.splitlines() == [
        f"install: stopped before the switch, nothing was changed: {current} still runs"
    ]
    assert [call for call in calls(board)[before:] if not call.startswith("is-active")] == []
    assert board.link("current") == current and board.state == "active"
    (board.root / JOURNAL).write_bytes(b"the journal of release A")


def test_a_wheelhouse_of_another_architecture_is_named_as_such(
    board: Board, upgrade: tuple[Path, Path], tmp_path: Path
) -> None:
    """Seen on 0.2.1: through the direct command only ``Could not find a version that
    satisfies the requirement pyyaml==6.0.4``."""
    source, house = upgrade
    other = tmp_path / "wheels"
    shutil.copytree(house, other)
    [compiled] = other.glob("pyyaml-*x86_64.whl")
    compiled.rename(other / compiled.name.replace("x86_64", "aarch64"))
    current = board.link("current")
    ran = board.run(source / "systemd/install.sh", "--wheelhouse", str(other))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert ran.stderr.splitlines() == [
        "preflight: this bundle is for arm64 but the board is amd64: copy"
        " table-controller-*-amd64.tar.gz instead"
    ]
    assert ran.stdout.splitlines()[-1] == (
        f"install: stopped before the switch, nothing was changed: {current} still runs"
    )


def test_a_refused_wheel_says_the_release_that_ran_still_runs(
    board: Board, upgrade: tuple[Path, Path], tmp_path: Path
) -> None:
    """Seen on 0.2.1: pip refused a tampered pyserial wheel, and no line said what ran."""
    source, house = upgrade
    other = tmp_path / "wheels"
    shutil.copytree(house, other)
    [wheel] = other.glob("pyserial-*.whl")
    data = bytearray(wheel.read_bytes())
    data[len(data) // 2] ^= 1
    wheel.write_bytes(bytes(data))
    current = board.link("current")
    before = len(calls(board))
    ran = board.run(source / "systemd/install.sh", "--wheelhouse", str(other))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "THESE PACKAGES DO NOT MATCH THE HASHES" in ran.stderr
    assert ran.stdout.splitlines()[-1] == (
        f"install: stopped before the switch, nothing was changed: {current} still runs"
    )
    assert [call for call in calls(board)[before:] if not call.startswith("is-active")] == []
    assert board.link("current") == current and board.state == "active"
    assert not (board.root / PREFIX / "releases" / ".new").exists()


def test_an_upgrade_of_a_stopped_service_says_it_is_stopped(
    board: Board, upgrade: tuple[Path, Path]
) -> None:
    """Seen on 0.2.1: the first install's text (``next: sudoedit ...``)."""
    if ".post1-" in board.link("current"):  # back to release A, to upgrade again
        back = board.run(board.root / PREFIX / "current/systemd/install.sh", "--rollback")
        assert back.returncode == 0, back.stdout + back.stderr
    (board.folder / "state").write_text("inactive\n")  # sudo systemctl stop table-controller
    source, house = upgrade
    ran = board.run(source / "systemd/install.sh", "--wheelhouse", str(house))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    new = board.link("current")
    assert ran.stdout.splitlines()[-2:] == [
        f"install: service table-controller is stopped (it was not running): {new} is"
        " current, not started nor checked for READY",
        "install:   start it: sudo systemctl start table-controller (or run this again with"
        " --enable)",
    ]
    assert "sudoedit" not in ran.stdout and board.state == "inactive"


def test_a_rerun_on_a_running_locked_service_restarts_it(
    board: Board, upgrade: tuple[Path, Path]
) -> None:
    """Seen on 0.2.1: the docs' direct command filled the disk, the table locked (STORAGE
    FAULT); once space was freed the same command said "service running" and play stayed
    locked until ``systemctl restart``. The rerun restarts a service whose play is
    locked, and says so; when the restart is locked again it says what to do."""
    source, house = upgrade
    done = board.run(source / "systemd/install.sh", "--wheelhouse", str(house), "--enable")
    assert done.returncode == 0, done.stdout + done.stderr
    current = board.link("current")
    locked = "LOCKED: storage_full: call a technician"
    (board.folder / "status").write_text(locked + "\n")
    before = len(calls(board))
    ran = board.run(source / "systemd/install.sh", "--wheelhouse", str(house))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.splitlines()[-2:] == [
        f"install: the service runs {current} with play locked ({locked}): restarting it",
        f"install: service restarted: {current} is READY",
    ]
    assert "restart table-controller" in calls(board)[before:]
    assert board.link("current") == current and board.state == "active"
    (board.folder / "status").write_text("LOCKED: memory_fault: call a technician\n")
    again = board.run(source / "systemd/install.sh", "--wheelhouse", str(house), locked_again="1")
    assert again.returncode == 1, again.stdout + again.stderr
    assert again.stdout.splitlines()[-2:] == [
        f"install: the service runs {current} with play locked (LOCKED: memory_fault: call a"
        " technician): restarting it",
        f"install: service running {current}, but play is still locked (LOCKED: memory_fault:"
        " call a technician): journalctl -u table-controller says why; fix it"
        " (docs/install.md, step 7), then sudo systemctl restart table-controller",
    ]
    assert board.link("current") == current and board.state == "active"
    (board.folder / "status").write_text("ready\n")
