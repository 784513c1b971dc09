#!/bin/sh
# table-controller: install (or update) the program and its service on this board.
#
# What docs/install.md would otherwise have the technician type, in one idempotent
# script: run it again after an update, or to repair an install; it keeps the table's
# configuration, its PIN file and its journal.
#
#   sudo /path/to/release/systemd/install.sh [--wheelhouse DIR] [--enable]
#
#   --wheelhouse DIR   install the Python packages from DIR only (no network): wheels
#                      made on another machine with `pip download` (docs/install.md)
#   --enable           also enable and start the service (otherwise it prints the
#                      steps to take first: configuration, check-config, selftest)
#   DESTDIR=/scratch   install into a scratch root instead of / (tests, images); no
#                      systemctl is run there. Into a root with no /etc/group (an
#                      image being staged in an empty folder) the accounts are left to
#                      systemd-sysusers and systemd-tmpfiles on the board, and the
#                      environment names /opt/table-controller, where it runs
#
# Steps: the groups gpio and dialout (created if missing) and the system user tablectl
# in both; /opt/table-controller (the program, root-owned), /etc/table-controller
# (root:tablectl 0750), /var/lib/table-controller (tablectl 0750); the virtual
# environment with the program installed in it; the unit and the modules-load file; the
# configuration from config/table.example.yaml when there is none; the manifest of the
# installed files with their SHA-256 (`tablectl verify-software`).
set -eu

PREFIX=/opt/table-controller
CONF_DIR=/etc/table-controller
STATE_DIR=/var/lib/table-controller
USER_NAME=tablectl
SOURCE=$(cd "$(dirname "$0")/.." && pwd -P)
DESTDIR=${DESTDIR:-}
WHEELHOUSE=
ENABLE=no

while [ $# -gt 0 ]; do
    case $1 in
        --wheelhouse) WHEELHOUSE=$(cd "$2" && pwd -P); shift 2 ;;
        --enable) ENABLE=yes; shift ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

say() { printf 'install: %s\n' "$*"; }
at() { printf '%s%s' "$DESTDIR" "$1"; }

if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run it as root (sudo)" >&2
    exit 1
fi
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "install.sh: Python 3.11 or later is needed (Raspberry Pi OS Bookworm has it)" >&2
    exit 1
fi

# --- groups and user ------------------------------------------------------------------
# useradd/groupadd --prefix edit DESTDIR's /etc files (no chroot). A DESTDIR with no
# /etc/group is an image being staged: the accounts are made on the board, by
# systemd-sysusers and systemd-tmpfiles from the files installed below, and everything
# here is root's until then.
STAGED=no
if [ -n "$DESTDIR" ] && [ ! -e "$DESTDIR/etc/group" ]; then
    STAGED=yes
fi
prefix_args() { if [ -n "$DESTDIR" ]; then printf -- '--prefix\n%s\n' "$DESTDIR"; fi; }
has_group() { grep -q "^$1:" "$(at /etc/group)"; }
has_user() { grep -q "^$1:" "$(at /etc/passwd)"; }

uid=0
gid=0
for group in gpio dialout; do
    [ "$STAGED" = yes ] && break
    if ! has_group "$group"; then
        # shellcheck disable=SC2046
        groupadd $(prefix_args) --system "$group"
        say "group $group created"
    fi
done
if [ "$STAGED" = no ] && ! has_user "$USER_NAME"; then
    # shellcheck disable=SC2046
    useradd $(prefix_args) --system --user-group --no-create-home \
        --home-dir "$STATE_DIR" --shell /usr/sbin/nologin "$USER_NAME"
    say "user $USER_NAME created"
fi
in_group() { grep -q "^$1:[^:]*:[^:]*:\(.*,\)\{0,1\}$USER_NAME\(,.*\)\{0,1\}$" "$(at /etc/group)"; }
if [ "$STAGED" = no ] && { ! in_group gpio || ! in_group dialout; }; then
    # shellcheck disable=SC2046
    usermod $(prefix_args) -aG gpio,dialout "$USER_NAME"
    say "user $USER_NAME added to gpio and dialout"
fi
# Owners by number, from the target's own files (DESTDIR's, not this machine's).
if [ "$STAGED" = no ]; then
    uid=$(awk -F: -v u="$USER_NAME" '$1 == u { print $3 }' "$(at /etc/passwd)")
    gid=$(awk -F: -v u="$USER_NAME" '$1 == u { print $3 }' "$(at /etc/group)")
else
    say "staged: the accounts are made on the board (systemd-sysusers, systemd-tmpfiles)"
fi

# --- directories ----------------------------------------------------------------------
install -d -o 0 -g 0 -m 0755 "$(at "$PREFIX")"
install -d -o 0 -g "$gid" -m 0750 "$(at "$CONF_DIR")"
install -d -o "$uid" -g "$gid" -m 0750 "$(at "$STATE_DIR")"

