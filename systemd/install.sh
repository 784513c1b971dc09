#!/bin/sh
# table-controller: install (or update) the program and its service on this board.
#
# What docs/install.md would otherwise have the technician type, in one idempotent
# script: run it again after an update, or to repair an install; it keeps the table's
# configuration, its PIN file and its journal.
#
#   sudo /path/to/release/systemd/install.sh [--wheelhouse DIR] [--enable] [--keep N]
#   sudo /opt/table-controller/current/systemd/install.sh --rollback
#
#   --wheelhouse DIR   install the Python packages from DIR only (no network): a
#                      bundle's wheels (release/install.sh checks the bundle's signature
#                      first, then runs this), or wheels made on another machine with `pip
#                      download`; the pre-flight check (release/preflight.py) runs first
#   --enable           also enable and start the service (otherwise it prints the
#                      steps to take first: configuration, check-config, selftest)
#   --rollback         switch back to the previous release (nothing is built): stop,
#                      back up the journal, switch, start
#   --keep N           keep the N newest releases and journal copies (default 3; the
#                      current and previous releases are always kept)
#   DESTDIR=/scratch   install into a scratch root instead of / (tests, images); no
#                      systemctl is run there (unless TABLE_CONTROLLER_SYSTEMCTL names a
#                      stand-in, as the tests do). Into a root with no /etc/group (an
#                      image being staged in an empty folder) the accounts are left to
#                      systemd-sysusers and systemd-tmpfiles on the board, and the
#                      environment names /opt/table-controller, where it runs
#
# An upgrade is this script run from the new release: the release is built beside the
# others, the service stopped, the journal copied to /var/backups/table-controller, the
# link /opt/table-controller/current switched, the service started; when the new release
# does not reach READY, current goes back to the previous release by itself. Anything
# that fails before the switch (the pre-flight check, a wheel pip refuses, the journal's
# copy on a full disk) leaves the release that ran running, started again if this script
# stopped it, and says so.
#
# Steps: the groups gpio and dialout (created if missing) and the system user tablectl
# in both; /opt/table-controller (the releases, root-owned), /etc/table-controller
# (root:tablectl 0750), /var/lib/table-controller (tablectl 0750); the release (the
# program and its virtual environment) with the manifest of its files and their SHA-256
# (`tablectl verify-software`); the unit and the modules-load file; the configuration
# from config/table.example.yaml when there is none; the switch to the release.
#
# For tests: TABLE_CONTROLLER_SYSTEMCTL (a command run instead of systemctl),
# TABLE_CONTROLLER_SETTLE (seconds the started service must stay active, default 5),
# TABLE_CONTROLLER_INSTALL_KILL_AT=STEP (the script kills itself right after STEP:
# copied, dependencies, built, placed, stopped, backed-up, switched, system-files,
# started, pruned).
set -eu

PREFIX=/opt/table-controller
CONF_DIR=/etc/table-controller
STATE_DIR=/var/lib/table-controller
USER_NAME=tablectl
SOURCE=$(cd "$(dirname "$0")/.." && pwd -P)
DESTDIR=${DESTDIR:-}
BACKUPS=/var/backups/table-controller
WHEELHOUSE=
ENABLE=no
ROLLBACK=no
KEEP=3
SYSTEMCTL=${TABLE_CONTROLLER_SYSTEMCTL:-systemctl}
SETTLE=${TABLE_CONTROLLER_SETTLE:-5}
# The service's steps run on a board, and in a scratch root only with a stand-in systemctl.
SERVICE=yes
if [ -n "$DESTDIR" ] && [ -z "${TABLE_CONTROLLER_SYSTEMCTL:-}" ]; then
    SERVICE=no
fi
INSTALL_PID=$$
export INSTALL_PID

while [ $# -gt 0 ]; do
    case $1 in
        --wheelhouse) WHEELHOUSE=$(cd "$2" && pwd -P); shift 2 ;;
        --enable) ENABLE=yes; shift ;;
        --rollback) ROLLBACK=yes; shift ;;
        --keep)
            case ${2:-} in
                [2-9] | [1-9][0-9]) KEEP=$2 ;;
                *) echo "install.sh: --keep needs a number from 2 to 99, not '${2:-}'" >&2; exit 2 ;;
            esac
            shift 2 ;;
        -h|--help) sed -n '2,46p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

