#!/bin/bash
# make bench-lab: what the lab's emulation costs a block I/O. In one run:
# fio on null_blk (a device that completes at once, so everything
# measured is kernel + emulation) in the lab with 1 and with 2 vCPUs, at
# queue depth 1 and 16, and the same 4k random reads natively on a tmpfs
# file as the reference. Prints the numbers and their ratios, and the
# lab's capacity: the IOPS on one zero-delay iSCSI path through our store
# at which the guest's CPUs are half busy, and how late the guest wakes
# from a sleep.
#   lab/bench.sh            (host side: boots the lab twice)
#   lab/bench.sh --guest    (inside the lab: one fio pass)
set -eu
cd "$(dirname "$0")/.."
RUNTIME=${BENCH_RUNTIME:-8}

fio_terse() {	# fio_terse NAME ARGS... -> "iops mean_lat_us"
	local name=$1
	shift
	fio --name="$name" --rw=randread --bs=4k --time_based --runtime="$RUNTIME" \
		--output-format=terse --terse-version=3 "$@" |
		awk -F';' '{ printf "%d %.1f\n", $8, $40 }'
}

# One iSCSI path as the experiments build it, minus the delay: tgtd with
# tgt's null store, open-iscsi over the guest's loopback.
guest_iscsi() {
	local iqn=iqn.2026-01.io.slowpath:bench dev="" i
	modprobe -a iscsi_tcp sd_mod
	tgtd || return 1
	for i in $(seq 1 50); do tgtadm --lld iscsi --op show --mode sys >/dev/null 2>&1 && break; sleep 0.2; done
	tgtadm --lld iscsi --op new --mode target --tid 1 -T "$iqn" &&
	tgtadm --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 --bstype null -b null0 &&
	tgtadm --lld iscsi --op bind --mode target --tid 1 -I ALL || return 1
	iscsid || return 1
	iscsiadm -m discovery -t st -p 127.0.0.1 >/dev/null &&
	iscsiadm -m node -T "$iqn" -p 127.0.0.1 --login >/dev/null || return 1
	for i in $(seq 1 50); do
		dev=$(ls -d /sys/class/iscsi_session/session*/device/target*/*/block/* 2>/dev/null | head -n 1)
		[ -n "$dev" ] && break
		sleep 0.2
	done
	[ -n "$dev" ] || return 1
	for qd in 1 16; do
		echo "iscsi-qd$qd $(fio_terse iscsi$qd --filename=/dev/${dev##*/} --direct=1 \
			--ioengine=libaio --iodepth=$qd)"
	done
	iscsiadm -m node --logoutall=all >/dev/null
	guest_capacity "$iqn"
}

# cpu_busy: "busy total" jiffies over all vCPUs since boot, busy being
# total - idle - iowait (steal and guest are 0 or counted in total)
cpu_busy() {
	awk '/^cpu / { t = $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; print t - $5 - $6, t }' /proc/stat
}

# cap_step DEV RATE: qd 16 for CAP_SECS at RATE IOPS (0: no limit);
# prints "iops busy%", busy% over the whole fio run (start-up included)
cap_step() {
	local dev=$1 rate=$2 b0 t0 b1 t1 iops limit=()
	[ "$rate" -gt 0 ] && limit=(--rate_iops="$rate")
	read -r b0 t0 < <(cpu_busy)
	iops=$(fio --name=cap --filename="$dev" --rw=randread --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=16 --time_based --runtime="$CAP_SECS" "${limit[@]}" \
		--output-format=terse --terse-version=3 | awk -F';' '{ print $8 }')
	read -r b1 t1 < <(cpu_busy)
	awk -v i="$iops" -v b=$((b1 - b0)) -v t=$((t1 - t0)) \
		'BEGIN { printf "%d %.1f\n", i, (t > 0 ? 100 * b / t : 0) }'
}

