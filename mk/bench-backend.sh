#!/bin/bash
# make bench-backend: what the `delay` backing store costs and how exact
# its delay is, measured side by side with tgt's own bs_rdwr in ONE run.
# One tgtd on 127.0.0.1 exports the same backing file as one LUN per
# configuration; `slowpath probe` (randread, 4k) measures each
# (store, delay, qd) cell for BENCH_CELL seconds. Prints a markdown table
# and writes it to docs/bench-backend.md (BENCH_OUT to change). Numbers,
# not a test: it never fails on a missed target, only on a broken setup.
set -u
cd "$(dirname "$0")/.." || exit 3
SRCDIR=$PWD
BUILD=${BUILD:-$SRCDIR/build}
SLOWPATH=${SLOWPATH:-$BUILD/slowpath}
CELL=${BENCH_CELL:-1s}
OUT=${BENCH_OUT:-docs/bench-backend.md}
QDS=(1 16 64 256)
DELAYS=(100us 500us 1ms 10ms)	# the delay store's own syntax
ROUNDS=${BENCH_ROUNDS:-5}	# alternations for the zero-delay ratio
CELL_ROUNDS=${BENCH_CELL_ROUNDS:-3}	# passes over the whole (store, delay, qd) grid
RATIO_CELL=${BENCH_RATIO_CELL:-1s}	# and the length of each
REGION=${BENCH_REGION:-64M}	# backing file size; all of it stays in page cache

die() { echo "bench-backend: $*" >&2; exit "${2:-2}"; }

[ "$(id -u)" -eq 0 ] || die "needs root (tgtd)"
command -v jq >/dev/null || die "jq is not installed (make deps)"
[ -x "$SLOWPATH" ] || die "$SLOWPATH is not built (run make)"
[ -f tests/common/tgt.rc ] || die "tests/common/tgt.rc is missing"
command -v taskset >/dev/null || die "taskset is not installed (util-linux)"

WORK=$(mktemp -d /tmp/slowpath-bench.XXXXXX)
TMPDIR_TEST=$WORK
# A private copy: a rebuild of build/slowpath mid-run must not break it.
cp "$SLOWPATH" "$WORK/slowpath" || die "cannot copy $SLOWPATH" 3
SLOWPATH=$WORK/slowpath
export SRCDIR BUILD SLOWPATH TMPDIR_TEST
# shellcheck source=tests/common/rc
. tests/common/rc
# shellcheck source=tests/common/tgt.rc
. tests/common/tgt.rc

# tgt.rc's trap stops every tgtd it started and removes $WORK, on exit
# and on INT/TERM alike; this one covers the time before the first.
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
SKIP_REASONS=()
_have_delay_backend || die "${SKIP_REASONS[*]}"

# One tgtd, one target per configuration, all LUNs on one file of random
# data (not sparse, so every read copies real page-cache pages).
bench_start() {
	local file=$WORK/disk.img tid=0 name
	dd if=/dev/urandom of="$file" bs=1M count=$(( $(size_bytes "$REGION") >> 20 )) \
		status=none || return 1
	_tgt_start bench || return 1
	for name in "${NAMES[@]}"; do
		tid=$((tid + 1))
		case $name in
		rdwr) _tgt_add_lun bench "$tid" 1 "$file" "" rdwr ;;
		delay0) _tgt_add_lun bench "$tid" 1 "$file" "delay=0" ;;
		*) _tgt_add_lun bench "$tid" 1 "$file" "delay=${name#d}" ;;
		esac || return 1
		URL[$name]=$(_tgt_url bench "$tid" 1)
	done
}

# Where the processes run. qd 1 cells measure a latency: tgtd and the
# probe share one CPU, so that a response wakes the probe on a running
# CPU. Across CPUs, a thread that slept through a delay wakes on a halted
# vCPU, which on a VM costs 40-60 us more after 0.5 ms of sleep than
# after 60 us (docs/bench-backend.md): the initiator's wake-up, not the
# store's delay, and it would be counted as delay error. Higher qd
# cells measure throughput and use every CPU. rdwr and delay are placed
# alike. BENCH_LATENCY_CPU=none turns this off.
LAT_CPU=${BENCH_LATENCY_CPU:-0}
ALL_CPUS=0-$(( $(nproc) - 1 ))
PLACED=
place() {	# place latency|throughput
	local want=$1 cpus=$ALL_CPUS
	[ "$LAT_CPU" = none ] && return 0
	[ "$want" = "$PLACED" ] && return 0
	[ "$want" = latency ] && cpus=$LAT_CPU
	taskset -a -p -c "$cpus" "$(_tgt_pid bench)" >/dev/null ||
		die "taskset could not move tgtd to CPU $cpus" 3
	PLACED=$want
}
probe_on() {	# probe_on QD ARGS...: the probe, placed for QD
	local qd=$1
	shift
	if [ "$LAT_CPU" != none ] && [ "$qd" = 1 ]; then
		place latency
		taskset -c "$LAT_CPU" "$SLOWPATH" probe "$@"
	else
		place throughput
		"$SLOWPATH" probe "$@"
	fi
}

