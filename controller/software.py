"""Software verification: what runs against the manifest the install recorded, and its digest.

What is covered (:func:`covered`), the program as it runs, not only our package, found
from the files on disk (never from the running interpreter's ``sys.path`` or modules,
which code run at start could change):

- every file of the environment the program runs from (the service's virtual
  environment): our package, every dependency installed there, their compiled ``.pyc``
  files, the scripts in ``bin/`` (``tablectl``), ``pyvenv.cfg``; a link (``lib64``) is
  an entry of its own, its target's name;
- the start hooks Python runs from outside the environment: any ``sitecustomize`` or
  ``usercustomize`` module (or package) in the interpreter's standard library folder,
  and, when the environment sees the system's site packages (``pyvenv.cfg``'s
  ``include-system-site-packages``), every ``.pth`` file and start hook there and in the
  user site folders (the service's home, the checking process's own);
- the modules the program may load from the system's site packages rather than the
  environment (``SYSTEM_MODULES``: ``python3-lgpio`` from apt on Raspberry Pi OS, its
  ``_lgpio*.so`` extension included), by their absolute paths;
- the interpreter: its implementation, version and machine (the entry ``<python>``).

Left out, because they record how and where the install was done and never run: the
manifest itself, pip's ``RECORD`` files (they hold hashes of the scripts, whose first
line names the environment's path) and ``direct_url.json`` (the path of the wheel).

Every file is taken with the environment's own path (as given, and with its links
resolved) replaced by ``{prefix}`` (a script's ``#!`` line, ``pyvenv.cfg``), and the
install compiles every module itself (:func:`compile_environment`: hash-checked ``.pyc``
files, no time or path inside), so the same release installed anywhere, at any time,
has the same digest: the one the release build prints.

The service's environment is verified with it (:func:`environment_findings`): a variable
that makes Python or the dynamic loader run other code (``LD_PRELOAD``, ``PYTHONPATH``,
``PYTHONSTARTUP``...: :func:`refused_variable`) set by the unit file or its drop-ins
(``Environment=``, ``EnvironmentFile=``, ``PassEnvironment=``), by systemd's
``DefaultEnvironment=``, or in the running daemon's own environment; an
``/etc/ld.so.preload``; an ``ExecStart=`` that runs something else first. Each is a
finding: the software is modified, and the digest takes the entry ``<environment>``
(so it is the approved one only for the approved files in a clean environment).

- The install (``systemd/install.sh``) runs ``tablectl verify-software
  --write-manifest``: the modules compiled, then one ``SHA256  NAME`` line per covered
  entry in ``{environment}/table-controller.manifest`` (written, flushed to disk, then
  put in place).
- :func:`check` compares what is found now with it: a file changed, missing, or found
  where the manifest lists none is a modification (``Verdict``). It runs this very file
  as a script in a Python of its own (``python -I -S -B``: no ``.pth`` file, no start
  hook, no ``PYTHON*`` variable, nothing preloaded), so code planted in the program's
  process cannot change what it reads. The daemon checks at start, every
  ``software.verify_every`` seconds between hands and on demand (``docs/install.md``,
  step 8).
- ``tablectl verify-software [--seed HEX]`` prints the digest (HMAC-SHA256 keyed by a
  regulator's seed when one is given), computed from the files themselves, never from
  the manifest.
- A field inspector runs the same file from a medium of their own against the board's
  files, importing none of them: ``python3 software.py --root / [--seed HEX]`` (or
  ``--root`` a board's card mounted elsewhere). It needs only Python's standard library.
- The service starts the program through :data:`ISOLATED_START` (:func:`start`): the
  environment's Python with no site, so no ``.pth`` file or ``sitecustomize`` planted
  beside the program ever runs in the service (one would be found added).

The digest covers the sorted entries: for each its name, its length and its bytes. A
program run from a source checkout (``pip install -e``: bench, tests) has no manifest:
the check says so (``Verdict.development``) without reading the environment (a
developer's has thousands of files); ``tablectl verify-software`` still prints its digest.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

DISTRIBUTION = "table-controller"
MANIFEST_NAME = "table-controller.manifest"
PREFIX_MARK = b"{prefix}"
PYTHON_ENTRY = "<python>"
ENVIRONMENT_ENTRY = "<environment>"
#: Files that record how the install was done and never run (module docstring).
UNCOVERED_NAMES = frozenset({"RECORD", "direct_url.json"})
#: The modules Python imports at start from anywhere on its path (a file or a package).
START_HOOKS = ("sitecustomize", "usercustomize")
#: Modules the program may load from outside the environment (the GPIO library from apt).
SYSTEM_MODULES = ("lgpio",)
COMPILE_TIMEOUT_SECONDS = 600
CHECK_TIMEOUT_SECONDS = 600
#: Where a board keeps the program and the service (systemd/table-controller.service).
BOARD_ENVIRONMENT = "/opt/table-controller/current/.venv"
SERVICE = "table-controller.service"
SERVICE_HOME = "/var/lib/table-controller"
#: systemd's unit folders, the first of them overriding the others.
UNIT_FOLDERS = (
    "/etc/systemd/system",
    "/run/systemd/system",
    "/usr/local/lib/systemd/system",
    "/usr/lib/systemd/system",
    "/lib/systemd/system",
)
MANAGER_FILES = ("/etc/systemd/system.conf",)
MANAGER_FOLDERS = (
    "/etc/systemd/system.conf.d",
    "/run/systemd/system.conf.d",
    "/usr/lib/systemd/system.conf.d",
)
LD_PRELOAD_FILE = "/etc/ld.so.preload"
#: The ``PYTHON*`` variables the service may have: they load no code.
HARMLESS_PYTHON_VARIABLES = frozenset(
    {
        "PYTHONUNBUFFERED",
        "PYTHONNOUSERSITE",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONFAULTHANDLER",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONHASHSEED",
    }
)


def refused_variable(name: str) -> bool:
    """A variable that makes the dynamic loader (``LD_PRELOAD``, ``LD_LIBRARY_PATH``,
    ``LD_AUDIT``...) or Python (``PYTHONPATH``, ``PYTHONSTARTUP``, ``PYTHONHOME``,
    ``PYTHONUSERBASE``, ``PYTHONWARNINGS``...) load code from elsewhere."""
    if name.startswith("LD_") or name == "GCONV_PATH":
        return True
    return name.startswith("PYTHON") and name not in HARMLESS_PYTHON_VARIABLES


class SoftwareError(Exception):
    """The program's files cannot be listed or read (an installation problem)."""


