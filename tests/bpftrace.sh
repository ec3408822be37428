#!/bin/sh
# Input plugin bpftrace: every fixture of tests/data/bpftrace (real captures
# of tests/oracle/burn.c recorded with bpftrace 0.17, and forms.txt, written
# by hand) collapses to what tests/oracle/bpftrace.py, an independent
# reading of bpftrace's printing rules, says, with the same skipped lines;
# then a capture recorded now when bpftrace can run here, --map, errors,
# CRLF, gzip and shards.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/bpftrace"
ORACLE="$FK_SRCDIR/tests/oracle/bpftrace.py"
. "$FK_SRCDIR/tests/oracle/check.sh"

fixtures bpftrace "$D"
check "$D/two-maps.txt" "--map @cpu" --map @cpu -- --map=@cpu
check "$D/two-maps.txt" "--map @kern" --map @kern -- --format bpftrace --map @kern
check "$D/forms.txt" "--map @raw" --map @raw -- --map=@raw

# stackcollapse-bpftrace.pl's order for @[kstack, ustack, comm], by hand
run "$FLAMEKIT" collapse "$D/kstack-ustack-comm.txt"
is "$(printf '%s\n' "$out" | grep -c '^burn;__libc_start_call_main+122;main+40;top+21;leaf_[ab]+[0-9]*;asm_sysvec')" 7 \
	"comm at the root, the user stack under the kernel one"

# A capture recorded now, of a program of ours, when bpftrace can run.
if can_burn bpftrace; then
	# burn runs until bpftrace has sampled it for its whole second, however
	# long bpftrace takes to start on a loaded machine
	"$TMP/burn" 60 > /dev/null &
	pid=$!
	timeout 30 bpftrace -e "profile:hz:999 /pid == $pid/ { @[kstack, ustack, comm] = count(); } interval:s:1 { exit(); }" \
		> "$TMP/live.txt" 2> "$TMP/live.err"
	brc=$?
	kill $pid 2> /dev/null
	wait $pid 2> /dev/null
	if [ $brc -eq 0 ] && grep -q ', burn\]: ' "$TMP/live.txt"; then
		check "$TMP/live.txt" "a capture recorded now"
		run "$FLAMEKIT" collapse "$TMP/live.txt"
		ok $(printf '%s\n' "$out" | grep -q '^burn;.*;main+[0-9]*;top+[0-9]*;leaf_[ab]+[0-9]* [0-9]*$'; echo $?) \
			"the capture shows burn;...;main;top;leaf_a or leaf_b"
	else
		skip "a capture recorded now" "bpftrace could not trace here: $(head -1 "$TMP/live.err")"
	fi
else
	skip "a capture recorded now" "needs bpftrace, cc and root"
fi

# Errors: a record cut short, and one never closed before the next.
collapse_head bpftrace 8 "$D/kstack-ustack-comm.txt"
is "$rc:$out:$err" "1::flamekit: $TMP/cut.txt:4: this record has no closing ']: COUNT' line (is the file truncated?)" \
	"a truncated record: exit 1, its @[ line named, nothing written"
collapse_text bpftrace open.txt '@[\n    a+1\n@[\n    b+2\n]: 3\n'
is "$rc:$out:$err" "1::flamekit: $TMP/open.txt:1: this record has no closing ']: COUNT' line (a new one starts at line 3)" \
	"a record left open before the next one: exit 1, both lines named"

other_forms bpftrace "$D/kstack-ustack-comm.txt"

done_testing
