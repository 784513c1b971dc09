"""The floor board's screenshot as docs/floor.md says to take it: headless Chromium with
``--timeout`` (a plain ``--screenshot`` waits for the page to finish loading, which a
page with an open event stream never does)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from controller.floor.board_server import BoardServer
from tests.localbroker import LocalBroker
from tests.system_tools import needs, require
from tests.test_floor_board_hostile import board, publish, state, until_card

__all__ = ["board"]  # a pytest fixture, used by name

pytestmark = [pytest.mark.slow, needs("chromium", "taking the floor board's screenshot")]


def test_the_documented_screenshot_command_finishes_with_the_cards(
    broker: LocalBroker, board: BoardServer, tmp_path: Path
) -> None:
    publish(broker, [state("T1", 1, hand=4)])
    until_card(board, "T1", hand=4)
    picture = tmp_path / "board.png"
    command = [
        require("chromium", "taking the floor board's screenshot"),
        "--headless",
        "--timeout=3000",
        "--window-size=1280,800",
        f"--screenshot={picture}",
        f"--user-data-dir={tmp_path / 'profile'}",
        board.url,
    ]
    if os.geteuid() == 0:
        command.insert(1, "--no-sandbox")  # Chromium refuses root without it
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    data = picture.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5000
