#!/bin/bash
# make reproduce: the 2020 HST vs ST experiment again, natively when
# this host can, else in two exact-time (uml) guests where make lab
# built them (the report lands in build/reproduce/uml-<time>/), else in
# the running qemu lab (started and stopped here when none runs; the
# report lands in build/reproduce/<time>/). A reproduction never writes
# over an earlier one: docs/reproduction/ is a committed record, replaced
# by hand with a new folder when it is to be the record.
# REPRODUCE_ARGS passes options (e.g. --cases skew4/randread/1 or --full);
# without it every run is 35 s, the length docs/reproduction/ was
# measured with (96 runs in the lab within 90 min).
set -eu
cd "$(dirname "$0")/.."
make -s install-backend
out=$PWD/build/reproduce/$(date -u +%Y%m%dT%H%M%SZ)
cmd=(build/slowpath reproduce hst-vs-st-2020 --out "$out" ${REPRODUCE_ARGS:---runtime 35 --max-runtime 35})
# Where it runs is slowpath's answer, never this script's own: doctor
# says native or not, `lab engine` which lab (host/196 holds it to that)
if build/slowpath doctor --quiet --native; then
	"${cmd[@]}"
	echo "make reproduce: the report is $out/report.md"
	exit 0
fi
bash mk/lab-ready.sh
if [ "$(build/slowpath lab engine)" = uml ]; then
	# exact time: k = 1, 20 000 I/Os a run, two guests side by side, into
	# a folder of its own (docs/reproduction/ is a committed record)
	out=$PWD/build/reproduce/uml-$(date -u +%Y%m%dT%H%M%SZ)
	build/slowpath reproduce hst-vs-st-2020 --jobs "${REPRODUCE_JOBS:-2}" --out "$out" ${REPRODUCE_ARGS:-}
	echo "make reproduce: the report is $out/report.md"
else
	# a running lab is used as it is; one started here is stopped after
	if ! build/slowpath lab status --quiet; then
		build/slowpath lab start
		trap 'build/slowpath lab stop' EXIT
	fi
	# runs in the lab; the report under $out comes back to this host
	"${cmd[@]}"
	echo "make reproduce: the report is $out/report.md"
fi
