"""Why the rules core refuses an event.

A refusal is the dealer's (or the event file's) mistake, never the firmware's: it
carries a stable ``code`` for tools and a ``message`` a dealer can act on
("MIN RAISE TO 40"). A refused event leaves the table exactly as it was.
"""

from __future__ import annotations

from collections.abc import Mapping


class Refusal(Exception):
    """An event the rules do not allow in the table's current state.

    Raise ``controller.rules.text.refuse(code, key, ...)``: ``key`` and ``key_args`` name
    the catalogue message, ``message`` is its English rendering (never written out at
    the refusal), and a display shows the same message in the table's language. Only
    ``BadEvent`` has no key: its message quotes the malformed line.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        key: str | None = None,
        key_args: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.key = key
        self.key_args = dict(key_args or {})

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class BadEvent(Refusal, ValueError):
    """An event whose shape is wrong: unknown type, missing or mistyped field."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_event", message)
