#!/bin/bash
# make lab ENGINE=uml [KERNEL=6.1|6.12]: the exact-time lab's kernel, a
# User-Mode Linux built from the same Debian linux-source the qemu lab
# uses (lab/prepare.sh prepares that first and leaves the source and
# Debian's config), with time travel and everything slowpath loads built
# in. Its config is UML's defconfig, then Debian's own choices for
# block/, drivers/scsi, dm core and multipath, and net/sched (tristates
# built in: there are no modules), then lab/uml.config. Lands in
# $BUILD/lab/uml-<kver>.<date>, linked as current-uml-<series> (and
# current-uml for the default series) in one rename; reused until the
# Debian kernel or one of its inputs changes.
#
# PATCHES=a.patch,b.patch: the kernel under test, the same build with
# the user's patches applied (patch -p1, in order) in a source tree of
# its own; its release says which (-slowpath-uml-p<12 hex of their
# sha256>), the prepared tree lists each patch's sha256 in `patches`,
# and every case the guest runs records them. Without PATCHES the stock
# build is current again.
#
# UML_CONFIG_ONLY=1: the source and the config as a build would make
# them, checked, and no build: the config's path is the last line
# (tests/host/252 holds every series' config to lab/uml.config without
# compiling a kernel).
set -eu
cd "$(dirname "$0")/.."
SRCDIR=$PWD
BUILD=${BUILD:-build}
LAB=$(realpath -m "$BUILD/lab")
KERNEL=${KERNEL:-6.1}
DEFAULT_KERNEL=6.1
HST_WHO="make lab ENGINE=uml"
HST_LAB_DIR=$SRCDIR/lab
# shellcheck source=lab/hst-build.sh
. lab/hst-build.sh
# shellcheck source=lab/uml-patches.sh
. lab/uml-patches.sh

die() { hst_die "$@"; }
say() { echo "make lab ENGINE=uml: $*"; }
secs_since() { printf '%.1f' "$(echo "$(date +%s.%N) - $1" | bc)"; }

[[ $KERNEL =~ ^[0-9]+\.[0-9]+$ ]] ||
	die 1 "KERNEL='$KERNEL': want a kernel series such as 6.1 or 6.12"
start=$(date +%s.%N)
for prog in make gcc flex bison bc xz tar; do
	command -v "$prog" >/dev/null || die 2 "$prog is not installed (run make deps)"
done
QEMU_CUR=$LAB/current-$KERNEL
[ -f "$QEMU_CUR/ready" ] || die 2 "no prepared lab for $KERNEL at $QEMU_CUR (make lab KERNEL=$KERNEL prepares it first)"
KVER=$(cut -d' ' -f1 "$QEMU_CUR/ready")
DEBIAN_CONFIG=$QEMU_CUR/root/boot/config-$KVER
[ -r "$DEBIAN_CONFIG" ] || die 2 "Debian's config for $KVER is missing ($DEBIAN_CONFIG)"
TARBALL=$(hst_source_tarball "$KVER")
[ -r "$TARBALL" ] || TARBALL=$LAB/kernel-$KVER/usr/src/linux-source-$KERNEL.tar.xz
[ -r "$TARBALL" ] || die 2 "no linux-source-$KERNEL for $KVER (make lab KERNEL=$KERNEL installs it)"

mkdir -p "$LAB"
exec 9>"$LAB/.lock-uml"
if ! flock -n 9; then
	say "waiting for another make lab ENGINE=uml to finish"
	flock 9
fi

CUR=$LAB/current-uml-$KERNEL
# Anything of ours the kernel or the prepared tree is made of makes it stale.
inputs=(lab/uml-build.sh lab/uml-patches.sh lab/uml.config lab/hst-build.sh lab/uml-init.sh lab/guest-init.sh)
PATCH_LIST=() PATCH_ID=""
if [ -n "${PATCHES:-}" ]; then
	IFS=, read -ra PATCH_LIST <<<"$PATCHES"
	for f in "${PATCH_LIST[@]}"; do
		[ -f "$f" ] && [ -r "$f" ] || die 1 "PATCHES: '$f' is not a readable file"
	done
	PATCH_ID=$(cat "${PATCH_LIST[@]}" | sha256sum | cut -c1-12)
	inputs+=("${PATCH_LIST[@]}")
fi
ident="$KVER $(stat -c '%s %Y' "$TARBALL")${PATCH_ID:+ patches $PATCH_ID}"
# the whole identity, not a prefix: the stock build's is a prefix of a
# patched one's
if [ -z "${UML_CONFIG_ONLY:-}" ] && [ -f "$CUR/ready" ] &&
	[ "$(cat "$CUR/ident" 2>/dev/null)" = "$ident" ]; then
	stale=""
	for f in "${inputs[@]}"; do [ "$f" -nt "$CUR/ready" ] && stale="$f"; done
	if [ -z "$stale" ]; then
		say "uml kernel for $KVER is ready ($(secs_since "$start") s)"
		exit 0
	fi
	say "$stale changed; rebuilding the uml kernel for $KVER"
fi

