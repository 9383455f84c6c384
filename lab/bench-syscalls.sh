#!/bin/bash
# make bench-syscalls: what an I/O costs the exact-time lab, and where it
# goes. A uml guest's every system call stops its process in the host's
# ptrace and wakes the UML kernel, so an I/O's wall time is mostly the
# calls made for it (fio's, tgtd's, the initiator's) and each shows on
# the host as context switches and system time. For fio's libaio and
# io_uring, the store's I/O on its worker pool and inline (io=, what
# bring-up sets on exact time; SLOWPATH_STORE_IO picks it here), at
# iodepth 1 and 16, one guest per count (IOS, then 2 x IOS)
# brings equal3 up at a 1 ms unit and reads the map with ST under
# GNU time; the difference of the two is what IOS I/Os cost, boot and
# bring-up cancelled out: wall ms, host CPU ms (user + system) and host
# voluntary context switches per I/O (the UML process tree's, as its children are
# reaped into it), and I/Os per wall second on one core.
#   lab/bench-syscalls.sh
set -eu
cd "$(dirname "$0")/.."
SLOWPATH=${SLOWPATH:-build/slowpath}
IOS=${BENCH_IOS:-4000}
[ -x /usr/bin/time ] || { echo "bench-syscalls: needs GNU time (make deps installs it)" >&2; exit 2; }
tmp=$(mktemp -d)
# the uml guest reaches --keep folders as nobody
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# one ENGINE STORE_IO QD IOS -> "wall_s cpu_s ctxsw"
one() {
	local out=$tmp/$1-$2-$3-$4
	mkdir -m 755 "$out"
	printf '[global]\nioengine=%s\n' "$1" >"$out.job"
	chmod 644 "$out.job"
	/usr/bin/time -o "$out.time" -f '%e %U %S %w %c' \
		"$SLOWPATH" lab run --engine uml --timeout 1800 --keep "$out" -- sh -c '
		SLOWPATH_STORE_IO=$4 "$0" up equal3 --unit 1ms >/dev/null 2>&1 || exit 3
		"$0" run --selectors st --rw randread --iodepth "$1" --ios "$2" \
			--job "$3.job" --out "$3/run" >/dev/null 2>&1
		rc=$?
		"$0" down >/dev/null 2>&1
		exit $rc' "$SLOWPATH" "$3" "$4" "$out" "$2" >"$out.log" 2>&1 ||
		{ echo "bench-syscalls: the $1 $2 guest at iodepth $3 failed (log $out.log)" >&2; return 1; }
	# voluntary switches only: the involuntary ones count what else the host runs
	awk '{ printf "%s %s %s\n", $1, $2 + $3, $4 }' "$out.time"
}

printf '%-9s %-6s %3s %10s %14s %16s %10s\n' ioengine store qd "wall ms/IO" \
	"host CPU ms/IO" "vol. switches/IO" "IO/s"
declare -A rate ctx
for eng in libaio io_uring; do
	for io in pool inline; do
		for qd in 1 16; do
			read -r w1 c1 s1 < <(one "$eng" "$io" "$qd" "$IOS")
			read -r w2 c2 s2 < <(one "$eng" "$io" "$qd" $((2 * IOS)))
			rate[$eng,$io,$qd]=$(echo "scale=1; $IOS / ($w2 - $w1)" | bc)
			ctx[$eng,$io,$qd]=$(echo "scale=1; ($s2 - $s1) / $IOS" | bc)
			printf '%-9s %-6s %3s %10.2f %14.2f %16.1f %10s\n' "$eng" "$io" "$qd" \
				"$(echo "($w2 - $w1) * 1000 / $IOS" | bc -l)" \
				"$(echo "($c2 - $c1) * 1000 / $IOS" | bc -l)" \
				"${ctx[$eng,$io,$qd]}" "${rate[$eng,$io,$qd]}"
		done
	done
done
# voluntary context switches per I/O (the guest's system calls stopping in
# ptrace) are the steadier measure; wall time moves with
# whatever else the host runs
for qd in 1 16; do
	printf 'libaio qd %s, store inline / pool: x%s I/Os per wall second, x%s voluntary context switches per I/O\n' \
		"$qd" "$(echo "scale=2; ${rate[libaio,inline,$qd]} / ${rate[libaio,pool,$qd]}" | bc)" \
		"$(echo "scale=2; ${ctx[libaio,inline,$qd]} / ${ctx[libaio,pool,$qd]}" | bc)"
done
printf 'store inline, io_uring / libaio: x%s at qd 1, x%s at qd 16 (uml, I/Os per wall second, one core)\n' \
	"$(echo "scale=2; ${rate[io_uring,inline,1]} / ${rate[libaio,inline,1]}" | bc)" \
	"$(echo "scale=2; ${rate[io_uring,inline,16]} / ${rate[libaio,inline,16]}" | bc)"
