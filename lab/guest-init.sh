#!/bin/bash
# PID 1 of the lab guest, on the host's root (read-only 9p under a tmpfs
# overlay) with proc, sys, dev, /run, lo and the hostname already set up
# by the initrd. Runs the job `slowpath lab` left in the exchange share,
# records its exit status there, and powers off. Every external command
# here is loaded over 9p, hence the builtins. There is no udev and no
# systemd: dm tables are loaded with DM_DISABLE_UDEV=1.
XCHG=/run/slowpath-lab
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

off() {
	sync
	exec /bin/busybox poweroff -f
}
fail() {
	echo "lab guest: $*" >&2
	echo "lab guest: $*" >"$XCHG/error"
	off
}
uptime_s() {
	local up rest
	read -r up rest </proc/uptime
	echo "$up"
}
port() {	# port NAME -> /dev/vportNpM of the virtio-serial port NAME
	local d name
	for d in /sys/class/virtio-ports/*; do
		read -r name <"$d/name" 2>/dev/null || continue
		[ "$name" = "$1" ] && { echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}

. "$XCHG/config" || fail "cannot read $XCHG/config"

# The one folder whose writes reach the host (lab run --keep).
if [ -n "${LAB_KEEP:-}" ]; then
	mkdir -p "$LAB_KEEP" &&
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 labkeep "$LAB_KEEP" ||
		fail "cannot mount the kept folder $LAB_KEEP"
fi

case $LAB_MODE in
run)
	out=$(port sp.out) || fail "no virtio-serial port sp.out"
	err=$(port sp.err) || fail "no virtio-serial port sp.err"
	# Milestones in the console log, to tell boot time from job time.
	echo "lab guest: job starts at $(uptime_s) s" >/dev/ttyS0
	bash "$XCHG/job.sh" </dev/null >"$out" 2>"$err"
	rc=$?
	echo "lab guest: job exited $rc at $(uptime_s) s" >/dev/ttyS0
	echo "$rc" >"$XCHG/status"
	;;
shell)
	# A session leader with ttyS0 as its controlling terminal, so that
	# Ctrl-C reaches the shell's children and not PID 1.
	cd "$LAB_CWD" 2>/dev/null || cd /
	TERM=${LAB_TERM:-vt100} setsid -c bash --rcfile "$XCHG/job.sh" -i \
		<>/dev/ttyS0 >&0 2>&1
	echo "$?" >"$XCHG/status"
	;;
*)
	fail "unknown mode '$LAB_MODE'"
	;;
esac
off