# --- the source: extracted once per tarball, HST patched in place ------
SRC=$LAB/uml-src-$KERNEL${PATCH_ID:+-p$PATCH_ID}
OBJ=$LAB/uml-obj-$KERNEL${PATCH_ID:+-p$PATCH_ID}
# a tree patched by an older transformation (one that did not fit 6.12,
# say) is extracted again, not built as it is
src_ident="$ident transforms $({ declare -f hst_check_source hst_patch_bucket_shift hst_patch_5_8 hst_add_5_8_to_makefile hst_patch_prebio hst_add_variant_to_makefile uml_want uml_patch_xstate uml_patch_clock_spin uml_patch_fault_around uml_patch_fp_unchanged; echo "$HST_BUCKET_SHIFT_BLOCK$HST58_CLOCK_BLOCK"; } | sha256sum | cut -c1-12)"
if [ ! -f "$SRC/.tarball-id" ] || [ "$(cat "$SRC/.tarball-id")" != "$src_ident" ]; then
	say "extracting $TARBALL"
	rm -rf "$SRC" "$OBJ"
	mkdir -p "$SRC"
	tar -xJf "$TARBALL" -C "$SRC" --strip-components=1 ||
		die 3 "extracting $TARBALL into $SRC failed"
	hst_check_source "$SRC/drivers/md"
	hst=$SRC/drivers/md/dm-ps-historical-service-time.c
	hst_patch_bucket_shift "$hst" "$hst.slowpath"
	mv "$hst.slowpath" "$hst"
	hst_patch_5_8 "$hst" "$SRC/drivers/md/$HST58_C"
	hst_add_5_8_to_makefile "$SRC/drivers/md"
	hst_patch_prebio "$hst" "$SRC/drivers/md/$HSTPB_C"
	hst_add_variant_to_makefile "$SRC/drivers/md" "$HSTPB_KO" "$HSTPB_C"
	uml_patch_xstate "$SRC"
	uml_patch_clock_spin "$SRC"
	uml_patch_fault_around "$SRC"
	uml_patch_fp_unchanged "$SRC"
	for f in "${PATCH_LIST[@]}"; do
		say "applying $f"
		patch -d "$SRC" -p1 --batch --forward <"$f" >"$SRC/.patch.log" 2>&1 || {
			tail -n 5 "$SRC/.patch.log" >&2
			rm -rf "$SRC"
			die 3 "PATCHES: $f does not apply to linux-source-$KERNEL"
		}
	done
	echo "$src_ident" >"$SRC/.tarball-id"
fi

# --- the config ----------------------------------------------------------
# The options Debian decides for us: every symbol the Kconfig files of
# block/, drivers/scsi/, net/sched/ and drivers/nvme/ (host and target)
# define, and dm's core, multipath
# and test targets (the other dm targets are never loaded here and would
# only cost build time).
debian_symbols() {
	local f
	for f in "$SRC"/block/Kconfig* "$SRC"/block/partitions/Kconfig \
		"$SRC"/drivers/scsi/Kconfig "$SRC"/net/sched/Kconfig \
		"$SRC"/drivers/nvme/host/Kconfig "$SRC"/drivers/nvme/target/Kconfig; do
		sed -nE 's/^(menu)?config ([A-Z0-9_]+).*/\2/p' "$f"
	done
	sed -nE 's/^(menu)?config ([A-Z0-9_]+).*/\2/p' "$SRC/drivers/md/Kconfig" |
		grep -E '^(MD|BLK_DEV_DM.*|DM_UEVENT|DM_MULTIPATH.*|DM_DELAY|DM_FLAKEY|DM_ZERO|DM_DEBUG.*)$'
}
# debian_fragment: each of those symbols as Debian sets it, =m as =y,
# in the symbols' order (one pass: a grep per symbol took seconds)
debian_fragment() {
	awk 'NR == FNR { order[++n] = $0; next }
	     match($0, /^CONFIG_[A-Z0-9_]+=/) {
		s = substr($0, 8, RLENGTH - 8); if (!(s in line)) line[s] = $0; next }
	     /^# CONFIG_[A-Z0-9_]+ is not set$/ {
		s = substr($0, 10, length($0) - 20); if (!(s in line)) line[s] = $0 }
	     END { for (i = 1; i <= n; i++) if (order[i] in line) {
		l = line[order[i]]; sub(/=m$/, "=y", l); print l } }' \
		<(debian_symbols | sort -u) "$DEBIAN_CONFIG"
}
rm -rf "$OBJ.new"
mkdir -p "$OBJ"
debian_fragment >"$OBJ/debian.fragment"
# the kernel under test says so in its release
: >"$OBJ/patches.fragment"
[ -z "$PATCH_ID" ] || echo "CONFIG_LOCALVERSION=\"-slowpath-uml-p$PATCH_ID\"" >"$OBJ/patches.fragment"
make -s -C "$SRC" O="$OBJ" ARCH=um defconfig >"$OBJ/config.log" 2>&1 ||
	die 3 "make ARCH=um defconfig failed (log: $OBJ/config.log)"
