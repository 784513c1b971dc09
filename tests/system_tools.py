"""The system (Debian) packages some tests need, and what a test does when one is missing.

Under CI (``CI=true``, set by ``.ci/run``, which installs them all with apt-get) a
missing tool is a failure: the test runs and says what was not found. Anywhere else
(a developer's fresh machine) the test is skipped with a message naming the Debian
package to install, so the README's test command passes there and says what it did not
cover.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

UNDER_CI = os.environ.get("CI", "").lower() == "true"

#: command -> Debian package that provides it (the names .ci/run installs).
PACKAGES = {
    "mosquitto": "mosquitto",
    "mosquitto_passwd": "mosquitto",
    "mosquitto_sub": "mosquitto-clients",
    "strace": "strace",
    "tmux": "tmux",
    "systemd-analyze": "systemd",
    "chromium": "chromium",
    "chromedriver": "chromium-driver",
    "unshare": "util-linux",
    "nsenter": "util-linux",
    "systemd-nspawn": "systemd-container",
    "debootstrap": "debootstrap",
    "openssl": "openssl",
    "faketime": "faketime",
    "ssh-keygen": "openssh-client",
}


def find(command: str) -> str | None:
    """The command's path, also looking in the sbin folders a non-root PATH lacks."""
    found = shutil.which(command)
    if found:
        return found
    for folder in ("/usr/sbin", "/sbin", "/usr/local/sbin"):
        candidate = Path(folder) / command
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def skip_reason(command: str, purpose: str) -> str:
    package = PACKAGES.get(command, command)
    return (
        f"{command} is not installed: sudo apt-get install {package} "
        f"(needed for {purpose}; CI installs it in .ci/run)"
    )


def needs(command: str, purpose: str) -> pytest.MarkDecorator:
    """Skip when ``command`` is missing, except under CI, where the test then fails."""
    return pytest.mark.skipif(
        find(command) is None and not UNDER_CI, reason=skip_reason(command, purpose)
    )


def require(command: str, purpose: str) -> str:
    """The command's path, inside a test or fixture: skipped or failed as :func:`needs`."""
    found = find(command)
    if found is None:
        message = skip_reason(command, purpose)
        if UNDER_CI:
            pytest.fail(message)
        pytest.skip(message)
    return found