@dataclass(frozen=True)
class Verdict:
    """What runs, checked against the manifest."""

    manifest: Path
    digest: str  # SHA-256 of what runs, as found on disk
    files: int
    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    unverified: str | None = None  # why there was nothing to check against
    development: bool = False  # run from a source checkout (pip install -e)
    environment: tuple[str, ...] = ()  # what in the service's environment loads other code
    keyed: str | None = None  # the HMAC-SHA256 keyed by a regulator's seed, when asked

    @property
    def ok(self) -> bool:
        return self.unverified is None and not (
            self.changed or self.missing or self.added or self.environment
        )

    @property
    def result(self) -> str:
        """One word: ``verified``, ``modified`` or ``unverified``."""
        if self.environment:
            return "modified"
        if self.unverified is not None:
            return "unverified"
        return "verified" if self.ok else "modified"

    def summary(self) -> str:
        if self.unverified is not None and not self.environment:
            return f"software unverified: {self.unverified}"
        if self.ok:
            return f"software verified: {self.files} files match {self.manifest}"
        parts = []
        for label, names in (
            ("changed", self.changed),
            ("missing", self.missing),
            ("added", self.added),
            ("in the service's environment", self.environment),
        ):
            if names:
                shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
                parts.append(f"{len(names)} {label} ({shown})")
        return f"software modified: {'; '.join(parts)} against {self.manifest}"

    def log_detail(self) -> dict[str, object]:
        """The system log's entry (``software_check``)."""
        detail: dict[str, object] = {
            "result": self.result,
            "sha256": self.digest,
            "files": self.files,
            "version": version(),
        }
        for key in ("changed", "missing", "added", "environment"):
            names = getattr(self, key)
            if names:
                detail[key] = list(names[:20])
        if self.unverified is not None:
            detail["unverified"] = self.unverified
        return detail


def version(root: Path | None = None) -> str:
    """The installed release's version (``pyproject.toml``), from the environment's
    record of it when ``root`` is given."""
    from importlib import metadata  # not in the check's own Python: it needs none

    try:
        if root is None:
            return metadata.version(DISTRIBUTION)
        paths = [str(p) for p in site_packages(root)]
        for dist in metadata.distributions(name=DISTRIBUTION, path=paths):
            return str(dist.version)
    except metadata.PackageNotFoundError:
        pass
    return "unknown"


