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
	# uml: consoles 1 and 2 are the host's fds 3 and 4 (lab_uml.c); raw,
	# so that a newline stays a newline
	if [ "${LAB_ENGINE:-}" = uml ]; then
		case $1 in sp.out) d=/dev/tty1 ;; sp.err) d=/dev/tty2 ;; *) return 1 ;; esac
		stty -F "$d" raw -echo 2>/dev/null
		echo "$d"
		return 0
	fi
	for d in /sys/class/virtio-ports/*; do
		read -r name <"$d/name" 2>/dev/null || continue
		[ "$name" = "$1" ] && { echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}

. "$XCHG/config" || fail "cannot read $XCHG/config"
# Which machine this is, for the harness (fio's clock, the store's
# polling) and for every case it records.
export SLOWPATH_LAB_ENGINE=${LAB_ENGINE:-qemu} SLOWPATH_LAB_TIME=${LAB_TIME:-real}
CONSOLE=/dev/ttyS0 TTY=/dev/ttyS0
[ "$SLOWPATH_LAB_ENGINE" = uml ] && CONSOLE=/dev/console TTY=/dev/tty0

# The one folder whose writes reach the host (lab run --keep).
# On uml the host lets the guest write nothing but the exchange folder,
# whose files are the host's unprivileged user's: the job writes a
# folder of root's own in RAM, copied into the exchange folder's keep/
# when it ends (keep_out), and the host copies that into the folder.
if [ -n "${LAB_KEEP:-}" ] && [ "$SLOWPATH_LAB_ENGINE" = uml ]; then
	mkdir -p "$LAB_KEEP" && mount -t tmpfs -o mode=755 keep "$LAB_KEEP" ||
		fail "cannot mount the kept folder $LAB_KEEP"
elif [ -n "${LAB_KEEP:-}" ]; then
	mkdir -p "$LAB_KEEP" &&
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 labkeep "$LAB_KEEP" ||
		fail "cannot mount the kept folder $LAB_KEEP"
fi

keep_out() {
	[ -n "${LAB_KEEP:-}" ] && [ "$SLOWPATH_LAB_ENGINE" = uml ] || return 0
	cp -R --preserve=mode,timestamps "$LAB_KEEP"/. "$XCHG/keep/" ||
		echo "lab guest: copying $LAB_KEEP out of the guest failed" >"$XCHG/error"
}

case $LAB_MODE in
run)
	out=$(port sp.out) || fail "no virtio-serial port sp.out"
	err=$(port sp.err) || fail "no virtio-serial port sp.err"
	# Milestones in the console log, to tell boot time from job time.
	echo "lab guest: job starts at $(uptime_s) s" >$CONSOLE
	if [ "$SLOWPATH_LAB_ENGINE" = uml ]; then
		# uml's consoles are ttys: through pipes, so that the job
		# sees what it sees under qemu (no terminal, no progress bar)
		bash "$XCHG/job.sh" </dev/null 2> >(cat >"$err") | cat >"$out"
		rc=${PIPESTATUS[0]}
		wait $!
	else
		bash "$XCHG/job.sh" </dev/null >"$out" 2>"$err"
		rc=$?
	fi
	echo "lab guest: job exited $rc at $(uptime_s) s" >$CONSOLE
	keep_out
	echo "$rc" >"$XCHG/status"
	;;
shell)
	# A session leader with the console as its controlling terminal, so that
	# Ctrl-C reaches the shell's children and not PID 1.
	cd "$LAB_CWD" 2>/dev/null || cd /
	TERM=${LAB_TERM:-vt100} setsid -c bash --rcfile "$XCHG/job.sh" -i \
		<>"$TTY" >&0 2>&1
	rc=$?
	keep_out
	echo "$rc" >"$XCHG/status"
	;;
*)
	fail "unknown mode '$LAB_MODE'"
	;;
esac
off
