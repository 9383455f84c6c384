#!/bin/bash
# make reproduce: the 2020 HST vs ST experiment again, natively when
# this host can, else in the lab; the report lands in docs/reproduction/.
# REPRODUCE_ARGS passes options (e.g. --cases skew4/randread/1 or --full).
set -eu
cd "$(dirname "$0")/.."
make -s install-backend
out=$PWD/docs/reproduction
cmd=(build/slowpath reproduce hst-vs-st-2020 --out "$out" ${REPRODUCE_ARGS:-})
if build/slowpath doctor --quiet --native; then
	"${cmd[@]}"
else
	make -s lab
	build/slowpath lab run --keep "$out" --timeout "${REPRODUCE_TIMEOUT:-5400}" -- "${cmd[@]}"
fi
