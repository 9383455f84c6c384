#!/bin/bash
# make bench-injectors: the three ways to delay a path, side by side over
# ONE iSCSI path (tests/lab/inject.rc: `slowpath up base1`): our tgt `delay` store, netem on
# the target's veth, and the kernel's dm-delay on the iSCSI disk. Each is
# measured at every delay and queue depth against its own zero-delay
# baseline, cells interleaved across injectors and repeated in passes so
# that drift in the emulator does not favour one. Prints a markdown table
# and writes it to docs/bench-injectors.md (BENCH_OUT to change). Numbers,
# not a test: it fails only on a broken setup.
#   lab/bench-injectors.sh            host side: one lab boot (and a native
#                                     pass when the host has the stack)
#   lab/bench-injectors.sh --guest    where the kernel stack is: the cells
#   lab/bench-injectors.sh --render CELLS   the table again from a saved
#                                     build/bench-injectors.cells
set -u
cd "$(dirname "$0")/.." || exit 3
SRCDIR=$PWD
BUILD=${BUILD:-$SRCDIR/build}
SLOWPATH=${SLOWPATH:-$BUILD/slowpath}
export SRCDIR BUILD SLOWPATH
read -r -a DELAYS <<<"${BENCH_DELAYS:-1 5 20}"	# ms
read -r -a QDS <<<"${BENCH_QDS:-1 16}"
CELL=${BENCH_CELL:-3}		# seconds per cell
PASSES=${BENCH_PASSES:-3}
CPUS=${BENCH_CPUS:-1}		# lab vCPUs; docs/lab.md: 1 is steadier on a busy host
OUT=${BENCH_OUT:-docs/bench-injectors.md}

die() { echo "bench-injectors: $*" >&2; exit "${2:-3}"; }

# --- where the stack is: prints "cell PASS INJ MS QD iops mean p50 p99" --
guest() {
	local pass inj ms qd order r
	TMPDIR_TEST=$(mktemp -d /tmp/slowpath-inj.XXXXXX)
	export TMPDIR_TEST
	# shellcheck source=tests/common/rc
	. tests/common/rc
	# shellcheck source=tests/lab/inject.rc
	. tests/lab/inject.rc
	SKIP_REASONS=()
	_inj_requires || die "${SKIP_REASONS[*]}" 2
	trap '_inj_teardown; rm -rf "$SLOWPATH_STATE_DIR" "$TMPDIR_TEST"' EXIT
	trap 'exit 130' INT TERM
	_inj_up || die "the path did not come up"
	echo "meta kernel $(uname -r)"
	echo "meta cpus $(nproc)"
	# The injectors take turns at each (delay, qd), and every other pass
	# runs them, and the delays, in reverse: a slow stretch of the
	# emulator lands on different cells each pass.
	for pass in $(seq 1 "$PASSES"); do
		order=("${INJ_INJECTORS[@]}")
		local ms_order=(0 "${DELAYS[@]}")
		if [ $((pass % 2)) -eq 0 ]; then
			mapfile -t order < <(printf '%s\n' "${order[@]}" | tac)
			mapfile -t ms_order < <(printf '%s\n' "${ms_order[@]}" | tac)
		fi
		for qd in "${QDS[@]}"; do
			for ms in "${ms_order[@]}"; do
				for inj in "${order[@]}"; do
					# every injector rests at 0 between its cells
					if [ "$ms" != 0 ]; then
						_inj_set "$inj" "$ms" || die "could not set $inj to $ms ms"
					fi
					r=$(_inj_fio "$(_inj_dev "$inj")" "$qd" "$CELL")
					[ -n "$r" ] || die "fio failed: $inj $ms ms qd $qd"
					echo "cell $pass $inj $ms $qd $r"
					echo "  pass $pass $inj ${ms}ms qd$qd: $r" >&2
					if [ "$ms" != 0 ]; then
						_inj_set "$inj" 0 || die "could not reset $inj"
					fi
				done
			done
		done
	done
	"$SLOWPATH" netem clear "$INJ_TIF" --netns "$INJ_NS" >/dev/null 2>&1
	echo "meta guestload $(cut -d' ' -f1-3 /proc/loadavg)"
}

if [ "${1:-}" = --guest ]; then
	guest
	exit 0
fi

