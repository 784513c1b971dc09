"""What the libraries read, seen from inside the unit's sandbox.

The unit's ``/proc`` options (``ProcSubset=``, ``ProtectProc=``) decide which files of
``/proc`` the service sees. gpiozero identifies the board from
``/proc/device-tree/system/linux,revision`` or ``/proc/cpuinfo`` (``get_pi_revision``,
called by the lgpio pin factory at start-up), and the journal dates records with the
kernel's boot id (``/proc/sys/kernel/random/boot_id``). These tests mount a real procfs
with the unit's options in a private mount namespace (root and ``unshare`` needed),
put a Raspberry Pi 4's ``cpuinfo`` where the kernel shows one, and run the real
library code there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.system_tools import UNDER_CI, needs, require
from tests.test_systemd_unit import UNIT, unit_settings

# slow, out of the edit loop (README, Tests): the service's sandbox in private namespaces
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

#: A Raspberry Pi 4 Model B (4 GB, rev 1.1) running Raspberry Pi OS Bookworm, abridged.
PI4_CPUINFO = textwrap.dedent("""\
    processor\t: 0
    BogoMIPS\t: 108.00
    Features\t: fp asimd evtstrm crc32 cpuid
    CPU implementer\t: 0x41
    CPU part\t: 0xd08

    Revision\t: c03111
    Serial\t\t: 10000000abcdef01
    Model\t\t: Raspberry Pi 4 Model B Rev 1.1
    """)

#: Files of /proc read by the program and its libraries on a Pi, and by whom.
PROC_FILES_READ = {
    "cpuinfo": "gpiozero's get_pi_revision (fallback when the device tree is absent)",
    "device-tree": "gpiozero's get_pi_revision (/proc/device-tree/system/linux,revision)",
    "sys": "the journal's boot id (/proc/sys/kernel/random/boot_id)",
}

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 and not UNDER_CI,
    reason="mounting a procfs with the unit's options needs root (CI runs as root)",
)


def proc_mount_options(text: str) -> str:
    """The procfs mount options systemd gives the service for this unit text."""
    settings = unit_settings(text)
    options = []
    subset = (settings.get("Service.ProcSubset") or ["all"])[-1]
    if subset == "pid":
        options.append("subset=pid")
    protect = (settings.get("Service.ProtectProc") or ["default"])[-1]
    if protect in ("noaccess", "invisible", "ptraceable"):
        options.append(f"hidepid={protect}")
    return ",".join(options) or "defaults"


def in_sandbox_proc(text: str, tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with Python in a mount namespace whose /proc is mounted as the unit
    mounts it, with a Pi 4's cpuinfo bound over the kernel's where one is visible."""
    unshare = require("unshare", "the sandbox /proc tests")
    fake = tmp_path / "cpuinfo"
    fake.write_text(PI4_CPUINFO)
    shell = (
        f"mount -t proc -o {proc_mount_options(text)} proc /proc && "
        f"if [ -e /proc/cpuinfo ]; then mount --bind {fake} /proc/cpuinfo; fi && "
        f'exec "{sys.executable}" -c "$0"'
    )
    return subprocess.run(
        [unshare, "--mount", "--propagation", "private", "sh", "-c", shell, script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


BOARD_DETECTION = textwrap.dedent("""\
    import json
    from gpiozero.pins.local import get_pi_revision
    from gpiozero.pins.pi import PiBoardInfo
    revision = get_pi_revision()
    print(json.dumps({"revision": f"{revision:x}",
                      "model": PiBoardInfo.from_revision(revision).model}))
    """)


@needs_root
@needs("unshare", "the sandbox /proc tests")
def test_gpiozero_identifies_the_board_inside_the_unit(tmp_path: Path) -> None:
    result = in_sandbox_proc(UNIT.read_text(), tmp_path, BOARD_DETECTION)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"revision": "c03111", "model": "4B"}


@needs_root
@needs("unshare", "the sandbox /proc tests")
def test_board_detection_fails_under_proc_subset_pid(tmp_path: Path) -> None:
    # Guards the test above: the sandbox it builds does hide /proc/cpuinfo when asked.
    text = UNIT.read_text() + "\n[Service]\nProcSubset=pid\n"  # as a drop-in would
    result = in_sandbox_proc(text, tmp_path, BOARD_DETECTION)
    assert result.returncode != 0
    assert "/proc/cpuinfo" in result.stderr


@needs_root
@needs("unshare", "the sandbox /proc tests")
def test_every_proc_file_the_program_reads_is_visible_inside_the_unit(tmp_path: Path) -> None:
    script = textwrap.dedent("""\
        import json, os
        from controller.journal.clock import boot_id
        names = sorted(os.listdir("/proc"))
        print(json.dumps({"names": names, "boot_id": boot_id()}))
        """)
    result = in_sandbox_proc(UNIT.read_text(), tmp_path, script)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    # device-tree exists only on boards with a device tree (a Pi, not this machine):
    # it is visible exactly when the other kernel-wide entries are.
    kernel_wide = {name for name in PROC_FILES_READ if name != "device-tree"}
    missing = kernel_wide - set(seen["names"])
    assert not missing, {name: PROC_FILES_READ[name] for name in missing}
    assert seen["boot_id"] != "unknown"
    assert len(seen["boot_id"]) == 36, seen["boot_id"]


#: Device nodes the configuration may name (directly or through /dev/serial/by-id/,
#: /dev/serial/by-path/ and /dev/serial0 links), by the driver name systemd resolves a
#: ``DeviceAllow=char-NAME`` class through (/proc/devices).
DEVICE_CLASSES = {
    "/dev/gpiochip0": "gpiochip",  # the header's pins (gpiochip4 on some Pi 5 kernels)
    "/dev/ttyUSB0": "ttyUSB",  # USB serial adapters (FTDI, CP210x, CH340, PL2303)
    "/dev/ttyACM0": "ttyACM",  # USB CDC-ACM devices
    "/dev/ttyAMA0": "ttyAMA",  # the Pi's PL011 UART (/dev/serial0 on a Pi 5, or a Pi 4
    #                            with dtoverlay=disable-bt)
    "/dev/ttyS0": "ttyS",  # the Pi 4's mini UART (/dev/serial0 with Bluetooth on)
}


def test_every_device_the_configuration_may_name_is_allowed_by_the_unit() -> None:
    from controller.config.files import is_uart

    settings = unit_settings(UNIT.read_text())
    assert settings["Service.DevicePolicy"] == ["closed"]
    allowed = {value.split()[0] for value in settings["Service.DeviceAllow"]}
    for node, driver in DEVICE_CLASSES.items():
        assert f"char-{driver}" in allowed, f"{node} ({driver}) is blocked by DevicePolicy"
    assert is_uart("/dev/serial0") and is_uart("/dev/ttyAMA0") and is_uart("/dev/ttyS0")
    # Nothing hides the device nodes or /proc/devices from the service either.
    for key in ("Service.PrivateDevices",):
        assert settings[key] == ["no"]
    for key in ("Service.InaccessiblePaths", "Service.TemporaryFileSystem"):
        for value in settings.get(key, []):
            assert not any(part.startswith(("/dev", "/proc")) for part in value.split()), value
