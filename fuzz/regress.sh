#!/bin/sh
# Replay the fuzzing regression corpus through the flamekit command: every
# input in fuzz/regress/NAME/ once crashed or hung the NAME input plugin
# (or the engine behind it).  Now each must end with exit status 0 (parsed)
# or 1 (refused with a message), within a minute, and no sanitizer report.
. "$FK_SRCDIR/tests/lib.sh"

TO=
command -v timeout > /dev/null 2>&1 && TO="timeout 60"
plugins=$("$FLAMEKIT" plugins | awk '$1 == "input" { print $2 }')
n=0
for dir in "$FK_SRCDIR"/fuzz/regress/*/; do
	[ -d "$dir" ] || continue
	name=$(basename "$dir")
	if ! printf '%s\n' "$plugins" | grep -qx "$name"; then
		skip "fuzz/regress/$name" "no input plugin named $name in this build"
		continue
	fi
	for f in "$dir"*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		run $TO "$FLAMEKIT" collapse --format "$name" "$f"
		ok $([ "$rc" -le 1 ] && ! printf '%s\n' "$err" | grep -qE 'runtime error|Sanitizer'; echo $?) \
			"fuzz/regress/$name/$(basename "$f"): exit $rc"
		[ "$rc" -le 1 ] || printf '%s\n' "$err" | head -5 | sed 's/^/# /'
	done
done
[ "$n" -gt 0 ] || skip "fuzz regression corpus" "fuzz/regress/ holds no input yet"
done_testing
