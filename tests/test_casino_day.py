"""A short casino day (issue 30 item 3): ``bench/casino_day.py``'s harness with the floor
link on (a real Mosquitto set up as the example configuration, the floor consumer, the
board as its own process): two clean restarts, a device reseat, a shift change and a
power cut, the promises checked after each (journal verify, no MEMORY FAULT, chips
conserved, meters equal to the bench's own ledger, every floor message once and in
order, the board's card as the table's state, recall). The bench runs whole days."""

from __future__ import annotations

import io
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal import Journal
from controller.rules import RuleSettings, Table, parse_event, state_view
from controller.rules.settings import GameSettings
from tests.bench_harness import load_bench
from tests.system_tools import require
from tests.waiting import eventually

SHORT_DAY = (
    "shift:0 push:1 hand:2 hand:3 tip:4 restart:5 hand:6 reseat:7:keypad hand:8 "
    "shift:9 hand:10 restart:11 hand:12 kill:13:hand hand:14 push:15 hand:16 "
    "kill:17:fault hand:18"  # the power cut while a cable is out (issue 30's lock-up)
)


@pytest.mark.slow  # a day's worth of processes: broker, board, five table starts (50 s)
def test_a_short_day_with_the_floor_link_keeps_every_promise(tmp_path: Path) -> None:
    require("mosquitto", "the casino day's floor broker")
    require("mosquitto_passwd", "the casino day's floor broker")
    day = load_bench("casino_day")
    steps = [day.Step.parse(text) for text in SHORT_DAY.split()]
    figures = day.run_day(steps, tmp_path, seed=30, floor=True)
    assert figures.kills == 2 and figures.restarts == 5  # the first start, 2 clean, 2 cuts
    assert figures.reseats == 1 and figures.shifts_closed == 1
    assert figures.hands == 9
    assert figures.checks == 5  # after each stop, and at the end
    assert figures.messages > 0


@pytest.mark.slow  # a broker, the board and three table starts (15 s)
def test_the_end_sends_what_the_last_start_journals(tmp_path: Path) -> None:
    """At the end the table starts once more to send its outbox, and that start journals
    its devices' first readings (the tray's, the puck's) a moment after it is ready:
    they and their floor messages are waited for before the last stop, so the outbox is
    left empty and the final check finds every message (seed 7 of a full day, seed 3 of
    a short one: the consumer lacked the last event's two messages, journalled as the
    drain stopped the table)."""
    require("mosquitto", "the casino day's floor broker")
    require("mosquitto_passwd", "the casino day's floor broker")
    day = load_bench("casino_day")
    steps = [day.Step.parse(text) for text in ("shift:0", "hand:1")]
    day.run_day(steps, tmp_path, seed=3, floor=True)
    with Journal.open_readonly(tmp_path / "state") as journal:
        starts = [e.last_seq for e in journal.iter_system_log() if e.kind == "power_up"]
        brought = [r.event["type"] for r in journal.iter_events(after_seq=starts[-1])]
        unsent = journal.connection.execute("SELECT COUNT(*) FROM outbox WHERE sent = 0")
        assert unsent.fetchone()[0] == 0
    assert len(starts) == 2  # the day's, and the drain's (once: nothing was left)
    assert "tray" in brought  # the last start's readings were journalled before its stop


def test_a_table_that_does_not_exit_on_sigterm_fails_the_clean_stop_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A clean stop that hangs stops the day as a failed check (seed, step, the shortest
    steps printed), not as a traceback (seed 11 of a full day: the table's process logged
    `stopped` and had not exited 30 s later)."""
    day = load_bench("casino_day")
    monkeypatch.setattr(day, "WAIT", 0.5)
    table = object.__new__(day.TableProcess)
    table.log = io.StringIO()
    table.proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, "
            "signal.SIG_IGN); print('ready', flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert table.proc.stdout is not None and table.proc.stdout.readline() == "ready\n"
        with pytest.raises(day.DayFailed) as failed:
            table.stop()
        assert failed.value.check == "clean stop"
        said = table.log.getvalue().splitlines()  # what it was doing, for whoever looks
        assert said[0] == f"-- process {table.proc.pid} did not exit: its threads"
        assert said[1].startswith(f"{table.proc.pid} python: state S, waiting in ")
        assert (
            "time.sleep" not in said[1]
            and (  # py-spy: the stack where it sleeps
                shutil.which("py-spy", path=str(Path(sys.executable).parent)) is None
                or any("<module> (<string>:1)" in line for line in said[2:])
            )
        )
    finally:
        table.proc.kill()
        table.proc.wait()


def _blocked(task: Path) -> int:
    """A thread's blocked signals (``SigBlk`` of its ``status``), as a bit mask."""
    for line in (task / "status").read_text().splitlines():
        if line.startswith("SigBlk:"):
            return int(line.split()[1], 16)
    raise AssertionError(f"no SigBlk in {task}/status")


