#!/bin/bash
# Builds dm-historical-service-time.ko (and, for the lab,
# dm-io-affinity.ko) out of tree for one kernel, from the handful of
# drivers/md files in Debian's linux-source tarball (Debian ships both
# selectors disabled: # CONFIG_DM_MULTIPATH_HST/_IOA is not set).
# Sourced by lab/prepare.sh and lab/hst-module.sh; nothing of the kernel
# is ever kept in the repository, only extracted under build/.
#
# The module built is patched at build time (hst_patch_bucket_shift): its
# HST_BUCKET_SHIFT becomes the module parameter bucket_shift (default 24,
# the stock value), so the lab can scale every delay by k = 2^n and load
# it with bucket_shift=24+n (docs/lab.md, "HST's bucket shift").
# shellcheck shell=bash

# The files dm-ps-historical-service-time.c pulls in: it includes dm.h
# (which includes dm-stats.h) and dm-path-selector.h (which includes
# dm-mpath.h); everything else comes from the headers package. The
# io-affinity selector needs only dm-path-selector.h and dm.h as well.
HST_FILES=(dm-ps-historical-service-time.c dm-ps-io-affinity.c dm.h dm-stats.h dm-path-selector.h dm-mpath.h)
HST_KO=dm-historical-service-time.ko
IOA_KO=dm-io-affinity.ko

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
	id="$(stat -c '%s %Y' "$tarball") ${HST_FILES[*]}"
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

# What replaces the one line `#define HST_BUCKET_SHIFT 24 ...`. Our own
# text; it must stay free of backslashes and of a second definition.
# The parameter is read-only once loaded (0444): a shift that changed
# under a running map would mix buckets of two widths. A shift of 64 or
# more of the u64 service time is undefined, so the load is refused.
HST_BUCKET_SHIFT_BLOCK='/* slowpath lab (lab/hst-build.sh): HST_BUCKET_SHIFT as a module parameter */
static unsigned int hst_bucket_shift = 24;
static int hst_bucket_shift_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int r = kstrtouint(val, 0, &v);

	if (r)
		return r;
	if (v > 63)
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}
static const struct kernel_param_ops hst_bucket_shift_ops = {
	.set = hst_bucket_shift_set,
	.get = param_get_uint,
};
module_param_cb(bucket_shift, &hst_bucket_shift_ops, &hst_bucket_shift, 0444);
MODULE_PARM_DESC(bucket_shift, "service times are bucketed by time >> bucket_shift ns (0..63; stock 24)");
#define HST_BUCKET_SHIFT hst_bucket_shift'
# The stock line, exactly: a source that defines the shift otherwise (or
# twice) is not the selector this transformation was written for.
HST_BUCKET_SHIFT_LINE='^#define[ \t]+HST_BUCKET_SHIFT[ \t]+24([ \t].*)?$'

# hst_patch_bucket_shift SRC_C DST_C: DST_C is SRC_C with the stock
# definition of HST_BUCKET_SHIFT replaced by HST_BUCKET_SHIFT_BLOCK;
# everything else is left byte for byte (tests/host/095 proves it).
hst_patch_bucket_shift() {
	local in=$1 out=$2 n
	n=$(grep -cE "$HST_BUCKET_SHIFT_LINE" "$in")
	[ "$n" -eq 1 ] ||
		hst_die 3 "$in: found $n lines '#define HST_BUCKET_SHIFT 24', want exactly 1; the bucket_shift patch does not fit this source"
	n=$(grep -cE '^[ \t]*#[ \t]*(define|undef)[ \t]+HST_BUCKET_SHIFT\b' "$in")
	[ "$n" -eq 1 ] ||
		hst_die 3 "$in: HST_BUCKET_SHIFT is defined or undefined $n times, want once"
	HST_BLOCK=$HST_BUCKET_SHIFT_BLOCK awk -v re="$HST_BUCKET_SHIFT_LINE" '
		$0 ~ re { print ENVIRON["HST_BLOCK"]; next }
		{ print }' "$in" >"$out" || hst_die 3 "patching $in into $out failed"
}

