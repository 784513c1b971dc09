"""Hypothesis profiles, and the fixtures many test modules share.

``ci`` (the default) draws the same examples on every run, so the test command gives
the same verdict on a clean checkout as on the machine that committed it. ``explore``
draws new examples each run and keeps the failures it finds in ``.hypothesis/``:
``HYPOTHESIS_PROFILE=explore python -m pytest``. A failure found that way goes into
the test as an ``@example`` once fixed.

A run with no slow test in it (the edit loop, ``-m "not slow"``) keeps its temporary
files (``tmp_path``, ``tempfile``) in RAM, on ``/dev/shm``: see
``pytest_collection_finish``.
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.localbroker import LocalBroker
from tests.system_tools import require

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    """A suite started in the background by a shell (``nohup python -m pytest &``) has
    Ctrl-C ignored, and every command it starts inherits that: the tests that press
    Ctrl-C on ``floor watch`` and ``floor board`` then wait for an end that never comes.
    The suite takes Ctrl-C back as a terminal gives it (a handler is reset to the
    default in the commands it starts; an ignored signal stays ignored)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


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


#: A filesystem in RAM (tmpfs) that every Linux has.
RAM = Path("/dev/shm")

#: What sets the temporary folder (``tempfile.gettempdir``): a developer's choice stands.
TEMPORARY_FOLDER_VARIABLES = ("TMPDIR", "TEMP", "TMP")


@pytest.hookimpl(trylast=True)  # after ``-m`` deselected and the browser tests were marked
def pytest_collection_finish(session: pytest.Session) -> None:
    """A run with no slow test in it keeps its temporary files in RAM.

    The journal syncs every commit to storage (``fsync``), as a table must; on a disk
    each sync waits for the device (3 ms each measured on this VM's disk, far more
    while other work writes to it), and the edit loop's journals make thousands of
    them: on a busy machine most of the loop's wall clock was spent there. On a tmpfs
    the files, the SQLite journal, its locks and every ``fsync`` call are the same and
    real; only the wait for a device is gone. What a RAM disk cannot show, data
    surviving a cut of the machine's power, no test shows: the power-cut tests kill
    the process (``kill -9``), whose written data the page cache keeps on any
    filesystem. The slow tests (installs, containers, bundles, the power-cut loops)
    keep the system's temporary folder: a run that selects any of them is unchanged.
    ``--basetemp`` or a ``TMPDIR`` of one's own is never overridden."""
    config = session.config
    if config.option.basetemp or any(os.environ.get(v) for v in TEMPORARY_FOLDER_VARIABLES):
        return
    if any(item.get_closest_marker("slow") for item in session.items):
        return
    if RAM.is_dir() and os.access(RAM, os.W_OK | os.X_OK):
        tempfile.tempdir = str(RAM)