say() { printf 'install: %s\n' "$*"; }
# STEP done; a test's TABLE_CONTROLLER_INSTALL_KILL_AT kills the script right after it.
step() { if [ "${TABLE_CONTROLLER_INSTALL_KILL_AT:-}" = "$1" ]; then kill -KILL "$INSTALL_PID"; fi; }
at() { printf '%s%s' "$DESTDIR" "$1"; }

if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run it as root (sudo)" >&2
    exit 1
fi
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "install.sh: Python 3.11 or later is needed (Raspberry Pi OS Bookworm has it)" >&2
    exit 1
fi

# --- nothing changed until the switch -------------------------------------------------
# Until current is switched, a failure leaves the release that ran as it was: started
# again if this script stopped it (the .restart mark, below), and the last line says so.
SWITCHED=no
target=$(at "$PREFIX")
releases=$target/releases
restart_mark=$releases/.restart
named() { readlink "$target/$1" 2>/dev/null || true; }  # NAME: what the link names
service_runs() {  # active, or on its way (starting, restarting after a failure)
    case $($SYSTEMCTL is-active table-controller 2>/dev/null || true) in
        active | activating | reloading | deactivating | refreshing) return 0 ;;
    esac
    return 1
}
locked() {  # the daemon's status when play is locked (it says LOCKED: CODE: ... to systemd)
    text=$($SYSTEMCTL show -p StatusText --value table-controller 2>/dev/null || true)
    case $text in
        LOCKED:*) printf '%s' "$text"; return 0 ;;
    esac
    return 1
}
STARTED_HERE=no
started() {  # the service started and still active once settled: READY reached
    if [ "$SERVICE" = no ] || [ ! -e "$restart_mark" ]; then
        return 0
    fi
    # Type=notify: the start returns once the daemon sent READY, or failed, or timed out.
    if $SYSTEMCTL start table-controller && sleep "$SETTLE" &&
        $SYSTEMCTL is-active --quiet table-controller; then
        rm -f "$restart_mark"
        STARTED_HERE=yes
        if why=$(locked); then
            say "service started: $(named current) runs, but play is locked ($why)"
        else
            say "service started: $(named current) is READY"
        fi
        return 0
    fi
    return 1
}
still_runs() {  # the release current names, and whether it runs
    was=$(named current)
    if [ -z "$was" ]; then
        printf 'no release was installed'
    elif [ "$SERVICE" = no ]; then
        printf '%s is still current' "$was"
    elif service_runs; then
        printf '%s still runs' "$was"
    else
        printf '%s is still current; the service is stopped: sudo systemctl start table-controller' "$was"
    fi
}
before_switch() {  # the EXIT trap: a failure before the switch
    status=$?
    if [ "$status" -ne 0 ] && [ "$SWITCHED" = no ]; then
        rm -rf "$releases/.new" "$releases/.new.out"
        started || true
        say "stopped before the switch, nothing was changed: $(still_runs)"
    fi
}
trap before_switch EXIT
if [ -n "$WHEELHOUSE" ] && [ "$ROLLBACK" = no ]; then
    python3 "$SOURCE/release/preflight.py" --wheels "$WHEELHOUSE"
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

