#!/bin/bash
# make lab: prepares the lab VM under $BUILD/lab/<kver>.<date> from
# Debian's packages only: the kernel Debian's linux-image-amd64 points at
# right now, its modules plus our out-of-tree historical-service-time
# selector, and a busybox initrd that mounts the host's root over 9p.
# A prepared version is reused until Debian's kernel version changes.
set -eu
cd "$(dirname "$0")/.."
SRCDIR=$PWD
BUILD=${BUILD:-build}
LAB=$(realpath -m "$BUILD/lab")
HST_WHO="make lab"
HST_LAB_DIR=$SRCDIR/lab
# shellcheck source=lab/hst-build.sh
. lab/hst-build.sh

die() { hst_die "$@"; }
say() { echo "make lab: $*"; }

start=$(date +%s.%N)
[ "$(id -u)" -eq 0 ] || die 2 "needs root (apt-get, depmod on the extracted tree)"
for prog in apt-get apt-cache dpkg-deb depmod cpio gzip make; do
	command -v "$prog" >/dev/null || die 2 "$prog is not installed (run make deps)"
done
# The initrd has no libc: only a static busybox runs in it.
[ -x /bin/busybox ] && /bin/busybox --list 2>/dev/null | grep -qx switch_root &&
	! ldd /bin/busybox >/dev/null 2>&1 ||
	die 2 "/bin/busybox is missing or not static (make deps installs busybox-static)"

# One preparer at a time: tests/run calls make lab too, and two of them
# would delete each other's half-built trees.
mkdir -p "$LAB"
exec 9>"$LAB/.lock"
if ! flock -n 9; then
	say "waiting for another make lab to finish"
	flock 9
fi

# --- which kernel: what linux-image-amd64 depends on now ----------------
lists_fresh() {
	local f
	f=$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n 1)
	[ -n "$f" ]
}
resolve_kver() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -nE 's/^ *Depends: linux-image-([0-9][^ ]*-amd64)$/\1/p' | head -n 1
}
if ! lists_fresh; then
	say "package lists are old or missing: apt-get update"
	apt-get update -qq || say "apt-get update failed; using the lists as they are"
fi
# apt-cache takes seconds here (no pkgcache.bin); the answer can only
# change when the package lists do, so it is kept keyed by them.
lists_key=$(stat -c '%n %Y %s' /var/lib/apt/lists/*_Packages* 2>/dev/null | md5sum | cut -d' ' -f1)
KVER="" PKGVER=""
if [ -f "$LAB/resolved" ]; then
	read -r key kv pv <"$LAB/resolved" || true
	[ "${key:-}" = "$lists_key" ] && KVER=$kv PKGVER=$pv
fi
[ -n "$KVER" ] || KVER=$(resolve_kver)
if [ -z "$KVER" ]; then
	if [ -L "$LAB/current" ]; then
		KVER=$(cut -d" " -f1 "$LAB/current/ready" 2>/dev/null || true)
		[ -n "$KVER" ] || die 2 "cannot resolve linux-image-amd64 and $LAB/current is not a prepared lab"
		say "cannot resolve linux-image-amd64 from apt; keeping the prepared $KVER"
	else
		die 2 "cannot resolve which kernel linux-image-amd64 depends on (apt-cache depends linux-image-amd64)"
	fi
fi
PKG=linux-image-$KVER
if [ -z "$PKGVER" ]; then
	PKGVER=$(apt-cache show "$PKG" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	[ -n "$PKGVER" ] || die 2 "apt-cache knows no version of $PKG"
	mkdir -p "$LAB"
	echo "$lists_key $KVER $PKGVER" >"$LAB/resolved"
fi
# Each preparation gets its own directory and `current` moves to it in
# one step: a VM still running from the previous one keeps its files.
CUR=$LAB/current

# Older preparations go once no qemu boots from them any more.
prune_old() {	# prune_old KEEP_DIR [quiet]
	local old
	for old in "$LAB"/*/; do
		old=${old%/}
		[ -L "$old" ] || [ "$old" = "$1" ] || [ ! -f "$old/vmlinuz" ] && continue
		if grep -qsF "$old/vmlinuz" /proc/[0-9]*/cmdline; then
			[ -n "${2:-}" ] || say "keeping $old: a VM is running from it"
			continue
		fi
		rm -rf "$old"
	done
}

# Anything of ours that ends up in the prepared tree makes it stale.
inputs=(lab/prepare.sh lab/hst-build.sh lab/Kbuild.hst lab/initrd-init.sh lab/guest-init.sh)
if [ -f "$CUR/ready" ] && [ "$(cut -d' ' -f1 "$CUR/ready")" = "$KVER" ]; then
	stale=""
	for f in "${inputs[@]}"; do [ "$f" -nt "$CUR/ready" ] && stale="$f"; done
	if [ -z "$stale" ]; then
		prune_old "$(realpath "$CUR")" quiet
		say "lab for $KVER is ready ($(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)") s)"
		exit 0
	fi
	say "$stale changed; rebuilding the lab for $KVER"
fi

