#!/bin/bash
# make bench-lab: what the lab's emulation costs a block I/O. In one run:
# fio on null_blk (a device that completes at once, so everything
# measured is kernel + emulation) in the lab with 1 and with 2 vCPUs, at
# queue depth 1 and 16, and the same 4k random reads natively on a tmpfs
# file as the reference. Prints the numbers and their ratios.
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
}

if [ "${1:-}" = --guest ]; then
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
	"$SLOWPATH" lab run --cpus "$cpus" --timeout 600 -- bash lab/bench.sh --guest \
		>"$tmp/cpus$cpus" || { echo "bench-lab: the lab run with $cpus vCPUs failed" >&2; exit 3; }
	while read -r qd iops lat; do
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
uptime | sed 's/^/  host load while measuring: /'