def environment() -> Path:
    """The virtual environment (or Python installation) the program runs from."""
    return Path(sys.prefix)


def manifest_path(root: Path | None = None) -> Path:
    return (root or environment()) / MANIFEST_NAME


def development_run(root: Path | None = None) -> str | None:
    """Why the program runs from a source checkout (``pip install -e``), or None: the
    environment's own record of the distribution says editable, the code runs from
    outside the environment, and there is no manifest (an install always writes one)."""
    from importlib import metadata

    base = root or environment()
    if manifest_path(base).exists():
        return None
    found = metadata.distributions(name=DISTRIBUTION, path=[str(p) for p in site_packages(base)])
    for dist in found:
        try:
            direct = json.loads(dist.read_text("direct_url.json") or "{}")
        except ValueError:
            continue
        editable = isinstance(direct, dict) and (direct.get("dir_info") or {}).get("editable")
        here = Path(__file__).resolve()
        if editable and not here.is_relative_to(base.resolve()):
            return (
                "an editable install (pip install -e) runs from its source checkout "
                f"{here.parent.parent}"
            )
    return None


# -- the board: its files as it names them, read under a root ----------------------------


@dataclass(frozen=True)
class Board:
    """The files to check: ``root`` is ``/`` on the board itself (or where its card is
    mounted), ``venv`` the environment as the board names it, ``process`` the initial
    environment of the process being checked (``/proc/PID/environ``) when there is one,
    ``refuse_process`` whether its variables count (the daemon's do)."""

    root: Path
    venv: PurePosixPath
    process: Mapping[str, str] = field(default_factory=dict)
    refuse_process: bool = False
    process_unread: str | None = None  # why the process's environment could not be read
    machine: str | None = None  # the board's machine (uname -m), when read elsewhere

    def local(self, name: PurePosixPath | str, hops: int = 0) -> Path:
        """The file the board names ``name``, its links followed inside ``root``."""
        if self.root == Path("/"):
            return Path(name)
        parts = PurePosixPath(os.path.normpath(str(name))).parts[1:]
        current = PurePosixPath("/")
        for index, part in enumerate(parts):
            here = self.root / (current / part).relative_to("/")
            if here.is_symlink() and hops < 40:
                target = PurePosixPath(current, os.readlink(here), *parts[index + 1 :])
                return self.local(target, hops + 1)
            current = current / part
        return self.root / current.relative_to("/")

    def resolved(self, name: PurePosixPath) -> PurePosixPath:
        """``name`` with its links resolved, as the board names it."""
        if self.root == Path("/"):
            return PurePosixPath(Path(name).resolve())
        return PurePosixPath("/") / self.local(name).relative_to(self.root)

    def board_name(self, path: Path) -> str:
        """The name the board gives a file read at ``path``."""
        if self.root == Path("/"):
            return path.as_posix()
        return (PurePosixPath("/") / path.relative_to(self.root)).as_posix()


def here(root: Path | None = None) -> Board:
    """The board this program runs on, its environment ``root`` (``sys.prefix``)."""
    return Board(Path("/"), PurePosixPath(root or environment()))


def read_process_environment(pid: int) -> dict[str, str]:
    """A process's environment as it started (``/proc/PID/environ``: what its own code
    may have changed since is not in it); ``OSError`` when it cannot be read."""
    data = Path(f"/proc/{pid}/environ").read_bytes()
    found: dict[str, str] = {}
    for item in data.split(b"\0"):
        name, separator, value = item.partition(b"=")
        if separator:
            found[name.decode(errors="surrogateescape")] = value.decode(errors="surrogateescape")
    return found


@dataclass(frozen=True)
class VenvConfig:
    """What ``pyvenv.cfg`` says: the base interpreter's prefix, its version, whether the
    system's site packages are seen."""

    base: PurePosixPath | None
    version: str
    system_site: bool

    @property
    def short(self) -> str:
        return ".".join(self.version.split(".")[:2])


def venv_config(board: Board) -> VenvConfig:
    values: dict[str, str] = {}
    try:
        text = board.local(board.venv / "pyvenv.cfg").read_text(errors="surrogateescape")
    except OSError:
        text = ""
    for line in text.splitlines():
        key, separator, value = line.partition("=")
        if separator:
            values[key.strip()] = value.strip()
    home = values.get("home")
    return VenvConfig(
        PurePosixPath(home).parent if home else None,
        values.get("version") or values.get("version_info") or platform.python_version(),
        values.get("include-system-site-packages", "false").lower() == "true",
    )


# -- what is covered -------------------------------------------------------------------


def _environment_files(base: Path) -> Iterator[tuple[str, Path]]:
    for folder, dirs, files in os.walk(base):
        where = Path(folder)
        names = list(files)
        for name in list(dirs):  # a link to a folder (lib64 -> lib) is an entry, not a tree
            if (where / name).is_symlink():
                dirs.remove(name)
                names.append(name)
        dirs.sort()
        for name in sorted(names):
            if name in UNCOVERED_NAMES or (where == base and name.startswith(MANIFEST_NAME)):
                continue
            path = where / name
            yield path.relative_to(base).as_posix(), path


def _system_sites(board: Board, config: VenvConfig) -> list[PurePosixPath]:
    """The system's site folders Python adds when the environment sees them (upstream's
    and Debian's layouts)."""
    if config.base is None:
        return []
    short = config.short
    base = config.base
    sites = [
        base / "lib" / f"python{short}" / "site-packages",
        base / "local" / "lib" / f"python{short}" / "dist-packages",
        base / "lib" / "python3" / "dist-packages",
        base / "lib" / f"python{short}" / "dist-packages",
    ]
    if base == PurePosixPath("/usr"):
        sites.insert(0, PurePosixPath(f"/usr/local/lib/python{short}/dist-packages"))
    return sites


def _user_sites(board: Board, config: VenvConfig) -> list[PurePosixPath]:
    """The user site folders: the service's home's, and the checked process's own
    unless it turned them off (``PYTHONNOUSERSITE``)."""
    tail = PurePosixPath("lib") / f"python{config.short}" / "site-packages"
    sites = [PurePosixPath(SERVICE_HOME) / ".local" / tail]
    process = board.process
    if process and not process.get("PYTHONNOUSERSITE"):
        user_base = process.get("PYTHONUSERBASE") or (
            str(PurePosixPath(process["HOME"]) / ".local") if process.get("HOME") else ""
        )
        if user_base:
            sites.append(PurePosixPath(user_base) / tail)
    return sites


def hook_folders(board: Board) -> list[tuple[PurePosixPath, bool]]:
    """The folders outside the environment where Python finds start hooks, each with
    whether its ``.pth`` files run (a site folder) or only its customize modules (the
    standard library's folder)."""
    config = venv_config(board)
    folders: list[tuple[PurePosixPath, bool]] = []
    if config.base is not None:
        folders.append((config.base / "lib" / f"python{config.short}", False))
    if config.system_site:
        folders += [(site, True) for site in _system_sites(board, config)]
        folders += [(site, True) for site in _user_sites(board, config)]
    venv = board.resolved(board.venv)
    seen: list[PurePosixPath] = []
    found: list[tuple[PurePosixPath, bool]] = []
    for folder, sites in folders:
        real = board.resolved(folder)
        if real.is_relative_to(venv) or real in seen or not board.local(real).is_dir():
            continue
        seen.append(real)
        found.append((real, sites))
    return found


def _tree(board: Board, path: Path) -> Iterator[tuple[str, Path]]:
    """A file, or every file of a folder (a package), by its board name; a link is read
    where it leads (Debian's ``sitecustomize.py`` is a link to ``/etc/python3.X``), so
    an edit there is a change."""
    if not path.is_dir():
        name = board.board_name(path)
        yield name, (path.resolve() if board.root == Path("/") else board.local(name))
        return
    for folder, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            found = Path(folder) / name
            yield board.board_name(found), found


def _system_module(name: str) -> bool:
    """A file or folder of ``SYSTEM_MODULES``: the module, its package, its extension."""
    return any(
        name == module or name.startswith((f"{module}.", f"_{module}")) for module in SYSTEM_MODULES
    )


def _hook_files(board: Board) -> Iterator[tuple[str, Path]]:
    for folder, sites in hook_folders(board):
        local = board.local(folder)
        try:
            names = sorted(os.listdir(local))
        except OSError:
            continue
        for name in names:
            module = name.removesuffix(".py")
            system = sites and _system_module(name)
            if (sites and name.endswith(".pth")) or module in START_HOOKS or system:
                yield from _tree(board, local / name)


def covered_on(board: Board) -> dict[str, Path | None]:
    """Every covered entry of a board by name (module docstring); ``<python>`` maps to
    None, and ``<environment>`` too when the service's environment has findings."""
    local = board.local(board.venv)
    entries: dict[str, Path | None] = dict(_environment_files(local))
    entries.update(_hook_files(board))
    entries[PYTHON_ENTRY] = None
    return entries


