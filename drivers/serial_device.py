"""The base of the serial drivers (keypad, tray, display): each owns one ``SerialLink``,
made here from the device's settings, and exposes its state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .closing import Closing
from .events import DeviceName, EventSink
from .messages import Codec, Message
from .serial_link import LinkCounters, SerialLink
from .settings import SerialDeviceSettings


class SerialDevice(Closing):
    """Base of the serial drivers: owns a ``SerialLink`` and exposes its state."""

    device: DeviceName

    def __init__(
        self,
        settings: SerialDeviceSettings,
        events: EventSink,
        *,
        codec: Codec,
        on_message: Callable[[Message], None],
        on_session: Callable[[], None] | None = None,
        port: str | None = None,
        **link_options: Any,
    ) -> None:
        """The link to the device named ``device``, made from its settings: the one place
        they become the link's (``port``: instead of the configured one, for the bench
        and tests; ``link_options``: more of ``SerialLink``'s, for tests)."""
        self._link = SerialLink(
            device=self.device,
            codec=codec,
            port=port or settings.port or "",
            baud=settings.baud,
            events=events,
            on_message=on_message,
            on_session=on_session,
            ack_timeout=settings.ack_timeout_ms / 1000,
            retries=settings.retries,
            ping_interval=settings.keepalive_ms / 1000,
            **link_options,
        )

    def _start(self) -> None:
        self._link.start()

    @property
    def port(self) -> str:
        return self._link.port

    @property
    def connected(self) -> bool:
        return self._link.connected

    def wait_connected(self, timeout: float | None = None) -> bool:
        """Block until the device has shaken hands (tests, bench start-up)."""
        return self._link.wait_connected(timeout)

    @property
    def fault(self) -> str | None:
        return self._link.fault

    @property
    def idle(self) -> bool:
        """Connected, with nothing waiting for an acknowledgement."""
        return self._link.idle

    @property
    def firmware(self) -> str | None:
        return self._link.firmware

    @property
    def counters(self) -> LinkCounters:
        return self._link.counters

    def close(self) -> None:
        self._link.close()