# cell NAME QD [TAG [TIME]]: one measurement, JSON kept as $WORK/NAME-QD[-ROUND].json
cell() {
	local name=$1 qd=$2 tag=${3:-} f
	f=$WORK/$name-$qd${tag:+-$tag}.json
	if ! probe_on "$qd" "${URL[$name]}" --qd "$qd" --time "${4:-$CELL}" \
		--rw randread --bs 4k --size "$REGION" --json >"$f"; then
		die "probe of $name at qd $qd failed" 3
	fi
	printf '  %-8s qd %-3s %8.0f IOPS  p50 %8.1f us\n' "$name" "$qd" \
		"$(jq .iops "$f")" "$(jq '.lat_ns.p50 / 1000' "$f")" >&2
}

val() {	# val NAME QD[-TAG] FILTER
	jq -r "$3" "$WORK/$1-$2.json"
}

over_rounds() {	# over_rounds NAME QD FILTER: median over the passes
	local r v=()
	for r in $(seq 1 "$CELL_ROUNDS"); do
		v+=("$(val "$1" "$2-c$r" "$3")")
	done
	median "${v[@]}"
}

median() {	# the middle one (the lower middle of an even count)
	printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"
}

size_bytes() {	# 64M -> 67108864
	case $1 in
	*G) echo $(( ${1%G} << 30 )) ;;
	*M) echo $(( ${1%M} << 20 )) ;;
	*) echo "$1" ;;
	esac
}

ns_of() {	# 100us -> 100000
	case $1 in
	*us) echo $(( ${1%us} * 1000 )) ;;
	*ms) echo $(( ${1%ms} * 1000000 )) ;;
	*s) echo $(( ${1%s} * 1000000000 )) ;;
	esac
}

label() {	# label NAME -> "store | delay" cells
	case $1 in
	rdwr) echo "rdwr | -" ;;
	delay0) echo "delay | 0" ;;
	*) echo "delay | ${1#d}" ;;
	esac
}

hit() {	# hit OK -> "yes"/"**no**"
	if [ "$1" = 1 ]; then echo yes; else echo "**no**"; fi
}

NAMES=(rdwr delay0)
for d in "${DELAYS[@]}"; do NAMES+=("d$d"); done
declare -A URL=() DELAY_NS=([rdwr]=0 [delay0]=0)
for d in "${DELAYS[@]}"; do DELAY_NS[d$d]=$(ns_of "$d"); done

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
bench_start || die "could not start the targets" 3
echo "bench-backend: ${#NAMES[@]} LUNs, $CELL per cell, region $REGION" >&2
cat "$WORK/disk.img" >/dev/null	# the page cache, not the disk, is measured

# The zero-delay cost is a few percent at most, well inside the noise of a
# shared machine, so those two stores alternate ROUNDS times per qd in
# short cells, and the median of the per-pair ratios is reported: a pair
# shares whatever else the machine was doing at that moment.
for qd in 1 32; do
	for r in $(seq 1 "$ROUNDS"); do
		cell rdwr "$qd" "r$r" "$RATIO_CELL"
		cell delay0 "$qd" "r$r" "$RATIO_CELL"
	done
done
# The grid is run CELL_ROUNDS times; within a pass every store at a qd
# is measured back to back, so each pass yields its own ratios, and the
# median over the passes is reported (a noisy neighbour on the host
# spoils one pass, not the result).
for r in $(seq 1 "$CELL_ROUNDS"); do
	for qd in "${QDS[@]}"; do
		for name in "${NAMES[@]}"; do
			cell "$name" "$qd" "c$r"
		done
	done
done

calc() { awk "BEGIN { printf \"%.3f\", $* }"; }
ge() { awk "BEGIN { exit !($1 >= $2) }" && echo 1 || echo 0; }

