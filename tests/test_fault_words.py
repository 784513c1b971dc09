"""The sticky faults' words on the dealer display come from the text catalogue
(controller/fault_words.py): shown in the display's language, the same English as the
fault's own words everywhere else (logs, refused inputs, tablectl)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller import fault_words
from controller.daemon import recovery
from controller.faults import Fault, SoftwareFault
from controller.journal import errors
from controller.rules.catalogue import EN, ES
from controller.rules.text import render
from tests.daemon_helpers import running, seat_players, shown, tear_the_tail, wait_for, write_config
from tests.test_journal_storage import fill_up, small_fs, with_events  # noqa: F401 (a fixture)


def _subclasses(base: type[Any]) -> list[type[Any]]:
    found: list[type[Any]] = [base]
    for sub in base.__subclasses__():
        found += _subclasses(sub)
    return found


# every journal error the daemon may show (a Fault itself, or as a memory fault with its
# code and display: daemon.service._as_integrity); recovery's own faults imported above
SHOWN = sorted(
    {*_subclasses(Fault), *_subclasses(errors.JournalError)}, key=lambda cls: cls.__name__
)
assert recovery.ReplayDiverged in SHOWN


@pytest.mark.parametrize("cls", SHOWN, ids=lambda cls: cls.__name__)
def test_every_fault_has_its_words_in_the_catalogue(cls: type[Any]) -> None:
    name = fault_words.name_key(cls.code)
    assert name in EN and name in ES, cls
    assert EN[name] == cls.display  # the one English of its name
    if issubclass(cls, Fault):
        lock = fault_words.lock_key(cls.lock_code)
        assert lock in EN and lock in ES, cls
        assert EN[lock] == f"{cls.kind}: CALL TECHNICIAN"  # Fault.lock_line, as refused


def test_an_uncatalogued_fault_is_shown_in_its_own_english() -> None:
    class NewFault(Fault):
        code = "new_fault"
        display = "NEW FAULT X"
        kind = "NEW FAULT"
        lock_code = "new_fault"

    assert fault_words.fault_lines(NewFault("boom")) == (
        "NEW FAULT: CALL TECHNICIAN",
        "NEW FAULT X",
    )
    line1, line2 = fault_words.fault_lines(SoftwareFault("boom"))
    assert not isinstance(line1, str) and not isinstance(line2, str)
    assert render(line1, "es") == "FALLO DE SOFTWARE: LLAME AL TECNICO"


def _spanish(config: Path) -> Path:
    config.write_text(config.read_text() + "display: {language: es}\n")
    return config


def test_a_memory_fault_in_spanish(tmp_path: Path) -> None:
    """A torn journal tail at start, on a table whose display speaks Spanish."""
    config = _spanish(write_config(tmp_path))
    tear_the_tail(config, tmp_path)
    with running(config) as daemon:
        wait_for(
            lambda: shown(daemon).line1 == "FALLO DE MEMORIA: LLAME AL TECNICO",
            what="the memory fault in Spanish",
        )
        assert shown(daemon).line2 == "FALLO DE MEMORIA FINAL"
        refused = daemon.submit({"type": "act", "seat": 2, "action": "fold"})
        # the replay contract's error stays English: only the display speaks Spanish
        assert refused.error == {"code": "memory_fault", "message": "MEMORY FAULT: CALL TECHNICIAN"}


def test_a_software_fault_in_spanish(tmp_path: Path) -> None:
    config = _spanish(write_config(tmp_path))
    with running(config) as daemon:
        seat_players(daemon, {2: "ana", 5: "luis"})
        daemon.inputs.put("not a device event")  # the loop meets something it cannot handle
        wait_for(
            lambda: shown(daemon).line1 == "FALLO DE SOFTWARE: LLAME AL TECNICO",
            what="the software fault in Spanish",
        )
        assert shown(daemon).line2 == "FALLO DE SOFTWARE"


def test_a_storage_fault_in_spanish(small_fs: Path) -> None:  # noqa: F811 (the fixture)
    config = _spanish(write_config(small_fs))
    with_events(small_fs / "state")
    fill_up(small_fs)
    with running(config) as daemon:
        wait_for(
            lambda: shown(daemon).line1 == "FALLO ALMACENAMIENTO: LLAME AL TECNICO",
            what="the storage fault in Spanish",
        )
        assert shown(daemon).line2 == "ALMACENAMIENTO LLENO"


@pytest.mark.parametrize("catalogue", [EN, ES], ids=["en", "es"])
def test_the_fault_lines_fit_the_display_uncut(catalogue: dict[str, str]) -> None:
    """40 characters a line: a longer line would be cut (``lights.fit``)."""
    lines = {
        key: words
        for key, words in catalogue.items()
        if key.startswith(("fault.lock.", "fault.name."))
    }
    assert lines and all(len(words) <= 40 for words in lines.values()), lines
