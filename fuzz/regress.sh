#!/bin/sh
# Replay the fuzzing regression corpus through the flamekit command: every
# input in fuzz/regress/NAME/ once crashed or hung the NAME input plugin
# (or the engine behind it).  Now each must end with exit status 0 (parsed)
# or 1 (refused with a message), within a minute, and no sanitizer report.
#
# fuzz/regress/job/ holds inputs of the job harness (fuzz/job.c): a job
# file, then optionally a NUL byte and --set strings separated by NULs.
# Each is written to a scratch directory holding the harness's fixtures
# (data/a.folded ...) and replayed with `flamekit run --check`; when that
# passes and the job names no absolute path and no "..", it is also run for
# real, its outputs landing in the scratch directory.  Exit status 0, 1 or
# 2 (a usage error: most of these jobs are invalid) is fine.
. "$FK_SRCDIR/tests/lib.sh"

TO=
command -v timeout > /dev/null 2>&1 && TO="timeout 60"
plugins=$("$FLAMEKIT" plugins | awk '$1 == "input" { print $2 }')
n=0

# clean NAME MAX: the last run left no sanitizer report and exited 0..MAX
clean() {
	ok $([ "$rc" -le "$2" ] && ! printf '%s\n' "$err" | grep -qE 'runtime error|Sanitizer'; echo $?) \
		"$1: exit $rc"
	[ "$rc" -le "$2" ] || printf '%s\n' "$err" | head -5 | sed 's/^/# /'
}

# replay_job FILE: as fuzz/job.c does, through the command.
replay_job() {
	f=$1 w="$TMP/job" t="fuzz/regress/job/$(basename "$1")"
	rm -rf "$w"
	mkdir -p "$w/data" "$w/sub"
	printf 'main;parse 2\nmain;parse;lex 5\nmain;render 3\n' > "$w/data/a.folded"
	printf 'main;parse 2\nmain;parse;lex_[k] 5\nother;work 1\n' > "$w/data/b.folded"
	printf 'prog 1234 [000] 100.000001: 1 cycles:\n\t5555aaaa0001 main+0x11 (/usr/bin/prog)\n\n' \
		> "$w/data/perf.txt"
	printf "function frame(f) if f.name == 'lex' then f:drop() end end\n" > "$w/data/f.lua"
	printf 'function sample(s) end\n' > "$w/data/args.lua"
	# the job is what comes before the first NUL; after it, one --set per
	# NUL-separated piece (at most 16, as in the harness)
	"$PYTHON3" -c 'import sys
d = open(sys.argv[1], "rb").read()
job, nul, rest = d.partition(b"\0")
open(sys.argv[2], "wb").write(job)
sets = rest.split(b"\0")[:16] if nul else []
open(sys.argv[3], "wb").write(b"".join(s.replace(b"\n", b" ") + b"\n" for s in sets))' \
		"$f" "$w/job.yaml" "$w/sets"
	set --
	while IFS= read -r s; do
		set -- "$@" --set "$s"
	done < "$w/sets"
	cd "$w" || return 1
	run $TO "$FLAMEKIT" run --check "$@" job.yaml < /dev/null
	clean "$t --check" 2
	if [ "$rc" -eq 0 ]; then
		if cat job.yaml sets | grep -qE '\.\.|(^|[][ ,:="'"'"'{}-])/'; then
			skip "$t run" "it names an absolute path or .."
		else
			run $TO "$FLAMEKIT" run "$@" job.yaml < /dev/null
			clean "$t run" 2
		fi
	fi
	cd "$TMP" || return 1
}

for dir in "$FK_SRCDIR"/fuzz/regress/*/; do
	[ -d "$dir" ] || continue
	name=$(basename "$dir")
	if [ "$name" = job ]; then
		if [ -z "${PYTHON3:-}" ]; then
			skip "fuzz/regress/job" "no python3 to split the inputs"
			continue
		fi
		for f in "$dir"*; do
			[ -f "$f" ] || continue
			n=$((n + 1))
			replay_job "$f"
		done
		continue
	fi
	if ! printf '%s\n' "$plugins" | grep -qx "$name"; then
		skip "fuzz/regress/$name" "no input plugin named $name in this build"
		continue
	fi
	for f in "$dir"*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		run $TO "$FLAMEKIT" collapse --format "$name" "$f"
		clean "fuzz/regress/$name/$(basename "$f")" 1
	done
done
[ "$n" -gt 0 ] || skip "fuzz regression corpus" "fuzz/regress/ holds no input yet"
done_testing
