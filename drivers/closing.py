"""The one `with` protocol of the drivers: leaving the block closes the driver."""

from __future__ import annotations

from typing import Self


class Closing:
    """A driver used as a context manager: ``with`` gives the driver itself, and leaving
    the block (normally or by an exception, which goes on) calls ``close()``."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
