#!/bin/bash
# make lab [KERNEL=6.1|6.12]: prepares the lab VM for one kernel series
# under $BUILD/lab/<kver>.<date> from Debian's packages only: the newest
# kernel of that series in the system's own suite (what linux-image-amd64
# points at) or, for a newer series, in the same archive's backports
# suite through a private apt state (lab/apt-suite.sh); its modules plus
# our out-of-tree historical-service-time and io-affinity selectors; and
# a busybox initrd that mounts the host's root over 9p. Each series has
# its own current-<series> link (the default series also `current`), so
# several are prepared side by side. A prepared version is reused until
# Debian's kernel version of that series changes.
set -eu
cd "$(dirname "$0")/.."
SRCDIR=$PWD
BUILD=${BUILD:-build}
LAB=$(realpath -m "$BUILD/lab")
HST_WHO="make lab"
HST_LAB_DIR=$SRCDIR/lab
# The default series: bookworm's own kernel.
DEFAULT_KERNEL=6.1
KERNEL=${KERNEL:-$DEFAULT_KERNEL}
# shellcheck source=lab/hst-build.sh
. lab/hst-build.sh
# shellcheck source=lab/apt-suite.sh
. lab/apt-suite.sh

die() { hst_die "$@"; }
say() { echo "make lab: $*"; }