def test_only_the_tables_main_thread_can_be_given_its_stop_and_reload_signals(
    tmp_path: Path,
) -> None:
    """The kernel gives a signal sent to a process to any one of its threads that does
    not block it. The table's process blocks SIGTERM and SIGHUP in every thread but the
    main one, which takes them with ``sigwait``: before, a SIGTERM given to another
    thread left the main thread blocked reading its commands, and the process never
    stopped (the clean-stop hang of seed 11 and of the 30-day run, about 1 stop in 125).
    Then a SIGHUP re-reads the configuration and a SIGTERM stops it cleanly."""
    day = load_bench("casino_day")
    casino = day.Casino(tmp_path, seed=1, floor=False)
    casino.open()
    try:
        pid = casino.t.proc.pid
        tasks = [t for t in Path(f"/proc/{pid}/task").iterdir() if t.name != str(pid)]
        assert len(tasks) >= 5  # the loop, the drivers, the simulated devices, the commands
        wanted = (1 << (signal.SIGTERM - 1)) | (1 << (signal.SIGHUP - 1))
        open_to = [(t / "comm").read_text().strip() for t in tasks if ~_blocked(t) & wanted]
        assert open_to == []
        casino.t.proc.send_signal(signal.SIGHUP)
        log = tmp_path / "daemon.log"
        assert eventually(lambda: "reloaded: unchanged" in log.read_text(), timeout=10)
        assert casino.t.ask(op="view")["ok"]
        casino.t.proc.send_signal(signal.SIGTERM)
        assert casino.t.proc.wait(10) == 0
        assert log.read_text().splitlines()[-1] == "INFO stopped"
    finally:
        casino.close()


def test_a_shift_change_expects_the_shift_the_rules_core_opens() -> None:
    """The shift a change leaves open, from the state before it (issue 31's numbering):
    the first open is shift 1; an open shift N is closed and N+1 opened; a power cut
    between a close and the open leaves N+1 started and not open, and the change then
    opens N+1 (not N+2)."""
    day = load_bench("casino_day")
    table = Table(RuleSettings(game=GameSettings(big_blind=10, small_blind=5, smallest_chip=5)))

    def counted(action: str) -> None:
        counts = {"5": 100}
        table.apply(
            parse_event(
                {"type": "shift", "action": action, "counts": counts, "by": "S1", "witness": "S2"}
            )
        )

    seen = []
    for cut, change in (([], ["open"]), ([], ["close", "open"]), (["close"], ["open"])):
        for action in cut:  # the power cut's close, its open never keyed
            counted(action)
        before = state_view(table)["shift"]
        for action in change:
            counted(action)
        after = state_view(table)["shift"]
        assert after["open"] is True
        seen.append((before["number"], before["open"], day.next_open(before), after["number"]))
    assert seen == [(0, False, 1, 1), (1, True, 2, 2), (3, False, 3, 3)]


def test_the_shrink_keeps_the_shortest_list_that_still_fails() -> None:
    day = load_bench("casino_day")
    steps = [day.Step("hand", n) for n in range(40)]

    def fails(trial: list[object]) -> bool:  # fails when steps 7 and 31 both run
        return steps[7] in trial and steps[31] in trial

    assert day.shrink(steps, fails, budget=60.0) == [steps[7], steps[31]]


def test_the_shrink_tries_the_last_steps_first() -> None:
    """A break that needs only the steps just before it is found in a few short runs."""
    day = load_bench("casino_day")
    steps = [day.Step("hand", n) for n in range(500)]
    tried: list[int] = []

    def fails(trial: list[object]) -> bool:  # the last step fails after step 496
        tried.append(len(trial))
        return steps[496] in trial and steps[499] in trial

    assert day.shrink(steps, fails, budget=60.0) == [steps[496], steps[499]]
    assert tried[:2] == [2, 4] and max(tried) == 4


def test_a_step_prints_as_it_is_read_back() -> None:
    day = load_bench("casino_day")
    for step in (day.Step("kill", 12, "shift"), day.Step("hand", 3)):
        assert day.Step.parse(str(step)) == step


@pytest.mark.parametrize("seed", range(1, 21))
def test_a_days_plan_holds_its_quotas(seed: int) -> None:
    """The day the issue asks for, for each of the 20 seeds: 300 hands or more, 20
    power cuts, 50 device reseats the daemon sees, 3 shift changes, a push every 30
    minutes of table time; and every device reseated, every moment of a power cut met."""
    day = load_bench("casino_day")
    steps = day.plan(seed=seed)
    kinds = [step.kind for step in steps]
    seen = [s for s in steps if s.kind == "reseat" and s.what != "lights"]  # lights: unseen
    assert kinds.count("hand") >= 300
    assert kinds.count("kill") >= 20 and len(seen) >= 50
    assert kinds.count("shift") >= 1 + 3  # the first open, then one every 8 hours
    assert kinds.count("push") >= 24 * 60 // 30
    assert {s.what for s in steps if s.kind == "reseat"} == set(day.DEVICES)
    assert {s.what for s in steps if s.kind == "kill"} == set(day.MOMENTS)


def test_the_plans_quotas_are_dealt_evenly_on_short_days_too() -> None:
    day = load_bench("casino_day")
    steps = day.plan(seed=3, hands_per_day=40)
    reseats = [s.what for s in steps if s.kind == "reseat"]
    assert len(reseats) == 8 and set(day.DEVICES) <= set(reseats)
    assert reseats.count("lights") <= 2


def test_a_plan_is_its_seeds() -> None:
    day = load_bench("casino_day")
    assert day.plan(seed=5) == day.plan(seed=5) != day.plan(seed=6)
