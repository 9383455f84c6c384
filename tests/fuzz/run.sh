#!/bin/bash
# make fuzz: runs each built fuzz target for SECONDS on a copy of its
# committed corpus (tests/fuzz/corpus/TARGET; what the run adds stays in
# $BUILD/fuzz/work and never grows the committed one), with its
# dictionary when tests/fuzz/dict/TARGET.dict exists. One line per
# target: name, execs, execs/s, seconds, result. Exits 1 when any target
# crashed, leaked, tripped a sanitizer or timed out; the input that did
# it is in $BUILD/fuzz/artifacts/TARGET/, the whole log in
# $BUILD/fuzz/logs/TARGET.log.
#   tests/fuzz/run.sh SECONDS TARGET...
set -u
cd "$(dirname "$0")/../.." || exit 3
BUILD=${BUILD:-build}
secs=${1:?usage: tests/fuzz/run.sh SECONDS TARGET...}
shift
[ $# -gt 0 ] || { echo "run.sh: no targets" >&2; exit 1; }

work=$BUILD/fuzz/work
mkdir -p "$work" "$BUILD/fuzz/logs"
# a sanitizer report is a failure at once; leaks are reported at exit
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

printf '%-18s %12s %10s %8s  %s\n' target execs execs/s seconds result
failed=0
for t in "$@"; do
	bin=$BUILD/fuzz/$t
	log=$BUILD/fuzz/logs/$t.log
	arts=$BUILD/fuzz/artifacts/$t
	dict=tests/fuzz/dict/$t.dict
	rm -rf "${work:?}/$t"
	mkdir -p "$work/$t" "$arts"
	cp tests/fuzz/corpus/"$t"/* "$work/$t"/ 2>/dev/null
	args=(-max_total_time="$secs" -timeout=10 -print_final_stats=1
	      -artifact_prefix="$arts/")
	[ -f "$dict" ] && args+=(-dict="$dict")
	start=$(date +%s%N)
	"$bin" "${args[@]}" "$work/$t" >"$log" 2>&1
	rc=$?
	end=$(date +%s%N)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	if [ "$rc" -eq 0 ] && [ -n "$execs" ]; then
		result=ok
	else
		failed=1
		result="FAILED (exit $rc"
		why=$(grep -m1 -oE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer): [a-z-]+|runtime error: .*|timeout after [0-9]+ seconds' "$log")
		[ -n "$why" ] && result+=": $why"
		result+="; $log)"
	fi
	printf '%-18s %12s %10s %8s  %s\n' "$t" "${execs:-0}" "${rate:-0}" \
		"$(awk -v ns=$((end - start)) 'BEGIN { printf "%.1f", ns / 1e9 }')" "$result"
done
exit "$failed"
