#!/bin/sh
# The rules, drivers, journal and config tests on arm64 Debian 12 Bookworm (Python 3.11)
# and Debian 13 Trixie (Python 3.13), what Raspberry Pi OS 64-bit is built on, under
# qemu-user emulation on this machine.
#
#   sudo bench/arm64.sh                   # builds each root once, then runs the tests
#   sudo SUITES=trixie bench/arm64.sh     # one release only
#   sudo WORK=/var/tmp/arm64 bench/arm64.sh
#   sudo bench/arm64.sh tests/test_config.py     # other test paths
#
# 1. installs debootstrap, qemu-user-static and binfmt-support (apt-get) if missing, and
#    turns on qemu's binfmt handler for aarch64;
# then, for each release of $SUITES (default: bookworm trixie):
# 2. builds an arm64 root of it with debootstrap (--variant=minbase, Debian's own
#    packages) in $WORK/SUITE/root, once (about 2.5 minutes each);
# 3. installs the project there as docs/install.md says for plain Debian: a virtual
#    environment with the system's site packages, the program and its test extras, and
#    lgpio from pip (Debian's arm64 archive has no python3-lgpio; lgpio 0.2.2.0 has no
#    wheel for Python 3.13, so on Trixie pip builds it with the compiler, the Python
#    headers and swig the root is built with). pip inside the root uses this machine's
#    pip configuration and CA certificates, copied in (the local package folders they
#    name are bind-mounted read-only);
# 4. runs the tests under emulation and prints the pass counts and the time, also kept
#    in $WORK/SUITE/result.txt; the exit status is the first failing release's.
#
# Not part of CI (it takes minutes); it needs root (debootstrap, mounts).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
WORK=${WORK:-/var/tmp/table-controller-arm64}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SUITES=${SUITES:-bookworm trixie}
for SUITE in $SUITES; do
    case $SUITE in
        bookworm|trixie) ;;
        *) echo "bench/arm64.sh: SUITES: '$SUITE' is not bookworm or trixie" >&2; exit 2 ;;
    esac
done
if [ $# -gt 0 ]; then
    TESTS=$*
else
    TESTS="tests/test_scenarios.py tests/test_rules_properties.py
        tests/test_table_rules_properties.py tests/test_refusal_codes.py
        tests/test_replay_samples.py tests/test_keypad.py tests/test_pushed.py
        tests/test_undo_snapshot.py tests/test_text.py tests/drivers
        tests/test_journal.py tests/test_durable.py tests/test_config.py"
fi

say() { printf 'arm64: %s\n' "$*"; }
if [ "$(id -u)" -ne 0 ]; then
    echo "bench/arm64.sh: run it as root (debootstrap and the mounts need it)" >&2
    exit 1
fi

# --- 1. the tools ------------------------------------------------------------------------
. "$ROOT/release/emulation.sh"
tools debootstrap=debootstrap /usr/bin/qemu-aarch64-static=qemu-user-static \
    update-binfmts=binfmt-support
binfmt aarch64

# --- mounts (each release's undone after it, and on exit) --------------------------------
mounted=""
bind() {  # bind SRC DEST [ro]
    mkdir -p "$2"
    mount --bind "$1" "$2"
    [ "${3:-}" = ro ] && mount -o remount,bind,ro "$2"
    mounted="$2 $mounted"
}
cleanup() {
    for target in $mounted; do umount -l "$target" 2>/dev/null || true; done
    mounted=""
}
trap cleanup EXIT INT TERM

# One release: steps 2 to 4, with SUITE set; leaves its pytest exit status in $status.
one_release() {
OUT=$WORK/$SUITE
CHROOT=$OUT/root
# Bookworm's Python 3.11 has lgpio wheels on PyPI; Trixie's 3.13 builds it from source,
# with the C library inside the module (PYPI=1: lgpio's setup.py then compiles its own
# src/, as for its PyPI wheels; Debian has no liblgpio to link with, and without it the
# build stops at "cannot find -llgpio").
case $SUITE in
    trixie) build_tools=,gcc,libc6-dev,python3-dev,swig lgpio_build=PYPI=1 ;;
    *) build_tools= lgpio_build= ;;
esac

# --- 2. the root -------------------------------------------------------------------------
mkdir -p "$OUT"
if [ ! -x "$CHROOT/usr/bin/python3" ]; then
    rm -rf "$CHROOT"
    started=$(date +%s)
    say "debootstrap $SUITE arm64 into $CHROOT"
    debootstrap --arch=arm64 --variant=minbase \
        --include=python3,python3-venv,ca-certificates$build_tools \
        "$SUITE" "$CHROOT" "$MIRROR" >"$OUT/debootstrap.log" 2>&1 || {
        tail -20 "$OUT/debootstrap.log" >&2
        say "debootstrap $SUITE failed (an old debian-archive-keyring lacks Trixie's key: apt-get install debian-archive-keyring)"
        exit 1; }
    say "root built in $(( $(date +%s) - started )) s"