# The IOPS at which the guest's CPUs cross 50 % busy, on one path
# through our store with delay=0 (logged in after the null target's
# logout, so it is the only disk): the unlimited rate first, then
# rising fractions of it until busy >= 50 %, interpolated linearly
# between the last two steps. Prints "capacity ..." lines.
CAP_SECS=${BENCH_CAP_SECS:-8}	# long enough that fio's start-up is a small part
guest_capacity() {
	local iqn=$1-store dev="" file=/tmp/bench-store.img max maxbusy f rate iops busy
	local pi=0 pb=""
	[ -f /usr/lib/tgt/backing-store/bs_delay.so ] ||
		{ echo "bench-lab: our store is not installed (make install-backend)" >&2; return 1; }
	dd if=/dev/zero of="$file" bs=1M count=64 status=none || return 1
	tgtadm --lld iscsi --op new --mode target --tid 2 -T "$iqn" &&
	tgtadm --lld iscsi --op new --mode logicalunit --tid 2 --lun 1 --bstype delay \
		-b "$file" --bsopts "delay=0;ctl=/tmp/bench-store-ctl" &&
	tgtadm --lld iscsi --op bind --mode target --tid 2 -I ALL || return 1
	iscsiadm -m discovery -t st -p 127.0.0.1 >/dev/null &&
	iscsiadm -m node -T "$iqn" -p 127.0.0.1 --login >/dev/null || return 1
	# this target's disk: the null target's session may not be gone yet
	for _ in $(seq 1 50); do
		dev=$(iscsiadm -m session -P3 2>/dev/null | awk -v t="$iqn" \
			'/^Target:/ { m = ($2 == t) } m && /Attached scsi disk/ { print $4; exit }')
		[ -n "$dev" ] && [ -b "/dev/$dev" ] && break
		dev=""
		sleep 0.2
	done
	[ -n "$dev" ] || return 1
	dev=/dev/$dev
	# the floor: fio's own start-up (over 9p) and the idle guest
	read -r iops busy < <(cap_step "$dev" 1)
	echo "capacity-floor $iops $busy"
	pb=$busy pi=$iops
	read -r max maxbusy < <(cap_step "$dev" 0)
	echo "capacity-step $max $maxbusy"
	if awk -v b="$maxbusy" 'BEGIN { exit !(b < 50) }'; then
		echo "capacity none $max $maxbusy"	# never half busy: the path limits first
	else
		for f in 10 25 40 55 70 85; do
			rate=$((max * f / 100))
			[ "$rate" -ge 1 ] || continue
			read -r iops busy < <(cap_step "$dev" "$rate")
			echo "capacity-step $iops $busy"
			if awk -v b="$busy" 'BEGIN { exit !(b >= 50) }'; then break; fi
			pi=$iops pb=$busy
		done
		awk -v b="$busy" 'BEGIN { exit !(b < 50) }' && iops=$max busy=$maxbusy
		awk -v i0="$pi" -v b0="$pb" -v i1="$iops" -v b1="$busy" 'BEGIN {
			x = (b1 > b0) ? i0 + (50 - b0) * (i1 - i0) / (b1 - b0) : i1
			printf "capacity at %d\n", x }'
	fi
	iscsiadm -m node --logoutall=all >/dev/null
}

# How late the guest wakes from nanosleep of 1, 5 and 20 ms: one perl,
# so no exec over 9p sits inside the measurement. Prints
# "wakeup MS median_us p90_us" (the excess over the sleep asked for).
guest_wakeup() {
	perl -MTime::HiRes=clock_gettime,nanosleep,CLOCK_MONOTONIC -e '
		my $n = $ARGV[0];
		for my $ms (1, 5, 20) {
			my @e;
			for (1 .. $n) {
				my $t0 = clock_gettime(CLOCK_MONOTONIC);
				nanosleep($ms * 1e6);
				push @e, (clock_gettime(CLOCK_MONOTONIC) - $t0) * 1e6 - $ms * 1000;
			}
			@e = sort { $a <=> $b } @e;
			printf "wakeup %d %.0f %.0f\n", $ms, $e[int($#e / 2)], $e[int(0.9 * $#e)];
		}' "${BENCH_WAKEUPS:-51}"
}

if [ "${1:-}" = --guest ]; then
	guest_wakeup || echo "bench-lab: the wake-up pass failed" >&2
	modprobe null_blk nr_devices=1 queue_mode=2 irqmode=0 completion_nsec=0
	for qd in 1 16; do
		echo "nullblk-qd$qd $(fio_terse qd$qd --filename=/dev/nullb0 --direct=1 \
			--ioengine=libaio --iodepth=$qd)"
	done
	guest_iscsi || echo "bench-lab: the iSCSI pass failed" >&2
	exit 0
fi

SLOWPATH=${SLOWPATH:-${BUILD:-build}/slowpath}
tmp=$(mktemp -d)
# a name no one else can have placed there first (a symlink at a
# predictable /dev/shm name would have had root's fio write through it)
shmdir=$(mktemp -d /dev/shm/slowpath-bench.XXXXXX)
trap 'rm -rf "$tmp" "$shmdir"' EXIT
echo "native reference: psync 4k randread on a tmpfs file, ${RUNTIME}s"
read -r n_iops n_lat < <(fio_terse native --filename="$shmdir/file" \
	--size=64M --ioengine=psync)
echo "  native   qd1  $n_iops IOPS  mean latency $n_lat us"
for cpus in 1 2; do
	"$SLOWPATH" lab run --engine qemu --cpus "$cpus" --timeout 600 -- bash lab/bench.sh --guest \
		>"$tmp/cpus$cpus" || { echo "bench-lab: the lab run with $cpus vCPUs failed" >&2; exit 3; }
	while read -r qd iops lat; do
		case $qd in
		nullblk-*|iscsi-*) ;;
		*) continue ;;	# capacity and wake-up lines: in the summary
		esac
		echo "  lab ${cpus}vCPU $qd  $iops IOPS  mean latency $lat us"
		echo "$cpus $qd $iops $lat" >>"$tmp/all"
	done <"$tmp/cpus$cpus"
