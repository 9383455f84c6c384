#!/bin/bash
# make bench-lab, its second half: the two lab engines side by side in
# one run. Each boots one guest per measurement (--cpus 1: one core),
# brings equal3 up at a 1 ms unit (serial paths: every command is 1 ms
# of service) and reads IOS and then 2 x IOS I/Os at iodepth 1 and 16
# with ST; the host times each guest, and the difference of the two
# counts' wall times is what IOS I/Os cost, boot and bring-up cancelled
# out. Prints, per engine and iodepth: I/Os per wall second on one core,
# the delay's error at iodepth 1 (p50 excess over the 1 ms service, as a
# fraction of it) and its jitter (p99 - p50), and the uml / qemu ratio.
#   lab/bench-engines.sh
set -eu
cd "$(dirname "$0")/.."
SLOWPATH=${SLOWPATH:-build/slowpath}
IOS_UML=${BENCH_IOS_UML:-10000}
IOS_QEMU=${BENCH_IOS_QEMU:-1500}
tmp=$(mktemp -d)
# the uml guest reaches --keep folders as nobody
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }

# one ENGINE QD IOS -> "wall_s p50_us p99_us"
one() {
	local engine=$1 qd=$2 ios=$3 out=$tmp/$1-$2-$3 t0 t1
	t0=$(now)
	"$SLOWPATH" lab run --engine "$engine" --cpus 1 --timeout 1800 --keep "$out" -- sh -c '
		"$0" up equal3 --unit 1ms >/dev/null 2>&1 || exit 3
		"$0" run --selectors st --rw randread --iodepth "$1" --ios "$2" \
			--out "$3/run" >/dev/null 2>&1
		rc=$?
		"$0" down >/dev/null 2>&1
		exit $rc' "$SLOWPATH" "$qd" "$ios" "$out" >"$out.log" 2>&1 ||
		{ echo "bench-lab: the $engine guest at iodepth $qd failed (log $out.log)" >&2; return 1; }
	t1=$(now)
	printf '%s ' "$(echo "$t1 - $t0" | bc)"
	jq -r '.fio.read | "\(.clat_p50_us) \(.clat_p99_us)"' "$out"/run/cases/*.json
}

declare -A rate err jit
for engine in uml qemu; do
	[ "$engine" = uml ] && ios=$IOS_UML || ios=$IOS_QEMU
	for qd in 1 16; do
		read -r w1 p50 p99 < <(one "$engine" "$qd" "$ios")
		read -r w2 _ _ < <(one "$engine" "$qd" $((2 * ios)))
		rate[$engine,$qd]=$(echo "scale=1; $ios / ($w2 - $w1)" | bc)
		if [ "$qd" = 1 ]; then
			err[$engine]=$(echo "scale=4; ($p50 - 1000) / 1000" | bc)
			jit[$engine]=$(echo "scale=1; $p99 - $p50" | bc)
		fi
		echo "bench-lab: $engine qd $qd: $ios I/Os in $(echo "$w2 - $w1" | bc) s of wall time beyond the first run's" >&2
	done
done
printf '%-7s %12s %12s %16s %14s\n' engine "IO/s qd1" "IO/s qd16" "delay error qd1" "jitter us qd1"
for engine in uml qemu; do
	printf '%-7s %12s %12s %16s %14s\n' "$engine" "${rate[$engine,1]}" "${rate[$engine,16]}" \
		"${err[$engine]}" "${jit[$engine]}"
done
printf 'uml / qemu: x%s at qd 1, x%s at qd 16 (I/Os per wall second, one core each)\n' \
	"$(echo "scale=1; ${rate[uml,1]} / ${rate[qemu,1]}" | bc)" \
	"$(echo "scale=1; ${rate[uml,16]} / ${rate[qemu,16]}" | bc)"
