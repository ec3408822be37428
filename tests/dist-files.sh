#!/bin/sh
# dist-files.sh SRCDIR TARBALL: every file git tracks in SRCDIR is in the
# release tarball, but for the few that only a checkout needs.  CI runs it
# beside `make distcheck`, which then runs only tests/distcheck.list: a file a
# test reads but EXTRA_DIST forgot is caught here instead of by a third run
# of the whole suite.
set -eu
src=${1:?usage: dist-files.sh SRCDIR TARBALL}
tarball=${2:?usage: dist-files.sh SRCDIR TARBALL}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$src" ls-files | grep -v -x -e '.ci/run' -e '.gitignore' | sort > "$tmp/git"
tar -tzf "$tarball" | sed -e 's|^[^/]*/||' -e '/\/$/d' | sort > "$tmp/tar"
comm -23 "$tmp/git" "$tmp/tar" > "$tmp/missing"
if [ -s "$tmp/missing" ]; then
	echo "dist-files.sh: $tarball lacks $(wc -l < "$tmp/missing") file(s) git tracks;" \
		"add them to EXTRA_DIST (or a dist_ variable) of their area's local.mk:" >&2
	sed 's/^/  /' "$tmp/missing" >&2
	exit 1
fi
echo "dist-files.sh: $tarball holds all $(wc -l < "$tmp/git") files git tracks (but .ci/run, .gitignore)"
