"""A journal that a reading command cannot open, told the same way by each of them."""

from __future__ import annotations

import sys

from controller.journal import JournalError

EXIT_JOURNAL = 3
"""The exit status of a reading command whose journal cannot be opened or read."""


def journal_failed(command: str, state_dir: str, error: JournalError) -> int:
    """Say why ``command`` cannot read the journal in ``state_dir`` (``tablectl recall:
    DIR: no journal in DIR (journal.sqlite3 does not exist)``); its exit status."""
    print(f"tablectl {command}: {state_dir}: {error.message}", file=sys.stderr)
    return EXIT_JOURNAL