# --- releases side by side ------------------------------------------------------------
# Each release is a complete folder, /opt/table-controller/releases/VERSION-DIGEST12 (the
# program and its virtual environment; DIGEST12 the software digest's first 12 digits);
# the link `current` names the one that runs (the unit starts current/.venv/bin/tablectl)
# and `previous` the one before it. A release is built in releases/.new and renamed
# to its name only once complete; the links are switched by renaming a new link over the
# old one. So a kill at any moment leaves `current` naming a complete release, and
# running the script again finishes the job (docs/install.md, "Upgrade and roll back").
install -d -o 0 -g 0 -m 0755 "$releases"
link() {  # NAME TARGET: the link PREFIX/NAME made to name TARGET, in one rename
    ln -sfn "$2" "$target/.$1.new"
    mv -T "$target/.$1.new" "$target/$1"
}
installed_before=$(named current)  # empty on the first install
# Kept out of the source's fingerprint and of the copy: what a build or a run leaves.
EXCLUDED='./.venv ./.git ./state ./.hypothesis ./.pytest_cache ./.mypy_cache ./.ruff_cache ./build ./.release-source'
source_id() {  # what the release is built from: the source's files, the wheels, the Python
    {
        python3 -c 'import sys; print(sys.version)'
        cd "$SOURCE"
        # shellcheck disable=SC2086
        find . \( -name __pycache__ -o -name '*.egg-info' $(for path in $EXCLUDED; do
            printf -- '-o -path %s ' "$path"; done) \) -prune -o -type f -print |
            LC_ALL=C sort | xargs -d '\n' sha256sum
        if [ -n "$WHEELHOUSE" ]; then
            cd "$WHEELHOUSE" && find . -type f | LC_ALL=C sort | xargs -d '\n' sha256sum
        fi
    } | sha256sum | cut -c1-64
}
build_release() {  # the release from SOURCE (and WHEELHOUSE) into releases/.new
    stage=$releases/.new
    rm -rf "$stage" "$stage.out"
    install -d -o 0 -g 0 -m 0755 "$stage"
    # shellcheck disable=SC2046
    tar -C "$SOURCE" $(for path in $EXCLUDED; do printf -- '--exclude=%s ' "$path"; done) \
        --exclude='__pycache__' --exclude='*.egg-info' -cf - . |
        tar -C "$stage" --no-same-owner -xf -
    chown -R 0:0 "$stage"
    chmod -R go-w "$stage"
    step copied
    # The virtual environment, the program and its dependencies in it, the manifest of
    # what runs and its digest: systemd/install-program.sh, the same steps wherever a
    # release is installed.
    "$SOURCE/systemd/install-program.sh" "$stage/.venv" "$SOURCE" ${WHEELHOUSE:+"$WHEELHOUSE"} \
        >"$stage.out"
    cat "$stage.out"
    digest=$(sed -n 's/^install: software digest (sha256) //p' "$stage.out")
    rm -f "$stage.out"
    version=$("$stage/.venv/bin/python" -I -c \
        'from importlib.metadata import version; print(version("table-controller"))')
    name=$version-$(printf '%s' "$digest" | cut -c1-12)
    printf 'source %s\nsoftware %s\n' "$built_from" "$digest" >"$stage/.release-source"
    step built
    # The environment's scripts, pyvenv.cfg and activate name the path it was made at:
    # made to name the one it runs from on the board (the digest does not change: the
    # manifest reads the environment's own path as {prefix}).
    venv_path "$stage/.venv" "$PREFIX/releases/$name/.venv"
    if [ -e "$releases/$name" ]; then
        # The same software built from other files (a release built again): replaced,
        # unless it runs now; then the one there is kept (the same digest).
        if [ "releases/$name" = "$(named current)" ]; then
            rm -rf "$stage"
            say "release $name kept: it runs now, with the same software"
            return 0
        fi
        rm -rf "$releases/$name"
    fi
    mv -T "$stage" "$releases/$name"
    say "release $name installed in $PREFIX/releases/$name"
}
venv_path() {  # FROM TO: the environment's own path, as its text files write it
    grep -rlF --exclude='*.pyc' --exclude='*.so' "$1" "$stage/.venv" | while read -r file; do
        sed -i -e "s|^$1|$2|g" -e "s|\([^A-Za-z0-9._/-]\)$1|\1$2|g" "$file"
    done
}
if [ "$ROLLBACK" = no ]; then
    # A release already built from the same files (a run killed after it was placed) is
    # used as it is.
    built_from=$(source_id)
    name=
    for release in "$releases"/*/; do
        if [ -f "$release.release-source" ] && [ -f "$release.venv/table-controller.manifest" ] &&
            [ "$(sed -n 's/^source //p' "$release.release-source")" = "$built_from" ]; then
            name=$(basename "$release")
            say "release $name is already installed (built from the same files)"
            sed -n 's/^software /install: software digest (sha256) /p' "$release.release-source"
        fi
    done
    if [ -z "$name" ]; then
        build_release
    fi
fi
step placed

# --- the unit, the modules, the configuration -----------------------------------------
install_system_files() {  # RELEASE: its unit and system files, the configuration if none
    from=$1
    install -d -m 0755 "$(at /etc/systemd/system)" "$(at /etc/modules-load.d)"
    install -o 0 -g 0 -m 0644 "$from/systemd/table-controller.service" \
        "$(at /etc/systemd/system/table-controller.service)"
    install -o 0 -g 0 -m 0644 "$from/systemd/table-controller.modules-load.conf" \
        "$(at /etc/modules-load.d/table-controller.conf)"
    # /dev/gpiochip* to the gpio group (Raspberry Pi OS's own rules do the same; plain
    # Debian leaves them root-only).
    install -d -m 0755 "$(at /usr/lib/sysusers.d)" "$(at /usr/lib/tmpfiles.d)"
    install -o 0 -g 0 -m 0644 "$from/systemd/table-controller.sysusers.conf" \
        "$(at /usr/lib/sysusers.d/table-controller.conf)"
    install -o 0 -g 0 -m 0644 "$from/systemd/table-controller.tmpfiles.conf" \
        "$(at /usr/lib/tmpfiles.d/table-controller.conf)"
    install -d -m 0755 "$(at /etc/udev/rules.d)"
    install -o 0 -g 0 -m 0644 "$from/systemd/60-table-controller-gpio.rules" \
        "$(at /etc/udev/rules.d/60-table-controller-gpio.rules)"
    if [ ! -e "$(at "$CONF_DIR/table.yaml")" ]; then
        install -o 0 -g "$gid" -m 0640 "$from/config/table.example.yaml" \
            "$(at "$CONF_DIR/table.yaml")"
        say "configuration $CONF_DIR/table.yaml made from the example: edit it"
    else
        say "configuration $CONF_DIR/table.yaml kept"
    fi
    if [ -n "$DESTDIR" ]; then
        return 0
    fi
    $SYSTEMCTL daemon-reload
    udevadm control --reload 2>/dev/null && udevadm trigger --subsystem-match=gpio 2>/dev/null || true
    systemd-analyze verify /etc/systemd/system/table-controller.service
}

# --- the switch: stop, back up the journal, switch, start, roll back ---------------------
# .restart records that this script stopped the service: a run killed before the start
# starts it on the next run.
backups=$(at "$BACKUPS")
stop_service() {  # stopped, and marked to be started again after the switch
    if [ "$SERVICE" = no ]; then
        return 0
    fi
    if service_runs; then
        : >"$restart_mark"
        $SYSTEMCTL stop table-controller
        say "service stopped"
    elif [ "$ENABLE" = yes ]; then
        : >"$restart_mark"
    fi
}
backup_journal() {  # WHY: a copy of the state directory, taken with the service stopped
    install -d -o 0 -g 0 -m 0700 "$backups"
    rm -rf "$backups"/*.partial
    if [ -z "$(ls -A "$(at "$STATE_DIR")")" ]; then
        return 0
    fi
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    copy=$stamp-$1
    n=1
    while [ -e "$backups/$copy" ]; do  # two upgrades within one second: keep both copies
        n=$((n + 1))
        copy=$stamp.$n-$1  # sorts after the first copy of that second (its newer)
    done
    if ! cp -a "$(at "$STATE_DIR")" "$backups/$copy.partial"; then
        rm -rf "$backups/$copy.partial"
        say "the journal could not be copied to $BACKUPS (cp says why, above): no switch without its copy"
        exit 1
    fi
    mv -T "$backups/$copy.partial" "$backups/$copy"
    say "journal backed up to $BACKUPS/$copy"
    # shellcheck disable=SC2012
    ls -1 "$backups" | LC_ALL=C sort -r | tail -n +$((KEEP + 1)) | while read -r old; do
        rm -rf "${backups:?}/$old"
    done
}
switch_to() {  # RELEASE: current names it, previous the one current named
    was=$(named current)
    touch "$releases/$(basename "$1")"
    if [ -n "$was" ] && [ "$was" != "$1" ]; then
        link previous "$was"
    fi
    link current "$1"
    say "current is now $1"
}
prune() {  # releases beyond the KEEP newest, never current nor previous
    # shellcheck disable=SC2012
    ls -1t "$releases" | tail -n +$((KEEP + 1)) | while read -r old; do
        case releases/$old in
            "$(named current)" | "$(named previous)") ;;
            *) rm -rf "${releases:?}/$old" && say "release $old removed (--keep $KEEP)" ;;
        esac
    done
    # The layout before releases (the program and .venv in PREFIX itself) goes once a
    # release runs.
    find "$target" -mindepth 1 -maxdepth 1 ! -name releases ! -name current ! -name previous \
        -exec rm -rf {} +
}
roll_back() {  # the new release did not reach READY: back to the one before, once
    failed=$(named current)
    back=$(named previous)
    say "$failed did not reach READY: journalctl -u table-controller says why"
    if [ -z "$back" ] || [ ! -d "$target/$back" ]; then
        say "no previous release to roll back to"
        exit 1
    fi
    $SYSTEMCTL stop table-controller || true
    # previous is dropped: a later --rollback does not go back to the failed release.
    link current "$back"
    rm -f "$target/previous"
    say "current is now $back"
    install_system_files "$target/$back"
    if started; then
        say "rolled back to $back; the journal is as $failed left it, its copy from before the switch is in $BACKUPS"
    else
        say "rolled back to $back, which does not reach READY either: systemctl status table-controller"
    fi
    exit 1
}

if [ "$ROLLBACK" = yes ]; then
    back=$(named previous)
    if [ -z "$back" ] || [ ! -d "$target/$back" ]; then
        echo "install.sh: no previous release to roll back to (ls $PREFIX/releases)" >&2
        exit 1
    fi
    new=$back
else
    new=releases/$name
fi
if [ "$(named current)" != "$new" ]; then
    stop_service
    step stopped
    backup_journal "before-$(basename "$new")"
    step backed-up
    switch_to "$new"
fi
SWITCHED=yes
step switched
install_system_files "$target/$new"
step system-files
if [ "$ENABLE" = yes ] && [ "$SERVICE" = yes ]; then
    $SYSTEMCTL enable table-controller
    if ! service_runs; then
        : >"$restart_mark"
    else
        say "service enabled; it runs $new already"
    fi
fi
if ! started; then
    if [ "$ROLLBACK" = yes ]; then
        say "$new does not reach READY: systemctl status table-controller"
        exit 1
    fi
    roll_back
fi
step started
prune
step pruned

if [ "$SERVICE" = no ]; then
    say "done (in $DESTDIR; check: systemd-analyze verify --root=$DESTDIR /etc/systemd/system/table-controller.service)"
elif $SYSTEMCTL is-active --quiet table-controller; then
    # A service this run did not start, running with play locked (a STORAGE FAULT whose
    # cause was since fixed: the fault stays until the daemon starts again): restarted.
    restarted=no
    if [ "$STARTED_HERE" = no ] && why=$(locked); then
        say "the service runs $new with play locked ($why): restarting it"
        if ! { $SYSTEMCTL restart table-controller && sleep "$SETTLE" &&
            $SYSTEMCTL is-active --quiet table-controller; }; then
            say "$new did not reach READY after the restart: systemctl status table-controller"
            exit 1
        fi
        restarted=yes
    fi
    if why=$(locked); then
        say "service running $new, but play is still locked ($why): journalctl -u table-controller says why; fix it (docs/install.md, step 7), then sudo systemctl restart table-controller"
        exit 1
    elif [ "$restarted" = yes ]; then
        say "service restarted: $new is READY"
    else
        say "service running $new"
    fi
elif [ -n "$installed_before" ]; then
    say "service table-controller is stopped (it was not running): $new is current, not started nor checked for READY"
    say "  start it: sudo systemctl start table-controller (or run this again with --enable)"
else
    say "next: sudoedit $CONF_DIR/table.yaml, then"
    say "  sudo -u $USER_NAME $PREFIX/current/.venv/bin/tablectl check-config $CONF_DIR/table.yaml"
    say "  the selftest (docs/install.md, step 6), then sudo systemctl enable --now table-controller"
fi
