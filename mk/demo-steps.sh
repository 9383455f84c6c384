#!/bin/bash
# The part of `make demo` that needs the kernel stack: runs natively or
# inside the lab VM. $1: the output folder.
set -eu
out=$1
slowpath=build/slowpath

"$slowpath" up u10
trap '"$slowpath" down >/dev/null && echo "demo: u10 taken down"' EXIT
"$slowpath" status
# SLOWPATH_DEMO_IOS: each case stops after that many I/Os instead
if [ -n "${SLOWPATH_DEMO_IOS:-}" ]; then
	length=(--ios "$SLOWPATH_DEMO_IOS")
else
	length=(--runtime "${SLOWPATH_DEMO_RUNTIME:-10}")
fi
"$slowpath" run --selectors st,hst --rw randread --iodepth 1,32 \
	"${length[@]}" --out "$out"
