#!/usr/bin/env python3
"""The release booted with systemd: a Debian Bookworm container (``systemd-nspawn -b``)
with the release's bundle installed offline in it, the service enabled with simulated
devices. It proves, and times:

1. the service reaches READY at boot (``Type=notify``) under the unit's hardening;
2. a stopped daemon (SIGSTOP) is killed and restarted by the watchdog (``WatchdogSec=``);
3. the container killed mid-hand (SIGKILL to its init: a power cut) boots again, and the
   hand in progress has every action the daemon acknowledged, nothing lost;

and with ``--upgrade``, on the running service, as a technician upgrades a board:

4. an upgrade to the next release (this one's files under version ``VERSION.post1``,
   its own bundle) from its bundle, with no network: READY under the new release, the
   hand in progress carried over, ``tablectl verify-software`` giving the digest its
   build printed;
5. ``install.sh --rollback``: the release before, READY, its digest;
6. an upgrade to a release whose daemon exits before READY (``VERSION.post2``): the
   install rolls back by itself, exits 1 and says so, and the release before runs;
7. Debian's python3-setuptools installed on the running board (its ``.deb`` files
   fetched by ``apt-get download`` on this machine, a Debian Bookworm): the check on
   demand says verified with the same digest, and the service plays on.

    sudo python3 bench/nspawn_boot.py --template ROOT [--bundle TAR [--key KEY]] [--upgrade]

ROOT: a Bookworm root with systemd and Python (copied, never changed), made once with
``debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,procps,python3,python3-venv,openssh-client
bookworm ROOT http://deb.debian.org/debian`` (``--make-template`` runs that). TAR: the
bundle of this machine's architecture (``release/build.py``; built here when not given).
The container has no network (``--private-network``): the install and the service work
without one. Events reach the daemon's console (``--stdin-events``) through a FIFO
bound into the container, its answers come back in a file beside it (a drop-in of the
bench's own; the installed unit is unchanged otherwise). tests/test_nspawn_boot.py
runs it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from board_digest import nspawn  # bench/: the install in a root that is not booted

ROOT = Path(__file__).resolve().parent.parent
UNIT = "table-controller.service"
ARCHES = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "armhf"}
DROP_IN = """[Service]
ExecStart=
ExecStart=/opt/table-controller/current/.venv/bin/tablectl run --config /etc/table-controller/table.yaml --stdin-events
StandardInput=file:/bench/events
StandardOutput=append:/bench/answers
StandardError=journal
"""
CONFIG = """table: {id: NSPAWN1, seats: 9}
game: {big_blind: 10}
hardware:
  simulated: true
journal:
  state_dir: /var/lib/table-controller
