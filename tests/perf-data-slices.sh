#!/bin/sh
# perf-data's time slices as the segments of one perf parser session, on
# captures the real perf records here and now (skipped where it cannot):
# --offcpu, --wakeups (waits from a switch-out in one slice to a switch-in
# in a later one), --leak (a free in a later slice than its allocation) and
# a file of two sampling events (the first record's event kept in every
# slice).  For 1, 2, 3 and 5 threads, `flamekit collapse --threads N FILE`
# must print the bytes of `perf script -i FILE | flamekit collapse --format
# perf`, with more than one slice where N > 1, and the perf parser's
# summaries (warnings, and its -v lines) exactly once, as the pipeline's.
. "$FK_SRCDIR/tests/lib.sh"
cd "$TMP" || exit 1

need_perf "perf-data time slices"

# parser_lines FILE: the perf parser's messages, named as the pipeline's
parser_lines() {
	sed "s|\[input:perf-data\] $1 (perf script output):|[input:perf] <stdin>:|" |
		grep -E '^flamekit: (warning: )?\[input:perf\] <stdin>:'
}

# sliced NAME FILE ARGS...: the pipeline's folded bytes and parser
# messages for 1, 2, 3 and 5 threads; more than one slice from 2 up.
sliced() {
	name=$1 file=$2
	shift 2
	perf script -i "$file" $PIPE_F 2> /dev/null | "$FLAMEKIT" collapse -v --format perf "$@" \
		> want.folded 2> want.err
	parser_lines "$file" < want.err > want.msg
	bad= msgs= one=
	for t in 1 2 3 5; do
		"$FLAMEKIT" collapse -v --via-perf-script --threads $t "$@" "$file" > got.folded 2> got.err
		cmp -s want.folded got.folded || bad="$bad t$t"
		parser_lines "$file" < got.err > got.msg
		cmp -s want.msg got.msg || msgs="$msgs t$t"
		if [ $t -gt 1 ] && ! grep -Eq "$file: [2-5] perf script processes on time slices" got.err; then
			one="$one t$t"
		fi
	done
	ok "$([ -s want.folded ]; echo $?)" "$name: the pipeline's result is not empty ($(wc -l < want.folded) stacks)"
	is "$bad" "" "$name: the pipeline's bytes with 1, 2, 3, 5 threads"
	is "$one" "" "$name: 2, 3, 5 threads cut the file into time slices"
	is "$msgs" "" "$name: the parser's summaries once, as the pipeline's ($(wc -l < want.msg) lines)"
}

# --- sched_switch and sched_wakeup: --offcpu and --wakeups ---------------
if perf record -q -a -g -e sched:sched_switch -e sched:sched_wakeup -o wk.data -- \
	sh -c 'for i in 1 2 3 4 5 6; do sleep 0.01; done' > rec.log 2>&1; then
	PIPE_F= sliced "--offcpu" wk.data --offcpu
	grep -q '^flamekit: warning: \[input:perf\] <stdin>: [0-9]* switch-outs\? had no later switch-in' want.msg
	ok $? "--offcpu: the capture ends with threads off CPU (the unmatched warning is compared)"
	PIPE_F="-F trace:comm,tid,time,event,trace,ip,sym,dso" sliced "--wakeups" wk.data --wakeups
	PIPE_F="-F trace:comm,tid,time,event,trace,ip,sym,dso -F +pid" sliced "--wakeups --tid" \
		wk.data --wakeups --tid
	# an output that keeps the samples in order: one pass, said at -v
	run "$FLAMEKIT" graph -v --via-perf-script --threads 3 --offcpu --flamechart -o chart.svg wk.data
	case $err in *"one perf script process: --offcpu pairs switch-outs with switch-ins across slices, and an output keeps the samples in order"*) r=0;; *) r=1;; esac
	ok $r "--offcpu with a time-ordered output: one perf script process, -v says why"
	perf script -i wk.data 2> /dev/null | "$FLAMEKIT" graph --format perf --offcpu --flamechart \
		-o want.svg 2> /dev/null
	same_file want.svg chart.svg "--offcpu --flamechart: the pipeline's SVG"
else
	skip "--offcpu, --wakeups" "perf cannot record sched tracepoints here: $(head -1 rec.log)"
fi

# --- kmalloc and kfree: --leak --------------------------------------------
if perf record -q -g -e kmem:kmalloc -e kmem:kfree -o km.data -- \
	sh -c 'ls / > /dev/null; ls /usr > /dev/null' > rec.log 2>&1; then
	PIPE_F="-F trace:comm,tid,time,event,trace,ip,sym,dso" sliced "--leak" km.data --leak
else
	skip "--leak" "perf cannot record kmem tracepoints here: $(head -1 rec.log)"
fi

# --- two sampling events: the first record's is kept ----------------------
work='for p in 1 2 3; do (i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done) & done; wait'
if perf record -q -e task-clock -e cpu-clock -F 4000 -g -o two.data -- sh -c "$work" > rec.log 2>&1; then
	PIPE_F= sliced "two events" two.data
	first=$(perf script -i two.data 2> /dev/null | awk 'NF { sub(/:$/, "", $5); print $5; exit }')
	grep -q "kept only \"$first\" events (the first event type in the input); dropped" want.msg
	ok $? "two events: the first record's ($first) is kept, the others counted once"
	PIPE_F="-F +event,+period" sliced "two events, --series-by-event" two.data \
		--series-by-event cpu-clock,task-clock
else
	skip "two events" "perf cannot record task-clock and cpu-clock here: $(head -1 rec.log)"
fi
done_testing
