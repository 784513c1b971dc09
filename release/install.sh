#!/bin/sh
# table-controller: install the release from its bundle, with no network.
#
#   tar -xzf table-controller-VERSION-ARCH.tar.gz && sudo table-controller-VERSION-ARCH/release/install.sh [--enable]
#
# The pre-flight check first (release/preflight.py: Python, architecture, venv, the real
# GPIO library, free space, system commands; each failure one line saying what to do),
# then systemd/install.sh from the bundle's wheels only (docs/install.md, step 2).
set -eu
BUNDLE=$(cd "$(dirname "$0")/.." && pwd -P)
python3 "$BUNDLE/release/preflight.py" --wheels "$BUNDLE/wheels"
exec "$BUNDLE/systemd/install.sh" --wheelhouse "$BUNDLE/wheels" "$@"