"""
HAND = [
    {"type": "sit", "seat": 3, "player": "ana", "chips": 500},
    {"type": "sit", "seat": 6, "player": "luis", "chips": 500},
    {"type": "sit", "seat": 9, "player": "marta", "chips": 500},
    {"type": "start_hand"},
    {"type": "act", "seat": 9, "action": "raise", "to": 30},
    {"type": "act", "seat": 3, "action": "call"},
]


def wait(condition: Callable[[], object], timeout: float, what: str) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if condition():
            return time.monotonic() - start
        time.sleep(0.2)
    raise SystemExit(f"nspawn_boot: not within {timeout:.0f} s: {what}")


def run(*command: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]


def make_template(folder: Path) -> None:
    run(
        "debootstrap",
        "--variant=minbase",
        "--include=systemd,systemd-sysv,dbus,procps,python3,python3-venv,openssh-client",
        "bookworm",
        str(folder),
        "http://deb.debian.org/debian",
        timeout=3600,
    )


def build_bundle(scratch: Path, source: Path = ROOT, board: Path | None = None) -> tuple[Path, str]:
    """The bundle of this machine's architecture built from ``source``, and the line
    its build printed of the digest (with the Python it is for; installed in a copy of
    BOARD, the container's root, when given: the digest the board prints)."""
    arch = ARCHES[platform.machine()]
    key = scratch / "release-key"  # the bench's own release key: every bundle signed with it
    if not key.exists():
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", str(key))
    out = run(
        sys.executable,
        str(source / "release/build.py"),
        "--arch",
        arch,
        "--out",
        str(scratch / f"dist-{source.name}"),
        "--key",
        str(key),
        *(["--board-root", str(board)] if board is not None else []),
        timeout=1800,
    )
    [line] = [line for line in out.stdout.splitlines() if line.startswith("bundle:")]
    [printed] = [line for line in out.stdout.splitlines() if line.startswith("software digest")]
    return Path(line.split()[-1]), printed


def next_release(scratch: Path, suffix: str, *, broken: bool = False) -> Path:
    """This release's files (what its build takes: ``release/build.py``'s ``tracked``)
    under version ``VERSION.SUFFIX``; ``broken``: its daemon exits before READY."""
    spec = importlib.util.spec_from_file_location("release_build", ROOT / "release/build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    source = scratch / f"source-{suffix}"
    for relative in build.tracked():
        (source / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, source / relative)
    pyproject = source / "pyproject.toml"
    number = build.version()
    pyproject.write_text(
        pyproject.read_text().replace(f'version = "{number}"', f'version = "{number}.{suffix}"')
    )
    if broken:
        command = source / "controller/commands/run.py"
        text = command.read_text()
        start = "    from controller.daemon.process import run_service\n"
        assert start in text
        command.write_text(text.replace(start, '    raise SystemExit("broken on purpose")\n'))
    run("git", "init", "-q", str(source))  # the build lists its files with git, and
    run("git", "-C", str(source), "add", "-A")  # names the commit it is built from
    run(
        "git",
        "-C",
        str(source),
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@invalid",
        "commit",
        "-q",
        "-m",
        f"release {number}.{suffix}",
    )
    return source


class Container:
    """One booted container: the nspawn process, its init, commands run inside it."""

    def __init__(self, root: Path, bench: Path, log: Path) -> None:
        self.root, self.bench, self.log = root, bench, log
        self.process: subprocess.Popen[bytes] | None = None

    def boot(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    "systemd-nspawn",
                    "-q",
                    "--register=no",
                    "--keep-unit",
                    "--private-network",
                    f"--bind={self.bench}:/bench",
                    "-D",
                    str(self.root),
                    "-b",
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )

    def leader(self) -> int | None:
        assert self.process is not None
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        try:
            found = children.read_text().split()
        except OSError:
            return None
        return int(found[0]) if found else None

    def inside(self, *command: str) -> str:
        return self.run_inside(*command).stdout

    def run_inside(
        self, *command: str, check: bool = True, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        leader = self.leader()
        assert leader is not None, "the container is not running"
        return subprocess.run(
            ["nsenter", "-t", str(leader), "-a", *command],
            check=check,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def install(self, bundle: Path, *options: str) -> subprocess.CompletedProcess[str]:
        """``release/install.sh`` of ``bundle``, unpacked in the container as a technician
        does from a USB stick (the bench folder is the stick), on the running service."""
        shutil.copy(bundle, self.bench / bundle.name)
        name = bundle.name.removesuffix(".tar.gz")
        script = (
            f"cd /root && rm -rf {name} && tar -xzf /bench/{bundle.name}"
            f" && {name}/release/install.sh {' '.join(options)}"
        )
        return self.run_inside("sh", "-c", script, check=False, timeout=900)

    def verified(self) -> str:
        """``tablectl verify-software`` of the running release: its digest."""
        out = self.inside("/opt/table-controller/current/.venv/bin/tablectl", "verify-software")
        assert "software verified" in out, out
        return next(line for line in out.splitlines() if line.startswith("sha256: "))[8:]

    def unit(self) -> dict[str, str]:
        try:
            text = self.inside(
                "systemctl", "show", UNIT, "-p", "ActiveState,SubState,MainPID,NRestarts"
            )
        except (subprocess.CalledProcessError, AssertionError):
            return {}
        return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

    def ready(self) -> bool:
        state = self.unit()
        return state.get("ActiveState") == "active" and state.get("MainPID", "0") != "0"

    def kill(self) -> None:
        leader = self.leader()
        assert leader is not None and self.process is not None
        os.kill(leader, signal.SIGKILL)  # the container's init: everything in it dies
        self.process.wait(timeout=60)


def prepare(template: Path, bundle: Path, scratch: Path) -> tuple[Path, Path, float]:
    root, bench = scratch / "root", scratch / "bench"
    run("cp", "-a", str(template), str(root), timeout=600)
    bench.mkdir()
    os.mkfifo(bench / "events")
    (bench / "answers").touch()
    with tarfile.open(bundle) as tar:
        tar.extractall(root / "root", filter="tar")
    [unpacked] = [p for p in (root / "root").iterdir() if p.name.startswith("table-controller-")]
    start = time.monotonic()
    nspawn(root, "env", "DESTDIR=/", f"/root/{unpacked.name}/release/install.sh")
    installed = time.monotonic() - start
    (root / "etc/table-controller/table.yaml").write_text(CONFIG)
    drop_in = root / f"etc/systemd/system/{UNIT}.d"
    drop_in.mkdir(parents=True)
    (drop_in / "bench.conf").write_text(DROP_IN)
    wants = root / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True, exist_ok=True)
    (wants / UNIT).symlink_to(f"/etc/systemd/system/{UNIT}")
    return root, bench, installed


def answers(bench: Path) -> list[dict[str, object]]:
    return [
        json.loads(line) for line in (bench / "answers").read_text().splitlines() if line.strip()
    ]


def hand_in_progress(root: Path) -> dict[str, object]:
    """The hand in progress as the journal holds it (read from the host, the release's
    own code reading the container's journal)."""
    out = run(
        sys.executable,
        "-m",
        "controller",
        "recall",
        "1",
        "--json",
        "--state-dir",
        str(root / "var/lib/table-controller"),
        cwd=ROOT,
        timeout=60,
    )
    found = json.loads(out.stdout)
    hands = found if isinstance(found, list) else found.get("hands", [found])
    return dict(hands[-1])


def bench(template: Path, bundle: Path | None, scratch: Path, upgrade: bool) -> None:
    started = time.monotonic()
    if bundle is None:
        bundle, _ = build_bundle(scratch)
    root, bench_dir, installed = prepare(template, bundle, scratch)
    print(f"installed offline in the container: {installed:.1f} s")
    container = Container(root, bench_dir, scratch / "console.log")
    writer = os.open(bench_dir / "events", os.O_RDWR)  # keeps the FIFO open for the daemon
    try:
        container.boot()
        took = wait(container.ready, 120, "READY at boot")
        print(f"1. READY at boot (Type=notify): {took:.1f} s after the boot began")
        watchdog(container)
        power_cut(container, root, bench_dir, writer)
        if upgrade:
            upgrades(container, root, scratch, template)
            debian_update(container, root, bench_dir)
    finally:
        if container.leader() is not None:
            container.kill()
        os.close(writer)
    print(f"total {time.monotonic() - started:.1f} s")


def watchdog(container: Container) -> None:
    state = container.unit()
    container.inside("sh", "-c", f"kill -STOP {state['MainPID']}")
    stopped = time.monotonic()
    wait(
        lambda: int(container.unit().get("NRestarts", "0")) > int(state["NRestarts"]),
        60,
        "watchdog restart",
    )
    wait(container.ready, 60, "READY after the watchdog's restart")
    after = container.unit()
    print(
        f"2. SIGSTOP at MainPID {state['MainPID']}: restarted by the watchdog, READY again as {after['MainPID']} after {time.monotonic() - stopped:.1f} s (WatchdogSec=10s)"
    )


def power_cut(container: Container, root: Path, bench_dir: Path, writer: int) -> None:
    for event in HAND:
        os.write(writer, (json.dumps(event) + "\n").encode())
    wait(lambda: len(answers(bench_dir)) >= len(HAND), 60, "the hand's answers")
    acknowledged = answers(bench_dir)
    assert all(answer.get("ok") for answer in acknowledged), acknowledged
    before = hand_in_progress(root)
    container.kill()
    print(
        f"3. killed mid-hand after {len(acknowledged)} acknowledged events (SIGKILL to the container's init)"
    )
    container.boot()
    took = wait(container.ready, 120, "READY after the kill")
    after_hand = hand_in_progress(root)
    same_hand(before, after_hand, "the kill")
    lost = after_hand["power_losses"]
    assert isinstance(lost, list)
    if [(p["hand"], p["last_seq"]) for p in lost] != [(before["hand"], before["last_seq"])]:
        raise SystemExit(f"nspawn_boot: the kill is not one power loss in the hand: {lost}")
    now = before["now"]
    assert isinstance(now, dict) and isinstance(before["actions"], list)
    print(
        f"   booted again, READY in {took:.1f} s; the hand in progress unchanged (hand {before['hand']}: {len(before['actions'])} actions, to act {now['to_act']}, pot {now['pot_total']}): nothing lost; the kill recorded as a power loss after seq {before['last_seq']}"
    )


def same_hand(before: dict[str, object], after: dict[str, object], over: str) -> None:
    """The hand in progress as it was: ``last_seq`` moves on (each start journals its
    recovery) and a kill is a power loss recorded in the hand."""
    unchanged = ("last_seq", "power_losses")
    if {**after, **dict.fromkeys(unchanged)} != {**before, **dict.fromkeys(unchanged)}:
        raise SystemExit(f"nspawn_boot: the hand changed over {over}:\n{before}\n{after}")


def current(root: Path) -> str:
    return os.readlink(root / "opt/table-controller/current")


def upgrades(container: Container, root: Path, scratch: Path, template: Path) -> None:
    """Steps 4-6: upgrade, roll back, and a release that does not reach READY."""
    first, hand, digest = current(root), hand_in_progress(root), container.verified()
    bundle_b, built = build_bundle(scratch, next_release(scratch, "post1"), board=template)
    bundle_c, _ = build_bundle(scratch, next_release(scratch, "post2", broken=True))
    done = container.install(bundle_b)
    if done.returncode != 0 or "is READY" not in done.stdout:
        raise SystemExit(f"nspawn_boot: the upgrade failed:\n{done.stdout}{done.stderr}")
    wait(container.ready, 60, "READY after the upgrade")
    [said] = [line for line in done.stdout.splitlines() if "software digest (sha256)" in line]
    digest_b = said.split()[-1]
    if container.verified() != digest_b or not current(root).endswith(digest_b[:12]):
        raise SystemExit(f"nspawn_boot: after the upgrade {current(root)} is not the new release")
    same_hand(hand, hand_in_progress(root), "the upgrade")
    board = container.inside("python3", "-c", "import platform; print(platform.python_version())")
    relation = (
        "the build's too"
        if built.split()[-1] == digest_b
        else f"not the build's ({built.split('(')[1].split(')')[0]}): the board runs Python {board.strip()}"
    )
    print(
        f"4. upgraded from its bundle to {current(root)}: READY, verify-software gives the digest its install printed ({digest_b[:12]}; {relation}), the hand in progress carried over"
    )
    back = container.run_inside(
        "/opt/table-controller/current/systemd/install.sh", "--rollback", check=False, timeout=600
    )
    wait(container.ready, 60, "READY after the rollback")
    if back.returncode != 0 or current(root) != first or container.verified() != digest:
        raise SystemExit(f"nspawn_boot: --rollback failed:\n{back.stdout}{back.stderr}")
    print(f"5. install.sh --rollback: {first} again, READY, its digest ({digest[:12]})")
    failed = container.install(bundle_c)
    wait(container.ready, 60, "READY after the automatic rollback")
    said = failed.stdout
    if failed.returncode != 1 or "did not reach READY" not in said or current(root) != first:
        raise SystemExit(f"nspawn_boot: the failed upgrade:\n{said}{failed.stderr}")
    if "rolled back to" not in said or container.verified() != digest:
        raise SystemExit(f"nspawn_boot: not rolled back by itself:\n{said}")
    same_hand(hand, hand_in_progress(root), "the upgrades")
    print(
        f"6. a release whose daemon exits before READY: install.sh exit 1, 'did not reach READY', rolled back by itself to {first}, READY, the hand still in progress"
    )


#: A Debian package that puts a start hook into the system's site packages
#: (distutils-precedence.pth): on 0.2.1 installing it on a running board made the next
#: check say SOFTWARE MODIFIED and lock play.
DEBIAN_PACKAGES = (
    "python3-setuptools",
    "python3-pkg-resources",
    "python3-distutils",
    "python3-lib2to3",
)


def software_checks(root: Path) -> list[dict[str, object]]:
    out = run(
        sys.executable,
        "-m",
        "controller",
        "journal",
        "log",
        "--kind",
        "software_check",
        "--json",
        "--state-dir",
        str(root / "var/lib/table-controller"),
        cwd=ROOT,
        timeout=60,
    )
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def debian_update(container: Container, root: Path, bench_dir: Path) -> None:
    """Step 7: Debian's python3-setuptools installed on the running board (its .deb files
    fetched here, ``apt-get download``: the container has no network), then a check on
    demand (SIGUSR2): the same digest, verified, the service still READY."""
    debs = bench_dir / "debs"
    debs.mkdir(exist_ok=True)
    run("apt-get", "download", *DEBIAN_PACKAGES, cwd=debs, timeout=300)
    digest, checks = container.verified(), len(software_checks(root))
    container.inside("sh", "-c", "dpkg -i /bench/debs/*.deb >/dev/null")
    hooks = sorted(path.name for path in (root / "usr/lib/python3/dist-packages").glob("*.pth"))
    signalled = container.run_inside(
        "systemctl", "kill", "--kill-whom=main", "-s", "USR2", UNIT, check=False
    )
    if signalled.returncode != 0:
        raise SystemExit(f"nspawn_boot: systemctl kill -s USR2: {signalled.stderr}")
    wait(lambda: len(software_checks(root)) > checks, 60, "the check on demand")
    latest = software_checks(root)[-1]
    if container.verified() != digest or '"result": "verified"' not in json.dumps(latest):
        raise SystemExit(f"nspawn_boot: a Debian package changed the check: {latest}")
    if not container.ready():
        raise SystemExit("nspawn_boot: the service is not READY after a Debian package's install")
    print(
        f"7. {DEBIAN_PACKAGES[0]} installed on the running board ({', '.join(hooks)} in the system's site packages): the check on demand says verified, verify-software the same digest ({digest[:12]}), READY"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--template", type=Path, required=True)
    parser.add_argument(
        "--make-template", action="store_true", help="debootstrap it first when missing"
    )
    parser.add_argument("--bundle", type=Path)
    parser.add_argument(
        "--key", type=Path, help="the release key --bundle is signed with (the bench signs with it)"
    )
    parser.add_argument(
        "--upgrade", action="store_true", help="then upgrade, roll back, and fail an upgrade"
    )
    args = parser.parse_args(argv)
    if args.make_template and not args.template.exists():
        make_template(args.template)
    with tempfile.TemporaryDirectory(prefix="nspawn-boot-") as scratch:
        if args.key:  # the next releases signed with the key of the bundle given
            shutil.copy(args.key, Path(scratch) / "release-key")
        bench(args.template, args.bundle, Path(scratch), args.upgrade)
    return 0


if __name__ == "__main__":
    sys.exit(main())
