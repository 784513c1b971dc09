"""Hypothesis profiles, and the fixtures many test modules share.

``ci`` (the default) draws the same examples on every run, so the test command gives
the same verdict on a clean checkout as on the machine that committed it. ``explore``
draws new examples each run and keeps the failures it finds in ``.hypothesis/``:
``HYPOTHESIS_PROFILE=explore python -m pytest``. A failure found that way goes into
the test as an ``@example`` once fixed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.localbroker import LocalBroker
from tests.system_tools import require

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[LocalBroker]:
    """A private Mosquitto for the test (skipped, or failed under CI, without it)."""
    require("mosquitto", "the floor tests against a real broker")
    local = LocalBroker(tmp_path / "broker")
    local.start()
    yield local
    local.kill()


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that drives the real browser (the ``browser`` fixture: Chromium over
    WebDriver, seconds a test) is ``slow``: out of the edit loop, still in CI."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