def covered(root: Path | None = None) -> dict[str, Path | None]:
    """Every covered entry of the environment ``root`` on this machine."""
    return covered_on(here(root))


def interpreter(board: Board | None = None) -> bytes:
    """The ``<python>`` entry: implementation, version, machine; the running
    interpreter's when it is the environment's (its ``bin/python``, whether or not
    ``site`` ran), else the version the environment was made with (``pyvenv.cfg``) and
    the board's machine when told (``--machine``: a card read on another machine)."""
    board = board or here()
    python = platform.python_version()
    running = Path(sys.executable).parent.parent.resolve()
    if board.root != Path("/") or running != board.local(board.venv).resolve():
        python = venv_config(board).version
    machine = board.machine or platform.machine()
    return f"{sys.implementation.name} {python} {machine}".encode()


def _prefixes(board: Board) -> list[bytes]:
    forms = {str(board.venv), str(board.resolved(board.venv))}
    return sorted((form.encode() for form in forms if form != "/"), key=len, reverse=True)


def entry_bytes(path: Path | None, prefixes: list[bytes], board: Board | None = None) -> bytes:
    """An entry's content as covered: the file's bytes (a link's target) with the
    environment's path replaced by ``{prefix}``."""
    if path is None:
        return interpreter(board)
    try:
        data = b"-> " + os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    except OSError as error:
        raise SoftwareError(f"{path}: {error.strerror or error}") from None
    for prefix in prefixes:
        if prefix in data:
            data = data.replace(prefix, PREFIX_MARK)
    return data


def _feed(digest: Any, name: str, data: bytes) -> None:
    digest.update(name.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode() + b"\0")
    digest.update(data)


@dataclass(frozen=True)
class Reading:
    """One read of every covered entry: the digest(s) and each entry's own SHA-256."""

    digest: str
    sums: dict[str, str]
    keyed: str | None = None


def read_entries(
    board: Board,
    entries: Mapping[str, Path | None],
    *,
    seed: bytes | None = None,
    findings: tuple[str, ...] = (),
) -> Reading:
    """Read each entry once: the program's digest over the names, lengths and bytes (and
    the ``<environment>`` entry when there are findings), each entry's SHA-256. Raises
    :class:`SoftwareError` for an entry that cannot be read."""
    prefixes = _prefixes(board)
    program = hashlib.sha256()
    keyed = hmac.new(seed, digestmod=hashlib.sha256) if seed is not None else None
    sums: dict[str, str] = {}
    contents = {name: None for name in entries}
    if findings:
        contents[ENVIRONMENT_ENTRY] = None
    for name in sorted(contents):
        if name == ENVIRONMENT_ENTRY:
            data = "\n".join(findings).encode("utf-8", "surrogateescape")
        else:
            data = entry_bytes(entries[name], prefixes, board)
            sums[name] = hashlib.sha256(data).hexdigest()
        _feed(program, name, data)
        if keyed is not None:
            _feed(keyed, name, data)
    return Reading(program.hexdigest(), sums, keyed.hexdigest() if keyed is not None else None)


def program_digest(
    files: Iterable[str] | None = None, root: Path | None = None, *, seed: bytes | None = None
) -> str:
    """SHA-256 (HMAC-SHA256 keyed by ``seed``) over the covered entries' names, lengths
    and bytes (``files``: only those names), read in this process."""
    board = here(root)
    entries = covered_on(board)
    if files is not None:
        wanted = set(files)
        entries = {name: path for name, path in entries.items() if name in wanted}
    reading = read_entries(board, entries, seed=seed)
    return reading.keyed if reading.keyed is not None else reading.digest


# -- the isolated start -----------------------------------------------------------------

#: The service's start (``ExecStart=`` of ``systemd/table-controller.service``): the
#: environment's Python with no site (``-S``: no ``.pth`` file, no ``sitecustomize``,
#: ever runs) and isolated (``-I``: no ``PYTHON*`` variable, no user site), the
#: environment's own site packages (the folder beside its ``bin/python``) put on the path
#: by hand, then :func:`start`.
ISOLATED_START = (
    "import sys; sys.path.append(sys.executable.rpartition('/bin/')[0] + "
    "f'/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages'); "
    "from controller.software import start; start()"
)
ISOLATED_FLAGS = ("-I", "-S", "-u")


