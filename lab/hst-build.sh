#!/bin/bash
# Builds dm-historical-service-time.ko out of tree for one kernel, from
# the handful of drivers/md files in Debian's linux-source tarball (Debian
# ships the selector disabled: # CONFIG_DM_MULTIPATH_HST is not set).
# Sourced by lab/prepare.sh and lab/hst-module.sh; nothing of the kernel
# is ever kept in the repository, only extracted under build/.
# shellcheck shell=bash

# The files dm-ps-historical-service-time.c pulls in: it includes dm.h
# (which includes dm-stats.h) and dm-path-selector.h (which includes
# dm-mpath.h); everything else comes from the headers package.
HST_FILES=(dm-ps-historical-service-time.c dm.h dm-stats.h dm-path-selector.h dm-mpath.h)
HST_KO=dm-historical-service-time.ko

hst_die() {	# hst_die EXIT_CODE MESSAGE
	echo "${HST_WHO:-hst}: $2" >&2
	exit "$1"
}

# hst_source_tarball KVER -> path of /usr/src/linux-source-X.Y.tar.xz
hst_source_tarball() {
	local kver=$1 series
	series=$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	echo "/usr/src/linux-source-$series.tar.xz"
}

# hst_extract TARBALL DEST: the few files, cached by the tarball's
# identity because unpacking xz takes ~10 s and the files never change.
hst_extract() {
	local tarball=$1 dest=$2 id top f
	id=$(stat -c '%s %Y' "$tarball")
	if [ -f "$dest/.tarball-id" ] && [ "$(cat "$dest/.tarball-id")" = "$id" ]; then
		return 0
	fi
	rm -rf "$dest"
	mkdir -p "$dest"
	top=$(basename "$tarball" .tar.xz)
	local members=()
	for f in "${HST_FILES[@]}"; do members+=("$top/drivers/md/$f"); done
	tar -xJf "$tarball" -C "$dest" --strip-components=3 "${members[@]}" ||
		hst_die 3 "could not extract ${HST_FILES[*]} from $tarball"
	echo "$id" >"$dest/.tarball-id"
}

# hst_check_source DIR: the selector must carry upstream fix ce40426fdc3c
# ("only use ktime_get_ns() in historical selector"); before it, service
# times mixed sched_clock() and ktime and HST mis-ranked paths.
hst_check_source() {
	local c=$1/dm-ps-historical-service-time.c
	grep -q 'ktime_get_ns()' "$c" && ! grep -q 'sched_clock()' "$c" ||
		hst_die 3 "$c predates fix ce40426fdc3c (it still uses sched_clock()); need a newer linux-source"
}

# hst_build KVER KBUILD_DIR TARBALL WORK OUT_KO
hst_build() {
	local kver=$1 kbuild=$2 tarball=$3 work=$4 out=$5 src
	src=$work/src
	hst_extract "$tarball" "$src"
	hst_check_source "$src"
	local obj=$work/obj-$kver
	rm -rf "$obj"
	mkdir -p "$obj"
	cp "$src"/*.[ch] "$obj"/
	cp "$HST_LAB_DIR/Kbuild.hst" "$obj/Kbuild"
	# Kbuild wants an absolute M=.
	obj=$(realpath "$obj")
	make -s -C "$kbuild" M="$obj" modules >"$obj/build.log" 2>&1 || {
		tail -n 20 "$obj/build.log" >&2
		hst_die 3 "building $HST_KO against $kbuild failed (log: $obj/build.log)"
	}
	mkdir -p "$(dirname "$out")"
	cp "$obj/$HST_KO" "$out"
}
