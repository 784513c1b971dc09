"""What the floor board tests (and the board benchmark) start the same way: a board
server for site `lv` on a local broker, and `tablectl floor watch` on that broker."""

from __future__ import annotations

from typing import Any

from controller.floor.board_server import BoardServer
from controller.floor.topics import subscription
from tests.cli import tablectl_command
from tests.localbroker import LocalBroker

NINE_SEAT_NLHE = {
    "seats": 9,
    "structure": "no_limit",
    "form": "flop",
    "small_blind": 5,
    "big_blind": 10,
}
"""The `table` of a state message from a 9-seat no-limit hold'em table, 5/10."""

LEVEL_6 = {
    "level": 6,
    "small_blind": 150,
    "big_blind": 300,
    "ante": 300,
    "level_ms_left": 600_000,
    "paused": False,
    "break": False,
    "eliminated": [],
}
"""The `tournament` of a state message: level 6 running, 10 minutes left, no one out."""


def lv_board(broker: LocalBroker, **options: Any) -> BoardServer:
    """A board of site `lv` (prefix `casino`) fed by ``broker``, its page on a free
    port; ``options``: more of ``BoardServer``'s (``max_tables``, ``hosts``...)."""
    return BoardServer(
        host=broker.host,
        port=broker.port,
        topic_filter=subscription("casino", "lv"),
        site="lv",
        http_port=0,
        **options,
    )


def floor_watch_command(broker: LocalBroker, *args: str) -> list[str]:
    """The command line of `tablectl floor watch` on ``broker``, then ``args``."""
    return tablectl_command(
        "floor", "watch", "--host", broker.host, "--port", str(broker.port), *args
    )


def viewport(driver: Any, width: int, height: int, mobile: bool = False) -> None:
    """The page's own viewport at exactly this size, through Chromium's DevTools (a
    window's size counts its frame): screenshots of exactly 1920x1080, a phone's
    390x844 (``mobile``: the page's viewport meta tag applies)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
    )
