"""Software verification: the installed program against its manifest, and its digest.

The install (``systemd/install.sh``) records a manifest of the installed program: every
file of the ``table-controller`` distribution in the service's virtual environment
(the modules, their compiled ``.pyc`` files, the ``tablectl`` script, the package
metadata), one ``SHA256  PATH`` line each, paths relative to the environment
(``sys.prefix``), in ``{sys.prefix}/table-controller.manifest``.

- At every start the daemon checks the program against it (:func:`check`): a file
  changed, missing or added to the distribution is the sticky fault
  ``software_modified``, logged with the program's digest.
- ``tablectl verify-software [--seed HEX]`` prints the program's digest, computed from
  the files themselves (never from the manifest), keyed by the regulator's seed when
  one is given (HMAC-SHA256), so a field inspector can compare it with the approved
  release's; and the manifest's verdict.

The digest covers the sorted file list: for each file its path, its length and its
bytes. A program run from a source checkout (``pip install -e``, bench, tests) has no
manifest: the check then says the software is unverified, which is not a fault.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "table-controller"
MANIFEST_NAME = "table-controller.manifest"
CHUNK = 1 << 16


class SoftwareError(Exception):
    """The program's files cannot be listed or read (an installation problem)."""


@dataclass(frozen=True)
class Verdict:
    """The program checked against its manifest."""

    manifest: Path
    digest: str  # SHA-256 of the program as found on disk
    files: int
    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    unverified: str | None = None  # why there was nothing to check against

    @property
    def ok(self) -> bool:
        return self.unverified is None and not (self.changed or self.missing or self.added)

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


def environment() -> Path:
    """The virtual environment (or Python installation) the program runs from."""
    return Path(sys.prefix)


def manifest_path(root: Path | None = None) -> Path:
    return (root or environment()) / MANIFEST_NAME


def program_files(root: Path | None = None) -> list[str]:
    """The installed distribution's files, relative to the environment, sorted."""
    base = root or environment()
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise SoftwareError(f"{DISTRIBUTION} is not installed in {base}") from None
    try:
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        direct = {}
    if isinstance(direct, dict) and (direct.get("dir_info") or {}).get("editable"):
        raise SoftwareError(
            f"an editable install (pip install -e) runs from its source checkout, not from {base}"
        )
    listed = dist.files
    if listed is None:
        raise SoftwareError(f"{DISTRIBUTION} has no file list (RECORD) in {base}")
    found: set[str] = set()
    for entry in listed:
        path = Path(str(entry.locate())).resolve()
        try:
            relative = path.relative_to(base.resolve())
        except ValueError:
            continue  # an editable install points at a source checkout: not the program
        if path.is_file():
            found.add(relative.as_posix())
        elif not path.exists():
            found.add(relative.as_posix())  # listed but gone: the check reports it missing
    return sorted(found)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def program_digest(
    files: Iterable[str], root: Path | None = None, *, seed: bytes | None = None
) -> str:
    """SHA-256 (HMAC-SHA256 keyed by ``seed``) over the files' paths, lengths and bytes."""
    base = root or environment()
    digest = hmac.new(seed, digestmod=hashlib.sha256) if seed is not None else hashlib.sha256()
    for name in sorted(files):
        path = base / name
        try:
            data = path.read_bytes()
        except OSError as error:
            raise SoftwareError(f"{path}: {error.strerror or error}") from None
        digest.update(name.encode("utf-8") + b"\0" + str(len(data)).encode() + b"\0")
        digest.update(data)
    return digest.hexdigest()


def write_manifest(root: Path | None = None) -> Path:
    """Record the installed program's files with their SHA-256 (the install does this)."""
    base = root or environment()
    lines = [
        f"{file_sha256(base / name)}  {name}\n"
        for name in program_files(base)
        if (base / name).is_file()
    ]
    target = manifest_path(base)
    temporary = target.with_name(target.name + ".new")
    temporary.write_text("".join(lines), encoding="utf-8")
    temporary.chmod(0o444)
    temporary.replace(target)
    return target


def read_manifest(path: Path) -> dict[str, str]:
    entries: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        digest, separator, name = line.partition("  ")
        if not separator or len(digest) != 64:
            raise SoftwareError(f"{path}:{number}: not a manifest line (SHA256  PATH)")
        entries[name] = digest
    return entries


def check(root: Path | None = None) -> Verdict:
    """The program on disk against its manifest; never raises for a modified program."""
    base = root or environment()
    manifest = manifest_path(base)
    try:
        files = program_files(base)
    except SoftwareError as error:
        return Verdict(manifest, "", 0, unverified=str(error))
    present = [name for name in files if (base / name).is_file()]
    # One read of each file: its own SHA-256 and its part of the program's digest.
    program = hashlib.sha256()
    sums: dict[str, str] = {}
    for name in present:
        try:
            data = (base / name).read_bytes()
        except OSError as error:
            return Verdict(
                manifest, "", len(present), changed=(f"{name}: {error.strerror or error}",)
            )
        program.update(name.encode("utf-8") + b"\0" + str(len(data)).encode() + b"\0")
        program.update(data)
        sums[name] = hashlib.sha256(data).hexdigest()
    digest = program.hexdigest()
    if not manifest.exists():
        return Verdict(
            manifest,
            digest,
            len(present),
            unverified=f"no manifest at {manifest} (not installed by systemd/install.sh)",
        )
    try:
        recorded = read_manifest(manifest)
    except (OSError, SoftwareError, UnicodeDecodeError) as error:
        return Verdict(manifest, digest, len(present), changed=(f"{manifest}: {error}",))
    changed = tuple(name for name in present if name in recorded and sums[name] != recorded[name])
    missing = tuple(sorted(set(recorded) - set(present)))
    added = tuple(name for name in present if name not in recorded)
    return Verdict(manifest, digest, len(present), changed=changed, missing=missing, added=added)
