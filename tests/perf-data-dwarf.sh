#!/bin/sh
# perf-data's native reader on `perf record --call-graph dwarf` captures,
# recorded here and now (skipped where perf cannot record): user stacks
# unwound in-process (libdwfl) against `perf script | flamekit collapse
# --format perf`, byte for byte, with no perf in PATH.  The program is
# built -O2 -fomit-frame-pointer, so that only DWARF CFI unwinds it: a few
# levels of its own calls, qsort calling back into it through libc, and a
# fork and exec of itself (a process whose maps change under its unwinder);
# the same program written to a pipe (perf record -o -); clock_gettime
# through the vDSO.  Forged captures
# (python packs the bytes; the sizes and offsets come from the file): a
# user stack whose dyn_size exceeds its copy, a copy larger than its
# record, registers cut short, a 32-bit process's registers (perf script
# runs instead: one warning), a register mask without the instruction
# pointer and with a register x86_64 lacks (one warning, perf script's
# bytes).  HOME is a temporary directory: perf's build-id cache is not the
# user's.
. "$FK_SRCDIR/tests/lib.sh"
perf_home

need_perf "--call-graph dwarf"
cat > deep.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long leaf(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
__attribute__((noinline)) static unsigned long mid(unsigned long x) { return leaf(x) ^ leaf(x + 1); }
__attribute__((noinline)) static unsigned long top(unsigned long x) { return mid(x) + mid(x >> 1); }
static int cmp(const void *a, const void *b)
{
	unsigned long x = leaf(*(const unsigned long *)a) & 0xff, y = leaf(*(const unsigned long *)b) & 0xff;
	return x < y ? -1 : x > y;
}
__attribute__((noinline)) static void sorter(void)
{
	unsigned long v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (unsigned long)i * 7919;
	qsort(v, 64, sizeof v[0], cmp);
	sink += v[0];
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1500;
	pid_t p = -1;
	if (argc > 2 && (p = fork()) == 0) {
		execl(argv[0], argv[0], "300", (char *)NULL);
		_exit(1);
	}
	for (long i = 0; i < n; i++) {
		sink += top((unsigned long)i);
		if (i % 10 == 0)
			sorter();
	}
	if (p > 0)
		waitpid(p, NULL, 0);
	printf("%lu\n", sink);
	return 0;
}
EOF
# -z now: no lazy binding, whose own case is below (perf's unwinder cuts
# some of its stacks short).
compile_or_skip "--call-graph dwarf" -O2 -fomit-frame-pointer -Wl,-z,now -o deep deep.c
if ! perf record -q --call-graph dwarf -o dw.data ./deep > rec.log 2>&1; then
	skip_all "--call-graph dwarf" "perf cannot record --call-graph dwarf here: $(head -1 rec.log)"
fi
perf record -q --call-graph dwarf -o fork.data ./deep 600 fork > /dev/null 2>&1
perf record -q --call-graph dwarf -o - ./deep 600 2> /dev/null > pipe.data

# compare FILE NAME: the native reader (no perf in PATH, 1 and 3 threads)
# against the pipeline on perf script's text.  (A loaded machine loses
# samples: the LOST warning is the reader's own, perf script says it on
# the stderr dropped here.)
compare() {
	perf script -i "$1" 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
	for t in 1 3; do
		run env PATH=/nonexistent "$FLAMEKIT" collapse --threads $t "$1"
		printf '%s\n' "$out" > got.folded
		same_file want.folded got.folded "$2, $t thread(s): perf script's bytes ($(wc -l < want.folded) stacks)"
		is "$rc:$(printf '%s\n' "$err" | sed '/samples were lost while recording/d')" "0:" \
			"$2, $t thread(s): read natively with no perf in PATH, nothing said"
	done
}
compare dw.data "--call-graph dwarf"
# the unwinding is real: the program's own levels and qsort's callback,
# through libc (perf script's text, the oracle)
grep -q ';main;top;mid;leaf ' want.folded
ok $? "dw.data: main;top;mid;leaf unwound through frames without frame pointers"
grep -q ';main;sorter;.*;cmp;leaf ' want.folded
ok $? "dw.data: qsort's callback cmp unwound through libc"
# perf's own unwinder (libunwind in Debian's perf 6.1) sometimes cuts the
# stacks of a process that forked and exec'd short (deep;[unknown];...,
# deep;__unregister_atfork;... where the stack runs down to _start): seen
# on a loaded machine, not on a quiet one.  perf script is the oracle where
# its every user stack runs down to _start; every stack of the reader's must
# (or be one perf script prints too: the kernel's alone).  A sample taken
# while ld.so runs the libraries' initializers, before the exec'd program's
# _start, runs down to ld.so's entry instead: _dl_start_user, the code after
# its _start that calls _dl_init (deep;_dl_start_user;_dl_init;call_init;
# ...;_init_first, seen once in a sanitizer run).
roots='^deep;(_start|_dl_start_user);'
if [ -s fork.data ]; then
	perf script -i fork.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
	if grep -Ev "$roots" want.folded | grep -q .; then
		skip "dwarf fork: perf script's bytes" "perf's unwinder cut stacks short here: $(grep -Ev "$roots" want.folded | head -1)"
	else
		compare fork.data "--call-graph dwarf, a fork and an exec"
	fi
	run env PATH=/nonexistent "$FLAMEKIT" collapse fork.data
	printf '%s\n' "$out" | grep -Ev "$roots" | grep -vxF -f want.folded > short.folded
	is "$rc:$(cat short.folded)" "0:" "--call-graph dwarf, a fork and an exec: every stack unwound down to _start (or ld.so's entry)"
else
	skip "dwarf fork" "perf cannot record the forking program"
fi
if [ -s pipe.data ]; then
	perf script -i - < pipe.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
	run env PATH=/nonexistent "$FLAMEKIT" collapse - < pipe.data
	printf '%s\n' "$out" > got.folded
	same_file want.folded got.folded "--call-graph dwarf to a pipe (perf record -o -): perf script's bytes"
	is "$rc:$err" "0:" "--call-graph dwarf to a pipe: read natively, nothing said"
else
	skip "dwarf pipe" "perf cannot record to a pipe"
fi

# the vDSO: clock_gettime unwound through it (perf record's copy of it in
# the build-id cache, the image perf script reads too); -fno-plt keeps
# PLT stubs out of this case (tests/perf-data-plt.sh has them)
cat > vd.c <<'EOF'
#include <stdio.h>
#include <time.h>
__attribute__((noinline)) static long tick(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_nsec; }
__attribute__((noinline)) static long loop(long n) { long s = 0; for (long i = 0; i < n; i++) s += tick(); return s; }
int main(void) { printf("%ld\n", loop(2000000)); return 0; }
EOF
if ${CC:-cc} -O2 -fomit-frame-pointer -fno-plt -o vd vd.c > cc.log 2>&1 &&
	perf record -q --call-graph dwarf -o vd.data ./vd > /dev/null 2>&1; then
	compare vd.data "--call-graph dwarf through the vDSO"
	grep -q ';tick;.*__vdso_clock_gettime ' want.folded
	ok $? "vd.data: clock_gettime's callers unwound from inside the vDSO"
else
	skip "dwarf vDSO" "cannot build or record the vDSO program: $(head -1 cc.log)"
fi

# a library without DWARF whose functions have two names at one address
# (-fno-semantic-interposition: the global f3 and the local f3.localalias
# the library's own calls go to).  perf's symbol is the global one
# (choose_best_symbol); the addr2line perf asks about each unwound address
# names the first in the table, the local one, and perf script prints that
# name, "(inlined)", in the frame's place.
{
	for i in 0 1 2 3 4 5 6 7; do
		echo "__attribute__((noinline)) int f$i(int x) { for (int k = 0; k < 2000; k++) x = x * 7 + $i; return x; }"
	done
	echo "int callall(int x) { return f0(x) + f1(x) + f2(x) + f3(x) + f4(x) + f5(x) + f6(x) + f7(x); }"
} > alias.c
cat > aliasmain.c <<'EOF'
#include <stdio.h>
int callall(int);
int main(void) { long s = 0; for (int i = 0; i < 60000; i++) s += callall(i); printf("%ld\n", s); return 0; }
EOF
if ${CC:-cc} -O1 -fPIC -shared -fno-semantic-interposition -o libalias.so alias.c > cc.log 2>&1 &&
	${CC:-cc} -O2 -o aliasmain aliasmain.c -L. -lalias -Wl,-rpath,"$TMP" >> cc.log 2>&1 &&
	perf record -q --call-graph dwarf -o alias.data ./aliasmain > /dev/null 2>&1; then
	compare alias.data "--call-graph dwarf, two names at one address"
	grep -q ';callall;f[0-7]\.localalias ' want.folded
	ok $? "alias.data: perf script names the frame as addr2line does (f3.localalias, not f3)"
else
	skip "dwarf aliases" "cannot build or record the program: $(head -1 cc.log)"
fi

# lazy binding: a library's calls through its PLT resolved by the dynamic
# linker, _dl_fixup called from _dl_runtime_resolve_xsavec (or _xsave,
# _fxsave), which realigns the stack and keeps its caller's frame by rbx.
# A sample in _dl_fixup's first instructions, before it saves rbx: libdw
# takes rbx as undefined there (elfutils' x86_64 defaults name rax where
# rbx is meant), libunwind as unchanged; the reader keeps it unchanged, as
# perf does, and unwinds to _start.  A sample in _dl_fixup's epilogue,
# after it popped rbx: perf's libunwind reads rbx from its save slot, now
# below the stack pointer and outside the copy, and stops at the
# trampoline (lazy;_dl_runtime_resolve_xsavec;_dl_fixup); the reader takes
# the register as popped and unwinds to _start, as perf does for every
# other sample there.  And a sample in the library's _fini (crti's code,
# which has no CFI), called by dlclose's _dl_close: perf's unwinder goes on
# from _dl_close to an address in no map and stops there
# (lazy;[anon];_dl_close;_fini, once in a recording, under ASan), where the
# reader unwinds to _start as for every other sample in _dl_close.  The
# oracle is perf script's text with those stacks given the full path perf
# prints for the others.
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "int f%d(int x) { volatile int s = x; for (int k = 0; k < 20; k++) s += k; return s; }\n", i }' > lazyf.c
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "int f%d(int);\n", i
	print "int callall(int x) {\n\tint s = 0;"
	for (i = 0; i < 3000; i++) printf "\ts += f%d(x);\n", i
	print "\treturn s;\n}" }' > lazycall.c