# --- the program ----------------------------------------------------------------------
target=$(at "$PREFIX")
if [ "$SOURCE" != "$(cd "$target" && pwd -P)" ]; then
    # A fresh copy of the release: files removed from it do not linger. The virtual
    # environment is kept (it is rebuilt below).
    find "$target" -mindepth 1 -maxdepth 1 ! -name .venv -exec rm -rf {} +
    tar -C "$SOURCE" --exclude=./.venv --exclude=./.git --exclude=./state \
        --exclude='__pycache__' --exclude=./.hypothesis --exclude=./.pytest_cache \
        --exclude=./.mypy_cache --exclude=./.ruff_cache --exclude='*.egg-info' \
        --exclude=./build -cf - . | tar -C "$target" --no-same-owner -xf -
    chown -R 0:0 "$target"
    chmod -R go-w "$target"
    say "program copied to $PREFIX"
fi
# The virtual environment, the program and its dependencies in it, the manifest of what
# runs and its digest: systemd/install-program.sh, the same steps wherever a release is
# installed.
# With DESTDIR the environment is made and checked where it is (its scripts' first line,
# pyvenv.cfg and activate name that path: the manifest reads it as {prefix}), then made
# to name the path it runs from on the board; a second run turns it back first.
venv_path() {  # FROM TO: the environment's own path, as its text files write it
    grep -rlF --exclude='*.pyc' --exclude='*.so' "$1" "$target/.venv" | while read -r file; do
        sed -i -e "s|^$1|$2|g" -e "s|\([^A-Za-z0-9._/-]\)$1|\1$2|g" "$file"
    done
}
if [ -n "$DESTDIR" ] && [ -d "$target/.venv" ]; then
    venv_path "$PREFIX/.venv" "$target/.venv"
fi
"$SOURCE/systemd/install-program.sh" "$target/.venv" "$SOURCE" ${WHEELHOUSE:+"$WHEELHOUSE"}
if [ -n "$DESTDIR" ]; then
    venv_path "$target/.venv" "$PREFIX/.venv"
fi

# --- the unit, the modules, the configuration -----------------------------------------
install -d -m 0755 "$(at /etc/systemd/system)" "$(at /etc/modules-load.d)"
install -o 0 -g 0 -m 0644 "$SOURCE/systemd/table-controller.service" \
    "$(at /etc/systemd/system/table-controller.service)"
install -o 0 -g 0 -m 0644 "$SOURCE/systemd/table-controller.modules-load.conf" \
    "$(at /etc/modules-load.d/table-controller.conf)"
# /dev/gpiochip* to the gpio group (Raspberry Pi OS's own rules do the same; plain
# Debian leaves them root-only).
install -d -m 0755 "$(at /usr/lib/sysusers.d)" "$(at /usr/lib/tmpfiles.d)"
install -o 0 -g 0 -m 0644 "$SOURCE/systemd/table-controller.sysusers.conf" \
    "$(at /usr/lib/sysusers.d/table-controller.conf)"
install -o 0 -g 0 -m 0644 "$SOURCE/systemd/table-controller.tmpfiles.conf" \
    "$(at /usr/lib/tmpfiles.d/table-controller.conf)"
install -d -m 0755 "$(at /etc/udev/rules.d)"
install -o 0 -g 0 -m 0644 "$SOURCE/systemd/60-table-controller-gpio.rules" \
    "$(at /etc/udev/rules.d/60-table-controller-gpio.rules)"
if [ ! -e "$(at "$CONF_DIR/table.yaml")" ]; then
    install -o 0 -g "$gid" -m 0640 "$SOURCE/config/table.example.yaml" \
        "$(at "$CONF_DIR/table.yaml")"
    say "configuration $CONF_DIR/table.yaml made from the example: edit it"
else
    say "configuration $CONF_DIR/table.yaml kept"
fi

if [ -n "$DESTDIR" ]; then
    say "done (in $DESTDIR; check: systemd-analyze verify --root=$DESTDIR /etc/systemd/system/table-controller.service)"
    exit 0
fi
systemctl daemon-reload
udevadm control --reload 2>/dev/null && udevadm trigger --subsystem-match=gpio 2>/dev/null || true
systemd-analyze verify /etc/systemd/system/table-controller.service
if [ "$ENABLE" = yes ]; then
    systemctl enable --now table-controller
    say "service enabled and started"
else
    say "next: sudoedit $CONF_DIR/table.yaml, then"
    say "  sudo -u $USER_NAME $PREFIX/.venv/bin/tablectl check-config $CONF_DIR/table.yaml"
    say "  the selftest (docs/install.md, step 6), then sudo systemctl enable --now table-controller"
fi
