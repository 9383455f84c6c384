#!/bin/busybox sh
# /init of the lab's initrd. Builds the guest's root: the host's own root
# read-only over 9p (tag hostroot) under a tmpfs overlay, the lab's
# extracted modules on /lib/modules/$KVER, and the writable exchange
# share (tag labxchg) on /run/slowpath-lab, where `slowpath lab` left the
# config and the job and where the guest leaves its exit status.
/bin/busybox --install -s /bin
export PATH=/bin

# Without the exchange share nobody would hear about an error: say it on
# the console, which the host keeps as a log, and power off.
fail() {
	echo "lab initrd: $*" >&2
	[ -d /xchg ] && mountpoint -q /xchg && echo "lab initrd: $*" >/xchg/error
	sync
	poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

while read -r ko; do
	insmod "/lib/modules/$ko" || fail "insmod $ko failed"
done </etc/modules.load

mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 labxchg /xchg ||
	fail "cannot mount the exchange share (labxchg)"
[ -f /xchg/config ] || fail "no config in the exchange share"
. /xchg/config
KVER=$(cat /etc/lab-kver)

mount -t 9p -o ro,trans=virtio,version=9p2000.L,cache=loose,msize=262144 hostroot /lower ||
	fail "cannot mount the host root (hostroot)"
# The overlay's upper layer lives in RAM: the guest may write anywhere
# and none of it reaches the host.
mount -t tmpfs -o mode=755 rw /rw || fail "cannot mount tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot ||
	fail "cannot mount the overlay root"

[ -d "/lower$LAB_ROOT/lib/modules/$KVER" ] || fail "no modules at $LAB_ROOT/lib/modules/$KVER"
mkdir -p "/newroot/lib/modules/$KVER"
mount --bind "/lower$LAB_ROOT/lib/modules/$KVER" "/newroot/lib/modules/$KVER" ||
	fail "cannot bind the modules of $KVER"

# The host's /run holds its daemons' pid files and sockets; the guest
# starts its own.
mount -t tmpfs -o mode=755,nosuid,nodev run /newroot/run || fail "cannot mount /run"
mkdir -p /newroot/run/slowpath-lab
mount --move /xchg /newroot/run/slowpath-lab || fail "cannot move the exchange share"

[ -x "/newroot$LAB_GUEST_INIT" ] || fail "no guest init at $LAB_GUEST_INIT"

# The rest of the system setup is done here, by busybox from RAM: in the
# guest init every command would be loaded over 9p, which under TCG
# costs a good fraction of a second each.
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t debugfs debugfs /newroot/sys/kernel/debug 2>/dev/null
mount --move /dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=000 devpts /newroot/dev/pts
mount -t tmpfs -o nosuid,nodev tmpfs /newroot/dev/shm
ln -sfn /proc/self/fd /newroot/dev/fd
ln -sfn /proc/self/fd/0 /newroot/dev/stdin
ln -sfn /proc/self/fd/1 /newroot/dev/stdout
ln -sfn /proc/self/fd/2 /newroot/dev/stderr
mkdir -p /newroot/run/lock/iscsi /newroot/run/user
hostname slowpath-lab
ip link set lo up || fail "cannot bring up lo"
# The guest is not the host: the host's iSCSI records (Debian's are
# under /etc/iscsi) and multipath bindings must not leak into an
# experiment; /etc/iscsi is a RAM folder with iscsid.conf and the
# initiator name alone (as lab/uml-init.sh makes it).
rm -rf /newroot/etc/multipath/wwids /newroot/etc/multipath/bindings \
	/newroot/var/lib/iscsi/nodes /newroot/var/lib/iscsi/send_targets
if [ -d /newroot/etc/iscsi ]; then
	cp /newroot/etc/iscsi/iscsid.conf /iscsid.conf 2>/dev/null
	cp /newroot/etc/iscsi/initiatorname.iscsi /initiatorname.iscsi 2>/dev/null
	mount -t tmpfs -o mode=755,nosuid,nodev iscsi /newroot/etc/iscsi ||
		fail "cannot mount the guest's /etc/iscsi"
	cp /iscsid.conf /initiatorname.iscsi /newroot/etc/iscsi/ 2>/dev/null
fi

[ "$LAB_MODE" = run ] && echo "lab initrd: switch_root at $(cut -d' ' -f1 /proc/uptime) s" >/dev/console
umount /proc /sys
exec switch_root /newroot "$LAB_GUEST_INIT"