cat > lazymain.c <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(void)
{
	long t = 0;
	for (int i = 0; i < 250; i++) { /* each dlopen binds the 3,000 calls again */
		void *h = dlopen("./liblazycall.so", RTLD_LAZY);
		int (*c)(int);
		if (!h)
			return 1;
		c = (int (*)(int))dlsym(h, "callall");
		t += c(i);
		dlclose(h);
	}
	printf("%ld\n", t);
	return 0;
}
EOF
if ${CC:-cc} -O1 -fPIC -shared -o liblazyf.so lazyf.c > cc.log 2>&1 &&
	${CC:-cc} -O1 -fPIC -shared -Wl,-z,lazy -o liblazycall.so lazycall.c -L. -llazyf -Wl,-rpath,"$TMP" >> cc.log 2>&1 &&
	${CC:-cc} -O1 -Wl,-z,now -o lazy lazymain.c >> cc.log 2>&1 &&
	perf record -q --call-graph dwarf -o lazy.data ./lazy > /dev/null 2>&1; then
	perf script -i lazy.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > perf.folded
	full=$(grep -m1 -o '^lazy;_start;.*;callall;_dl_runtime_resolve_[a-z]*;_dl_fixup ' perf.folded)
	dlclose=$(grep -m1 -o '^lazy;_start;[^ ]*;_dl_close;' perf.folded)
	awk -v full="${full% }" -v dlclose="${dlclose%;}" '
		{ n = $NF; st = substr($0, 1, length($0) - length(n) - 1) }
		st ~ /^lazy;_dl_runtime_resolve_[a-z]*;_dl_fixup$/ && full != "" { st = full }
		index(st, "lazy;[anon];_dl_close;") == 1 && dlclose != "" { st = dlclose substr(st, 22) }
		{ w[st] += n }
		END { for (s in w) print s, w[s] }' perf.folded | LC_ALL=C sort > want.folded
	run env PATH=/nonexistent "$FLAMEKIT" collapse lazy.data
	printf '%s\n' "$out" | LC_ALL=C sort > got.folded
	same_file want.folded got.folded "--call-graph dwarf, lazy binding: perf script's bytes, its stacks cut at the trampoline unwound ($(grep -c ';_dl_fixup[; ]' perf.folded) stacks through _dl_fixup)"
	is "$rc:$(printf '%s\n' "$err" | sed '/samples were lost while recording/d')" "0:" "--call-graph dwarf, lazy binding: nothing said"
	test -n "$full"
	ok $? "lazy.data: perf script unwinds _dl_fixup through the trampoline to _start"