# --- host side ----------------------------------------------------------
[ -x "$SLOWPATH" ] || die "$SLOWPATH is not built (run make)" 2
command -v jq >/dev/null || die "jq is not installed (make deps)" 2
WORK=$(mktemp -d /tmp/slowpath-bench-inj.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
START=$(date -u '+%Y-%m-%d %H:%M UTC')
WHERE=()
export BENCH_DELAYS="${DELAYS[*]}" BENCH_QDS="${QDS[*]}" BENCH_CELL=$CELL BENCH_PASSES=$PASSES
if [ "${1:-}" = --render ]; then
	# the saved cells carry the run's own facts as "meta" lines
	[ -f "${2:-}" ] || die "--render needs a cells file" 1
	grep -v '^native ' "$2" | sed 's/^lab //' >"$WORK/lab"
	sed -n 's/^native //p' "$2" >"$WORK/native"
	WHERE=(lab)
	[ -s "$WORK/native" ] && WHERE=(native lab)
	START=$(sed -n 's/^meta start //p' "$WORK/lab" | head -n 1)
	LOAD_BEFORE=$(sed -n 's/^meta hostload-before //p' "$WORK/lab" | head -n 1)
	LOAD_AFTER=$(sed -n 's/^meta hostload-after //p' "$WORK/lab" | head -n 1)
	HOST=$(sed -n 's/^meta host //p' "$WORK/lab" | head -n 1)
else
HOST="$(hostname) ($(nproc) host cores)"
if "$SLOWPATH" doctor --quiet --native >/dev/null 2>&1; then
	echo "bench-injectors: this host has the kernel stack: native pass" >&2
	bash lab/bench-injectors.sh --guest >"$WORK/native" || die "the native pass failed"
	WHERE+=(native)
fi
echo "bench-injectors: one lab boot, $CPUS vCPU(s), ${CELL}s per cell, $PASSES passes" >&2
SLOWPATH_LAB_ENV="BENCH_DELAYS BENCH_QDS BENCH_CELL BENCH_PASSES" \
	"$SLOWPATH" lab run --engine qemu --cpus "$CPUS" --timeout 3000 -- bash lab/bench-injectors.sh --guest \
	>"$WORK/lab" || die "the lab run failed"
WHERE+=(lab)
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "meta start $START"
	echo "meta host $HOST"
	echo "meta hostload-before $LOAD_BEFORE"
	echo "meta hostload-after $LOAD_AFTER"
} >>"$WORK/lab"
fi

median() {	# of the numbers given; the mean of the two middle ones if even
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# field WHERE INJ MS QD PASS COL: COL 1 iops, 2 mean_us, 3 p50_us, 4 p99_us
field() {
	awk -v i="$2" -v m="$3" -v q="$4" -v p="$5" -v c="$6" \
		'$1 == "cell" && $2 == p && $3 == i && $4 == m && $5 == q { print $(5 + c) }' "$WORK/$1"
}
over_passes() {	# over_passes WHERE INJ MS QD AWK-EXPR-OF(iops,mean,p50,p99,b_p50): median
	local p v=() line base
	for p in $(seq 1 "$PASSES"); do
		line=$(awk -v i="$2" -v m="$3" -v q="$4" -v p="$p" \
			'$1 == "cell" && $2 == p && $3 == i && $4 == m && $5 == q { print $6, $7, $8, $9 }' "$WORK/$1")
		base=$(field "$1" "$2" 0 "$4" "$p" 3)
		if [ -z "$line" ] || [ -z "$base" ]; then continue; fi
		v+=("$(echo "$line $base" | awk "{ iops = \$1; mean = \$2; p50 = \$3; p99 = \$4; b_p50 = \$5; printf \"%.6f\", $5 }")")
	done
	median "${v[@]}"
}
meta() { sed -n "s/^meta $2 //p" "$WORK/$1" | head -n 1; }
fmt() { awk -v v="$1" -v f="$2" 'BEGIN { if (v == "") print "-"; else printf f, v }'; }
name_of() {
	case $1 in
	store) echo "store (tgt \`delay\`)" ;;
	netem) echo "netem (target veth)" ;;
	dm) echo "dm-delay" ;;
	esac
}