# --- hst-5.8: the selector as merged for 5.8 (2613eab11996) ------------
# Then hst_select_path took time_now from sched_clock() while last_finish
# and stale_after came from ktime_get_ns(); ce40426fdc3c (2022) made all
# three ktime_get_ns(). The variant is today's source with that one line
# reverted, plus clock_skew_ns, a fixed offset added to sched_clock(), so
# that the distance of the two clocks (which on a real machine depends
# on where each started at boot) is set rather than left to the guest.
# It registers as its own selector, HST58_PS_NAME, and is its own module
# (HST58_KO, /sys/module/dm_historical_service_time_58), so one kernel
# carries both builds side by side. Our own text, free of backslashes.
HST58_KO=dm-historical-service-time-58.ko
HST58_C=dm-ps-historical-service-time-58.c
HST58_PS_NAME=historical-service-time-5.8
HST58_CLOCK_BLOCK='/* slowpath lab (lab/hst-build.sh): hst-5.8, time_now from sched_clock()
 * as before ce40426fdc3c, plus clock_skew_ns. The skew may be negative
 * (sched_clock behind CLOCK_MONOTONIC); it is writable at run time, as
 * a built-in selector cannot be reloaded, and read once per selection.
 * A long: the lab kernels are 64-bit (6.1 has no param_get_llong). */
#include <linux/sched/clock.h>
#define HST_CLOCK_SKEW_MAX_NS (3600L * NSEC_PER_SEC)
static long hst_clock_skew_ns;
static int hst_clock_skew_set(const char *val, const struct kernel_param *kp)
{
	long v;
	int r = kstrtol(val, 0, &v);

	if (r)
		return r;
	if (v > HST_CLOCK_SKEW_MAX_NS || v < -HST_CLOCK_SKEW_MAX_NS)
		return -ERANGE;
	WRITE_ONCE(*(long *)kp->arg, v);
	return 0;
}
static const struct kernel_param_ops hst_clock_skew_ops = {
	.set = hst_clock_skew_set,
	.get = param_get_long,
};
module_param_cb(clock_skew_ns, &hst_clock_skew_ops, &hst_clock_skew_ns, 0644);
MODULE_PARM_DESC(clock_skew_ns, "ns added to sched_clock() for time_now (-3600 s..3600 s; 0: as merged for 5.8)");
MODULE_ALIAS("dm-historical-service-time-5.8");
/* Before a negative skew has passed since boot, time_now is 0, not a
 * wrapped u64 (which would make every path look stale). */
static u64 hst_clock_now(void)
{
	u64 now = sched_clock();
	long skew = READ_ONCE(hst_clock_skew_ns);

	if (skew < 0 && now < (u64)-skew)
		return 0;
	return now + (u64)skew;
}
'
# The lines the variant changes, each exactly once in the source.
HST58_NOW_LINE='^[[:space:]]+u64 time_now = ktime_get_ns\(\);$'
HST58_NAME_LINE='^[[:space:]]+\.name[[:space:]]+= "historical-service-time",$'
HST58_PREFIX_LINE='^#define[[:space:]]+DM_MSG_PREFIX[[:space:]]+"multipath historical-service-time"$'
HST58_SELECT_LINE='^static struct dm_path \*hst_select_path\(struct path_selector \*ps,$'

# hst_patch_5_8 SRC_C DST_C: DST_C is SRC_C (stock or bucket_shift-
# patched) as hst-5.8: the clock block before hst_select_path, its
# time_now from hst_clock_now(), its own selector name and log prefix.
hst_patch_5_8() {
	local in=$1 out=$2 re n
	for re in "$HST58_NOW_LINE" "$HST58_NAME_LINE" "$HST58_PREFIX_LINE" "$HST58_SELECT_LINE"; do
		n=$(grep -cE "$re" "$in")
		[ "$n" -eq 1 ] ||
			hst_die 3 "$in: found $n lines matching '$re', want exactly 1; the hst-5.8 patch does not fit this source"
	done
	HST_BLOCK=$HST58_CLOCK_BLOCK HST_NAME=$HST58_PS_NAME awk \
		-v now="$HST58_NOW_LINE" -v name="$HST58_NAME_LINE" \
		-v prefix="$HST58_PREFIX_LINE" -v sel="$HST58_SELECT_LINE" '
		$0 ~ now { print "\tu64 time_now = hst_clock_now();"; next }
		$0 ~ name { print "\t.name\t\t= \"" ENVIRON["HST_NAME"] "\","; next }
		$0 ~ prefix { print "#define DM_MSG_PREFIX\t\"multipath " ENVIRON["HST_NAME"] "\""; next }
		$0 ~ sel { print ENVIRON["HST_BLOCK"] }
		{ print }' "$in" >"$out" || hst_die 3 "patching $in into $out failed"
}

