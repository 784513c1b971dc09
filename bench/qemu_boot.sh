#!/bin/sh
# The arm64 board booted for real: a Debian Bookworm arm64 root, booted with Debian's own
# kernel (linux-image-arm64 inside the root: its vmlinuz and initrd) in full-system
# emulation (qemu-system-aarch64 -M virt -cpu cortex-a72, no network), installs the
# arm64 bundle offline as a technician does (release/install.sh --enable, simulated
# devices), reaches READY, and gives with `tablectl verify-software` the digest the
# build printed; then boots again and times READY at boot. Prints the figures.
#
#   sudo bench/qemu_boot.sh BUNDLE.tar.gz [DIGEST]   # DIGEST: the build's, to compare
#   sudo WORK=/var/tmp/qemu TIMEOUT=1200 SMP=2 MEM=2048 bench/qemu_boot.sh ...
#
# The bundle: release/build.py --arch arm64 (or bench/board_digest.py --out DIR, which
# also prints the digest an arm64 Bookworm board gives, from the same root).
# 1. installs qemu-system-arm, qemu-user-static, binfmt-support, debootstrap (apt-get)
#    when missing;
# 2. the root, once, in $WORK/bookworm-arm64/root (debootstrap --arch=arm64
#    --variant=minbase with systemd, udev, the kernel and initramfs-tools, Python and
#    its venv module, and what the pre-flight check asks for; about 10 minutes under
#    qemu-user): it serves bench/board_digest.py --board-root as well;
# 3. a disk image of a copy of it (mkfs.ext4 -d, no mount needed): the bundle in
#    /root, the table's configuration (simulated devices), and a bench unit that runs
#    the install at the first boot and the checks at each boot, writing its lines to
#    the console (`qemu-boot: ...`), then powers the board off;
# 4. boots it twice (each bounded by $TIMEOUT seconds, niced): the install, READY and
#    verify-software; then READY at boot with the release installed.
# The console of each boot is kept in $WORK/boot-1.log and boot-2.log. Not part of CI
# (minutes of emulation); needs root (debootstrap, mkfs of the image).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
WORK=${WORK:-/var/tmp/table-controller-qemu}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
TIMEOUT=${TIMEOUT:-1200}
SMP=${SMP:-2}
MEM=${MEM:-2048}
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -f "$1" ]; then
    echo "usage: qemu_boot.sh BUNDLE.tar.gz [DIGEST] (an arm64 bundle: release/build.py --arch arm64)" >&2
    exit 2
fi
BUNDLE=$(realpath "$1")
EXPECTED=${2:-}
NAME=$(basename "$BUNDLE" .tar.gz)
case $NAME in
    *-arm64) ;;
    *) echo "qemu_boot.sh: $NAME is not an arm64 bundle" >&2; exit 2 ;;
esac
say() { printf 'qemu-boot: %s\n' "$*"; }
if [ "$(id -u)" -ne 0 ]; then
    echo "qemu_boot.sh: run it as root (debootstrap and the image need it)" >&2
    exit 1
fi

# --- 1. the tools ------------------------------------------------------------------------
. "$ROOT/release/emulation.sh"
tools qemu-system-aarch64=qemu-system-arm debootstrap=debootstrap \
    /usr/bin/qemu-aarch64-static=qemu-user-static update-binfmts=binfmt-support mkfs.ext4=e2fsprogs
binfmt aarch64

# --- 2. the root -------------------------------------------------------------------------
CHROOT=$WORK/bookworm-arm64/root
if ! ls "$CHROOT"/boot/vmlinuz-* >/dev/null 2>&1 || [ ! -x "$CHROOT/usr/bin/python3" ]; then
    rm -rf "$CHROOT"
    mkdir -p "$(dirname "$CHROOT")"
    started=$(date +%s)
    say "debootstrap bookworm arm64 into $CHROOT"
    nice debootstrap --arch=arm64 --variant=minbase \
        --include=python3,python3-venv,systemd,systemd-sysv,udev,kmod,initramfs-tools,linux-image-arm64,openssh-client,passwd,procps \
        bookworm "$CHROOT" "$MIRROR" >"$WORK/bookworm-arm64/debootstrap.log" 2>&1 || {
        tail -20 "$WORK/bookworm-arm64/debootstrap.log" >&2; exit 1; }
    say "root built in $(( $(date +%s) - started )) s"
