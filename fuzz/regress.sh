#!/bin/sh
# Replay the fuzzing regression corpus through the flamekit command: every
# input in fuzz/regress/NAME/ once crashed or hung the fuzz-NAME harness
# (or the engine behind it).  Now each must end with exit status 0 (done)
# or 1 (refused with a message), within a minute, and no sanitizer report.
# How an input is replayed depends on the harness (replay_NAME below; an
# input plugin's name by default).
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
    options: {instruction-limit: 100000, memory-limit: 1M}
outputs: [{plugin: folded, path: "-"}]
EOF
	run $TO "$FLAMEKIT" run "$TMP/replay.yaml"
}

n=0
for dir in "$FK_SRCDIR"/fuzz/regress/*/; do
	[ -d "$dir" ] || continue
	name=$(basename "$dir")
	case $name in
	lua) kind=filter replay="replay_lua" ;;
	*) kind=input replay="replay_input $name" ;;
	esac
	if ! have $kind "$name"; then
		skip "fuzz/regress/$name" "no $kind plugin named $name in this build"
		continue
	fi
	for f in "$dir"*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		$replay "$f"
		ok $([ "$rc" -le 1 ] && ! printf '%s\n' "$err" | grep -qE 'runtime error|Sanitizer'; echo $?) \
			"fuzz/regress/$name/$(basename "$f"): exit $rc"
		[ "$rc" -le 1 ] || printf '%s\n' "$err" | head -5 | sed 's/^/# /'
	done
done
[ "$n" -gt 0 ] || skip "fuzz regression corpus" "fuzz/regress/ holds no input yet"
done_testing