[[ $KERNEL =~ ^[0-9]+\.[0-9]+$ ]] ||
	die 1 "KERNEL='$KERNEL': want a kernel series such as 6.1 or 6.12"
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
# In the system's own suite when its kernel is of the series asked for,
# else in that release's backports suite (a private apt state).
APT=(apt-get) APTC=(apt-cache)
lists_dir=/var/lib/apt/lists
lists_fresh() {
	local f
	f=$(find "$lists_dir" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n 1)
	[ -n "$f" ]
}
resolve_kver() {
	"${APTC[@]}" depends linux-image-amd64 2>/dev/null |
		sed -nE 's/^ *Depends: linux-image-([0-9][^ ]*-amd64)$/\1/p' | head -n 1
}
series_of() { echo "$1" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/'; }
if ! lists_fresh; then
	say "package lists are old or missing: apt-get update"
	apt-get update -qq || say "apt-get update failed; using the lists as they are"
fi
# Which suite: the system's kernel series is the default one; another
# series comes from backports.
SUITE=system
RESOLVED=$LAB/resolved
if [ "$KERNEL" != "$DEFAULT_KERNEL" ]; then
	. /etc/os-release
	[ -n "${VERSION_CODENAME:-}" ] || die 2 "/etc/os-release names no VERSION_CODENAME; cannot derive the backports suite"
	SUITE=$VERSION_CODENAME-backports
	RESOLVED=$LAB/resolved-$KERNEL
	apt_suite_init "$VERSION_CODENAME" "$SUITE" "$LAB/apt-$SUITE" ||
		die 2 "no apt source in /etc/apt names $VERSION_CODENAME, or apt-get update of $SUITE failed; cannot fetch kernel $KERNEL"
	APT=(apt-get "${APT_SUITE_OPTS[@]}") APTC=(apt-cache "${APT_SUITE_OPTS[@]}")
	lists_dir=$LAB/apt-$SUITE/lists
fi
# apt-cache takes seconds here (no pkgcache.bin); the answer can only
# change when the package lists do, so it is kept keyed by them.
lists_key=$(stat -c '%n %Y %s' "$lists_dir"/*_Packages* 2>/dev/null | md5sum | cut -d' ' -f1)
KVER="" PKGVER=""
if [ -f "$RESOLVED" ]; then
	read -r key kv pv <"$RESOLVED" || true
	[ "${key:-}" = "$lists_key" ] && KVER=$kv PKGVER=$pv
fi
[ -n "$KVER" ] || KVER=$(resolve_kver)
# Each preparation gets its own directory and current-<series> moves to
# it in one step: a VM still running from the previous one keeps its
# files. The default series is also `current`, as before there were two.
CUR=$LAB/current-$KERNEL
if [ -z "$KVER" ]; then
	if [ -L "$CUR" ]; then
		KVER=$(cut -d" " -f1 "$CUR/ready" 2>/dev/null || true)
		[ -n "$KVER" ] || die 2 "cannot resolve linux-image-amd64 ($SUITE) and $CUR is not a prepared lab"
		say "cannot resolve linux-image-amd64 ($SUITE) from apt; keeping the prepared $KVER"
	else
		die 2 "cannot resolve which kernel linux-image-amd64 depends on in $SUITE (apt-cache depends linux-image-amd64)"
	fi
fi
[ "$(series_of "$KVER")" = "$KERNEL" ] ||
	die 2 "linux-image-amd64 of $SUITE is kernel $KVER, not of the series $KERNEL asked for"
PKG=linux-image-$KVER
if [ -z "$PKGVER" ]; then
	PKGVER=$("${APTC[@]}" show "$PKG" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	[ -n "$PKGVER" ] || die 2 "apt-cache knows no version of $PKG ($SUITE)"
	mkdir -p "$LAB"
	echo "$lists_key $KVER $PKGVER" >"$RESOLVED"
fi
link_current() {	# link_current DIR_NAME: current-<series> (and current)
	ln -sfn "$1" "$LAB/current-$KERNEL.new"
	mv -T "$LAB/current-$KERNEL.new" "$LAB/current-$KERNEL"
	if [ "$KERNEL" = "$DEFAULT_KERNEL" ]; then
		ln -sfn "$1" "$LAB/current.new"
		mv -T "$LAB/current.new" "$LAB/current"
	fi
}
# A lab prepared before there were several series has only `current`.
if [ "$KERNEL" = "$DEFAULT_KERNEL" ] && [ ! -L "$CUR" ] && [ -L "$LAB/current" ]; then
	ln -sfn "$(readlink "$LAB/current")" "$CUR"
fi

# Older preparations of this series go once no qemu boots from them and
# no current link names them.
prune_old() {	# prune_old KEEP_DIR [quiet]
	local old l keep
	for old in "$LAB/$KERNEL".[0-9]*/; do
		old=${old%/}
		[ -L "$old" ] || [ "$old" = "$1" ] || [ ! -f "$old/vmlinuz" ] && continue
		keep=""
		for l in "$LAB"/current*; do
			[ -L "$l" ] && [ "$(realpath "$l")" = "$old" ] && keep=1
		done
		[ -n "$keep" ] && continue
		if grep -qsF "$old/vmlinuz" /proc/[0-9]*/cmdline; then
			[ -n "${2:-}" ] || say "keeping $old: a VM is running from it"
			continue
		fi
		rm -rf "$old"
	done
}

# Anything of ours that ends up in the prepared tree makes it stale.
inputs=(lab/prepare.sh lab/hst-build.sh lab/Kbuild.hst lab/Kbuild.hst58 lab/Kbuild.hstprebio lab/Kbuild.ioa lab/initrd-init.sh lab/guest-init.sh)
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

fetch_deb() {	# fetch_deb PACKAGE VERSION -> path of its .deb in $LAB/debs
	local f
	f=$(ls "$LAB/debs/${1}_${2//:/%3a}_"*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$f" ]; then
		say "downloading $1 $2" >&2
		# apt's sandbox user cannot write into build/; fetch as root quietly.
		(cd "$LAB/debs" && "${APT[@]}" download -q -o APT::Sandbox::User=root "$1=$2" >&2) ||
			die 2 "apt-get download $1=$2 ($SUITE) failed"
		f=$(ls "$LAB/debs/${1}_${2//:/%3a}_"*.deb 2>/dev/null | head -n 1 || true)
		[ -n "$f" ] || die 2 "apt-get download $1=$2 left no .deb in $LAB/debs"
	fi
	echo "$f"
}

# --- kernel image, extracted (never installed on this machine) ----------
deb=$(fetch_deb "$PKG" "$PKGVER")
ROOT=$DIR/root
dpkg-deb -x "$deb" "$ROOT" || die 3 "dpkg-deb -x $deb failed"
cp "$ROOT/boot/vmlinuz-$KVER" "$DIR/vmlinuz"

# --- headers and source for the out-of-tree selectors --------------------
series=$KERNEL
if [ "$SUITE" = system ]; then
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
	KBUILD=/usr/lib/modules/$KVER/build
	TARBALL=$(hst_source_tarball "$KVER")
else
	# Not installed either: the headers, kbuild and source packages are
	# extracted side by side under $LAB/kernel-$KVER, whose headers
	# Makefile is pointed at its extracted common headers.
	KROOT=$LAB/kernel-$KVER
	if [ ! -f "$KROOT/.extracted" ] || [ "$(cat "$KROOT/.extracted")" != "$PKGVER" ]; then
		rm -rf "$KROOT"
		mkdir -p "$KROOT"
		hdr=linux-headers-$KVER
		pkgs=("$hdr" $("${APTC[@]}" depends "$hdr" 2>/dev/null |
			sed -nE 's/^ *Depends: (linux-(headers|kbuild)-[^ <>]+)$/\1/p' | sort -u)
			"linux-source-$series")
		for p in "${pkgs[@]}"; do
			dpkg-deb -x "$(fetch_deb "$p" "$PKGVER")" "$KROOT" || die 3 "dpkg-deb -x $p failed"
		done
		sed -i -E "s|^include /usr/src/|include $KROOT/usr/src/|" "$KROOT/usr/src/$hdr/Makefile"
		echo "$PKGVER" >"$KROOT/.extracted"
	fi
	KBUILD=$KROOT/usr/src/linux-headers-$KVER
	TARBALL=$KROOT/usr/src/linux-source-$series.tar.xz
fi
[ -e "$KBUILD/Makefile" ] || die 2 "no kernel build tree at $KBUILD"
[ -r "$TARBALL" ] || die 2 "no kernel source at $TARBALL"
hst_start=$(date +%s.%N)
mdir=$ROOT/lib/modules/$KVER
# The lab's HST is the patched one (bucket_shift parameter); the stock
# build stays beside the preparation for comparing the two. io-affinity
# is stock: Debian ships neither selector.
work=$LAB/hst
[ "$KERNEL" = "$DEFAULT_KERNEL" ] || work=$LAB/hst-$KERNEL
hst_build "$KVER" "$KBUILD" "$TARBALL" "$work" \
	"$mdir/kernel/drivers/md/$HST_KO" "$DIR/hst-stock/$HST_KO" \
	"$mdir/kernel/drivers/md/$IOA_KO" "$mdir/kernel/drivers/md/$HST58_KO" \
	"$mdir/kernel/drivers/md/$HSTPB_KO"
say "built $HST_KO (patched and stock), $HST58_KO, $HSTPB_KO and $IOA_KO in $(printf '%.1f' "$(echo "$(date +%s.%N) - $hst_start" | bc)") s"
depmod -b "$ROOT" "$KVER" || die 3 "depmod -b $ROOT $KVER failed"
# What `slowpath selector build --kernel` builds a user's selector with:
# this kernel's build tree (resolved: in the guest /usr/lib/modules/KVER
# is the lab's module tree, which has no build link) and drivers/md's
# private headers.
realpath "$KBUILD" >"$DIR/kbuild"
mkdir -p "$DIR/dm-headers"
cp "$work/src"/*.h "$DIR/dm-headers/"

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
link_current "$(basename "$DIR")"

prune_old "$DIR"
find "$LAB/debs" -name "linux-image-$KERNEL.*.deb" ! -name "${PKG}_${PKGVER}_amd64.deb" -delete
