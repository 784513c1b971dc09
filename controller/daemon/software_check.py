"""The daemon's software verification: at start, every ``software.verify_every`` seconds
between hands, and on demand (SIGUSR2: ``systemctl kill -s USR2 table-controller``).

Each check (``controller.software.check``) reads every covered file, so the periodic
and on-demand ones run on a thread of their own and hand their verdict to the loop as
an input (:class:`SoftwareVerdict`); the loop records it in the journal's system log
(``software_check``, with the digest) and locks play when the software is modified or
cannot be verified. Only a bench (every device simulated) plays on an unverified program
(one run from its source checkout, ``pip install -e``, included); a modified one, or one
whose environment loads code from elsewhere (``LD_PRELOAD``, ``PYTHONPATH``...), never
plays. The check reads the files in a Python of its own (``controller.software.check``),
and the daemon's own environment as it started counts.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from controller import lights as looks
from controller import software
from controller.daemon.host import ControllerHost
from controller.faults import SoftwareFault
from controller.rules.text import msg, render

log = logging.getLogger("table-controller")

#: The system log's kind for every verification's result.
SOFTWARE_CHECK = "software_check"


class SoftwareModified(SoftwareFault):
    """What runs differs from the manifest the install recorded (a file changed,
    removed or added): play is locked until the release is installed again."""

    code = "software_modified"
    display = "SOFTWARE MODIFIED"


class SoftwareUnverified(SoftwareFault):
    """What runs cannot be checked (no manifest, or one that cannot be read): play is
    locked until the release is installed again."""

    code = "software_unverified"
    display = "SOFTWARE UNVERIFIED"


@dataclass(frozen=True)
class VerifyNow:
    """An input: verify the software now (on demand)."""

    why: str = "on demand"


@dataclass(frozen=True)
class SoftwareVerdict:
    """An input: a verification's result, from its thread."""

    verdict: software.Verdict
    why: str


def verdict_fault(verdict: software.Verdict, *, bench: bool) -> SoftwareFault | None:
    """The fault a verdict locks play with, or None."""
    if verdict.unverified is not None and not verdict.environment:
        if bench:
            return None
        return SoftwareUnverified(
            f"{verdict.summary()}; digest sha256 {verdict.digest}. Play stays locked: "
            "install the approved release again (systemd/install.sh) and check it with "
            "tablectl verify-software."
        )
    if verdict.ok:
        return None
    return SoftwareModified(
        f"{verdict.summary()}; digest sha256 {verdict.digest}. "
        "Play stays locked: install the approved release again "
        "(systemd/install.sh) and check it with tablectl verify-software."
    )


#: Hex digits of the digest on the display's start screen.
START_DIGEST_DIGITS = 12


def start_screen(verdict: software.Verdict, language: str) -> tuple[str, str]:
    """The dealer display while the daemon starts: the release, and the first digits of
    its digest with the start-up check's result."""
    digest = verdict.digest[:START_DIGEST_DIGITS] or "-"
    return (
        looks.fit(render(msg("display.start", version=software.version()), language)),
        looks.fit(render(msg(f"display.start_software.{verdict.result}", digest=digest), language)),
    )


def log_verdict(verdict: software.Verdict, why: str, *, bench: bool) -> None:
    """One line in the daemon's log for a verification."""
    if verdict.ok:
        log.info(
            "software verified (%s): %s %s, sha256 %s (%d files)",
            why,
            software.DISTRIBUTION,
            software.version(),
            verdict.digest,
            verdict.files,
        )
    elif verdict.unverified is not None and not verdict.environment and bench:
        log.warning("%s (%s); sha256 %s", verdict.summary(), why, verdict.digest)
    else:
        log.error(
            "SOFTWARE %s (%s): sha256 %s: %s",
            verdict.result.upper(),
            why,
            verdict.digest,
            verdict.summary(),
        )


def verify(why: str) -> SoftwareVerdict:
    """One check of what runs (this process's environment counts: the service's)."""
    try:
        verdict = software.check(daemon=True)
    except Exception as error:  # an unreadable environment: unverified, not a crash
        verdict = software.Verdict(
            software.manifest_path(), "", 0, unverified=f"{type(error).__name__}: {error}"
        )
    return SoftwareVerdict(verdict, why)


def check_in_background(why: str, deliver: Callable[[SoftwareVerdict], None]) -> threading.Thread:
    """Verify on a thread of its own; ``deliver`` gets the verdict (the loop's queue)."""
    thread = threading.Thread(
        target=lambda: deliver(verify(why)), name="software-check", daemon=True
    )
    thread.start()
    return thread


class SoftwareCheckMixin(ControllerHost):
    """The controller's periodic and on-demand verification (module docstring)."""

    def schedule_software_check(self) -> None:
        """The next periodic check: ``software.verify_every`` seconds from now."""
        every = int(self.settings.software.verify_every)
        self.software_due_ns = self.clock.now_ns() + every * 1_000_000_000

    def start_software_check(self, why: str) -> None:
        if self.software_running:
            return
        self.software_running = True
        check_in_background(why, self.inputs.put)

    def software_check_if_due(self, now_ns: int, idle: bool) -> None:
        """The periodic check, started between hands with nothing waiting."""
        due = self.software_due_ns
        if due is None or now_ns < due or not idle or self.software_running:
            return
        if self.recorder is not None and self.recorder.table.state.phase != "idle":
            return
        self.schedule_software_check()
        self.start_software_check("periodic")

    def software_verdict(self, item: SoftwareVerdict) -> None:
        """A check's result: logged, recorded with the digest, and play locked if need be."""
        self.software_running = False
        verdict = item.verdict
        log_verdict(verdict, item.why, bench=self.bench)
        self._system_log(SOFTWARE_CHECK, {"why": item.why, **verdict.log_detail()})
        fault = verdict_fault(verdict, bench=self.bench)
        if fault is not None:
            self._enter_fault(fault)
