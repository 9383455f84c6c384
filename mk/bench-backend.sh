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
CELL=${BENCH_CELL:-2s}
OUT=${BENCH_OUT:-docs/bench-backend.md}
QDS=(1 16 64 256)
DELAYS=(100us 500us 1ms 10ms)	# the delay store's own syntax
ROUNDS=${BENCH_ROUNDS:-5}	# alternations for the zero-delay ratio
RATIO_CELL=${BENCH_RATIO_CELL:-1s}	# and the length of each
REGION=${BENCH_REGION:-64M}	# backing file size; all of it stays in page cache

die() { echo "bench-backend: $*" >&2; exit "${2:-2}"; }

[ "$(id -u)" -eq 0 ] || die "needs root (tgtd)"
command -v jq >/dev/null || die "jq is not installed (make deps)"
[ -x "$SLOWPATH" ] || die "$SLOWPATH is not built (run make)"
[ -f tests/common/tgt.rc ] || die "tests/common/tgt.rc is missing"

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

# cell NAME QD [TAG [TIME]]: one measurement, JSON kept as $WORK/NAME-QD[-ROUND].json
cell() {
	local name=$1 qd=$2 tag=${3:-} f
	f=$WORK/$name-$qd${tag:+-$tag}.json
	if ! "$SLOWPATH" probe "${URL[$name]}" --qd "$qd" --time "${4:-$CELL}" \
		--rw randread --bs 4k --size "$REGION" --json >"$f"; then
		die "probe of $name at qd $qd failed" 3
	fi
	printf '  %-8s qd %-3s %8.0f IOPS  p50 %8.1f us\n' "$name" "$qd" \
		"$(jq .iops "$f")" "$(jq '.lat_ns.p50 / 1000' "$f")" >&2
}

val() {	# val NAME QD FILTER
	jq -r "$3" "$WORK/$1-$2.json"
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
for qd in "${QDS[@]}"; do
	for name in "${NAMES[@]}"; do
		cell "$name" "$qd"
	done
done

calc() { awk "BEGIN { printf \"%.3f\", $* }"; }
ge() { awk "BEGIN { exit !($1 >= $2) }" && echo 1 || echo 0; }

render() {
	local qd name r d ratio base expect ok
	local -a pair rd_p50

	echo "# bench-backend: the \`delay\` store against tgt's bs_rdwr"
	echo
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`make bench-backend\`"
	echo "(mk/bench-backend.sh) on $(uname -r), $(nproc) cores, load average"
	echo "$LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end. One tgtd on 127.0.0.1 exports the"
	echo "same $REGION backing file (page cache warm) as one LUN per row;"
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
				"$(label "$name")" "$qd" "$(val "$name" "$qd" .iops)" \
				"$(val "$name" "$qd" '.lat_ns.p50 / 1000')" \
				"$(val "$name" "$qd" '.lat_ns.p99 / 1000')"
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
		ratio=$(calc "($(val "d$d" 1 .lat_ns.p50) - $BASE_NS) / ${DELAY_NS[d$d]}")
		ok=$(( $(ge "$ratio" 0.98) && $(ge 1.02 "$ratio") ))
		echo "| (p50(delay) − p50(rdwr)) / d | d = $d, qd 1 | $ratio | 0.98 .. 1.02 | $(hit "$ok") |"
	done
	for d in "${DELAYS[@]}"; do
		for qd in "${QDS[@]}"; do
			base=$BASE_NS
			expect=$(calc "($qd * 1e9 / (${DELAY_NS[d$d]} + $base) < $(val rdwr "$qd" .iops)) ? $qd * 1e9 / (${DELAY_NS[d$d]} + $base) : $(val rdwr "$qd" .iops)")
			ratio=$(calc "$(val "d$d" "$qd" .iops) / $expect")
			echo "| IOPS / min(qd/(d + base), rdwr IOPS) | d = $d, qd $qd (expected $(printf '%.0f' "$expect")) | $ratio | ≥ 0.9 | $(hit "$(ge "$ratio" 0.9)") |"
		done
	done
	echo
	echo "base = p50 of rdwr at qd 1, median over the $ROUNDS pairs ($(calc "$BASE_NS / 1000") us): the service"
	echo "time without a delay, used as p50(rdwr) in the p50 ratio and in the"
	echo "expected IOPS. The p50 ratio is taken at qd 1: at higher qd the rdwr p50 is"
	echo "mostly queueing in tgtd, which a delayed LUN (fewer IOPS) does not"
	echo "build up, so the difference would not isolate the delay."
}

render >"$WORK/bench.md" || die "rendering the table failed" 3
cat "$WORK/bench.md"
cp "$WORK/bench.md" "$OUT" && echo "bench-backend: written to $OUT" >&2
