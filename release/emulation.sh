# Shell functions for the scripts that run another architecture's Debian on this PC under
# qemu (release/gpio_wheel.sh, bench/arm64.sh, bench/qemu_boot.sh); sourced, not run.
#
#   tools COMMAND=PACKAGE ...   apt-get installs the package of each command missing
#                               (COMMAND a path: a file that must exist)
#   binfmt NAME ...             qemu-user's binfmt handlers on (aarch64, arm)

tools() {
    need=""
    for pair in "$@"; do
        command=${pair%%=*}
        case $command in
            /*) [ -e "$command" ] || need="$need ${pair#*=}" ;;
            *) command -v "$command" >/dev/null || need="$need ${pair#*=}" ;;
        esac
    done
    if [ -n "$need" ]; then
        printf 'installing%s\n' "$need"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
    fi
}

binfmt() {
    if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    fi
    for name in "$@"; do
        update-binfmts --enable "qemu-$name" 2>/dev/null || true
        if [ ! -e "/proc/sys/fs/binfmt_misc/qemu-$name" ]; then
            update-binfmts --import "qemu-$name" 2>/dev/null || true
            update-binfmts --enable "qemu-$name"
        fi
    done
}
