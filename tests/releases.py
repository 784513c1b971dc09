"""An earlier release's own code, taken from this repository's history (``git
archive``), for tests that make journals the way that release wrote them."""

from __future__ import annotations

import subprocess
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

from tests.cli import ROOT


def release_tree(factory: pytest.TempPathFactory, commit: str, name: str, *paths: str) -> Path:
    """``paths`` of ``commit`` extracted into a new temporary folder (put it first on
    PYTHONPATH); the test is skipped when the commit is not in this checkout."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, *paths],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError) as error:
        pytest.skip(f"{name} ({commit}) is not in this checkout: {error}")
    tree = factory.mktemp(name.replace(" ", "-"))
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree
