"""Driver exceptions: one class per failure, each also the matching built-in."""

from __future__ import annotations


class DriverError(Exception):
    """Base of every exception the drivers raise."""


class HardwareConfigError(DriverError, ValueError):
    """The ``hardware:`` settings cannot be used; ``problems`` lists every reason."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


class ProtocolError(DriverError, ValueError):
    """A frame arrived intact but the protocol cannot accept it (the device's fault)."""


class UnknownFrameType(ProtocolError):
    """A frame type this end of the protocol does not know."""


class BadPayload(ProtocolError):
    """A known frame type whose payload is malformed."""


class LinkError(DriverError, ConnectionError):
    """A serial device is there but unusable: no handshake, no acknowledgements, the
    wrong device or protocol version. The link reports a fault and starts again."""


class GpioUnavailable(DriverError, OSError):
    """The GPIO pin factory could not be started (no gpiochip, missing library, no
    permission) or a pin could not be claimed."""
