"""Software verification: what runs against the manifest the install recorded, and its digest.

What is covered (:func:`covered`), the program as it runs, not only our package:

- every file of the environment the program runs from (``sys.prefix``, the service's
  virtual environment): our package, every dependency installed there, their compiled
  ``.pyc`` files, the scripts in ``bin/`` (``tablectl``), ``pyvenv.cfg``;
- the start hooks Python runs from anywhere on its path: every ``.pth`` file and any
  ``sitecustomize``/``usercustomize`` module in the other directories of ``sys.path``
  (the system's site packages, the user's) and in the user's site directory;
- the modules the program may load from the system's site packages rather than the
  environment (``SYSTEM_MODULES``: ``python3-lgpio`` from apt on Raspberry Pi OS), by
  their absolute paths;
- the interpreter: its implementation, version and machine (the entry ``<python>``).

Left out, because they record how and where the install was done and never run: the
manifest itself, pip's ``RECORD`` files (they hold hashes of the scripts, whose first
line names the environment's path) and ``direct_url.json`` (the path of the wheel).

Every file is taken with the environment's own path replaced by ``{prefix}`` (a
script's ``#!`` line, ``pyvenv.cfg``), and the install compiles every module itself
(:func:`compile_environment`: hash-checked ``.pyc`` files, no time or path inside), so
the same release installed anywhere, at any time, has the same digest: the one the
release build prints.

- The install (``systemd/install.sh``) runs ``tablectl verify-software
  --write-manifest``: the modules compiled, then one ``SHA256  NAME`` line per covered
  entry in ``{sys.prefix}/table-controller.manifest``.
- :func:`check` compares what is found now with it: a file changed, missing, or found
  where the manifest lists none is a modification (``Verdict``). The daemon checks at
  start, every ``software.verify_every`` seconds between hands and on demand
  (``docs/install.md``, step 8).
- ``tablectl verify-software [--seed HEX]`` prints the digest (HMAC-SHA256 keyed by a
  regulator's seed when one is given), computed from the files themselves, never from
  the manifest.

The digest covers the sorted entries: for each its name, its length and its bytes. A
program run from a source checkout (``pip install -e``: bench, tests) has no manifest:
the check says so (``Verdict.development``) without reading the environment (a
developer's has thousands of files); ``tablectl verify-software`` still prints its digest.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import os
import platform
import site
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

DISTRIBUTION = "table-controller"
MANIFEST_NAME = "table-controller.manifest"
PREFIX_MARK = b"{prefix}"
PYTHON_ENTRY = "<python>"
#: Files that record how the install was done and never run (module docstring).
UNCOVERED_NAMES = frozenset({"RECORD", "direct_url.json"})
START_HOOKS = ("sitecustomize.py", "usercustomize.py")
#: Modules the program may load from outside the environment (the GPIO library from apt).
SYSTEM_MODULES = ("lgpio",)
COMPILE_TIMEOUT_SECONDS = 600


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

    @property
    def ok(self) -> bool:
        return self.unverified is None and not (self.changed or self.missing or self.added)

    @property
    def result(self) -> str:
        """One word: ``verified``, ``modified`` or ``unverified``."""
        if self.unverified is not None:
            return "unverified"
        return "verified" if self.ok else "modified"

    def summary(self) -> str:
        if self.unverified is not None:
            return f"software unverified: {self.unverified}"
        if self.ok:
            return f"software verified: {self.files} files match {self.manifest}"
        parts = []
        for label, names in (
            ("changed", self.changed),
            ("missing", self.missing),
            ("added", self.added),
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
        for key in ("changed", "missing", "added"):
            names = getattr(self, key)
            if names:
                detail[key] = list(names[:20])
        if self.unverified is not None:
            detail["unverified"] = self.unverified
        return detail


def version() -> str:
    """The installed release's version (``pyproject.toml``)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def environment() -> Path:
    """The virtual environment (or Python installation) the program runs from."""
    return Path(sys.prefix)


def manifest_path(root: Path | None = None) -> Path:
    return (root or environment()) / MANIFEST_NAME


def interpreter() -> bytes:
    """The ``<python>`` entry: implementation, version, machine."""
    return f"{sys.implementation.name} {platform.python_version()} {platform.machine()}".encode()


def development_run(root: Path | None = None) -> str | None:
    """Why the program runs from a source checkout (``pip install -e``), or None: the
    environment's own record of the distribution says editable, the code runs from
    outside the environment, and there is no manifest (an install always writes one)."""
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


def _environment_files(base: Path) -> Iterator[tuple[str, Path]]:
    for folder, dirs, files in os.walk(base):
        here = Path(folder)
        names = list(files)
        for name in list(dirs):  # a link to a folder (lib64 -> lib) is an entry, not a tree
            if (here / name).is_symlink():
                dirs.remove(name)
                names.append(name)
        dirs.sort()
        for name in sorted(names):
            if name in UNCOVERED_NAMES or (here == base and name.startswith(MANIFEST_NAME)):
                continue
            path = here / name
            yield path.relative_to(base).as_posix(), path


def _hook_folders(base: Path) -> list[Path]:
    """The folders outside the environment where Python looks for start hooks."""
    folders = [Path(entry) for entry in sys.path if entry]
    if site.ENABLE_USER_SITE:
        folders.append(Path(site.getusersitepackages()))
    found: list[Path] = []
    resolved_base = base.resolve()
    for folder in folders:
        try:
            real = folder.resolve()
        except OSError:
            continue
        if real.is_relative_to(resolved_base) or real in found or not real.is_dir():
            continue
        found.append(real)
    return found