done
get() { awk -v c="$1" -v q="$2" -v f="$3" '$1 == c && $2 == q { print $f }' "$tmp/all"; }
ratio() {	# ratio TEXT A B [scale-format]
	awk -v t="$1" -v a="$2" -v b="$3" \
		'BEGIN { if (a == "" || b == "" || b == 0) print "  " t ": n/a"; else printf "  %s: %.2f\n", t, a / b }'
}
echo "ratios (same run):"
for c in 1 2; do
	ratio "lab ${c}vCPU null_blk qd1 latency / native" "$(get $c nullblk-qd1 4)" "$n_lat"
	ratio "lab ${c}vCPU iSCSI qd1 latency / native" "$(get $c iscsi-qd1 4)" "$n_lat"
	awk -v a="$(get $c iscsi-qd1 4)" -v b="$(get $c nullblk-qd1 4)" -v c="$c" \
		'BEGIN { if (a != "" && b != "") printf "  lab %svCPU iSCSI path costs %.0f us per I/O over null_blk\n", c, a - b }'
done
ratio "iSCSI qd16 IOPS, 2 vCPUs / 1 vCPU" "$(get 2 iscsi-qd16 3)" "$(get 1 iscsi-qd16 3)"
ratio "null_blk qd16 IOPS, 2 vCPUs / 1 vCPU" "$(get 2 nullblk-qd16 3)" "$(get 1 nullblk-qd16 3)"
echo "capacity (one zero-delay iSCSI path through our store, qd 16, guest CPU busy = total - idle - iowait):"
for c in 1 2; do
	steps=$(awk '$1 == "capacity-step" { printf "%s%d IOPS %.0f%%", s, $2, $3; s = ", " }' "$tmp/cpus$c")
	awk -v c="$c" '
		$1 == "capacity" && $2 == "at" { printf "  lab %svCPU: 50 %% busy at %d IOPS\n", c, $3; f = 1 }
		$1 == "capacity" && $2 == "none" { printf "  lab %svCPU: never 50 %% busy (%d IOPS unlimited, %.0f %% busy)\n", c, $3, $4; f = 1 }
		END { if (!f) printf "  lab %svCPU: n/a\n", c }' "$tmp/cpus$c"
	awk '$1 == "capacity-floor" { printf "    floor (fio at 1 IOPS: its start-up, the idle guest): %.0f %% busy\n", $3 }' "$tmp/cpus$c"
	[ -n "$steps" ] && echo "    steps (IOPS, busy; the first unlimited): $steps"
done
echo "wake-up excess (nanosleep, ${BENCH_WAKEUPS:-51} each, median / p90 over the time asked):"
for c in 1 2; do
	awk -v c="$c" '$1 == "wakeup" { printf "  lab %svCPU sleep %2d ms: +%d us median, +%d us p90\n", c, $2, $3, $4; f = 1 }
		END { if (!f) printf "  lab %svCPU: n/a\n", c }' "$tmp/cpus$c"
done
uptime | sed 's/^/  host load while measuring: /'
