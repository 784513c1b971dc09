"""controller/journal/files.py: ``begin_new_database``, the one way a journal file is
made, whether the table's journal or a prune's archive (issue 16, item 7: the archive
wrote the creation settings and the schema out again)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.journal import Journal
from controller.journal.files import begin_new_database
from controller.journal.schema import APPLICATION_ID, FORMAT_VERSION
from tests.test_journal import CONFIG, play_hands

JOURNAL = Path(__file__).resolve().parent.parent / "controller" / "journal"


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    j = Journal.open(tmp_path / "state", CONFIG)
    yield j
    j.close()


def made_as(path: Path) -> tuple[tuple[int, ...], list[tuple[str, str, str]]]:
    conn = sqlite3.connect(path)
    try:
        pragmas = tuple(
            conn.execute(f"PRAGMA {name}").fetchone()[0]
            for name in ("application_id", "user_version", "auto_vacuum")
        )
        tables = sorted(
            conn.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        )
        return pragmas, tables
    finally:
        conn.close()


def test_a_new_database_holds_the_journals_tables_in_an_open_transaction(
    tmp_path: Path,
) -> None:
    conn = begin_new_database(tmp_path / "new.sqlite3")
    try:
        assert conn.in_transaction
        conn.execute("COMMIT")
    finally:
        conn.close()
    pragmas, tables = made_as(tmp_path / "new.sqlite3")
    assert pragmas == (APPLICATION_ID, FORMAT_VERSION, 2)  # 2: incremental auto-vacuum
    assert ("table", "events") in {(kind, name) for kind, name, _ in tables}


def test_a_prunes_archive_is_made_like_the_journal(journal: Journal) -> None:
    play_hands(journal, 30)
    report = journal.prune(keep_hands=10, archive=True)
    assert report.archive is not None
    assert made_as(report.archive) == made_as(journal.directory / "journal.sqlite3")