def _hook_files(base: Path) -> Iterator[tuple[str, Path]]:
    for folder in _hook_folders(base):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if (
                name.endswith(".pth")
                or name in START_HOOKS
                or name in ("sitecustomize", "usercustomize")
            ):
                path = folder / name
                yield path.as_posix(), path


def _system_module_files(base: Path) -> Iterator[tuple[str, Path]]:
    """The files of ``SYSTEM_MODULES`` found outside the environment (none are imported)."""
    resolved_base = base.resolve()
    for name in SYSTEM_MODULES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.origin or not os.path.isabs(spec.origin):
            continue
        origin = Path(spec.origin).resolve()
        if origin.is_relative_to(resolved_base):
            continue  # in the environment: covered with it
        if spec.submodule_search_locations:  # a package: its folder
            folder = origin.parent
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                yield path.as_posix(), path
            continue
        for path in sorted(origin.parent.iterdir()):  # the module and its extension
            if path.is_file() and path.name.startswith((f"{name}.", f"_{name}")):
                yield path.as_posix(), path


def covered(root: Path | None = None) -> dict[str, Path | None]:
    """Every covered entry by name (module docstring); ``<python>`` maps to None."""
    base = root or environment()
    entries: dict[str, Path | None] = dict(_environment_files(base))
    entries.update(_hook_files(base))
    entries.update(_system_module_files(base))
    entries[PYTHON_ENTRY] = None
    return entries


def _prefixes(base: Path) -> list[bytes]:
    forms = {str(base), str(base.resolve())}
    return sorted((form.encode() for form in forms if form != "/"), key=len, reverse=True)


def entry_bytes(path: Path | None, prefixes: list[bytes]) -> bytes:
    """An entry's content as covered: the file's bytes (a link's target) with the
    environment's path replaced by ``{prefix}``."""
    if path is None:
        return interpreter()
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


def program_digest(
    files: Iterable[str] | None = None, root: Path | None = None, *, seed: bytes | None = None
) -> str:
    """SHA-256 (HMAC-SHA256 keyed by ``seed``) over the covered entries' names, lengths
    and bytes (``files``: only those names)."""
    base = root or environment()
    entries = covered(base)
    if files is not None:
        wanted = set(files)
        entries = {name: path for name, path in entries.items() if name in wanted}
    prefixes = _prefixes(base)
    digest = hmac.new(seed, digestmod=hashlib.sha256) if seed is not None else hashlib.sha256()
    for name in sorted(entries):
        _feed(digest, name, entry_bytes(entries[name], prefixes))
    return digest.hexdigest()


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


def write_manifest(root: Path | None = None) -> Path:
    """Compile the modules, then record every covered entry with its SHA-256 (the
    install does this)."""
    base = root or environment()
    why = development_run(base)
    if why is not None:
        raise SoftwareError(why)
    compile_environment(base)
    prefixes = _prefixes(base)
    lines = [
        f"{hashlib.sha256(entry_bytes(path, prefixes)).hexdigest()}  {name}\n"
        for name, path in sorted(covered(base).items())
    ]
    target = manifest_path(base)
    temporary = target.with_name(target.name + ".new")
    temporary.write_text("".join(lines), encoding="utf-8", errors="surrogateescape")
    temporary.chmod(0o444)
    temporary.replace(target)
    return target


def read_manifest(path: Path) -> dict[str, str]:
    entries: dict[str, str] = {}
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    for number, line in enumerate(text.splitlines(), 1):
        digest, separator, name = line.partition("  ")
        if not separator or len(digest) != 64:
            raise SoftwareError(f"{path}:{number}: not a manifest line (SHA256  NAME)")
        entries[name] = digest
    return entries


def check(root: Path | None = None) -> Verdict:
    """What runs against the manifest; never raises for a modified program."""
    base = root or environment()
    manifest = manifest_path(base)
    development = development_run(base)
    if development is not None:  # nothing to check against: not worth reading it all
        return Verdict(manifest, "", 0, unverified=development, development=True)
    entries = covered(base)
    prefixes = _prefixes(base)
    # One read of each file: its own SHA-256 and its part of the digest.
    program = hashlib.sha256()
    sums: dict[str, str] = {}
    for name in sorted(entries):
        try:
            data = entry_bytes(entries[name], prefixes)
        except SoftwareError as error:
            return Verdict(manifest, "", len(entries), changed=(str(error),))
        _feed(program, name, data)
        sums[name] = hashlib.sha256(data).hexdigest()
    digest = program.hexdigest()
    if not manifest.exists():
        return Verdict(
            manifest,
            digest,
            len(sums),
            unverified=f"no manifest at {manifest} (not installed by systemd/install.sh)",
        )
    try:
        recorded = read_manifest(manifest)
    except (OSError, SoftwareError) as error:
        return Verdict(manifest, digest, len(sums), unverified=f"{manifest}: {error}")
    changed = tuple(
        name for name in sorted(sums) if name in recorded and sums[name] != recorded[name]
    )
    missing = tuple(sorted(set(recorded) - set(sums)))
    added = tuple(name for name in sorted(sums) if name not in recorded)
    return Verdict(manifest, digest, len(sums), changed=changed, missing=missing, added=added)