def start(argv: list[str] | None = None) -> None:
    """``tablectl`` started by :data:`ISOLATED_START`: the environment made the
    program's as ``site`` would make it (``sys.prefix``), the system's site folders added
    after its own when ``pyvenv.cfg`` says it sees them (the GPIO library from apt),
    no ``.pth`` file run; then the command line."""
    venv = sys.executable.rpartition("/bin/")[0]
    sys.prefix = sys.exec_prefix = venv
    board = here(Path(venv))
    config = venv_config(board)
    if config.system_site:
        sys.path += [str(site) for site in _system_sites(board, config) if Path(site).is_dir()]
    from controller.cli import main

    sys.exit(main(argv))


def _approved_start(words: list[str], venv: PurePosixPath) -> bool:
    """Whether an ``ExecStart=`` runs the program: ``tablectl``, or the isolated start."""
    programs = {str(venv), BOARD_ENVIRONMENT}
    if len(words) > 0 and any(words[0] == f"{p}/bin/tablectl" for p in programs):
        return True
    isolated = [*ISOLATED_FLAGS, "-c", ISOLATED_START]
    return (
        len(words) > len(isolated)
        and any(words[0] == f"{p}/bin/python" for p in programs)
        and words[1 : len(isolated) + 1] == isolated
    )


# -- the service's environment ---------------------------------------------------------


def _unit_lines(path: Path) -> Iterator[tuple[str, str]]:
    """A unit file's ``KEY=VALUE`` settings, continued lines joined."""
    try:
        text = path.read_text(errors="surrogateescape")
    except OSError:
        return
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip()
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, separator, value = line.partition("=")
        if separator:
            yield key.strip(), value.strip()


def _words(value: str) -> list[str]:
    try:
        return shlex.split(value)
    except ValueError:
        return value.split()


def _assignments(value: str) -> Iterator[tuple[str, str]]:
    for word in _words(value):
        name, _, setting = word.partition("=")
        yield name, setting


def _env_file(board: Board, value: str) -> Iterator[tuple[str, str]]:
    name = value.lstrip("-")
    try:
        text = board.local(name).read_text(errors="surrogateescape")
    except OSError:
        return
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";")):
            yield from _assignments(line.removeprefix("export "))


def unit_files(board: Board) -> list[str]:
    """The service's unit file and its drop-ins, in the order systemd reads them (the
    first folder overriding the others, a drop-in's name overriding the same name)."""
    unit = next(
        (
            f"{folder}/{SERVICE}"
            for folder in UNIT_FOLDERS
            if board.local(f"{folder}/{SERVICE}").is_file()
        ),
        None,
    )
    drop_ins: dict[str, str] = {}
    for folder in UNIT_FOLDERS:
        for group in (f"{SERVICE}.d", "service.d"):
            local = board.local(f"{folder}/{group}")
            try:
                names = sorted(os.listdir(local))
            except OSError:
                continue
            for name in names:
                if name.endswith(".conf"):
                    drop_ins.setdefault(name, f"{folder}/{group}/{name}")
    return ([unit] if unit else []) + [drop_ins[name] for name in sorted(drop_ins)]


def _unit_findings(board: Board, name: str) -> Iterator[str]:
    for key, value in _unit_lines(board.local(name)):
        if key in ("Environment", "DefaultEnvironment"):
            settings = list(_assignments(value))
        elif key == "EnvironmentFile":
            settings = list(_env_file(board, value))
        elif key == "PassEnvironment":
            settings = [(word, "(passed from the manager)") for word in _words(value)]
        elif key == "ExecStart" and value:
            words = _words(value)
            words[:1] = [words[0].lstrip("@-:+!")] if words else []
            if not _approved_start(words, board.venv):
                yield f"ExecStart runs {' '.join(words[:1])}, not the program ({name})"
            continue
        else:
            continue
        for variable, setting in settings:
            if refused_variable(variable):
                yield f"{variable}={setting} ({name}: {key}=)"


def environment_findings(board: Board) -> tuple[str, ...]:
    """What in the service's environment makes it load code from elsewhere (module
    docstring), each said with where it was found."""
    findings: list[str] = []
    files = list(MANAGER_FILES)
    for folder in MANAGER_FOLDERS:
        try:
            files += [
                f"{folder}/{n}"
                for n in sorted(os.listdir(board.local(folder)))
                if n.endswith(".conf")
            ]
        except OSError:
            continue
    for name in files + unit_files(board):
        findings += _unit_findings(board, name)
    try:
        preload = board.local(LD_PRELOAD_FILE).read_text(errors="surrogateescape").split()
    except OSError:
        preload = []
    if preload:
        findings.append(f"{LD_PRELOAD_FILE} preloads {' '.join(preload)}")
    if board.refuse_process and board.process_unread is not None:
        findings.append(f"the daemon's own environment cannot be read ({board.process_unread})")
    if board.refuse_process:
        findings += [
            f"{name}={value} (the daemon's own environment)"
            for name, value in sorted(board.process.items())
            if refused_variable(name)
        ]
    return tuple(findings)


