#!/bin/bash
# make demo: installs what is missing, builds, brings the U-shaped
# topology up (natively when this host has the kernel stack and root,
# otherwise in the lab: the exact-time one, User-Mode Linux, where make
# lab built it, else the qemu VM, started and stopped here when none
# runs), runs randread at iodepth 1 and 32 under ST and HST, prints the
# tables and the comparison, writes plots, and takes the topology down.
set -eu
cd "$(dirname "$0")/.."

bash mk/deps.sh
make -s -j2 all
make -s install-backend

out=$PWD/results/demo-$(date -u +%Y%m%dT%H%M%SZ)
# Where it runs is slowpath's answer, never this script's own: doctor
# says native or not, `lab engine` which lab (host/196 holds it to that)
if build/slowpath doctor --quiet --native; then
	echo "demo: this host has the kernel stack: running natively"
	bash mk/demo-steps.sh "$out"
	echo "demo: tables, comparisons and plots are in ${out#"$PWD"/}"
	exit 0
fi
echo "demo: this host lacks part of the kernel stack ('build/slowpath doctor' says what):"
bash mk/lab-ready.sh
if [ "$(build/slowpath lab engine)" = uml ]; then
	# on exact time, the paths at their own unit, each case 20 000 I/Os
	# (a share's error under 0.4 pp); a uml guest is one CPU, so the
	# two iodepths run in two guests side by side, each bringing u10 up
	# and down, their cases merged into one run under $out
	echo "demo: running in the exact-time lab (User-Mode Linux from Debian's 6.1 source, time exact), two guests"
	build/slowpath run --jobs 2 --topology u10 --selectors st,hst \
		--rw randread --iodepth 1,32 --ios "${SLOWPATH_DEMO_IOS:-20000}" --out "$out"
	build/slowpath report "$out"
else
	echo "demo: running in the lab VM (qemu TCG, Debian's kernel)"
	# a running lab is used as it is; one started here is stopped after
	if ! build/slowpath lab status --quiet; then
		build/slowpath lab start
		trap 'build/slowpath lab stop' EXIT
	fi
	# each command runs in the lab; what run writes under $out comes back
	bash mk/demo-steps.sh "$out"
fi
echo "demo: tables, comparisons and plots are in ${out#"$PWD"/}"
