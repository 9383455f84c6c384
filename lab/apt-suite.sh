#!/bin/bash
# A private apt state for one extra suite of the system's own archive
# (e.g. bookworm-backports), derived from /etc/apt the way
# mk/tgt-source.sh derives its deb-src lines: same archive, same keys,
# the suite renamed. The system's apt configuration, lists and caches
# are left as they were; nothing here installs a package.
# Sourced by lab/prepare.sh. Sets APT_SUITE_OPTS for apt-get/apt-cache.
# shellcheck shell=bash

# apt_suite_sources CODENAME SUITE OUT_DIR: OUT_DIR/suite.list and
# OUT_DIR/*.sources name SUITE wherever the system's sources name the
# plain release CODENAME (never -security or -updates, whose archives
# may differ). Returns 1 when no source names CODENAME.
apt_suite_sources() {
	local codename=$1 suite=$2 out=$3 f n=0
	rm -rf "$out"
	mkdir -p "$out"
	: >"$out/suite.list"
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [options] URI SUITE COMPONENTS...: only the suite changes.
		awk -v c="$codename" -v s="$suite" '
			$1 != "deb" { next }
			{ i = 2
			  if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
			  if ($(i + 1) != c) next
			  $(i + 1) = s; print }' "$f" >>"$out/suite.list"
	done
	n=$(grep -c . "$out/suite.list" || true)
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# deb822 stanzas: keep those of type deb whose Suites list the
		# codename, with Suites replaced by the one wanted.
		awk -v c="$codename" -v s="$suite" '
			function flush() {
				if (keep && deb && !off) { printf "%s", buf; print "" }
				buf = ""; keep = 0; deb = 0; off = 0
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1
				    buf = buf "Types: deb\n"; next }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) keep = 1
				     buf = buf "Suites: " s "\n"; next }
			/^Enabled:[ \t]*no/ { off = 1 }
			{ buf = buf $0 "\n" }
			END { flush() }' "$f" >"$out/$(basename "$f")"
		[ -s "$out/$(basename "$f")" ] && n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

# apt_suite_init CODENAME SUITE DIR: the state under DIR (sources, lists,
# caches), its lists updated when older than a day.
apt_suite_init() {
	local codename=$1 suite=$2 dir=$3
	apt_suite_sources "$codename" "$suite" "$dir/sources" || return 1
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	APT_SUITE_OPTS=(-o Dir::Etc::SourceList="$dir/sources/suite.list"
		-o Dir::Etc::SourceParts="$dir/sources"
		-o Dir::State::Lists="$dir/lists"
		-o Dir::Cache="$dir/cache"
		-o Dir::Cache::pkgcache="$dir/cache/pkgcache.bin"
		-o Dir::Cache::srcpkgcache="$dir/cache/srcpkgcache.bin"
		-o APT::Sandbox::User=root
		-o Debug::NoLocking=1)
	if [ -z "$(find "$dir/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
		apt-get "${APT_SUITE_OPTS[@]}" -qq update || return 1
	fi
}