# -- the manifest and the check ----------------------------------------------------------


def compile_environment(root: Path | None = None) -> None:
    """Compile every module of the environment afresh, as the same release compiles it
    anywhere: hash-checked ``.pyc`` files (no source time inside), the environment's
    path left out of them, string hashing fixed. Replaces the ones pip wrote, which
    carry the install's time."""
    base = root or environment()
    python = base / "bin" / "python"
    for folder in sorted({Path(p) for p in site_packages(base)}):
        subprocess.run(
            [
                str(python if python.exists() else sys.executable),
                "-m",
                "compileall",
                "-q",
                "-f",
                "--invalidation-mode",
                "checked-hash",
                "-s",
                str(folder),
                "-p",
                "/",
                str(folder),
            ],
            env={**os.environ, "PYTHONHASHSEED": "0"},
            stdout=subprocess.DEVNULL,
            check=False,  # a file that is not Python (a template) fails and is never imported
            timeout=COMPILE_TIMEOUT_SECONDS,
        )


def site_packages(base: Path) -> list[Path]:
    return sorted(path for path in base.glob("lib*/python*/site-packages") if not path.is_symlink())


def _write_durably(target: Path, text: str) -> None:
    """``text`` in ``target``, read-only: written beside it, flushed to the disk, put in
    place, and the folder's entry flushed too (a power cut leaves the old or the new)."""
    temporary = target.with_name(target.name + ".new")
    with temporary.open("w", encoding="utf-8", errors="surrogateescape") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    temporary.chmod(0o444)
    temporary.replace(target)
    folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def write_manifest(root: Path | None = None) -> Path:
    """Compile the modules, then record every covered entry with its SHA-256 (the
    install does this). Refused while the service's environment has findings."""
    base = root or environment()
    why = development_run(base)
    if why is not None:
        raise SoftwareError(why)
    board = here(base)
    findings = environment_findings(board)
    if findings:
        raise SoftwareError(
            "the service's environment loads code from elsewhere: " + "; ".join(findings)
        )
    compile_environment(base)
    reading = read_entries(board, covered_on(board))
    target = manifest_path(base)
    _write_durably(target, "".join(f"{reading.sums[n]}  {n}\n" for n in sorted(reading.sums)))
    return target


def read_manifest(path: Path) -> dict[str, str]:
    entries: dict[str, str] = {}
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    for number, line in enumerate(text.splitlines(), 1):
        digest, separator, name = line.partition("  ")
        if not separator or len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            raise SoftwareError(f"{path}:{number}: not a manifest line (SHA256  NAME)")
        entries[name] = digest
    return entries


def check_board(board: Board, *, seed: bytes | None = None) -> Verdict:
    """A board's files against its manifest, read in this process (what :func:`check`
    runs in a Python of its own, and the inspector's script)."""
    local = board.local(board.venv)
    manifest = manifest_path(local)
    findings = environment_findings(board)
    entries = covered_on(board)
    try:
        reading = read_entries(board, entries, seed=seed, findings=findings)
    except SoftwareError as error:
        return Verdict(manifest, "", len(entries), changed=(str(error),), environment=findings)
    sums = reading.sums
    found = Verdict(manifest, reading.digest, len(sums), environment=findings, keyed=reading.keyed)
    if not manifest.exists():
        why = f"no manifest at {manifest} (not installed by systemd/install.sh)"
        return replace(found, unverified=why)
    try:
        recorded = read_manifest(manifest)
    except (OSError, SoftwareError) as error:
        return replace(found, unverified=f"{manifest}: {error}")
    changed = tuple(
        name for name in sorted(sums) if name in recorded and sums[name] != recorded[name]
    )
    missing = tuple(sorted(set(recorded) - set(sums)))
    added = tuple(name for name in sorted(sums) if name not in recorded)
    return replace(found, changed=changed, missing=missing, added=added)


