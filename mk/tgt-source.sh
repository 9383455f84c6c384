#!/bin/bash
# Unpacks Debian's source of exactly the installed tgt under build/, for
# its headers: our backing store is built against what tgtd was built
# from, and nothing of tgt is ever kept in this repository.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
dest=$BUILD/tgt-src

installed=$(dpkg-query -W -f='${Version}' tgt 2>/dev/null || true)
if [ -z "$installed" ]; then
	echo "tgt-source: the tgt package is not installed (run make deps)" >&2
	exit 2
fi
if [ -f "$dest/.slowpath-version" ] && [ "$(cat "$dest/.slowpath-version")" = "$installed" ]; then
	exit 0
fi

daemon=$(tgtd -V 2>/dev/null | head -n 1 || true)
upstream=${installed#*:}
upstream=${upstream%%-*}
if [ "$daemon" != "$upstream" ]; then
	echo "tgt-source: /usr/sbin/tgtd says version '$daemon' but the tgt package is $installed" >&2
	exit 2
fi

# A private apt state with deb-src entries derived from the system's own
# sources, so the system's apt configuration is left as it was.
apt_dir=$(realpath -m "$BUILD/apt")
mkdir -p "$apt_dir/lists/partial" "$apt_dir/sources" "$apt_dir/download"
: >"$apt_dir/sources/src.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	sed -n 's/^[[:space:]]*deb[[:space:]]\+/deb-src /p' "$f" >>"$apt_dir/sources/src.list"
done
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	sed 's/^Types:[[:space:]]*deb$/Types: deb-src/' "$f" >"$apt_dir/sources/$(basename "$f")"
done
apt_opts=(-o Dir::Etc::SourceList="$apt_dir/sources/src.list"
	  -o Dir::Etc::SourceParts="$apt_dir/sources"
	  -o Dir::State::Lists="$apt_dir/lists"
	  -o Debug::NoLocking=1)
apt-get "${apt_opts[@]}" -qq update
(
	cd "$apt_dir/download"
	apt-get "${apt_opts[@]}" -qq source --download-only "tgt=$installed" 2>&1 |
		grep -v 'unsandboxed' || true
)
dsc=$(ls "$apt_dir/download"/tgt_"${installed#*:}".dsc 2>/dev/null || true)
if [ -z "$dsc" ]; then
	echo "tgt-source: Debian's archive has no source for tgt $installed (the installed tgt); upgrade tgt, then make deps again" >&2
	exit 2
fi
rm -rf "$dest.tmp" "$dest"
dpkg-source --no-check -x "$dsc" "$dest.tmp" >/dev/null
echo "$installed" >"$dest.tmp/.slowpath-version"
mv "$dest.tmp" "$dest"
echo "tgt-source: tgt $installed source is in $dest"