# hst_add_5_8_to_makefile MD_DIR: drivers/md/Makefile also builds the
# variant (built in with CONFIG_DM_MULTIPATH_HST, after the stock one).
hst_add_5_8_to_makefile() {
	local mk=$1/Makefile
	grep -q "${HST58_KO%.ko}" "$mk" && return 0
	# shellcheck disable=SC2016 # $(CONFIG_...) is make's, not ours
	printf '\n# slowpath lab (lab/hst-build.sh): hst-5.8 beside the stock HST\n%s-y += %s\nobj-$(CONFIG_DM_MULTIPATH_HST) += %s\n' \
		"${HST58_KO%.ko}" "${HST58_C%.c}.o" "${HST58_KO%.ko}.o" >>"$mk" ||
		hst_die 3 "adding hst-5.8 to $mk failed"
}

# --- hst-prebio: HST before c06dfd124d46 (2022) ------------------------
# "dm mpath: provide high-resolution timer to HST for bio-based" added
# the path selector feature flag DM_PS_USE_HR_TIMER: for a selector that
# sets it, bio-based multipath takes the I/O's start time from
# ktime_get_ns() when it maps the bio; for one that does not, end_io gets
# dm_start_time_ns_from_clone(), the dm_io's start in jiffies. HST sets
# the flag since then, so HST before the fix is today's source with that
# one initializer line gone: everything else in dm-mpath stays as it is,
# and request-based multipath (which passes the request's ktime start
# either way) does not change. Like hst-5.8 it is its own selector,
# HSTPB_PS_NAME, and its own module (HSTPB_KO,
# /sys/module/dm_historical_service_time_prebio, present built in too as
# it has bucket_shift). Our own text, free of backslashes.
HSTPB_KO=dm-historical-service-time-prebio.ko
HSTPB_C=dm-ps-historical-service-time-prebio.c
HSTPB_PS_NAME=historical-service-time-prebio
HSTPB_FEATURES_LINE='^[[:space:]]+\.features[[:space:]]+= DM_PS_USE_HR_TIMER,$'
HSTPB_LICENSE_LINE='^MODULE_LICENSE\("GPL"\);$'

# hst_patch_prebio SRC_C DST_C: DST_C is SRC_C (stock or bucket_shift-
# patched) without DM_PS_USE_HR_TIMER, under its own selector name, log
# prefix and module alias.
hst_patch_prebio() {
	local in=$1 out=$2 re n
	for re in "$HSTPB_FEATURES_LINE" "$HST58_NAME_LINE" "$HST58_PREFIX_LINE" "$HSTPB_LICENSE_LINE"; do
		n=$(grep -cE "$re" "$in")
		[ "$n" -eq 1 ] ||
			hst_die 3 "$in: found $n lines matching '$re', want exactly 1; the hst-prebio patch does not fit this source"
	done
	HST_NAME=$HSTPB_PS_NAME awk \
		-v feat="$HSTPB_FEATURES_LINE" -v name="$HST58_NAME_LINE" \
		-v prefix="$HST58_PREFIX_LINE" -v lic="$HSTPB_LICENSE_LINE" '
		$0 ~ feat { print "\t/* slowpath lab (lab/hst-build.sh): no DM_PS_USE_HR_TIMER, as before c06dfd124d46 */"; next }
		$0 ~ name { print "\t.name\t\t= \"" ENVIRON["HST_NAME"] "\","; next }
		$0 ~ prefix { print "#define DM_MSG_PREFIX\t\"multipath " ENVIRON["HST_NAME"] "\""; next }
		$0 ~ lic { print; print "MODULE_ALIAS(\"dm-" ENVIRON["HST_NAME"] "\");"; next }
		{ print }' "$in" >"$out" || hst_die 3 "patching $in into $out failed"
}

# hst_add_variant_to_makefile MD_DIR KO C: drivers/md/Makefile also
# builds the variant KO from C (built in with CONFIG_DM_MULTIPATH_HST,
# after the stock one).
hst_add_variant_to_makefile() {
	local mk=$1/Makefile ko=${2%.ko} c=${3%.c}
	grep -q "^$ko-y " "$mk" && return 0
	# shellcheck disable=SC2016 # $(CONFIG_...) is make's, not ours
	printf '\n# slowpath lab (lab/hst-build.sh): %s beside the stock HST\n%s-y += %s\nobj-$(CONFIG_DM_MULTIPATH_HST) += %s\n' \
		"$ko" "$ko" "$c.o" "$ko.o" >>"$mk" ||
		hst_die 3 "adding $ko to $mk failed"
}