# A failure leaves the previous preparation current and this one gone.
DIR=$LAB/$KVER.$(date +%Y%m%d-%H%M%S)
rm -rf "$DIR"
trap '[ -f "$DIR/ready" ] || rm -rf "$DIR"' EXIT
mkdir -p "$DIR" "$LAB/debs" "$LAB/logs"
export DEBIAN_FRONTEND=noninteractive

# --- kernel image, extracted (never installed on this machine) ----------
deb=$(ls "$LAB/debs/${PKG}_${PKGVER}_amd64.deb" 2>/dev/null || true)
if [ -z "$deb" ]; then
	say "downloading $PKG $PKGVER"
	# apt's sandbox user cannot write into build/; fetch as root quietly.
	(cd "$LAB/debs" && apt-get download -q -o APT::Sandbox::User=root "$PKG=$PKGVER") ||
		die 2 "apt-get download $PKG=$PKGVER failed"
	deb=$LAB/debs/${PKG}_${PKGVER}_amd64.deb
fi
ROOT=$DIR/root
dpkg-deb -x "$deb" "$ROOT" || die 3 "dpkg-deb -x $deb failed"
cp "$ROOT/boot/vmlinuz-$KVER" "$DIR/vmlinuz"

# --- headers and source for the HST module ------------------------------
series=$(echo "$KVER" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
need=()
[ -d "/usr/lib/modules/$KVER/build" ] || need+=("linux-headers-$KVER=$PKGVER")
srcver=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null || true)
# The private dm headers must come from the same release as the kernel.
[ "$srcver" = "$PKGVER" ] || need+=("linux-source-$series=$PKGVER")
if [ ${#need[@]} -gt 0 ]; then
	say "apt-get install ${need[*]}"
	apt-get install -y -q --no-install-recommends "${need[@]}" >"$DIR/apt.log" 2>&1 || {
		tail -n 5 "$DIR/apt.log" >&2
		die 2 "apt-get install ${need[*]} failed (log: $DIR/apt.log)"
	}
fi
hst_start=$(date +%s.%N)
mdir=$ROOT/lib/modules/$KVER
# The lab's selector is the patched one (bucket_shift parameter); the
# stock build stays beside the preparation for comparing the two.
hst_build "$KVER" "/usr/lib/modules/$KVER/build" "$(hst_source_tarball "$KVER")" \
	"$LAB/hst" "$mdir/kernel/drivers/md/$HST_KO" "$DIR/hst-stock/$HST_KO"
say "built $HST_KO, patched and stock, in $(printf '%.1f' "$(echo "$(date +%s.%N) - $hst_start" | bc)") s"
depmod -b "$ROOT" "$KVER" || die 3 "depmod -b $ROOT $KVER failed"

# --- initrd: busybox, the modules to reach the 9p root, our /init -------
# What the initrd loads, in order; modules.dep gives each one's deps,
# which must be loaded before it (last listed first, as modprobe does).
INITRD_MODULES=(virtio_pci 9pnet_virtio 9p overlay virtio_console)
declare -A seen=()
order=()
add_module() {	# add_module RELPATH
	local rel=$1 deps d i
	[ -n "${seen[$rel]:-}" ] && return 0
	seen[$rel]=1
	deps=$(sed -n "s|^$rel: *||p" "$mdir/modules.dep")
	# shellcheck disable=SC2206
	local arr=($deps)
	for ((i = ${#arr[@]} - 1; i >= 0; i--)); do add_module "${arr[$i]}"; done
	order+=("$rel")
}
for m in "${INITRD_MODULES[@]}"; do
	if grep -qE "/$m\.ko$" "$mdir/modules.builtin"; then continue; fi
	rel=$(grep -oE "^[^:]*/$m\.ko(\.[a-z]+)?:" "$mdir/modules.dep" | head -n 1 | tr -d :)
	[ -n "$rel" ] || die 3 "module $m is neither built into $KVER nor in its modules.dep"
	add_module "$rel"
done
stage=$DIR/initrd.d
mkdir -p "$stage"/{bin,dev,proc,sys,etc,lib/modules,lower,rw,newroot,xchg}
cp /bin/busybox "$stage/bin/busybox"
cp lab/initrd-init.sh "$stage/init"
chmod 755 "$stage/init"
: >"$stage/etc/modules.load"
for rel in "${order[@]}"; do
	cp "$mdir/$rel" "$stage/lib/modules/"
	basename "$rel" >>"$stage/etc/modules.load"
done
echo "$KVER" >"$stage/etc/lab-kver"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$DIR/initrd.gz"
rm -rf "$stage"
cp lab/guest-init.sh "$DIR/guest-init"
chmod 755 "$DIR/guest-init"

end=$(date +%s.%N)
secs=$(printf '%.1f' "$(echo "$end - $start" | bc)")
echo "$KVER $PKGVER prepared in $secs s on $(date -u +%FT%TZ)" >"$DIR/ready"
echo "$secs" >"$LAB/prepare-seconds"
ln -sfn "$(basename "$DIR")" "$LAB/current.new"
mv -T "$LAB/current.new" "$LAB/current"

prune_old "$DIR"
find "$LAB/debs" -name 'linux-image-*.deb' ! -name "${PKG}_${PKGVER}_amd64.deb" -delete
