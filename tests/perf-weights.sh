#!/bin/sh
# The perf plugin's --weight-field and --series-by-event (issue 17) on real
# captures made with tests/data/perf/weights.c: exact folded text, totals
# checked against awk over the same perf script text, each series against
# the single-event collapse, the same bytes whatever the threads and chunk
# size; hostile records; the perf-data input on captures recorded here and
# now; the two example jobs.
. "$FK_SRCDIR/tests/lib.sh"
cd "$TMP" || exit 1

D=$FK_SRCDIR/tests/data/perf
C=$FK_SRCDIR/conf
NL='
'
collapse() { run "$FLAMEKIT" collapse --format perf "$@"; }
# sum_col N FILE: the sum of column N from the end of folded lines (1: last)
sum_col() { awk -v n="$1" '{ s += $(NF - n + 1) } END { printf "%d\n", s }' "$2"; }

# ---- --weight-field bytes_alloc on kmem:kmalloc ----------------------------
collapse --weight-field bytes_alloc --event-filter kmem:kmalloc "$D/weights-kmalloc.txt"
is "$rc:$err:$out" "0::weights;[unknown];[unknown];_dl_map_object;mmap64;entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_mmap_pgoff;vm_mmap_pgoff;do_mmap;__mmap_region;perf_event_mmap;__kmalloc_cache_noprof 16384
weights;[unknown];entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_execve;do_execveat_common.isra.0;bprm_execve;load_elf_binary;elf_load;vm_mmap_pgoff;do_mmap;__mmap_region;perf_event_mmap;__kmalloc_cache_noprof 32768
weights;[unknown];mmap64;entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_mmap_pgoff;vm_mmap_pgoff;do_mmap;__mmap_region;perf_event_mmap;__kmalloc_cache_noprof 4096
weights;__libc_start_call_main;main;__pipe;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_pipe2;do_pipe2;create_pipe_files;alloc_pipe_info;__kmalloc_cache_noprof 768
weights;__libc_start_call_main;main;__pipe;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_pipe2;do_pipe2;create_pipe_files;alloc_pipe_info;__kmalloc_noprof 4096
weights;_dl_start_user;_dl_sysdep_start;dl_main;mprotect;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_mprotect;do_mprotect_pkey;mprotect_fixup;perf_event_mmap;__kmalloc_cache_noprof 12288" \
	"kmalloc: weighted by bytes_alloc, exact folded text"
