"""Single files of another table's state directory copied over this table's, as a
technician might: the fault names what is foreign and its advice works when followed
literally (the old advice, "put table T1's own state directory back", could not be
followed: it was T1's own directory, only its ack mark was another table's)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.journal import AckMarkLost, ForeignJournal, Journal
from tests.cli import tablectl, tablectl_in_process
from tests.test_journal_trust import CONFIG, crashed_after, detect


@pytest.fixture
def tables(tmp_path: Path) -> tuple[Path, Path]:
    """T1 with 300 acknowledged events, TB with 200, both as a crash left them."""
    crashed_after(tmp_path / "w1", tmp_path / "T1", 300, "T1")
    crashed_after(tmp_path / "wb", tmp_path / "TB", 200, "TB")
    return tmp_path / "T1", tmp_path / "TB"


@pytest.mark.parametrize("copied", [("journal.ack",), ("journal.ack", "journal.ack.mirror")])
def test_another_tables_ack_mark_over_this_tables_journal(
    tables: tuple[Path, Path], tmp_path: Path, copied: tuple[str, ...]
) -> None:
    t1, tb = tables
    for name in copied:
        shutil.copyfile(tb / name, t1 / name)
    problem = detect(t1, "T1")
    assert isinstance(problem, ForeignJournal)
    assert f"{' and '.join(copied)} belong" in problem.message
    assert "Put table T1's own" in problem.message
    assert "state directory back" not in problem.message
    # The technician has no other copy: the advice is to move the foreign files out.
    aside = tmp_path / "foreign"
    aside.mkdir()
    for name in copied:
        shutil.move(t1 / name, aside / name)
    after = detect(t1, "T1")
    if len(copied) == 2:
        assert isinstance(after, AckMarkLost)
        config = tmp_path / "t1.yaml"
        config.write_text(CONFIG)
        salvaged = tablectl("journal", "salvage", "--state-dir", str(t1), "--config", str(config))
        assert salvaged.returncode == 0, salvaged.stdout + salvaged.stderr
        after = detect(t1, "T1")
    assert after is None
    with Journal.open(t1, CONFIG, table_id="T1") as j:
        assert j.last_seq == 300 and j.verify().ok


def test_without_a_configuration_the_mismatch_is_not_blamed_on_the_database(
    tables: tuple[Path, Path],
) -> None:
    """`tablectl journal verify` has no configuration: it cannot tell which of the two
    is foreign, so it no longer says "the database was swapped" (here it was not)."""
    t1, tb = tables
    shutil.copyfile(tb / "journal.ack", t1 / "journal.ack")
    shown = tablectl_in_process("journal", "verify", "--state-dir", str(t1))
    assert shown.returncode == 3
    assert "the database was swapped" not in shown.stdout
    assert "the database names table T1, the ack mark beside it table TB" in shown.stdout
