#!/bin/sh
# Input plugin threaddump: gdb's `thread apply all bt`, eu-stack and jstack
# dumps.  The fixtures of tests/data/threaddump are real dumps of
# tests/oracle/threads.c (gdb 13, eu-stack of elfutils 0.188) and of
# tests/oracle/Threads.java (jstack of OpenJDK 17); each collapses to what
# tests/oracle/threaddump.py, an independent reading of the dumps' layouts,
# says, with --root=none and --state too; then dumps recorded now where the
# tools can attach, labels in a Lua filter, skipped lines, CRLF, gzip,
# shards.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/threaddump"
ORACLE="$FK_SRCDIR/tests/oracle/threaddump.py"
. "$FK_SRCDIR/tests/oracle/check.sh"

fixtures threaddump "$D"
check "$D/gdb.txt" "gdb --root=none" --root none -- --root=none
check "$D/jstack.txt" "jstack --state RUNNABLE,BLOCKED" --state RUNNABLE,BLOCKED -- --state=runnable,BLOCKED
check "$D/jstack.txt" "jstack --state TIMED_WAITING" --state TIMED_WAITING -- --format threaddump --state TIMED_WAITING

# What the stacks are, read off the programs' code.
run "$FLAMEKIT" collapse "$D/gdb.txt"
is "$(printf '%s\n' "$out" | grep -c '^spin-[12];clone3;start_thread;spinner;spin_mid;spin_leaf 1$')" 2 \
	"gdb: each spinner thread under its name, inlined frames kept"
run "$FLAMEKIT" collapse "$D/jstack.txt"
is "$(printf '%s\n' "$out" | grep -c '^spin-1;java.lang.Thread.run;Threads$$Lambda$[0-9]*/0x[0-9a-f]*.run;Threads.spinMid;Threads.spinLeaf 1$')" 1 \
	"jstack: the spinner's methods, no file locations, no lock lines"

# Dumps recorded now.
if command -v cc > /dev/null 2>&1 && cc -O1 -g -pthread -o "$TMP/threads" "$FK_SRCDIR/tests/oracle/threads.c" 2> /dev/null; then
	"$TMP/threads" 30 &
	pid=$!
	sleep 1
	for tool in gdb eu-stack; do
		if ! command -v $tool > /dev/null 2>&1; then
			skip "a $tool dump recorded now" "no $tool"
			continue
		fi
		case $tool in
		gdb) timeout 60 gdb -p $pid -batch -ex 'thread apply all bt' > "$TMP/$tool.txt" 2> /dev/null ;;
		*) timeout 60 eu-stack -p $pid > "$TMP/$tool.txt" 2> /dev/null ;;
		esac
		if grep -q 'spin_leaf' "$TMP/$tool.txt"; then
			check "$TMP/$tool.txt" "a $tool dump recorded now"
			run "$FLAMEKIT" collapse "$TMP/$tool.txt"
			is "$(printf '%s\n' "$out" | grep -c 'start_thread;spinner;spin_mid;spin_leaf [12]$')" \
				"$([ $tool = gdb ] && echo 2 || echo 1)" "$tool: the spinners' stacks"
		else
			skip "a $tool dump recorded now" "$tool could not attach here"
		fi
	done
	kill $pid 2> /dev/null
	wait $pid 2> /dev/null
else
	skip "gdb and eu-stack dumps recorded now" "needs cc"
fi
if command -v javac > /dev/null 2>&1 && command -v jstack > /dev/null 2>&1 &&
	javac -d "$TMP/j" "$FK_SRCDIR/tests/oracle/Threads.java" 2> /dev/null; then
	java -cp "$TMP/j" Threads 30 &
	pid=$!
	n=0
	: > "$TMP/jstack.txt"
	while [ $n -lt 40 ] && ! grep -q '"blocked"' "$TMP/jstack.txt"; do
		sleep 0.5
		timeout 30 jstack $pid > "$TMP/jstack.txt" 2> /dev/null
		n=$((n + 1))
	done
	kill $pid 2> /dev/null
	wait $pid 2> /dev/null
	if grep -q '"blocked"' "$TMP/jstack.txt"; then
		check "$TMP/jstack.txt" "a jstack dump recorded now"
		check "$TMP/jstack.txt" "a jstack dump recorded now, --state BLOCKED" --state BLOCKED -- --state BLOCKED
		run "$FLAMEKIT" collapse --state BLOCKED "$TMP/jstack.txt"
		is "$(printf '%s\n' "$out" | sed 's/\$\$Lambda\$[0-9]*\/0x[0-9a-f]*/$$Lambda/')" \
			'blocked;java.lang.Thread.run;Threads$$Lambda.run;Threads.holdLock 1' \
			"jstack: --state BLOCKED keeps the thread waiting for the lock"
	else
		skip "a jstack dump recorded now" "jstack could not attach here"
	fi
else
	skip "a jstack dump recorded now" "needs javac and jstack"
fi

# Labels: the thread's name and state reach Lua (and pprof labels).
printf 'function sample(s)\n  s:insert(1, "[" .. (s:label("thread") or "") .. "|" .. (s:label("state") or "") .. "|" .. tostring(s.tid) .. "]")\nend\n' > "$TMP/l.lua"
printf 'inputs:\n  - path: %s\nfilters:\n  - plugin: lua\n    script: l.lua\noutputs:\n  - plugin: folded\n    path: "-"\n' \
	"$D/jstack.txt" > "$TMP/l.yaml"
run "$FLAMEKIT" run "$TMP/l.yaml"
is "$(printf '%s\n' "$out" | grep '^\[main|' | sed 's/ .*//')" \
	"[main|TIMED_WAITING|$(printf '%d' "$(sed -n 's/^"main" .* nid=\(0x[0-9a-f]*\) .*/\1/p' "$D/jstack.txt")")];main;Threads.main;java.lang.Thread.sleep" \
	"jstack: the thread's name, state and nid are the sample's labels and tid in Lua"

# Unreadable lines are skipped and counted; a bad --root is an error.
collapse_text threaddump skip.txt '#0  0x1 in early ()\nThread 1 (LWP 7 "a"):\n#0  0x0000000000401000 in f (x=1) at f.c:3\nsome text\n#1  0x0000000000401100 in main () at f.c:9\n\tat (X.java:1)\n'
is "$rc:$out:$err" "0:a;main;f 1:flamekit: warning: $TMP/skip.txt: skipped 3 unreadable lines (lines 1, 4, 6)" \
	"a frame outside a thread, stray text and a frame without a name: skipped and counted"
run "$FLAMEKIT" collapse --format threaddump --root=process "$D/gdb.txt"
is "$rc:$out:$err" "1::flamekit: $D/gdb.txt: --root takes thread or none, not \"process\"" "--root=process: exit 1"

other_forms threaddump "$D/jstack.txt"
other_forms threaddump "$D/gdb.txt"

done_testing