printf '%s\n' "$out" > kmalloc.folded
want=$(awk '/^[^ \t].* kmem:kmalloc: / { for (i = 1; i <= NF; i++) if ($i ~ /^bytes_alloc=/) s += substr($i, 13) }
	END { printf "%d\n", s }' "$D/weights-kmalloc.txt")
is "$(sum_col 1 kmalloc.folded)" "$want" "kmalloc: the total equals awk's sum of bytes_alloc ($want)"
collapse --event-filter kmem:kmalloc "$D/weights-kmalloc.txt"
is "$(printf '%s\n' "$out" | sum_col 1 -)" "$(grep -c ' kmem:kmalloc: ' "$D/weights-kmalloc.txt")" \
	"kmalloc: without --weight-field a record weighs its period (1 per call)"

# ---- --weight-field len on syscalls:sys_enter_mmap: "len: 0x...," in hex ----
collapse --weight-field len "$D/weights-mmap.txt"
is "$rc:$err:$out" "0::weights;[unknown];[unknown];_dl_map_object;mmap64 3792544
weights;[unknown];mmap64 43795
weights;__libc_start_call_main;main;__mmap 12582912
weights;mmap64 20480" "mmap: weighted by len, the syscalls' hex 'len: 0x...,' form"
printf '%s\n' "$out" > mmap.folded
want=$(awk 'function hex(s,  i, v) { v = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	/^[^ \t].* syscalls:sys_enter_mmap: / { for (i = 1; i < NF; i++) if ($i == "len:") { v = $(i + 1); sub(/,$/, "", v); s += hex(v) } }
	END { printf "%d\n", s }' "$D/weights-mmap.txt")
is "$(sum_col 1 mmap.folded)" "$want" "mmap: the total equals awk's sum of len ($want)"

# ---- --series-by-event cpu-clock,page-faults -------------------------------
collapse --series-by-event cpu-clock,page-faults "$D/weights-series.txt"
is "$rc:$err:$out" "0::weights;__libc_start_call_main;main;__munmap;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_munmap;__vm_munmap;do_vmi_munmap;do_vmi_align_munmap;vms_complete_munmap_vmas;vms_clear_ptes.part.0;unmap_vmas;unmap_page_range 1000000 0
weights;__libc_start_call_main;main;touch 1000000 3072
weights;__libc_start_call_main;main;touch;asm_exc_page_fault;exc_page_fault;handle_mm_fault;__handle_mm_fault;do_anonymous_page 1000000 0
weights;__libc_start_call_main;main;touch;asm_exc_page_fault;exc_page_fault;handle_mm_fault;__handle_mm_fault;do_anonymous_page;__mem_cgroup_charge;charge_memcg 1000000 0
weights;__libc_start_call_main;main;touch;asm_exc_page_fault;exc_page_fault;handle_mm_fault;__handle_mm_fault;do_anonymous_page;__mem_cgroup_charge;charge_memcg;memcg1_commit_charge 1000000 0
weights;__libc_start_call_main;main;touch;asm_exc_page_fault;exc_page_fault;handle_mm_fault;__handle_mm_fault;do_anonymous_page;__mem_cgroup_charge;charge_memcg;try_charge_memcg 1000000 0
weights;__libc_start_call_main;main;touch;asm_exc_page_fault;exc_page_fault;handle_mm_fault;__handle_mm_fault;do_anonymous_page;vma_alloc_folio_noprof;alloc_pages_mpol;__alloc_frozen_pages_noprof;get_page_from_freelist;clear_page_erms 1000000 0
weights;__libc_start_call_main;spin 31000000 0
weights;__libc_start_call_main;spin;asm_sysvec_reschedule_ipi;irqentry_exit_to_user_mode 1000000 0
weights;get_common_cache_info.constprop.0 1000000 0" \
	"series: cpu-clock and page-faults as two columns, exact folded text"
printf '%s\n' "$out" > series.folded
for ev in cpu-clock:2 page-faults:1; do
	col=${ev#*:} ev=${ev%:*}
	"$FLAMEKIT" collapse --format perf --event-filter "$ev" "$D/weights-series.txt" > single.folded 2> /dev/null
	awk -v n="$col" '$(NF - n + 1) != 0 { v = $(NF - n + 1); NF -= 2; print $0, v }' series.folded > column.folded
	same_file single.folded column.folded "series: the $ev column is the single-event collapse of $ev"
	want=$(awk -v e="$ev:" '/^[^ \t]/ && $5 == e { s += $4 } END { printf "%d\n", s }' "$D/weights-series.txt")
	is "$(sum_col "$col" series.folded)" "$want" "series: the $ev column's total equals awk's sum of its periods"
done
for t in 1 2 3; do
	for chunk in 0 300; do
		FLAMEKIT_CHUNK_BYTES=$chunk "$FLAMEKIT" collapse --threads $t --format perf \
			--series-by-event cpu-clock,page-faults "$D/weights-series.txt" > got.folded
		[ "$chunk" = 0 ] || FLAMEKIT_CHUNK_BYTES=$chunk "$FLAMEKIT" collapse --threads $t --format perf \
			--weight-field bytes_alloc "$D/weights-kmalloc.txt" > got-k.folded
		same_file series.folded got.folded "series: the same bytes with --threads $t, chunks of ${chunk:-default} bytes"
		[ "$chunk" = 0 ] || same_file kmalloc.folded got-k.folded "kmalloc: the same bytes with --threads $t, chunks of $chunk bytes"
	done
done
collapse --series-by-event page-faults,nosuch "$D/weights-series.txt"
is "$out${NL}$err" "weights;__libc_start_call_main;main;touch 3072 0
flamekit: warning: [input:perf] $D/weights-series.txt: kept only \"page-faults\" and \"nosuch\" events (--series-by-event); dropped 40 records of other events, the first being \"cpu-clock\"" \
	"series: the other events are dropped and counted"

# the CPI pair, on synthetic records (no hardware counters here)
collapse --series-by-event cycles,instructions "$FK_SRCDIR/tests/data/perf/events.txt"
is "$rc:$out:$err" "0:prog;a 0 200
prog;b 50 0
prog;c 70 0:" "series: cycles,instructions, each weighed by its own period"
"$FLAMEKIT" graph --format perf --series-by-event instructions,cycles --negate "$D/events.txt" > cpi.svg
ok "$(grep -q '<title>b (50 samples, [0-9.]*%; -[0-9.]*%)</title><rect[^>]*fill="rgb([0-9]*,[0-9]*,255)"' cpi.svg; echo $?)" \
	"series: the CPI graph is as wide as the cycles and, with --negate, draws stalls blue"

# graph: the red/blue differential of B against A, as from the folded pair;
# the tooltips count B's unit, the event's name
"$FLAMEKIT" graph --format perf --series-by-event cpu-clock,page-faults "$D/weights-series.txt" > series.svg
"$FLAMEKIT" graph --format folded --countname page-faults series.folded > want.svg
same_file want.svg series.svg "series: graph draws the differential of its two-column folded stacks"
ok "$(grep -q '<title>touch (3,072 page-faults, 100.00%; -' series.svg; echo $?)" \
	"series: frames are as wide as B (page-faults), coloured by B - A as they are (not normalised)"

# units: bytes in the SVG's tooltips (unless --countname) and pprof's sample type
"$FLAMEKIT" graph --format perf --weight-field bytes_alloc "$D/weights-kmalloc.txt" > k.svg
is "$(grep -o '<title>all ([^<]*</title>' k.svg)" "<title>all (70,400 bytes, 100%)</title>" \
	"units: the graph counts bytes"
"$FLAMEKIT" graph --format perf --weight-field bytes_alloc --countname allocs "$D/weights-kmalloc.txt" > k2.svg
ok "$(grep -q '<title>all (70,400 allocs, 100%)</title>' k2.svg; echo $?)" "units: --countname still wins"
"$FLAMEKIT" graph --format perf "$D/weights-kmalloc.txt" > k3.svg 2> /dev/null
ok "$(grep -q '<title>all (24 samples, 100%)</title>' k3.svg; echo $?)" "units: periods keep flamegraph.pl's 'samples'"

if "$FLAMEKIT" plugins | grep -q '^output  *pprof '; then
	printf 'inputs:\n  - {path: %s, format: perf, options: {weight-field: bytes_alloc}}\noutputs:\n  - {plugin: pprof, path: k.pb}\n' \
		"$D/weights-kmalloc.txt" > pprof.yaml
	"$FLAMEKIT" run pprof.yaml
	ok "$(gzip -dc k.pb | grep -aq 'space.*bytes'; echo $?)" "units: the pprof output's sample type is space/bytes"
	printf 'inputs:\n  - {path: %s, format: perf, options: {series-by-event: "cpu-clock,page-faults"}}\noutputs:\n  - {plugin: pprof, path: s.pb}\n' \
		"$D/weights-series.txt" > pprof.yaml
	"$FLAMEKIT" run pprof.yaml
	ok "$(gzip -dc s.pb | grep -aq 'cpu.*nanoseconds.*page-faults.*count'; echo $?)" \
		"units: a series profile's pprof sample types are cpu/nanoseconds and page-faults/count"
else
	skip "units: pprof" "no pprof output"
fi

# ---- hostile records -------------------------------------------------------
printf '%s\n' \
	'pp 1 [000] 1.000001: kmem:kmalloc: ptr=0x1 bytes_req=8 bytes_alloc=8' '	1 a (/x)' '' \
	'pp 1 [000] 1.000002: kmem:kmalloc: ptr=0x2 bytes_req=8' '	1 b (/x)' '' \
	'pp 1 [000] 1.000003: kmem:kmalloc: ptr=0x3 bytes_alloc=lots' '	1 c (/x)' '' \
	'pp 1 [000] 1.000004: kmem:kmalloc: ptr=0x4 bytes_alloc=-16' '	1 c (/x)' '' \
	'pp 1 [000] 1.000005: kmem:kmalloc: ptr=0x5 xbytes_alloc=99 bytes_alloc=0x20' '	1 d (/x)' '' \
	'pp 1 [000] 1.000006: kmem:kmalloc: ptr=0x6 bytes_alloc=' '	1 e (/x)' '' \
	'pp 1 [000] 1.000007: kmem:kmalloc: bytes_alloc=0x' '	1 e (/x)' '' \
	'pp 1 [000] 1.000008: kmem:kmalloc: bytes_alloc=99999999999999999999' '	1 e (/x)' '' \
	'pp 1 [000] 1.000009: 1 cpu-clock: ' '	1 f (/x)' '' \
	'pp 1 [000] 1.000010: syscalls:sys_enter_mmap: addr: 0x00000000, bytes_alloc: 0x10, prot: 0x1' '	1 g (/x)' '' \
	> hostile.txt
collapse --weight-field bytes_alloc --event-filter kmem:kmalloc hostile.txt
is "$rc:$out${NL}$err" "0:pp;a 8
pp;d 32
flamekit: warning: [input:perf] hostile.txt: kept only \"kmem:kmalloc\" events (--event-filter); dropped 2 records of other events, the first being \"cpu-clock\" (choose with --event-filter NAME)
flamekit: warning: [input:perf] hostile.txt: --weight-field bytes_alloc: skipped 6 kept records: 1 without the field, 5 whose value is not a number" \
	"hostile: a missing field, words, a negative, empty and huge values: skipped and counted in one warning"
collapse --weight-field bytes_alloc --series-by-event kmem:kmalloc,syscalls:sys_enter_mmap hostile.txt
is "$rc:$out" "0:pp;a 8 0
pp;d 32 0
pp;g 0 16" "hostile: --weight-field with --series-by-event weighs both events by the field"

printf 'pp 1 [000] 1.000001:\n\t1 a (/x)\n\npp 1 [000] 1.000002: 5 cpu-clock:\n\t1 b (/x)\n\n' > noname.txt
collapse --series-by-event cpu-clock,page-faults noname.txt
is "$rc:$out${NL}$err" "0:pp;b 5 0
flamekit: warning: [input:perf] noname.txt: kept only \"cpu-clock\" and \"page-faults\" events (--series-by-event); dropped 1 record of other events, the first being \"(no event name)\"" \
	"series: a record without an event name is dropped and counted"

# the block events print their fields by position (lines of a real capture)
printf '%s\n' \
	'dd 24142 [001] 20201.305395:   block:block_bio_queue: 254,0 RM 20377144 + 8 [dd]' '	1 submit_bio (/k)' '' \
	'dd 24142 [001] 20201.305431:    block:block_rq_issue: 254,0 WS 65536 () 20377144 + 128 0x2,0,4 [dd]' '	1 blk_mq_start_request (/k)' '' \
	'dd 24142 [001] 20201.305559: block:block_rq_complete: 254,0 WS () 20377144 + 128 0x2,0,4 [0]' '	1 blk_mq_end_request (/k)' '' \
	'dd 24142 [001] 20201.305560: block:block_rq_complete: 254,0 WS () 20377144 + x8 0x2,0,4 [0]' '	1 blk_mq_end_request (/k)' '' \
	> block.txt
collapse --series-by-event block:block_bio_queue,block:block_rq_complete --weight-field nr_sector block.txt
is "$rc:$out${NL}$err" "0:dd;blk_mq_end_request 0 128
dd;submit_bio 8 0
flamekit: warning: [input:perf] block.txt: kept only \"block:block_bio_queue\" and \"block:block_rq_complete\" events (--series-by-event); dropped 1 record of other events, the first being \"block:block_rq_issue\"
flamekit: warning: [input:perf] block.txt: --weight-field nr_sector: skipped 1 kept record: 0 without the field, 1 whose value is not a number" \
	"block events: nr_sector after the '+', by position"
collapse --event-filter block:block_rq_issue --weight-field bytes block.txt
is "$rc:$out" "0:dd;blk_mq_start_request 65536" "block events: block_rq_issue's bytes, by position"
collapse --event-filter block:block_rq_complete --weight-field bytes block.txt
is "$rc:$out:$(echo "$err" | tail -1)" "0::flamekit: warning: [input:perf] block.txt: --weight-field bytes: skipped 2 kept records: 2 without the field, 0 whose value is not a number" \
	"block events: block_rq_complete prints no bytes"

# ---- usage errors ------------------------------------------------------------
collapse --series-by-event cycles "$D/weights-series.txt"
is "$rc:$out:$err" "2::flamekit: [input:perf] --series-by-event takes two different event names separated by a comma (cycles,instructions), not \"cycles\"" \
	"usage: --series-by-event with one event"
collapse --series-by-event cycles,cycles "$D/weights-series.txt"
is "$rc:$err" "2:flamekit: [input:perf] --series-by-event takes two different event names separated by a comma (cycles,instructions), not \"cycles,cycles\"" \
	"usage: --series-by-event with the same event twice"
collapse --series-by-event a,b --event-filter a "$D/weights-series.txt"
is "$rc:$err" "2:flamekit: [input:perf] --series-by-event already names the events to keep; drop --event-filter" \
	"usage: --series-by-event with --event-filter"
collapse --offcpu --weight-field len "$D/weights-series.txt"
is "$rc:$err" "2:flamekit: [input:perf] --offcpu weighs records by blocked time; it cannot be used with --weight-field" \
	"usage: --offcpu with --weight-field"

collapse --leak --series-by-event a,b "$D/weights-series.txt"
is "$rc:$err" "2:flamekit: [input:perf] --leak weighs records by the bytes never freed; it cannot be used with --series-by-event" \
	"usage: --leak with --series-by-event"
printf 'inputs:\n  - path: x.txt\n    format: perf\n    options: {weight-field: ""}\noutputs:\n  - {plugin: folded, path: o.folded}\n' > bad.yaml
run "$FLAMEKIT" run bad.yaml
is "$rc:$err:$(ls o.folded 2> /dev/null)" "2:flamekit: [input:perf] bad.yaml:2:5: --weight-field needs a field name (bytes_alloc, len, ...):" \
	"usage: an empty weight-field in a job, with the job's line and column, before any input is read"

# ---- the example jobs --------------------------------------------------------
if "$FLAMEKIT" plugins | grep -q '^output  *svg '; then
	run "$FLAMEKIT" run "$C/mmap-bytes.yaml" --set output-dir="$TMP"
	is "$rc:$err:$(cat mmap-bytes.folded)" "0::$(cat mmap.folded)" "conf/mmap-bytes.yaml: the folded bytes"
	ok "$(xmllint --noout mmap-bytes.svg 2> /dev/null && grep -q '<title>all (16,439,731 bytes, 100%)</title>' mmap-bytes.svg; echo $?)" \
		"conf/mmap-bytes.yaml: the graph counts bytes"
	run "$FLAMEKIT" run "$C/series.yaml" --set output-dir="$TMP"
	is "$rc:$err:$(cat series.folded.out)" "0::$(cat series.folded)" "conf/series.yaml: the two-column folded stacks"
	same_file want.svg series-diff.svg "conf/series.yaml: the differential graph"
else
	skip "conf/mmap-bytes.yaml and conf/series.yaml" "no svg output"
fi

# ---- perf-data: what it asks perf script for (a fake perf logs its arguments) ----
printf '#!/bin/sh\necho "$*" >> "%s/args.log"\nprintf "prog 1 [000] 1.000000: 7 a:\\n\\t1 f (/x)\\n\\nprog 1 [000] 1.000001: 9 b:\\n\\t1 g (/x)\\n\\n"\n' "$TMP" > fakeperf
chmod +x fakeperf
printf 'PERFILE2' > fake.data
run "$FLAMEKIT" collapse --format perf-data --perf ./fakeperf --series-by-event a,b fake.data
series_out=$out
"$FLAMEKIT" collapse --format perf-data --perf ./fakeperf --pid --series-by-event a,b --weight-field x fake.data > /dev/null 2>&1
is "$rc:$series_out:$(cat args.log)" "0:prog;f 7 0
prog;g 0 9:script -i fake.data -F +event,+period
script -i fake.data -F +pid,+event,+period" \
	"perf-data: --series-by-event asks perf script for -F +event,+period (with +pid for --pid)"

# ---- perf-data, on captures recorded here and now -----------------------------
if ! command -v perf > /dev/null 2>&1 ||
   ! perf record -q -e cpu-clock -e page-faults -F 2000 -g -o s.data -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; ls / > /dev/null' > rec.log 2>&1; then
	skip "perf-data: --series-by-event" "perf cannot record here: $(head -1 rec.log 2> /dev/null)"
else
	perf script -i s.data -F +event,+period 2> /dev/null |
		"$FLAMEKIT" collapse --format perf --series-by-event cpu-clock,page-faults > want.folded
	for t in 1 3; do
		"$FLAMEKIT" collapse --threads $t --series-by-event cpu-clock,page-faults s.data > got.folded
		same_file want.folded got.folded "perf-data: --series-by-event, $t thread(s): the pipeline's bytes"
	done
	ok "$(awk 'NF < 3 { exit 1 }' got.folded; echo $?)" "perf-data: --series-by-event gives two columns"
	perf script -i s.data -F +pid,+event,+period 2> /dev/null |
		"$FLAMEKIT" collapse --format perf --tid --series-by-event cpu-clock,page-faults > want.folded
	"$FLAMEKIT" collapse --threads 3 --tid --series-by-event cpu-clock,page-faults s.data > got.folded
	same_file want.folded got.folded "perf-data: --tid --series-by-event, 3 threads: the pipeline's bytes"
	run "$FLAMEKIT" collapse --threads 3 --series-by-event cycles s.data
	is "$rc:$out:$err" "2::flamekit: [input:perf-data] --series-by-event takes two different event names separated by a comma (cycles,instructions), not \"cycles\"" \
		"perf-data: a bad --series-by-event is refused once, not once per time slice"
fi
if command -v perf > /dev/null 2>&1 &&
   perf record -q -e kmem:kmalloc -g -o k.data -- sh -c 'ls / > /dev/null; cat /dev/null' > /dev/null 2>&1; then
	perf script -i k.data 2> /dev/null | tee k.txt |
		"$FLAMEKIT" collapse --format perf --weight-field bytes_alloc > want.folded
	"$FLAMEKIT" collapse --threads 3 --weight-field bytes_alloc k.data > got.folded
	same_file want.folded got.folded "perf-data: --weight-field bytes_alloc: the pipeline's bytes"
	want=$(awk '/^[^ \t].* kmem:kmalloc: / { for (i = 1; i <= NF; i++) if ($i ~ /^bytes_alloc=/) s += substr($i, 13) }
		END { printf "%d\n", s }' k.txt)
	is "$(sum_col 1 got.folded)" "$want" "perf-data: the total equals awk's sum of bytes_alloc"
else
	skip "perf-data: --weight-field" "perf cannot record kmem:kmalloc here"
fi
done_testing