fi

bind /proc "$CHROOT/proc"
bind /dev "$CHROOT/dev"
bind /dev/pts "$CHROOT/dev/pts"   # the drivers' tests use pseudo-terminals
mkdir -p "$CHROOT/dev/shm" "$CHROOT/tmp"
chmod 1777 "$CHROOT/tmp"
cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"

# This machine's pip configuration and CA certificates, and the local folders they name.
for file in /etc/pip.conf /etc/xdg/pip/pip.conf /etc/xdg/pip/constraints.txt; do
    if [ -f "$file" ]; then
        mkdir -p "$CHROOT$(dirname "$file")"
        cp "$file" "$CHROOT$file"
    fi
done
if [ -d /usr/local/share/ca-certificates ]; then
    cp -r /usr/local/share/ca-certificates/. "$CHROOT/usr/local/share/ca-certificates/" 2>/dev/null || true
fi
cp /etc/ssl/certs/ca-certificates.crt "$CHROOT/etc/ssl/certs/ca-certificates.crt"
folders=$(env | sed -n 's/^PIP_[A-Z_]*=//p'; cat /etc/pip.conf /etc/xdg/pip/pip.conf 2>/dev/null | sed -n 's/^[^=#]*=//p')
for word in $folders; do
    path=${word#file://}
    case $path in
        /*) ;;
        *) continue ;;
    esac
    [ -d "$path" ] || path=$(dirname "$path")
    # A local package index or wheel folder: visible at the same path inside.
    case $path in /opt/*|/srv/*|/var/cache/*|/usr/local/*) [ -d "$path" ] && bind "$path" "$CHROOT$path" ro ;; esac
done
pip_env=$(env | grep '^PIP_' | sed 's/^/export /;s/=\(.*\)$/="\1"/' || true)

# --- 3. the project ----------------------------------------------------------------------
say "copying the project into the root"
rm -rf "$CHROOT/opt/table-controller"
mkdir -p "$CHROOT/opt/table-controller"
tar -C "$ROOT" --exclude=./.venv --exclude=./.git --exclude='__pycache__' \
    --exclude=./.hypothesis --exclude=./.pytest_cache --exclude=./.mypy_cache \
    --exclude=./.ruff_cache --exclude='*.egg-info' --exclude=./build -cf - . |
    tar -C "$CHROOT/opt/table-controller" -xf -
inside() {
    chroot "$CHROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin \
        LANG=C.UTF-8 /bin/sh -c "$pip_env
$1"
}
chroot "$CHROOT" /usr/sbin/update-ca-certificates >/dev/null 2>&1 || true
started=$(date +%s)
inside "set -e
cd /opt/table-controller
[ -x .venv/bin/python ] || python3 -m venv --system-site-packages .venv
env $lgpio_build .venv/bin/pip install -q -e '.[test]' 'lgpio>=0.2'"
# gpiochip_open: the real library, not the empty lgpio 0.0.0.2 placeholder on PyPI (the
# pre-flight check's test; lgpio 0.2 has no SET_BIAS_DISABLE, which 0.1 had and gpiozero
# falls back to)
version=$(inside '/opt/table-controller/.venv/bin/python -c "import platform, lgpio; lgpio.gpiochip_open; from importlib.metadata import version as v; print(platform.machine(), \"Python\", platform.python_version(), \"gpiozero\", v(\"gpiozero\"), \"lgpio\", v(\"lgpio\"))"')
say "$SUITE: installed in $(( $(date +%s) - started )) s: $version"

# --- 4. the tests ------------------------------------------------------------------------
say "$SUITE: running under emulation: $(echo $TESTS | tr -s ' \n' ' ')"
started=$(date +%s)
set +e
inside "cd /opt/table-controller && .venv/bin/python -m pytest -o addopts= -q -p no:cacheprovider $(echo $TESTS | tr -s ' \n' ' ')" \
    >"$OUT/pytest.log" 2>&1
status=$?
set -e
seconds=$(( $(date +%s) - started ))
summary=$(grep -E '(passed|failed|error)' "$OUT/pytest.log" | tail -1)
{
    echo "arm64 Debian $SUITE under qemu-user, $(date -u +%Y-%m-%d): $summary"
    echo "tests: $(echo $TESTS | tr -s ' \n' ' ')"
    echo "time under emulation: $seconds s; pytest exit status $status"
} | tee "$OUT/result.txt"
cleanup
}

final=0
for SUITE in $SUITES; do
    one_release
    [ "$final" -ne 0 ] || final=$status
done
exit $final
