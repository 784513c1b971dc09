#!/bin/sh
# table-controller: the program's virtual environment, as every install makes it.
#
#   systemd/install-program.sh VENV SOURCE [WHEELHOUSE]
#
# VENV the environment (made if missing; /opt/table-controller/.venv on a board),
# SOURCE the release's folder (its requirements.lock; the program itself when no
# WHEELHOUSE is given), WHEELHOUSE the folder of wheels to install from with no network
# (the release's own table_controller-*.whl and its dependencies). It installs the
# dependencies pinned with their hashes by requirements.lock, the program, lgpio when the
# system has none; takes pip out; writes the manifest of what runs and prints its
# digest (docs/install.md, step 8). systemd/install.sh runs it, and so do the tests and
# anyone who wants the digest of a release: the same steps give the same digest.
# Needs no root.
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: install-program.sh VENV SOURCE [WHEELHOUSE]" >&2
    exit 2
fi
venv=$1
SOURCE=$(cd "$2" && pwd -P)
WHEELHOUSE=
if [ $# -eq 3 ]; then WHEELHOUSE=$(cd "$3" && pwd -P); fi
say() { printf 'install: %s\n' "$*"; }
# Killed right after STEP when a test asks (systemd/install.sh, TABLE_CONTROLLER_INSTALL_KILL_AT).
step() {
    if [ "${TABLE_CONTROLLER_INSTALL_KILL_AT:-}" = "$1" ]; then kill -KILL "${INSTALL_PID:-$$}" $$; fi
}

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    say "virtual environment created"
fi
# The environment owns everything the program imports: it does not see the system's site
# packages (/usr/lib/python3/dist-packages), so a Debian package installed or updated
# on the board (python3-setuptools brings distutils-precedence.pth there) changes neither
# what runs nor the digest, and a python3-yaml from apt never stands in for PyYAML.
# Every dependency, lgpio included, goes into the environment, where the software
# verification covers it.
system_site() {
    sed -i "s/^include-system-site-packages = .*/include-system-site-packages = $1/" \
        "$venv/pyvenv.cfg"
}
system_site false
# pip is taken out of the environment after each install (below): bring it back.
if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    "$venv/bin/python" -m ensurepip >/dev/null
fi
# The dependencies exactly as the release pinned them: requirements.lock lists every
# one with the SHA-256 of each file pip may install (systemd/lock.py wrote it); any
# other file is refused. Then the program itself, reinstalled even at the same version.
lock="$SOURCE/requirements.lock"
if [ -n "$WHEELHOUSE" ]; then
    # The release's own wheel (made with `pip wheel --no-deps`) and its dependencies,
    # all from the wheelhouse.
    set -- "$WHEELHOUSE"/table_controller-*.whl
    if [ ! -f "$1" ]; then
        echo "install-program.sh: no table_controller-*.whl in $WHEELHOUSE (docs/install.md)" >&2
        exit 1
    fi
    "$venv/bin/python" -m pip install --quiet --no-index --find-links "$WHEELHOUSE" \
        --require-hashes --no-deps -r "$lock"
    step dependencies
    "$venv/bin/python" -m pip install --quiet --no-index --force-reinstall --no-deps "$1"
else
    "$venv/bin/python" -m pip install --quiet --require-hashes --no-deps -r "$lock"
    step dependencies
    "$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$SOURCE"
fi
say "program installed in $venv"
# lgpio pinned with the SHA-256 the wheelhouse's SHA256SUMS gives each of its wheels (the
# bundle's, written by release/build.py): pip refuses any other file, as for the lock.
# Only the wheels for the environment's Python (cp311, cp313).
gpio_requirement() {
    tag=$("$venv/bin/python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
    if [ -f "$WHEELHOUSE/SHA256SUMS" ]; then
        sed -n "s/^\([0-9a-f]\{64\}\)  lgpio-\([^-]*\)-$tag-.*\.whl\$/\2 \1/p" "$WHEELHOUSE/SHA256SUMS" |
            awk '{ version = $1; hashes = hashes " --hash=sha256:" $2 }
                END { if (version) print "lgpio==" version hashes }'
    fi
}
# gpiozero's pin library, lgpio: its wheel (aarch64, armv7 and x86_64 wheels exist for
# Python 3.11) goes into the environment, from the wheelhouse when given (Raspberry Pi
# OS's python3-lgpio from apt is the system's: not seen, not used).
if ! "$venv/bin/python" -c 'import lgpio' 2>/dev/null; then
    if [ -n "$WHEELHOUSE" ] && [ -n "$(gpio_requirement)" ]; then
        pinned=$(mktemp)
        gpio_requirement >"$pinned"
        "$venv/bin/python" -m pip install --quiet --no-index --find-links "$WHEELHOUSE" \
            --require-hashes --no-deps -r "$pinned" || { rm -f "$pinned"; exit 1; }
        rm -f "$pinned"
        say "lgpio installed from the wheelhouse"
    elif [ -n "$WHEELHOUSE" ] && ls "$WHEELHOUSE"/lgpio-*.whl >/dev/null 2>&1; then
        say "warning: lgpio is not installed: no lgpio wheel of the wheelhouse is for this Python with its SHA-256 in SHA256SUMS (release/build.py writes it; --gpio-wheel)"
    elif [ -z "$WHEELHOUSE" ] && case $(uname -m) in aarch64|armv7l) true ;; *) false ;; esac; then
        "$venv/bin/python" -m pip install --quiet lgpio && say "lgpio installed"
    else
        say "warning: lgpio is not installed: the GPIO pins will not open (put an lgpio wheel for this Python in the wheelhouse)"
    fi
fi

# --- the manifest (software verification) ---------------------------------------------
# pip is no part of what runs: out of the environment, so that the digest covers the
# program, its dependencies and start hooks only (and the start-up check reads half as
# many files). The manifest's step compiles every module the same way on every install
# (hash-checked .pyc files), then records every file with its SHA-256.
"$venv/bin/python" -m pip uninstall --quiet --yes pip >/dev/null 2>&1 || true
"$venv/bin/tablectl" verify-software --write-manifest >/dev/null
say "manifest of what runs written ($venv/table-controller.manifest)"
"$venv/bin/tablectl" verify-software | sed -n 's/^sha256: /install: software digest (sha256) /p'