def check(
    root: Path | None = None,
    *,
    seed: bytes | None = None,
    daemon: bool = False,
) -> Verdict:
    """What runs against the manifest; never raises for a modified program. Read by
    this file run in a Python of its own (module docstring). ``daemon``: this process's
    own environment counts (the service's). A development run (a source checkout) is
    not read: there is nothing to check it against."""
    base = root or environment()
    development = development_run(base)
    if development is not None:  # nothing to check against
        return Verdict(manifest_path(base), "", 0, unverified=development, development=True)
    command = [
        sys.executable,
        "-I",
        "-S",
        "-B",
        str(Path(__file__).resolve()),
        "--venv",
        str(base),
        "--process",
        str(os.getpid()),
        "--json",
    ]
    command += ["--seed", seed.hex()] if seed is not None else []
    command += ["--daemon"] if daemon else []
    result = subprocess.run(
        command, capture_output=True, env={}, timeout=CHECK_TIMEOUT_SECONDS, check=False
    )
    try:
        found = json.loads(result.stdout)
    except ValueError:
        why = result.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no answer"]
        raise SoftwareError(f"the check did not answer: {why[0]}") from None
    return from_json(found)


def to_json(verdict: Verdict) -> dict[str, object]:
    return {**asdict(verdict), "manifest": str(verdict.manifest)}


def from_json(found: dict[str, Any]) -> Verdict:
    """The verdict the check's own Python printed."""
    lists = ("changed", "missing", "added", "environment")
    return Verdict(
        manifest=Path(found["manifest"]),
        digest=str(found["digest"]),
        files=int(found["files"]),
        unverified=found.get("unverified"),
        development=bool(found.get("development")),
        keyed=found.get("keyed"),
        **{key: tuple(str(name) for name in found.get(key) or ()) for key in lists},
    )


# -- the inspector's script --------------------------------------------------------------


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="software.py",
        description="The table controller's digest and check, read from a board's files "
        "(importing none of them). Exit 0 verified, 3 modified, 1 not verifiable.",
    )
    parser.add_argument("--root", default="/", help="where the board's files are (/ on the board)")
    parser.add_argument(
        "--venv", default=BOARD_ENVIRONMENT, help="the environment, as the board names it"
    )
    parser.add_argument("--seed", help="the regulator's seed (hex): the digest is then HMAC-SHA256")
    parser.add_argument(
        "--machine", help="the board's machine (uname -m: aarch64, armv7l) when read on another"
    )
    parser.add_argument("--process", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--daemon", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def report(verdict: Verdict, place: str, release: str, seed: bytes | None) -> list[str]:
    """The lines ``tablectl verify-software`` and the script print."""
    kind = f"hmac-sha256 (seed {seed.hex()})" if seed is not None else "sha256"
    digest = verdict.keyed if seed is not None else verdict.digest
    return [
        f"program: {DISTRIBUTION} {release} in {place}, {verdict.files} files",
        f"{kind}: {digest}",
        verdict.summary(),
    ]


def exit_status(verdict: Verdict) -> int:
    if verdict.ok:
        return 0
    return 1 if verdict.unverified is not None and not verdict.environment else 3


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        seed = bytes.fromhex(args.seed) if args.seed is not None else None
    except ValueError:
        print(
            f"software.py: the seed must be hexadecimal digits, got {args.seed!r}", file=sys.stderr
        )
        return 2
    environ: dict[str, str] = {}
    unread = None
    if args.process is not None:
        try:
            environ = read_process_environment(args.process)
        except OSError as error:
            unread = f"/proc/{args.process}/environ: {error.strerror or error}"
    named = Board(
        Path(args.root), PurePosixPath(args.venv), environ, args.daemon, unread, args.machine
    )
    # The environment by its own folder when it is named through a link: a release's
    # files name it so (the install writes them there), never through the link `current`
    # that --venv's default, the unit's ExecStart= and this file itself name. A name
    # that only spells the folder otherwise (`//opt/...`, DESTDIR=/) is kept beside it.
    resolved = named.resolved(named.venv)
    spelled = PurePosixPath(os.path.normpath("/" + str(named.venv).lstrip("/")))
    board = named if spelled == resolved else replace(named, venv=resolved)
    verdict = check_board(board, seed=seed)
    if args.json:
        print(json.dumps(to_json(verdict)))
        return 0
    local = board.local(board.venv)
    print("\n".join(report(verdict, args.venv, version(local), seed)))
    return exit_status(verdict)


if __name__ == "__main__":
    sys.exit(main())
