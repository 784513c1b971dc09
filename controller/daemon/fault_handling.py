"""How the controller loop takes a fault or an alarm (a mixin of ``loop.Controller``):
the log, the journal's system log, the display and, with a floor link, the floor.

A sticky fault (``controller.faults``) is entered once: logged, put in the system log
(``fault_entry``), told to the floor in the link status, shown. Device faults and
their clearing go to the journal's system log, the display and the floor (a fault
message queued in the outbox); a device reported again at fault in other words is the
same fault. A device lost or back is also a journalled ``device`` event (before its
floor message, which carries its seq): the rules stop play while the keypad or the
display is lost (``controller.rules.stopped``). A tray alarm raised, changed or cleared goes
to the log and the system log. The floor link's trouble (down, its outbox alarm, a
broker refusing messages) is shown on the dealer display after any puck or tray
alert, and its ups and downs go to the system log; the publisher's thread tells the
loop through the queue (``LinkNotice``), so nothing here polls it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from controller import device_faults
from controller import tray as tray_check
from controller.daemon.host import ControllerHost
from controller.daemon.inputs import DeviceNotice
from controller.daemon.outputs import FAULT_LINE
from controller.daemon.recorder import describe
from controller.faults import Fault
from controller.journal import JournalIntegrityError, LogKind
from controller.rules import stopped
from controller.rules.events import DEVICES

log = logging.getLogger("table-controller")


class FaultHandlingMixin(ControllerHost):
    """Sticky faults, device faults, tray alarms and the floor link's trouble."""

    def _lock_error(self) -> dict[str, str]:
        """Why an input is refused while play is locked: the fault's own code and words."""
        if self.fault is not None:
            return self.fault.lock_error()
        return {"code": "memory_fault", "message": FAULT_LINE}  # no journal at all

    def _enter_fault(self, fault: Fault) -> None:
        if self.fault is not None:
            return
        self.fault = fault
        if self.recorder is not None:
            self.recorder.fault = fault
        log.error("%s %s: %s", fault.kind, fault.code, fault.message)
        self._system_log(*fault_entry(fault))
        if self.publisher is not None:  # the link status tells the floor
            try:
                self.publisher.set_fault(fault.code)
            except Exception as error:  # the floor link must never stop the table
                log.warning("floor: the fault was not sent: %s", describe(error))
        self._show()

    def _device_notice(self, notice: DeviceNotice) -> None:
        """A device fault raised or cleared: the dealer gets the fault's words, the log
        and the journal's system log its detail, the floor one message each way. A
        device already at fault that the driver reports again in other words (an
        unplugged keypad is first lost, then missing) is the same fault: only the log
        hears the new detail."""
        faults = self.display.device_faults if self.display.device_faults is not None else {}
        device = notice.device
        current = faults.get(device)
        if notice.message is None:
            if current is None:
                return
            del faults[device]
            if device == "puck":
                self.display.puck_fault_seats = ()
            log.info("device %s works again (%s cleared)", device, current)
            self._system_log(LogKind.DEVICE_CLEAR, {"device": device, "code": current})
            self._journal_device(device, current, None)
            self._publish_fault(device, current, active=False, detail=None)
            self.outputs.redrive()  # it may have lost what it showed
        else:
            code = notice.code or device_faults.lost(device)
            if device == "puck":
                self.display.puck_fault_seats = notice.seats
            if current == code:
                log.warning("device %s still at fault (%s): %s", device, code, notice.message)
                self._show()  # the seats of a puck fault may have changed
                return
            log.warning("device %s fault %s: %s", device, code, notice.message)
            self._system_log(
                LogKind.DEVICE_FAULT, {"device": device, "code": code, "message": notice.message}
            )
            self._journal_device(device, current, code)
            if current is not None:  # another fault of the same device: the old one ends
                self._publish_fault(device, current, active=False, detail=None)
            faults[device] = code
            self._publish_fault(device, code, active=True, detail=notice.message)
        self.display.device_faults = faults
        if self.publisher is not None:  # the retained link status says what is in force
            try:
                self.publisher.set_device_faults(dict(faults))
            except Exception as error:  # the floor link must never stop the table
                log.warning("floor: the device faults were not sent: %s", describe(error))
        self._show()

    def _journal_device(self, device: str, before: str | None, after: str | None) -> None:
        """A device lost (its ``<device>_lost`` fault) or back: a ``device`` event,
        journalled and folded like any input, so that replay knows when play was
        stopped (``controller.rules.stopped``). Another fault of the device (the puck
        seen at two seats) is no loss; a device the rules do not name is not told."""
        if device not in DEVICES:
            return
        lost = device_faults.lost(device)
        was, now = before == lost, after == lost
        if was != now:
            status = "lost" if now else "back"
            self.submit({"type": "device", "device": device, "status": status}, source=device)

    def reconcile_devices(self, working: Callable[[str], bool]) -> None:
        """At start: a device the recovered state has lost, that works now
        (``working``), is journalled back; one still lost is reported by its driver."""
        if self.recorder is None or self.fault is not None:
            return
        faults = self.display.device_faults or {}
        for device in stopped.devices(self.recorder.table.state):
            if device not in faults and working(device):
                self.submit({"type": "device", "device": device, "status": "back"}, source=device)

    def door_reading(self, status: str) -> None:
        """The door switch settled ``open`` or ``closed``: a ``door`` event, journalled
        when the state says otherwise (a change, or the first reading after start finding
        the door not as the journal left it); the same reading again is no news. While
        play is locked nothing is journalled, but the log and the system log hear it."""
        if self.recorder is None or self.fault is not None:
            log.warning("door %s (play is locked: not journalled)", status)
            self._system_log(LogKind.DOOR, {"status": status, "seq": None})
            return
        if ("door_open" in self.recorder.table.state.play_stopped) == (status == "open"):
            return
        self.submit({"type": "door", "status": status}, source="door")

    def reconcile_door(self, has_switch: bool) -> None:
        """At start: a journal that left the door open on a table configured without a
        door switch any more is journalled closed (no switch can close it again)."""
        if has_switch or self.recorder is None or self.fault is not None:
            return
        if "door_open" in self.recorder.table.state.play_stopped:
            log.warning("the journal left the door open and hardware.door has no pin: closed")
            self.submit({"type": "door", "status": "closed"}, source="door")

    def _log_tray_change(self, tray: tray_check.TrayStatus) -> None:
        """A tray alarm raised, changed or cleared since the last show: the log and the
        system log (``tray_alarm`` / ``tray_clear``)."""
        before = self.last_shown.tray if self.last_shown is not None else None
        if before is None:
            return
        for line in tray_check.changes(before, tray):
            (log.warning if tray.alarm else log.info)("%s", line)
            detail: dict[str, Any] = {
                "counted": tray.counted,
                "expected": tray.expected,
                "difference": tray.difference,
            }
            if "acknowledged by" in line:
                detail["by"] = tray.acknowledged_by
            self._system_log(line.split(":", 1)[0], detail)

    def _system_log(self, kind: str, detail: dict[str, Any]) -> None:
        if self.journal is None:
            return
        try:
            self.journal.log_system(kind, detail)
        except Exception as error:  # the log must not stop play
            log.warning("system log entry %s not recorded: %s", kind, describe(error))

    # -- the floor link ------------------------------------------------------------------

    def _publish_fault(self, device: str, code: str, *, active: bool, detail: Any) -> None:
        """A fault raised or cleared, to the floor: queued in the outbox in a transaction
        of its own, with the journal's last seq (so retention prunes it with the events
        around it), claimed by a ``floor_queued`` system log entry."""
        publisher = self.publisher
        if publisher is None or self.journal is None:
            return
        try:
            from controller.floor.messages import fault_message

            seq = self.journal.last_seq
            publisher.enqueue_claimed(
                self.journal,
                [
                    fault_message(
                        publisher.topics, code, device=device, active=active, detail=detail, seq=seq
                    )
                ],
                about="fault",
            )
        except Exception as error:  # the floor link must never stop play
            log.warning(
                "floor: the %s %s message was not queued: %s",
                code,
                "fault" if active else "clear",
                describe(error),
            )

    def _link_alert(self) -> str | None:
        """The link indicator while the link is in trouble (down, alarm, refused
        messages); None while it is healthy or still making its first connection."""
        if self.link_problem is not None:
            return self.link_problem
        if self.publisher is None:
            return None
        status = self.publisher.status()
        trouble = status.alarm or status.overflowed or status.last_error is not None
        if not trouble and (status.link == "up" or not self._link_tried):
            return None
        return str(status.indicator())

    def _link_notice(self, status: Any) -> None:
        """The publisher says the link changed: the system log records each time it
        goes down or comes up and each change of its outbox alarm; the display follows."""
        if status.link == "up" or status.last_error is not None:
            self._link_tried = True
        if status.link == "up":
            link = "up"
        else:
            link = "down" if self._link_tried else "connecting"
        state = (link, bool(status.alarm), bool(status.overflowed))
        if state != self._link_logged:
            self._link_logged = state
            if link != "connecting" or status.alarm or status.overflowed:
                self._system_log(
                    LogKind.FLOOR_LINK,
                    {
                        "link": status.link,
                        "reason": status.last_error,
                        "unsent": status.unsent,
                        "alarm": status.alarm,
                        "overflowed": status.overflowed,
                    },
                )
        self._show()


def fault_entry(fault: Fault) -> tuple[str, dict[str, Any]]:
    """A sticky fault's system log entry: a failed ``integrity`` check for damage to the
    journal, a ``fault`` (with its kind) for a storage or software fault."""
    problem = {"code": fault.code, "message": fault.message}
    if isinstance(fault, JournalIntegrityError):
        return LogKind.INTEGRITY, {"ok": False, "problems": [problem]}
    return LogKind.FAULT, {"kind": fault.kind, **problem}
