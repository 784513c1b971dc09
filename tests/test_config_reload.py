"""A configuration file reloaded while it is still being written (issue 22 item 3): a
SIGHUP sent when only part of the file is there must not put that part in force. The
file read on SIGHUP is taken only once it has read the same for a while, and it is read
again when a held change takes effect; the log and the journal say in one line what
changed."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from controller.daemon import reconfig
from controller.journal import Journal
from tests.daemon_helpers import press, running, seat_players, view, wait_for, write_config

PLAYERS = {2: "ana", 5: "luis"}
RAKE = "fees: {mode: rake, rake_percent: 5, rake_cap: 10}\n"


@pytest.fixture(autouse=True)
def short_settle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reconfig, "CONFIG_SETTLE_NS", 500_000_000, raising=False)


def configs(daemon: object) -> list[str]:
    journal = daemon.journal  # type: ignore[attr-defined]
    assert journal is not None
    return [record.text for record in journal.configs()]


def fees_mode(daemon: object) -> str:
    controller = daemon.controller  # type: ignore[attr-defined]
    return str(controller.recorder.table.settings.fees.mode)


@pytest.mark.slow  # waits for a changed file to hold still (1 s)
def test_a_held_change_takes_the_file_as_it_is_when_the_hand_ends(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    whole = config.read_text().replace("big_blind: 10", "big_blind: 20") + RAKE
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["phase"] == "preflop")
        # the first lines written (the new stakes, no fees: yet), SIGHUP, the rest later
        config.write_text(whole[: whole.index("hardware:")])
        daemon.reload()
        wait_for(lambda: daemon.controller.pending_config is not None)  # type: ignore[union-attr]
        config.write_text(whole)
        press(daemon, "FOLD")  # the hand ends
        wait_for(lambda: len(configs(daemon)) == 2, what="the change taken")
        assert configs(daemon)[-1] == whole
        assert fees_mode(daemon) == "rake"
        assert daemon.controller.pending_config is None  # type: ignore[union-attr]


@pytest.mark.slow  # waits for a changed file to hold still (1 s)
def test_a_file_still_changing_when_idle_is_taken_once_it_settles(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    config = write_config(tmp_path)
    whole = config.read_text() + RAKE
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        config.write_text(whole[: whole.index("hardware:")])
        daemon.reload()  # a table with no hardware: yet: valid, but not what is meant
        wait_for(lambda: daemon.controller.pending_config is not None)  # type: ignore[union-attr]
        assert len(configs(daemon)) == 1  # not taken at once
        config.write_text(whole)
        wait_for(lambda: len(configs(daemon)) == 2, what="the settled file taken")
        assert configs(daemon)[-1] == whole
        assert fees_mode(daemon) == "rake"
        assert "changed after it was read" in caplog.text
        # the change is said in one line: the log and the journal
        wait_for(lambda: "changed: rake: fees.mode 'none' -> 'rake', " in caplog.text)
        journal = daemon.journal
        assert journal is not None
        [entry] = journal.iter_system_log(kinds=("config_change",))
        assert entry.detail["changed"] == (
            "rake: fees.mode 'none' -> 'rake', fees.rake_percent 10 -> 5, fees.rake_cap 5 -> 10"
        )


def test_a_file_broken_before_the_held_change_takes_effect_keeps_the_running_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        press(daemon, "NEXT")
        wait_for(lambda: view(daemon)["phase"] == "preflop")
        write_config(tmp_path, big_blind=20)
        daemon.reload()
        wait_for(lambda: daemon.controller.pending_config is not None)  # type: ignore[union-attr]
        config.write_text("table: {id: T1, seats: 9}\ngame: {big_blind: ")  # being written
        press(daemon, "FOLD")
        wait_for(lambda: daemon.controller.pending_config is None)  # type: ignore[union-attr]
        assert len(configs(daemon)) == 1
        assert "no longer reads: the change is dropped; the running one stays" in caplog.text
        controller = daemon.controller
        assert controller is not None and controller.recorder is not None
        assert controller.recorder.table.settings.game.big_blind == 10  # the old stakes
        assert controller.fault is None


def test_the_journal_log_shows_what_changed(tmp_path: Path) -> None:
    from controller.commands.journal import _detail

    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
        six = config.read_text().replace("seats: 9", "seats: 6")
        config.write_text(six.replace(", 7: 22, 8: 23, 9: 24", "").replace("10}", "20}"))
        daemon.reload()
        wait_for(lambda: len(configs(daemon)) == 2)
    with Journal.open_readonly(tmp_path / "state") as journal:
        [entry] = journal.iter_system_log(kinds=("config_change",))
    shown = _detail("config_change", entry.detail)
    assert (
        "changed: seats: table.seats 9 -> 6; stakes: game.big_blind 10 -> 20; "
        "hardware: section (at the next restart)"
    ) in shown


def test_a_file_changed_while_the_daemon_was_off_says_what_changed(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    with running(config) as daemon:
        seat_players(daemon, PLAYERS)
    config.write_text(config.read_text() + RAKE)
    with running(config) as daemon:
        wait_for(lambda: len(configs(daemon)) == 2)
        journal = daemon.journal
        assert journal is not None
        [entry] = journal.iter_system_log(kinds=("config_change",))
        assert entry.detail["changed"].startswith("rake: fees.mode 'none' -> 'rake'")