else
	skip "dwarf lazy binding" "cannot build or record the program: $(head -1 cc.log)"
fi

# --- forged captures ------------------------------------------------------
# The first sample's layout, read here with python from the attribute's
# sample_type and sample_regs_user (the kernel's order of the fields).
"${PYTHON3:-python3}" - dw.data <<'PY' > layout.txt
import struct, sys
b = open(sys.argv[1], "rb").read()
asz, aoff = struct.unpack_from("<QQ", b, 16)
st, = struct.unpack_from("<Q", b, aoff + 24)
mask, = struct.unpack_from("<Q", b, aoff + 80)
doff, dsize = struct.unpack_from("<QQ", b, 40)
pos = doff
while True:
    t, misc, sz = struct.unpack_from("<IHH", b, pos)
    if t == 9:
        break
    pos += sz
p = pos + 8
for bit in (0, 1, 2, 3, 6, 9, 7, 8):  # IP TID TIME ADDR ID STREAM_ID CPU PERIOD
    if st & (1 << bit):
        p += 8
if st & (1 << 5):  # CALLCHAIN
    nr, = struct.unpack_from("<Q", b, p)
    p += 8 + 8 * nr
assert st & (1 << 12) and st & (1 << 13) and not st & ((1 << 10) | (1 << 11))
regs = p
nregs = bin(mask).count("1")
stack = regs + 8 + 8 * nregs
ssz, = struct.unpack_from("<Q", b, stack)
print(aoff + 80, mask, pos, sz, regs, nregs, stack, ssz, stack + 8 + ssz)
PY
read -r maskpos mask spos ssize regpos nregs stkpos stksz dynpos < layout.txt
# forge OUT POS FORMAT VALUE: dw.data with VALUE packed at byte POS
forge() {
	"${PYTHON3:-python3}" - dw.data "$@" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into(sys.argv[4], b, int(sys.argv[3]), int(sys.argv[5]))
open(sys.argv[2], "wb").write(b)
PY
}
forge dyn.data "$dynpos" "<Q" $((stksz + 8))
run env PATH=/nonexistent "$FLAMEKIT" collapse dyn.data
is "$rc:$out:$err" "1::flamekit: dyn.data: at byte $spos: a sample's user stack of $stksz bytes holds $((stksz + 8)) (dyn_size)" \
	"a user stack's dyn_size past its copy: one error naming the sample's byte"