render() {
	local w inj ms qd base_ms ex ratio jit iops ideal
	echo "# bench-injectors: store, netem and dm-delay on one path"
	echo
	echo "Measured $START by \`make bench-injectors\` (lab/bench-injectors.sh)"
	echo "on $HOST, host load average $LOAD_BEFORE before,"
	echo "$LOAD_AFTER after. 4k random reads, fio libaio direct, time-based ${CELL} s"
	echo "per cell, $PASSES passes (each pass runs every injector at a (delay, qd) back"
	echo "to back, every other pass in reverse order); values are the median over"
	echo "the passes of per-pass values. One path (tests/lab/inject.rc): \`slowpath"
	echo "up base1 --mechanism backend\`, tgtd with our store (delay=0) in a network"
	echo "namespace, open-iscsi over a veth pair; store = \`slowpath delay set a\`, netem = \`slowpath netem set\`"
	echo "on the target's veth (delays the replies), dm-delay = a \`delay\` map on the"
	echo "iSCSI disk. Each injector's baseline is its own zero: store delay=0,"
	echo "netem \`delay 0ms\`, dm-delay table with 0 ms."
	for w in "${WHERE[@]}"; do
		echo
		if [ "$w" = lab ]; then
			echo "## Lab: kernel $(meta lab kernel), $(meta lab cpus) vCPU(s), TCG"
			echo
			echo "Guest load average at the end: $(meta lab guestload)."
		else
			echo "## Native: kernel $(uname -r)"
		fi
		echo
		echo "Baselines (zero delay):"
		echo
		echo "| injector | qd | IOPS | mean (ms) | p50 (ms) | p99 − p50 (ms) |"
		echo "|---|---:|---:|---:|---:|---:|"
		for inj in store netem dm; do
			for qd in "${QDS[@]}"; do
				printf '| %s | %s | %s | %s | %s | %s |\n' "$(name_of $inj)" "$qd" \
					"$(fmt "$(over_passes "$w" $inj 0 "$qd" iops)" %.0f)" \
					"$(fmt "$(over_passes "$w" $inj 0 "$qd" 'mean / 1000')" %.2f)" \
					"$(fmt "$(over_passes "$w" $inj 0 "$qd" 'p50 / 1000')" %.2f)" \
					"$(fmt "$(over_passes "$w" $inj 0 "$qd" '(p99 - p50) / 1000')" %.2f)"
			done
		done
		echo
		echo "Delayed cells (excess = p50 − that pass's zero-delay p50 of the same injector and qd;"
		echo "ideal IOPS = qd / (d + base), base = the injector's zero-delay mean latency at qd 1):"
		echo
		echo "| injector | d (ms) | qd | p50 excess (ms) | excess / d | p99 − p50 (ms) | IOPS | ideal | IOPS / ideal |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
		for inj in store netem dm; do
			base_ms=$(over_passes "$w" $inj 0 1 'mean / 1000')
			for ms in "${DELAYS[@]}"; do
				for qd in "${QDS[@]}"; do
					ex=$(over_passes "$w" $inj "$ms" "$qd" '(p50 - b_p50) / 1000')
					ratio=$(over_passes "$w" $inj "$ms" "$qd" "(p50 - b_p50) / 1000 / $ms")
					jit=$(over_passes "$w" $inj "$ms" "$qd" '(p99 - p50) / 1000')
					iops=$(over_passes "$w" $inj "$ms" "$qd" iops)
					ideal=$(awk -v q="$qd" -v d="$ms" -v b="$base_ms" 'BEGIN { if (b != "") printf "%.1f", q * 1000 / (d + b) }')
					printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(name_of $inj)" "$ms" "$qd" \
						"$(fmt "$ex" %.2f)" "$(fmt "$ratio" %.2f)" "$(fmt "$jit" %.2f)" \
						"$(fmt "$iops" %.0f)" "$(fmt "$ideal" %.0f)" \
						"$(awk -v a="$iops" -v b="$ideal" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }')"
				done
			done
		done
	done
}

render >"$WORK/bench.md" || die "rendering the table failed"
cat "$WORK/bench.md"
if [ -f "$OUT" ] && grep -q '^## Which injector when' "$OUT"; then
	# the hand-written reading of the numbers stays below the new table
	sed -n '/^## Which injector when/,$p' "$OUT" >"$WORK/keep"
	{ cat "$WORK/bench.md"; echo; cat "$WORK/keep"; } >"$OUT"
else
	cp "$WORK/bench.md" "$OUT"
fi
if [ "${1:-}" != --render ]; then
	mkdir -p "$BUILD"
	{ sed 's/^/lab /' "$WORK/lab"; [ -f "$WORK/native" ] && sed 's/^/native /' "$WORK/native"; } \
		>"$BUILD/bench-injectors.cells"
fi
echo "bench-injectors: written to $OUT (raw cells: $BUILD/bench-injectors.cells)" >&2
