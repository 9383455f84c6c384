#!/bin/bash
# make hst-module: builds dm-historical-service-time.ko for the RUNNING
# kernel, for native hosts whose kernel has dm-multipath but not the HST
# selector (Debian's: # CONFIG_DM_MULTIPATH_HST is not set). Needs the
# running kernel's build tree and a linux-source of the same series.
# Loads nothing and installs nothing; it says how.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
HST_WHO="make hst-module"
HST_LAB_DIR=$PWD/lab
# shellcheck source=lab/hst-build.sh
. lab/hst-build.sh

KVER=${KVER:-$(uname -r)}
MODDIR=/lib/modules/$KVER
series=$(echo "$KVER" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')

if [ -e "$MODDIR/modules.builtin" ] &&
	grep -q 'dm-historical-service-time.ko' "$MODDIR/modules.builtin"; then
	echo "$HST_WHO: kernel $KVER has the historical-service-time selector built in; nothing to build"
	exit 0
fi
if [ -n "$(find "$MODDIR" -name "$HST_KO*" 2>/dev/null | head -n 1)" ]; then
	echo "$HST_WHO: kernel $KVER already has $HST_KO ($(find "$MODDIR" -name "$HST_KO*" | head -n 1))"
	exit 0
fi
if [ ! -e "$MODDIR/build/Makefile" ]; then
	hst_die 2 "no build tree for the running kernel $KVER ($MODDIR/build is missing): install linux-headers-$KVER (Debian kernels only); on other kernels use the lab (make lab), which builds its own"
fi
tarball=$(hst_source_tarball "$KVER")
if [ ! -r "$tarball" ]; then
	hst_die 2 "no kernel source for $KVER ($tarball is missing): install linux-source-$series"
fi
# The private dm headers must match the running kernel's; Debian's
# linux-source can be newer than the running kernel's headers.
hdr_pkg=$(dpkg-query -S "$MODDIR/build" 2>/dev/null | cut -d: -f1 | head -n 1 || true)
if [ -n "$hdr_pkg" ]; then
	hv=$(dpkg-query -W -f='${Version}' "$hdr_pkg" 2>/dev/null || true)
	sv=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null || true)
	[ -z "$hv" ] || [ "$hv" = "$sv" ] ||
		echo "$HST_WHO: warning: $hdr_pkg is $hv but linux-source-$series is $sv; the module may not load" >&2
fi

out=$(realpath -m "$BUILD/hst/$KVER/$HST_KO")
hst_build "$KVER" "$MODDIR/build" "$tarball" "$(realpath -m "$BUILD/hst")" "$out"
echo "$HST_WHO: built $out"
echo "$HST_WHO: load it with: modprobe dm-multipath && insmod $out"
echo "$HST_WHO: (bucket_shift=N after it for delays scaled by 2^(N-24); default 24 is the stock selector)"
