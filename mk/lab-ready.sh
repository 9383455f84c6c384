#!/bin/bash
# make demo and make reproduce: prepares the lab they will run in, and
# only that one. The uml kernel is built first; qemu's VM is prepared
# only where slowpath would not take uml (`lab engine`: say, a checkout
# the guest's unprivileged user cannot read), since preparing it costs a
# fresh machine a download and module builds it would not use. With
# SLOWPATH_LAB_DIR the lab is the caller's and nothing is prepared.
set -eu
cd "$(dirname "$0")/.."
[ -z "${SLOWPATH_LAB_DIR:-}" ] || exit 0
make -s lab ENGINE=uml ||
	echo "$0: the uml lab could not be built; preparing the qemu one" >&2
[ "$(build/slowpath lab engine)" = uml ] || make -s lab ENGINE=qemu
