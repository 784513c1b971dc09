#!/bin/sh
# table-controller: install the release from its bundle, with no network, once the bundle
# is checked (docs/install.md, step 2).
#
#   the first install, from the unpacked bundle:
#     tar -xzf table-controller-VERSION-ARCH.tar.gz -C /tmp
#     sudo /tmp/table-controller-VERSION-ARCH/release/install.sh [--enable]
#   an upgrade, the new bundle checked by the release that runs:
#     sudo /opt/table-controller/current/release/install.sh /media/usb/table-controller-VERSION-ARCH.tar.gz [--enable]
#
# First release/verify.py (the running release's, or on a first install the bundle's):
# SHA256SUMS signed by a release key the board trusts
# (/etc/table-controller/release-keys; on a board with none, the first install, the
# bundle's own release/allowed_signers), every file of the bundle as it lists them. A
# refused bundle is one line, and nothing on the board changes. Then systemd/install.sh
# from the bundle's wheels only (it runs the pre-flight check, release/preflight.py,
# before it changes anything); once it succeeded, the bundle's keys are the board's.
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd -P)
DESTDIR=${DESTDIR:-}
KEYS=$DESTDIR/etc/table-controller/release-keys
say() { printf 'install: %s\n' "$*"; }
runs() {  # what the board runs now, for the line that says nothing changed
    current=$(readlink "$DESTDIR/opt/table-controller/current" 2>/dev/null || true)
    if [ -n "$current" ]; then printf '%s still runs' "$current"; else printf 'no release was installed'; fi
}
if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run it as root (sudo)" >&2
    exit 1
fi
scratch=$(mktemp -d "${TMPDIR:-/var/tmp}/table-controller-install.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
archive=
case ${1:-} in
    *.tar.gz) archive=$(realpath "$1"); shift ;;
esac
# The check of the release that runs when it has one (a bundle's own is the bundle's word).
VERIFY=$DESTDIR/opt/table-controller/current/release/verify.py
if [ ! -f "$VERIFY" ]; then
    VERIFY=$HERE/release/verify.py
fi
check() {  # prints the bundle's folder, once checked
    if [ -n "$archive" ]; then
        mkdir "$scratch/bundle"
        python3 "$VERIFY" --archive "$archive" --into "$scratch/bundle" --trusted "$KEYS"
    else
        python3 "$VERIFY" --bundle "$HERE" --trusted "$KEYS"
    fi
}
if ! bundle=$(check 2>"$scratch/why"); then
    say "refused: $(head -n 1 "$scratch/why"); nothing was changed: $(runs)"
    exit 1
fi
first=$(cat "$scratch/why")
signers=$bundle/release/allowed_signers
key() { awk '{ print $(NF-1), $NF }' "$signers" | ssh-keygen -lf - | awk '{ print $2 }' | paste -sd ' '; }
say "bundle verified: $(sed -n 's/^table-controller //p' "$bundle/RELEASE"), signed by $(key)"
if [ -n "$first" ]; then
    say "$first"
fi
"$bundle/systemd/install.sh" --wheelhouse "$bundle/wheels" "$@"
install -o 0 -g 0 -m 0644 "$signers" "$KEYS"