# hst_compile KBUILD_DIR OBJ_DIR [KBUILD_FILE KO]: builds the .c/.h
# already in OBJ_DIR with lab/Kbuild.hst (or KBUILD_FILE, making KO).
hst_compile() {
	local kbuild=$1 obj kfile=${3:-Kbuild.hst} ko=${4:-$HST_KO}
	cp "$HST_LAB_DIR/$kfile" "$2/Kbuild"
	# Kbuild wants an absolute M=.
	obj=$(realpath "$2")
	# No BTF for the module: the headers carry no vmlinux to base it
	# on, and pahole is not among our dependencies; modules load
	# without it.
	make -s -C "$kbuild" M="$obj" CONFIG_DEBUG_INFO_BTF_MODULES= modules >"$obj/build.log" 2>&1 || {
		tail -n 20 "$obj/build.log" >&2
		hst_die 3 "building $ko in $obj against $kbuild failed (log: $obj/build.log)"
	}
}

# hst_build KVER KBUILD_DIR TARBALL WORK OUT_KO [STOCK_KO [IOA_KO [HST58_KO [HSTPB_KO]]]]:
# OUT_KO is the patched selector (built in WORK/obj-KVER); STOCK_KO, when
# given (non-empty), the untouched source built the same way
# (WORK/obj-KVER-stock), for comparing the two; IOA_KO, when given, the
# stock io-affinity selector (WORK/obj-KVER-ioa); HST58_KO, when given,
# hst-5.8 (bucket_shift and the clock mix, WORK/obj-KVER-58); HSTPB_KO,
# when given, hst-prebio (bucket_shift, no DM_PS_USE_HR_TIMER,
# WORK/obj-KVER-prebio).
hst_build() {
	local kver=$1 kbuild=$2 tarball=$3 work=$4 out=$5 stock_out=${6:-} ioa_out=${7:-} h58_out=${8:-} pb_out=${9:-} src
	src=$work/src
	hst_extract "$tarball" "$src"
	hst_check_source "$src"
	local obj=$work/obj-$kver stock=$work/obj-$kver-stock ioa=$work/obj-$kver-ioa h58=$work/obj-$kver-58 pb=$work/obj-$kver-prebio
	rm -rf "$obj" "$stock" "$ioa" "$h58" "$pb"
	mkdir -p "$obj"
	cp "$src"/*.h "$src/dm-ps-historical-service-time.c" "$obj"/
	hst_patch_bucket_shift "$src/dm-ps-historical-service-time.c" \
		"$obj/dm-ps-historical-service-time.c"
	if [ -n "$stock_out" ]; then
		mkdir -p "$stock"
		cp "$src"/*.h "$src/dm-ps-historical-service-time.c" "$stock"/
		# the two builds are independent: side by side they take the
		# wall time of one on a two-core host
		hst_compile "$kbuild" "$stock" &
		local stock_pid=$!
	fi
	hst_compile "$kbuild" "$obj"
	if [ -n "$stock_out" ]; then
		wait "$stock_pid" || exit $?
		mkdir -p "$(dirname "$stock_out")"
		cp "$stock/$HST_KO" "$stock_out"
	fi
	mkdir -p "$(dirname "$out")"
	cp "$obj/$HST_KO" "$out"
	if [ -n "$ioa_out" ]; then
		mkdir -p "$ioa" "$(dirname "$ioa_out")"
		cp "$src"/*.h "$src/dm-ps-io-affinity.c" "$ioa"/
		hst_compile "$kbuild" "$ioa" Kbuild.ioa "$IOA_KO"
		cp "$ioa/$IOA_KO" "$ioa_out"
	fi
	if [ -n "$h58_out" ]; then
		mkdir -p "$h58" "$(dirname "$h58_out")"
		cp "$src"/*.h "$h58"/
		hst_patch_5_8 "$obj/dm-ps-historical-service-time.c" "$h58/$HST58_C"
		hst_compile "$kbuild" "$h58" Kbuild.hst58 "$HST58_KO"
		cp "$h58/$HST58_KO" "$h58_out"
	fi
	if [ -n "$pb_out" ]; then
		mkdir -p "$pb" "$(dirname "$pb_out")"
		cp "$src"/*.h "$pb"/
		hst_patch_prebio "$obj/dm-ps-historical-service-time.c" "$pb/$HSTPB_C"
		hst_compile "$kbuild" "$pb" Kbuild.hstprebio "$HSTPB_KO"
		cp "$pb/$HSTPB_KO" "$pb_out"
	fi
}
