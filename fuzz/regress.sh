#!/bin/sh
# Replay the fuzzing regression corpus through the flamekit command: every
# input in fuzz/regress/NAME/ once crashed or hung the fuzz-NAME harness
# (or the engine behind it).  Now each must end with exit status 0 (done)
# or 1 (refused with a message), within a minute, and no sanitizer report.
# How an input is replayed depends on the harness (replay_NAME below; an
# input plugin's name by default).
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
plugins=$("$FLAMEKIT" plugins | awk '{ print $1 ":" $2 }')
CR=$(printf '\r')

have() { # have KIND NAME: is that plugin in this build?
	printf '%s\n' "$plugins" | grep -qx "$1:$2"
}

# replay_input NAME FILE: what fuzz-NAME does for an input plugin NAME.
replay_input() {
	run $TO "$FLAMEKIT" collapse --format "$1" "$2"
}

# replay_lua FILE: what fuzz-lua does (fuzz/lua.c): the script is the file
# up to a line "--samples", the folded stacks what follows (the harness's
# built-in stacks without that line), a first line "--args TABLE" gives
# args, and the limits are the harness's.  Args are put in the job as a
# single-quoted YAML string, so they must be printable.
replay_lua() {
	sep="^--samples$CR\\{0,1\\}\$"
	sed "/$sep/,\$d" "$1" > "$TMP/script.lua"
	if grep -qa "$sep" "$1"; then
		sed "0,/$sep/d" "$1" > "$TMP/stacks.folded"
	else
		printf '%s\n' 'main;parse;lex 3' 'main;render;fib;fib;add 2' \
			'swapper;do_idle;intel_idle_[k] 1' 'main;0x7f3a2b1c;memcpy 1' > "$TMP/stacks.folded"
	fi
	args=
	if head -1 "$1" | grep -qa '^--args '; then
		args=$(head -1 "$1" | sed "s/^--args //; s/$CR\$//; s/'/''/g")
		args="    args: '$args'"
	fi
	cat > "$TMP/replay.yaml" <<EOF
inputs: [{path: $TMP/stacks.folded, format: folded}]
filters:
  - plugin: lua
    script: $TMP/script.lua
$args
    options: {instruction-limit: 100000, memory-limit: 1M, time-limit: 1}
outputs: [{plugin: folded, path: "-"}]
EOF
	run $TO "$FLAMEKIT" run "$TMP/replay.yaml"
}

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
	plugin=$name
	case $name in
	lua) kind=filter replay="replay_lua" ;;
	# (perf.data files: the harness reads their header, features and tracing data)
	perf-data-header) plugin=perf-data kind=input replay="replay_input perf-data" ;;
	*) kind=input replay="replay_input $name" ;;
	esac
	if ! have $kind "$plugin"; then
		skip "fuzz/regress/$name" "no $kind plugin named $plugin in this build"
		continue
	fi
	for f in "$dir"*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		$replay "$f"
		clean "fuzz/regress/$name/$(basename "$f")" 1
	done
done
[ "$n" -gt 0 ] || skip "fuzz regression corpus" "fuzz/regress/ holds no input yet"
done_testing
