#!/bin/bash
# make deps: installs from Debian's packages whatever slowpath needs and
# is missing, then fetches tgt's source for the installed tgt. Idempotent.
set -eu
cd "$(dirname "$0")/.."

PACKAGES=(
	build-essential pkg-config dpkg-dev bc cpio xz-utils zstd kmod iproute2
	libcmocka-dev libjson-c-dev libiscsi-dev libiscsi-bin iputils-ping jq
	libnl-3-dev libnl-route-3-dev libdevmapper-dev dmsetup multipath-tools
	tgt open-iscsi fio gnuplot-nox valgrind
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
	echo "make deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# Daemons are started by slowpath itself, with its own sockets and
	# ports; keep the packages' services from starting on install.
	policy=/usr/sbin/policy-rc.d
	created_policy=""
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod +x "$policy"
		created_policy=1
	fi
	rc=0
	apt-get install -y -qq --no-install-recommends "${missing[@]}" || rc=$?
	[ -n "$created_policy" ] && rm -f "$policy"
	[ "$rc" -eq 0 ] || { echo "make deps: apt-get install failed" >&2; exit 2; }
fi

bash mk/tgt-source.sh
echo "make deps: everything slowpath needs is installed"
