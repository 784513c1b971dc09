"""Stand-in lgpio wheels for the release tests: the real 3.13 wheels come only from an
emulated build (release/gpio_wheel.sh), which a test cannot wait for."""

from __future__ import annotations

import zipfile
from pathlib import Path


def wheel_file(folder: Path, name: str, marker: str = "") -> Path:
    """A wheel that pip installs: lgpio.py, a stand-in _lgpio module, its metadata."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    version = name.split("-")[1]
    info = f"lgpio-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(
            "lgpio.py", f"MARKER = {marker!r}\ndef gpiochip_open(chip):\n    return 0\n"
        )
        archive.writestr("_lgpio.cpython-313-stand-in.so", "")
        archive.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: lgpio\nVersion: {version}\n"
        )
        tag = name.removesuffix(".whl").split("-", 2)[2]
        archive.writestr(
            f"{info}/WHEEL",
            f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: {tag}\n",
        )
        archive.writestr(f"{info}/RECORD", "")
    return path
