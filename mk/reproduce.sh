#!/bin/bash
# make reproduce: the 2020 HST vs ST experiment again, natively when
# this host can, else in the running lab (started and stopped here when
# none runs); the report lands in docs/reproduction/.
# REPRODUCE_ARGS passes options (e.g. --cases skew4/randread/1 or --full);
# without it every run is 35 s, the length docs/reproduction/ was
# measured with (96 runs in the lab within 90 min).
set -eu
cd "$(dirname "$0")/.."
make -s install-backend
out=$PWD/docs/reproduction
cmd=(build/slowpath reproduce hst-vs-st-2020 --out "$out" ${REPRODUCE_ARGS:---runtime 35 --max-runtime 35})
if build/slowpath doctor --quiet --native; then
	"${cmd[@]}"
else
	[ -n "${SLOWPATH_LAB_DIR:-}" ] || make -s lab
	# a running lab is used as it is; one started here is stopped after
	if ! build/slowpath lab status --quiet; then
		build/slowpath lab start
		trap 'build/slowpath lab stop' EXIT
	fi
	# runs in the lab; the report under $out comes back to this host
	"${cmd[@]}"
fi
