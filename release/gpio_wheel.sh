#!/bin/sh
# lgpio's wheels for Python 3.13 (Debian 13 Trixie, Raspberry Pi OS Trixie), which PyPI
# does not have, built from lgpio's source in a Debian Trixie root of each architecture
# under qemu-user emulation, the same bytes on every run and every machine; checked
# against the SHA-256 that release/gpio-wheels.sha256 pins, and left where
# release/build.py takes them (docs/install.md, "Building the bundles").
#
#   sudo release/gpio_wheel.sh                  # arm64 and armhf, into dist/gpio-wheels
#   sudo release/gpio_wheel.sh arm64            # one architecture
#   sudo release/gpio_wheel.sh --pin arm64 armhf   # write the wheels' SHA-256 into the pins
#   sudo WORK=/var/tmp/gpio OUT=/tmp/wheels release/gpio_wheel.sh
#
# 1. installs debootstrap, qemu-user-static and binfmt-support (apt-get) if missing, and
#    turns on qemu's binfmt handler of each architecture;
# 2. lgpio's source (lgpio-0.2.2.0.tar.gz) from the package index, checked against the
#    SHA-256 the pins give it (pip download --require-hashes);
# for each architecture:
# 3. a Debian Trixie root of it (debootstrap --variant=minbase, Debian's own packages:
#    python3-dev, gcc, swig, setuptools), once, in $WORK/trixie-ARCH/root (3 to 6 minutes
#    under emulation); the versions of the tools it holds are printed;
# 4. the wheel built there with no network (systemd-nspawn --private-network): the source
#    unpacked at the same path every time, its C files listed in sorted order (lgpio's
#    setup.py takes them in directory order, which differs between filesystems),
#    PYPI=1 (the C library inside the module, as on PyPI: Debian has no liblgpio),
#    SOURCE_DATE_EPOCH fixed, Debian's setuptools (pip wheel --no-build-isolation);
# 5. the wheel into $OUT, its SHA-256 printed and compared with the pins: exit status 1
#    when it differs (another Debian point release's compiler or swig: build on the
#    pinned one, or --pin after review, and commit the pins with the release).
#
# Needs root (debootstrap, systemd-nspawn). Not part of CI (minutes under emulation);
# tests/test_gpio_wheels.py runs it when TABLE_CONTROLLER_EMULATION=1.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
PINS=$ROOT/release/gpio-wheels.sha256
WORK=${WORK:-/var/tmp/table-controller-gpio}
OUT=${OUT:-$ROOT/dist/gpio-wheels}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SUITE=trixie
LGPIO=lgpio-0.2.2.0
# The time in every wheel (systemd/lock.py's for PyYAML's pure wheel).
SOURCE_DATE_EPOCH=1700000000
TOOLS=python3,python3-dev,python3-venv,python3-pip,python3-setuptools,python3-wheel,gcc,libc6-dev,swig
PIN=no
if [ "${1:-}" = --pin ]; then PIN=yes; shift; fi
ARCHES=${*:-arm64 armhf}
say() { printf 'gpio-wheel: %s\n' "$*"; }
for arch in $ARCHES; do
    case $arch in
        arm64|armhf|amd64) ;;
        *) echo "gpio_wheel.sh: '$arch' is not arm64, armhf or amd64" >&2; exit 2 ;;
    esac
done
if [ "$(id -u)" -ne 0 ]; then
    echo "gpio_wheel.sh: run it as root (debootstrap and systemd-nspawn need it)" >&2
    exit 1
fi
qemu() {  # ARCH: qemu's name of it, none for this machine's own
    case $1 in arm64) echo aarch64 ;; armhf) echo arm ;; *) echo ;; esac
}

# --- 1. the tools ------------------------------------------------------------------------
. "$ROOT/release/emulation.sh"
tools debootstrap=debootstrap systemd-nspawn=systemd-container \
    /usr/bin/qemu-aarch64-static=qemu-user-static update-binfmts=binfmt-support
for arch in $ARCHES; do
    [ -z "$(qemu "$arch")" ] || binfmt "$(qemu "$arch")"
done

# --- 2. the source -----------------------------------------------------------------------
source_sha=$(awk -v f="$LGPIO.tar.gz" '$2 == f { print $1 }' "$PINS")
if [ -z "$source_sha" ]; then
    echo "gpio_wheel.sh: $PINS pins no $LGPIO.tar.gz" >&2
    exit 1
