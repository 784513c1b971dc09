"""What regulators ask to keep (issue 22 item 6): the system log (software changes,
configuration changes, faults, power-ups) at least 90 days, whatever `keep_hands` and
the prune's entry count say."""

from __future__ import annotations

from pathlib import Path

from controller.journal import Journal
from controller.journal.clock import WallClock

CONFIG = "table: {id: T1, seats: 9}\ngame:\n  big_blind: 2\n"
DAY_NS = 86_400 * 10**9
START_NS = 1_780_000_000 * 10**9  # a synchronised wall clock in 2026
KEEP_LOG_DAYS = 90  # docs/journal.md


class Calendar:
    """A wall clock the test turns forward by days; ``synced`` as NTP would say."""

    def __init__(self) -> None:
        self.wall_ns = START_NS
        self.synced = True

    def clock(self) -> WallClock:
        return WallClock(lambda: self.synced, time_ns=lambda: self.wall_ns, recheck_seconds=0)


def logged(journal: Journal) -> list[tuple[str, int]]:
    return [(entry.kind, entry.detail.get("n", -1)) for entry in journal.iter_system_log()]


def write_log(journal: Journal, count: int, first: int) -> None:
    for n in range(first, first + count):
        journal.log_system("software_modified", {"n": n})


def test_prune_keeps_system_log_entries_younger_than_90_days(tmp_path: Path) -> None:
    calendar = Calendar()
    with Journal.open(tmp_path / "state", CONFIG, clock=calendar.clock()) as journal:
        write_log(journal, 150, 0)  # day 0
        calendar.wall_ns += 60 * DAY_NS
        write_log(journal, 150, 150)  # day 60
        calendar.wall_ns += 40 * DAY_NS  # day 100: day 0 is past 90 days, day 60 is not
        journal.prune(keep_hands=10, keep_log_entries=100)
        numbers = [n for kind, n in logged(journal) if kind == "software_modified"]
        assert numbers == list(range(150, 300)), "a 40-day-old entry was pruned"
        assert journal.verify().ok  # the log's chain goes on from the last one removed
        calendar.wall_ns += 60 * DAY_NS  # day 160: day 60 is now 100 days old
        journal.prune(keep_hands=10, keep_log_entries=100)
        numbers = [n for kind, n in logged(journal) if kind == "software_modified"]
        # past 90 days they go, down to the last 100 entries of the log (prunes' own too)
        assert 190 < numbers[0] <= 205 and numbers == list(range(numbers[0], 300))
        assert journal.verify().ok


def test_with_the_clock_not_synchronised_no_log_entry_goes(tmp_path: Path) -> None:
    calendar = Calendar()
    with Journal.open(tmp_path / "state", CONFIG, clock=calendar.clock()) as journal:
        write_log(journal, 300, 0)
        calendar.wall_ns += 2 * KEEP_LOG_DAYS * DAY_NS
        calendar.synced = False  # the board's clock may have jumped: keep everything
        journal.prune(keep_hands=10, keep_log_entries=100)
        numbers = [n for kind, n in logged(journal) if kind == "software_modified"]
        assert numbers == list(range(300))


def test_a_log_entry_that_covers_floor_messages_still_queued_is_kept(tmp_path: Path) -> None:
    """A ``floor_queued`` entry (controller/journal/floorclaims.py) past 90 days whose
    messages are still in the outbox (not yet sent) stays, with the log after it: pruned,
    those messages would be covered by no record and the journal would fail its check."""
    calendar = Calendar()
    with Journal.open(tmp_path / "state", CONFIG, clock=calendar.clock()) as journal:
        write_log(journal, 150, 0)  # day 0
        journal.queue_floor([("casino/lv/table/T1/state", "{}", 1, True)], about="state")
        write_log(journal, 150, 150)
        calendar.wall_ns += 100 * DAY_NS  # day 100: every entry is past 90 days
        journal.prune(keep_hands=10, keep_log_entries=100)
        kinds = [kind for kind, _ in logged(journal)]
        numbers = [n for kind, n in logged(journal) if kind == "software_modified"]
        assert kinds[0] == "floor_queued" and numbers == list(range(150, 300))
        assert journal.verify().ok
