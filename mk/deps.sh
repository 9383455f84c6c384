#!/bin/bash
# make deps: installs from Debian's packages whatever slowpath needs and
# is missing, then fetches tgt's source for the installed tgt. Idempotent.
set -eu
cd "$(dirname "$0")/.."

PACKAGES=(
	build-essential pkg-config dpkg-dev bc flex bison cpio xz-utils zstd kmod iproute2
	libcmocka-dev libjson-c-dev libiscsi-dev libiscsi-bin iputils-ping jq
	libnl-3-dev libnl-route-3-dev libdevmapper-dev dmsetup multipath-tools
	tgt open-iscsi fio gnuplot-nox valgrind time nvme-cli
	clang libclang-rt-14-dev
	qemu-system-x86 busybox-static
)

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "make deps: these packages are missing and installing them needs root: ${missing[*]}" >&2
		exit 2
	fi
	# apt's and dpkg's hundreds of progress lines go to a log; the
	# terminal gets one line per step, and the log's path on failure
	mkdir -p build
	log=$(realpath -m build/deps-apt.log)
	: >"$log"
	export DEBIAN_FRONTEND=noninteractive
	echo "make deps: apt-get update (log: $log)"
	apt-get update -q >>"$log" 2>&1 || { echo "make deps: apt-get update failed; see $log" >&2; exit 2; }
	echo "make deps: installing ${#missing[@]} packages: ${missing[*]}"
	# Daemons are started by slowpath itself, with its own sockets and
	# ports; keep the packages' services from starting on install.
	policy=/usr/sbin/policy-rc.d
	created_policy=""
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod +x "$policy"
		created_policy=1
	fi
	# CI's machine is thrown away after the run: there dpkg need not
	# sync every file it unpacks (SLOWPATH_DEPS_UNSAFE_IO, .ci/run)
	apt_opts=()
	[ -n "${SLOWPATH_DEPS_UNSAFE_IO:-}" ] && apt_opts+=(-o Dpkg::Options::=--force-unsafe-io)
	rc=0
	apt-get install -y -q --no-install-recommends "${apt_opts[@]}" "${missing[@]}" >>"$log" 2>&1 || rc=$?
	[ -n "$created_policy" ] && rm -f "$policy"
	[ "$rc" -eq 0 ] || { echo "make deps: apt-get install failed; the last lines of $log:" >&2; tail -n 15 "$log" >&2; exit 2; }
fi

echo "make deps: tgt's source for its headers"
bash mk/tgt-source.sh
echo "make deps: everything slowpath needs is installed"