render() {
	local qd name r d ratio expect ok rd
	local -a pair rd_p50 expects

	echo "# bench-backend: the \`delay\` store against tgt's bs_rdwr"
	echo
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`make bench-backend\`"
	echo "(mk/bench-backend.sh) on $(uname -r), $(nproc) cores, load average"
	echo "$LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end. One tgtd on 127.0.0.1 exports the"
	echo "same $REGION backing file (page cache warm) as one LUN per row;"
	if [ "$LAT_CPU" = none ]; then
		echo "Every cell uses every CPU."
	else
		echo "qd 1 cells: tgtd and the probe on CPU $LAT_CPU; other cells: CPUs $ALL_CPUS."
	fi
	echo "\`slowpath probe\` does 4k randread for $CELL per cell. The load"
	echo "averages above say how quiet the machine was; the ratios compare"
	echo "cells run seconds apart, so they carry less of its noise."
	echo
	echo "## Cells"
	echo
	echo "| store | delay | qd | IOPS | p50 (us) | p99 (us) |"
	echo "|-------|-------|---:|-----:|---------:|---------:|"
	for name in "${NAMES[@]}"; do
		for qd in "${QDS[@]}"; do
			printf '| %s | %s | %.0f | %.1f | %.1f |\n' \
				"$(label "$name")" "$qd" "$(over_rounds "$name" "$qd" .iops)" \
				"$(over_rounds "$name" "$qd" '.lat_ns.p50 / 1000')" \
				"$(over_rounds "$name" "$qd" '.lat_ns.p99 / 1000')"
		done
	done
	echo
	echo "## Ratios"
	echo
	echo "| ratio | where | value | target | met |"
	echo "|-------|-------|------:|--------|-----|"
	for qd in 1 32; do
		pair=() rd_p50=()
		for r in $(seq 1 "$ROUNDS"); do
			pair+=("$(calc "$(val delay0 "$qd-r$r" .iops) / $(val rdwr "$qd-r$r" .iops)")")
			rd_p50+=("$(val rdwr "$qd-r$r" .lat_ns.p50)")
		done
		ratio=$(median "${pair[@]}")
		[ "$qd" = 1 ] && BASE_NS=$(median "${rd_p50[@]}")
		echo "| zero-delay IOPS / rdwr IOPS | qd $qd, median of $ROUNDS pairs of $RATIO_CELL (all: ${pair[*]}) | $ratio | ≥ 0.95 | $(hit "$(ge "$ratio" 0.95)") |"
	done
	for d in "${DELAYS[@]}"; do
		[ "${DELAY_NS[d$d]}" -ge 500000 ] || continue
		pair=()
		for r in $(seq 1 "$CELL_ROUNDS"); do
			pair+=("$(calc "($(val "d$d" "1-c$r" .lat_ns.p50) - $(val rdwr "1-c$r" .lat_ns.p50)) / ${DELAY_NS[d$d]}")")
		done
		ratio=$(median "${pair[@]}")
		ok=$(( $(ge "$ratio" 0.98) && $(ge 1.02 "$ratio") ))
		echo "| (p50(delay) − p50(rdwr)) / d | d = $d, qd 1, median of $CELL_ROUNDS passes (all: ${pair[*]}) | $ratio | 0.98 .. 1.02 | $(hit "$ok") |"
	done
	for d in "${DELAYS[@]}"; do
		for qd in "${QDS[@]}"; do
			pair=() expects=()
			for r in $(seq 1 "$CELL_ROUNDS"); do
				rd=$(val rdwr "$qd-c$r" .iops)
				expect=$(calc "($qd * 1e9 / (${DELAY_NS[d$d]} + $BASE_NS) < $rd) ? $qd * 1e9 / (${DELAY_NS[d$d]} + $BASE_NS) : $rd")
				expects+=("$expect")
				pair+=("$(calc "$(val "d$d" "$qd-c$r" .iops) / $expect")")
			done
			ratio=$(median "${pair[@]}")
			echo "| IOPS / min(qd/(d + base), rdwr IOPS) | d = $d, qd $qd (expected $(printf '%.0f' "$(median "${expects[@]}")"); all: ${pair[*]}) | $ratio | ≥ 0.9 | $(hit "$(ge "$ratio" 0.9)") |"
		done
	done
	echo
	echo "Cells: median over the $CELL_ROUNDS passes. Ratios: each pass compares"
	echo "cells measured seconds apart; the median over the passes is the value."
	echo "p50(rdwr) is that pass's rdwr at qd 1. base = p50 of rdwr at qd 1,"
	echo "median over the $ROUNDS zero-delay pairs ($(calc "$BASE_NS / 1000") us): the service"
	echo "time without a delay, used in the expected IOPS, capped by that pass's"
	echo "rdwr IOPS at the same qd. The p50 ratio is taken at qd 1: at higher qd the rdwr p50 is"
	echo "mostly queueing in tgtd, which a delayed LUN (fewer IOPS) does not"
	echo "build up, so the difference would not isolate the delay."
	if [ "$LAT_CPU" != none ]; then
		echo
		echo "Why qd 1 runs on one CPU: with the probe and tgtd free to use both"
		echo "CPUs, the time from a completion to the next command (measured inside"
		echo "the store) grew from 64 us without a delay to 106 us after a 500 us"
		echo "delay and 126 us after 1 ms: the probe, asleep for the whole delay, is"
		echo "woken on a halted vCPU. That is the initiator's wake-up, paid on every"
		echo "delayed command, and it read as 5-10 % of delay error. On one CPU a"
		echo "completion wakes the probe on a running CPU. BENCH_LATENCY_CPU=none"
		echo "measures without this."
	fi
}

render >"$WORK/bench.md" || die "rendering the table failed" 3
cat "$WORK/bench.md"
cp "$WORK/bench.md" "$OUT" && echo "bench-backend: written to $OUT" >&2
