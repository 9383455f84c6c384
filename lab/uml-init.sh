#!/bin/bash
# PID 1 of the uml lab (User-Mode Linux, lab/uml-build.sh), booted on the
# host's root through hostfs. Builds what the qemu lab's initrd builds
# (lab/initrd-init.sh): the host's root read-only under a RAM overlay,
# the built-in module list on /lib/modules/<release>, the exchange folder
# on /run/slowpath-lab, and then hands over to lab/guest-init.sh in it.
# The host runs this kernel as an unprivileged user in a mount namespace
# where all but the exchange folder is read-only, so the "ro" here is a
# convenience, not the defence. LAB_XCHG and LAB_DIR come from the
# kernel command line (unknown KEY=value words reach init's environment).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
R=/run/lab
NEW=$R/newroot

fail() {
	echo "lab uml init: $*" >&2
	mountpoint -q "$R/xchg" && echo "lab uml init: $*" >"$R/xchg/error"
	exec poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
# The host's /run holds its daemons' files; the guest's is its own.
mount -t tmpfs -o mode=755 run /run || fail "cannot mount /run"
mkdir -p $R/lower $R/rw $R/xchg $NEW
[ -n "${LAB_XCHG:-}" ] && [ -n "${LAB_DIR:-}" ] || fail "no LAB_XCHG or LAB_DIR on the command line"
mount -t hostfs -o "$LAB_XCHG" xchg $R/xchg || fail "cannot mount the exchange folder $LAB_XCHG"
[ -f $R/xchg/config ] || fail "no config in the exchange folder"
. $R/xchg/config
mount -t hostfs -o ro,/ hostroot $R/lower || fail "cannot mount the host root"
mount -t tmpfs -o mode=755 rw $R/rw || fail "cannot mount tmpfs"
mkdir -p $R/rw/upper $R/rw/work
mount -t overlay overlay -o lowerdir=$R/lower,upperdir=$R/rw/upper,workdir=$R/rw/work $NEW ||
	fail "cannot mount the overlay root"

release=$(uname -r)
[ -d "$R/lower$LAB_DIR/modules/$release" ] || fail "no built-in module list at $LAB_DIR/modules/$release"
mkdir -p "$NEW/lib/modules/$release"
mount --bind "$R/lower$LAB_DIR/modules/$release" "$NEW/lib/modules/$release" ||
	fail "cannot bind the built-in module list"
mount -t tmpfs -o mode=755,nosuid,nodev run $NEW/run || fail "cannot mount the guest's /run"
mkdir -p $NEW/run/slowpath-lab
mount --move $R/xchg $NEW/run/slowpath-lab || fail "cannot move the exchange folder"
[ -x "$NEW$LAB_GUEST_INIT" ] || fail "no guest init at $LAB_GUEST_INIT"

mount -t proc proc $NEW/proc
mount -t sysfs sysfs $NEW/sys
mount -t devtmpfs devtmpfs $NEW/dev || fail "cannot mount devtmpfs"
mkdir -p $NEW/dev/pts $NEW/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=000 devpts $NEW/dev/pts
mount -t tmpfs -o nosuid,nodev tmpfs $NEW/dev/shm
ln -sfn /proc/self/fd $NEW/dev/fd
ln -sfn /proc/self/fd/0 $NEW/dev/stdin
ln -sfn /proc/self/fd/1 $NEW/dev/stdout
ln -sfn /proc/self/fd/2 $NEW/dev/stderr
# The host's user (nobody) cannot read root's home: the guest gets one
# of its own. Everything else it reads as that user, through the
# overlay (lab_cmd.c boots uml only where the lab and the working
# directory are readable so).
mount -t tmpfs -o mode=700 root $NEW/root
mkdir -p $NEW/run/lock/iscsi $NEW/run/user
hostname slowpath-lab
ip link set lo up || fail "cannot bring up lo"
# The guest is not the host: its iSCSI records, multipath bindings and
# initiator name are its own. Debian keeps the records under /etc/iscsi
# (nodes, send_targets, ifaces), root's alone (0700): through hostfs
# this kernel reads them as a host user of no rights, and on a host
# that had ever run a discovery every `up` in the guest failed "No
# records found". So /etc/iscsi is a RAM folder with iscsid.conf alone.
rm -rf $NEW/etc/multipath/wwids $NEW/etc/multipath/bindings \
	$NEW/var/lib/iscsi/nodes $NEW/var/lib/iscsi/send_targets
if [ -d $NEW/etc/iscsi ]; then
	conf=$(cat $NEW/etc/iscsi/iscsid.conf 2>/dev/null)
	mount -t tmpfs -o mode=755,nosuid,nodev iscsi $NEW/etc/iscsi ||
		fail "cannot mount the guest's /etc/iscsi"
	[ -z "$conf" ] || printf '%s\n' "$conf" >$NEW/etc/iscsi/iscsid.conf
	echo "InitiatorName=iqn.2005-03.org.open-iscsi:slowpath-lab" >$NEW/etc/iscsi/initiatorname.iscsi
fi

# The kernel under test (make lab ENGINE=uml PATCHES=...): every case
# records which patches it ran on, "sha256 name" a patch, ';' between.
SLOWPATH_LAB_PATCHES=$(paste -sd';' "$R/lower$LAB_DIR/patches" 2>/dev/null)
export SLOWPATH_LAB_PATCHES

umount /proc /sys 2>/dev/null
exec chroot $NEW "$LAB_GUEST_INIT"