fi
KERNEL=$(ls "$CHROOT"/boot/vmlinuz-* | sort -V | tail -n 1)
INITRD=$CHROOT/boot/initrd.img-${KERNEL##*/vmlinuz-}
[ -f "$INITRD" ] || { echo "qemu_boot.sh: no $INITRD in the root" >&2; exit 1; }

# --- 3. the image --------------------------------------------------------------------------
scratch=$(mktemp -d "$WORK/boot.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
started=$(date +%s)
tree=$scratch/tree
cp -a "$CHROOT" "$tree"
tar -xzf "$BUNDLE" -C "$tree/root"
echo board >"$tree/etc/hostname"
mkdir -p "$tree/etc/table-controller"
cat >"$tree/etc/table-controller/table.yaml" <<'EOF'
table: {id: QEMU1, seats: 9}
game: {big_blind: 10}
hardware:
  simulated: true
journal:
  state_dir: /var/lib/table-controller
EOF
cat >"$tree/usr/local/sbin/qemu-boot" <<EOF
#!/bin/sh
# The bench's own steps at each boot (bench/qemu_boot.sh); the lines go to the console.
say() { echo "qemu-boot: \$*"; }
up() { cut -d' ' -f1 /proc/uptime; }
tablectl=/opt/table-controller/current/.venv/bin/tablectl
if [ ! -e /opt/table-controller/current ]; then
    say "boot 1 at \$(up) s of uptime: installing /root/$NAME offline"
    before=\$(up)
    /root/$NAME/release/install.sh --enable 2>&1 | sed -u 's/^/qemu-boot: | /'
    say "install.sh done at \$(up) s (took \$(awk -v a="\$(up)" -v b="\$before" 'BEGIN { printf "%.1f", a - b }') s)"
else
    say "boot 2: READY at boot"
fi
until systemctl is-active --quiet table-controller; do
    systemctl is-failed --quiet table-controller && break
    sleep 1
done
say "service \$(systemctl is-active table-controller): \$(systemctl show -p StatusText --value table-controller)"
journalctl -b -u table-controller -o cat | grep -E 'software (verified|modified|unverified)|READY:' | sed 's/^/qemu-boot: | daemon: /' 
say "READY at \$(systemctl show -p ActiveEnterTimestampMonotonic --value table-controller) us of uptime"
\$tablectl verify-software 2>&1 | sed -u 's/^/qemu-boot: | /'
say "done at \$(up) s; kernel \$(uname -r), \$(uname -m), \$(nproc) cpus"
systemctl poweroff
EOF
chmod 0755 "$tree/usr/local/sbin/qemu-boot"
cat >"$tree/etc/systemd/system/qemu-boot.service" <<'EOF'
[Unit]
Description=bench/qemu_boot.sh: install, READY, verify-software
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/qemu-boot
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity
[Install]
WantedBy=multi-user.target
EOF
mkdir -p "$tree/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/qemu-boot.service "$tree/etc/systemd/system/multi-user.target.wants/qemu-boot.service"
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$tree/etc/fstab"
image=$scratch/board.img
truncate -s 4G "$image"
mkfs.ext4 -q -F -L board -d "$tree" "$image"
rm -rf "$tree"
say "image made in $(( $(date +%s) - started )) s ($(du -m "$image" | cut -f1) MB used of 4096)"

# --- 4. the boots --------------------------------------------------------------------------
boot() {  # N: one boot, its console in $WORK/boot-N.log
    log=$WORK/boot-$1.log
    started=$(date +%s)
    set +e
    nice timeout "$TIMEOUT" qemu-system-aarch64 -M virt -cpu cortex-a72 -smp "$SMP" -m "$MEM" \
        -nic none -display none -monitor none -serial "file:$log" -no-reboot \
        -device virtio-rng-pci \
        -kernel "$KERNEL" -initrd "$INITRD" \
        -append "root=/dev/vda rw console=ttyAMA0 quiet systemd.show_status=0" \
        -drive "file=$image,if=virtio,format=raw"
    status=$?
    set -e
    seconds=$(( $(date +%s) - started ))
    if [ "$status" -ne 0 ]; then
        say "boot $1: qemu exit $status after $seconds s (124: not done within TIMEOUT=$TIMEOUT s); console in $log"
        grep -a 'qemu-boot: ' "$log" | tail -20 >&2 || true
        exit 1
    fi
    said "$1"
    say "boot $1: powered off after $seconds s of emulation"
}
said() {  # N: the bench unit's lines of boot N, without the console's prefix
    tr -d '\r' <"$WORK/boot-$1.log" | sed -n 's/^.*qemu-boot\[[0-9]*\]: //p'
}
boot 1
digest=$(said 1 | sed -n 's/^qemu-boot: | sha256: //p' | tail -n 1)
said 1 | grep -q '^qemu-boot: | software verified' || { say "verify-software did not say verified"; exit 1; }
boot 2
again=$(said 2 | sed -n 's/^qemu-boot: | sha256: //p' | tail -n 1)
for n in 1 2; do
    if said "$n" | grep -q '^qemu-boot: service .*LOCKED'; then
        say "boot $n: the service runs with play locked"
        exit 1
    fi
done
say "verify-software: $digest (boot 1), $again (boot 2)"
if [ -n "$EXPECTED" ]; then
    if [ "$digest" = "$EXPECTED" ] && [ "$again" = "$EXPECTED" ]; then
        say "the build's digest: yes"
    else
        say "NOT the build's digest ($EXPECTED)"
        exit 1
    fi
fi