fi
mkdir -p "$WORK/source" "$OUT"
if [ ! -f "$WORK/source/$LGPIO.tar.gz" ]; then
    printf '%s --hash=sha256:%s\n' "$(echo "$LGPIO" | sed 's/-/==/')" "$source_sha" >"$WORK/source.txt"
    python3 -m pip download --quiet --no-deps --no-binary :all: --require-hashes \
        -r "$WORK/source.txt" -d "$WORK/source"
fi
echo "$source_sha  $WORK/source/$LGPIO.tar.gz" | sha256sum -c --quiet

# --- 3. to 5., each architecture -----------------------------------------------------------
status=0
one_arch() {  # ARCH
    arch=$1
    chroot=$WORK/$SUITE-$arch/root
    if [ ! -x "$chroot/usr/bin/swig" ] || [ ! -x "$chroot/usr/bin/python3" ]; then
        rm -rf "$chroot"
        mkdir -p "$(dirname "$chroot")"
        started=$(date +%s)
        say "debootstrap $SUITE $arch into $chroot"
        debootstrap --arch="$arch" --variant=minbase --include="$TOOLS" \
            "$SUITE" "$chroot" "$MIRROR" >"$WORK/$SUITE-$arch/debootstrap.log" 2>&1 || {
            tail -20 "$WORK/$SUITE-$arch/debootstrap.log" >&2
            say "debootstrap $SUITE $arch failed (an old debian-archive-keyring lacks Trixie's key: apt-get install debian-archive-keyring)"
            return 1; }
        say "root built in $(( $(date +%s) - started )) s"
    fi
    tools=$(chroot "$chroot" dpkg-query -W -f '${Package} ${Version}, ' \
        python3.13-dev gcc-14 swig binutils python3-setuptools python3-wheel libc6-dev 2>/dev/null |
        sed 's/, $//')
    say "$arch: built with $tools"
    rm -rf "$chroot/build"
    mkdir -p "$chroot/build/out"
    tar -xzf "$WORK/source/$LGPIO.tar.gz" -C "$chroot/build" --no-same-owner
    # setup.py: the C files in sorted order, whatever the filesystem's listing order.
    sed -i "s/\[str(p) for p in Path('src').glob('lg\*.c')\]/sorted(str(p) for p in Path('src').glob('lg*.c'))/" \
        "$chroot/build/$LGPIO/setup.py"
    grep -q "sorted(str(p) for p in Path('src')" "$chroot/build/$LGPIO/setup.py" || {
        echo "gpio_wheel.sh: $LGPIO's setup.py is not the one this script knows" >&2; return 1; }
    find "$chroot/build/$LGPIO" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    started=$(date +%s)
    systemd-nspawn -q --register=no --keep-unit --private-network -D "$chroot" \
        --chdir="/build/$LGPIO" --setenv=PYPI=1 --setenv=SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" \
        --setenv=LC_ALL=C.UTF-8 --setenv=PYTHONHASHSEED=0 \
        python3 -m pip wheel --quiet --no-deps --no-index --no-build-isolation \
        --disable-pip-version-check --no-cache-dir -w /build/out . >"$WORK/$SUITE-$arch/build.log" 2>&1 || {
        tail -20 "$WORK/$SUITE-$arch/build.log" >&2
        say "$arch: the build failed ($WORK/$SUITE-$arch/build.log)"
        return 1; }
    set -- "$chroot"/build/out/lgpio-*-cp313-*.whl
    [ -f "$1" ] || { say "$arch: no cp313 wheel was made"; return 1; }
    wheel=$(basename "$1")
    cp "$1" "$OUT/$wheel"
    sha=$(sha256sum "$OUT/$wheel" | cut -c1-64)
    say "$arch: $OUT/$wheel built in $(( $(date +%s) - started )) s"
    say "$arch: sha256 $sha"
    pinned=$(awk -v f="$wheel" '$2 == f { print $1 }' "$PINS")
    if [ "$PIN" = yes ]; then
        grep -v "  $wheel\$" "$PINS" >"$PINS.new" || true
        printf '%s  %s\n' "$sha" "$wheel" >>"$PINS.new"
        mv "$PINS.new" "$PINS"
        say "$arch: pinned in $PINS"
    elif [ "$sha" = "$pinned" ]; then
        say "$arch: the wheel $PINS pins"
    else
        say "$arch: DIFFERS from the wheel $PINS pins (${pinned:-none}): not for a release"
        status=1
    fi
}
for arch in $ARCHES; do
    one_arch "$arch" || status=1
done
exit $status