forge stk.data "$stkpos" "<Q" 4294967296
run env PATH=/nonexistent "$FLAMEKIT" collapse stk.data
is "$rc:$out:$err" "1::flamekit: stk.data: at byte $spos: a sample's user stack of 4294967296 bytes runs past its record of $ssize bytes" \
	"a user stack larger than its record: one error naming the sample's byte"
# the record cut after its first register (the records after it then read
# from there on: the error is the first sample's)
forge cut.data $((spos + 6)) "<H" $((regpos - spos + 16))
run env PATH=/nonexistent "$FLAMEKIT" collapse cut.data
is "$rc:$out:$err" "1::flamekit: cut.data: at byte $spos: a sample's $nregs user registers (abi 2) run past its record of $((regpos - spos + 16)) bytes" \
	"user registers cut short: one error naming the sample's byte"
forge abi32.data "$regpos" "<Q" 1
run env PATH=/nonexistent "$FLAMEKIT" collapse abi32.data
is "$rc:$(printf '%s\n' "$err" | grep natively)" "2:flamekit: warning: [input:perf-data] abi32.data: not read natively: user stacks (--call-graph dwarf) of a 32-bit process; running perf script instead" \
	"a 32-bit process's registers: one warning saying what is not read natively, then perf script"
# the instruction pointer's bit (8) moved to bit 24, which x86_64 lacks:
# the layout is the same, the registers are not
forge mask.data "$maskpos" "<Q" $(((mask & ~256) | 16777216))
perf script -i mask.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
run env PATH=/nonexistent "$FLAMEKIT" collapse mask.data
printf '%s\n' "$out" > got.folded
same_file want.folded got.folded "a register mask without ip: perf script's bytes (no callchains)"
ev=$(perf evlist -i dw.data 2> /dev/null | head -1)
# (a capture on a busy machine can lose samples: that warning is not this one)
is "$rc:$(printf '%s\n' "$err" | sed '/samples were lost while recording/d')" "0:flamekit: warning: [input:perf-data] mask.data: event $ev's user registers (sample_regs_user 0x$(printf %x $(((mask & ~256) | 16777216)))) lack the instruction or stack pointer: their user stacks are not unwound (and without the instruction pointer their callchains are left out), as perf does" \
	"a register mask without ip: one warning naming the event and the mask"
done_testing