(cd "$OBJ" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" \
	"$OBJ/debian.fragment" "$SRCDIR/lab/uml.config" "$OBJ/patches.fragment") >>"$OBJ/config.log" 2>&1 ||
	die 3 "merging the config failed (log: $OBJ/config.log)"
make -s -C "$SRC" O="$OBJ" ARCH=um olddefconfig >>"$OBJ/config.log" 2>&1 ||
	die 3 "make ARCH=um olddefconfig failed (log: $OBJ/config.log)"
# What lab/uml.config asks for must hold; a symbol Kconfig dropped for an
# unmet dependency is a config that would boot without part of the stack.
bad=""
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	sym=${line%%=*} want=${line#*=}
	[ -n "$PATCH_ID" ] && [ "$sym" = CONFIG_LOCALVERSION ] && continue
	got=$(sed -nE "s/^$sym=(.*)/\1/p" "$OBJ/.config")
	[ -n "$got" ] || got=n
	[ "$got" = "$want" ] || bad+=" $sym=$got(want $want)"
done <"$SRCDIR/lab/uml.config"
[ -z "$bad" ] || die 3 "the uml config lost what lab/uml.config asks for:$bad (log: $OBJ/config.log)"
if [ -n "${UML_CONFIG_ONLY:-}" ]; then
	say "the config for $KVER holds what lab/uml.config asks for (UML_CONFIG_ONLY: not built)"
	echo "$OBJ/.config"
	exit 0
fi

# --- the build: incremental in OBJ, kept across preparations ---------------
build_start=$(date +%s.%N)
say "building linux (ARCH=um) from $(basename "$TARBALL"); log: $OBJ/build.log"
# 6.1 runs scripts/check-local-export (nm, then a bash loop over its
# output) on every object: 83 of the ~600 CPU-s a CI run's uml build
# cost (process accounting, 2026-12-05). It refuses EXPORT_SYMBOL of a
# static symbol, which only modules could reach, and this kernel has no
# modules (CONFIG_MODULES off): the command emptied, kbuild runs nothing
# in its place. 6.12 has no such step, and the variable does nothing.
nice make -C "$SRC" O="$OBJ" ARCH=um -j"$(nproc)" cmd_check_local_export= linux \
	>"$OBJ/build.log" 2>&1 || {
	tail -n 20 "$OBJ/build.log" >&2
	die 3 "building the uml kernel failed (log: $OBJ/build.log)"
}
RELEASE=$(cat "$OBJ/include/config/kernel.release")
say "built linux $RELEASE in $(secs_since "$build_start") s"

# --- the prepared tree ------------------------------------------------------
DIR=$LAB/uml-$KVER.$(date +%Y%m%d-%H%M%S)
rm -rf "$DIR"
trap '[ -f "$DIR/ready" ] || rm -rf "$DIR"' EXIT
mdir=$DIR/modules/$RELEASE
mkdir -p "$mdir"
cp "$OBJ/linux" "$DIR/linux"
cp "$OBJ/.config" "$DIR/config"
cp "$OBJ/debian.fragment" "$DIR/debian.fragment"
: >"$DIR/patches"
for f in "${PATCH_LIST[@]}"; do
	echo "$(sha256sum <"$f" | cut -d' ' -f1) $(basename "$f")" >>"$DIR/patches"
done
# modprobe and `slowpath doctor` read which modules are built in.
cp "$OBJ/modules.builtin" "$OBJ/modules.builtin.modinfo" "$mdir/"
: >"$mdir/modules.order"
depmod -b "$DIR" "$RELEASE" 2>/dev/null || {
	mkdir -p "$DIR/lib/modules"
	mv "$mdir" "$DIR/lib/modules/$RELEASE"
	depmod -b "$DIR" "$RELEASE" || die 3 "depmod of the built-in list failed"
	mv "$DIR/lib/modules/$RELEASE" "$mdir"
	rmdir "$DIR/lib/modules" "$DIR/lib"
}
echo "$RELEASE" >"$DIR/release"
echo "$ident" >"$DIR/ident"
cp lab/uml-init.sh "$DIR/uml-init"
cp lab/guest-init.sh "$DIR/guest-init"
chmod 755 "$DIR/uml-init" "$DIR/guest-init" "$DIR/linux"
echo "$ident $RELEASE prepared in $(secs_since "$start") s on $(date -u +%FT%TZ)" >"$DIR/ready"
ln -sfn "$(basename "$DIR")" "$CUR.new"
mv -T "$CUR.new" "$CUR"
if [ "$KERNEL" = "$DEFAULT_KERNEL" ]; then
	ln -sfn "$(basename "$DIR")" "$LAB/current-uml.new"
	mv -T "$LAB/current-uml.new" "$LAB/current-uml"
fi
# Older preparations of this series go once no instance runs from them.
for old in "$LAB/uml-$KERNEL".[0-9]*/; do
	old=${old%/}
	[ "$old" = "$DIR" ] || [ ! -f "$old/linux" ] && continue
	grep -qsF "$old/linux" /proc/[0-9]*/cmdline || rm -rf "$old"
done
say "uml kernel $RELEASE for $KVER is ready ($(secs_since "$start") s)"
