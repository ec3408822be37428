#!/bin/sh
# Samples in a program's PLT stubs, named natively (libfksym, no perf in
# PATH) as perf script 6.1 names them, byte for byte through `flamekit
# collapse --format perf`, on captures recorded here and now (skipped where
# perf cannot record).  The program is built as the benchmark's deep.c:
# `cc -O1 -fno-omit-frame-pointer`, a PIE with lazy binding (.plt with its
# 16-byte header, .plt.got, no .plt.sec), its loop calling cheap libc
# functions through their stubs.  perf's dso__load_sym stretches the
# zero-size _init over .plt (symbols__fixup_end) before
# dso__synthesize_plt_symbols inserts NAME@plt into its rbtree, and its
# lookup returns whichever of the two is nearer the tree's root: some stubs
# print as _init, the others as NAME@plt.  The same program stripped
# (.dynsym gives no symbol: perf synthesizes no PLT names, the stubs are
# [unknown]); built for IBT (-fcf-protection, ld -z ibtplt: the stubs code
# calls are in .plt.sec, which perf 6.1 does not know: it names .plt's
# entries all the same, and the .plt.sec samples get what its tree walk
# meets, [unknown] here); and with its loop exported (-rdynamic) and then removed from
# .symtab by objcopy --strip-symbol (perf loads .dynsym after .symtab: the
# loop keeps its name).  HOME is a temporary directory: perf's build-id
# cache is not the user's.
. "$FK_SRCDIR/tests/lib.sh"
cd "$TMP" || exit 1
mkdir home
HOME=$TMP/home
export HOME

if ! command -v perf > /dev/null 2>&1; then
	skip "PLT stubs" "perf is not installed (Debian: linux-perf)"
	done_testing
	exit
fi
cat > plt.c <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <time.h>
static volatile long sink;
__attribute__((noinline)) void plt_loop(void)
{
	static const char s[] = "plt";
	for (int i = 0; i < 1000; i++)
		sink += abs(i - 500) + labs(i - 7L) + llabs(i - 9LL) + (long)strlen(s) +
			(long)strnlen(s, 2) + (strchr(s, 't') != NULL) + (memchr(s, 'l', 3) != NULL) +
			(long)div(i, 7).quot;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? argv[1][0] - '0' : 2);
	while (time(NULL) < end)
		plt_loop();
	return 0;
}
EOF
if ! ${CC:-cc} -O1 -fno-omit-frame-pointer -fno-builtin -o plt plt.c > cc.log 2>&1 ||
	! ${CC:-cc} -O1 -fno-omit-frame-pointer -fno-builtin -rdynamic -o pltdyn plt.c >> cc.log 2>&1 ||
	! strip -o pltstrip plt >> cc.log 2>&1 ||
	! objcopy --strip-symbol=plt_loop pltdyn >> cc.log 2>&1; then
	skip "PLT stubs" "cannot build the test programs: $(head -1 cc.log)"
	done_testing
	exit
fi
if ! perf record -q -g -F 10000 -o plt.data ./plt 2 > rec.log 2>&1; then
	skip "PLT stubs" "perf cannot record here: $(head -1 rec.log)"
	done_testing
	exit
fi
perf record -q -g -F 10000 -o strip.data ./pltstrip 1 > /dev/null 2>&1
perf record -q -g -F 10000 -o dyn.data ./pltdyn 1 > /dev/null 2>&1
if ${CC:-cc} -O1 -fno-omit-frame-pointer -fno-builtin -fcf-protection=full -Wl,-z,ibtplt \
	-o pltibt plt.c > /dev/null 2>&1 && readelf -SW pltibt | grep -q ' \.plt\.sec '; then
	perf record -q -g -F 10000 -o ibt.data ./pltibt 1 > /dev/null 2>&1
fi

# compare FILE NAME: the native reader (no perf in PATH) against the
# pipeline on perf script's text
compare() {
	perf script -i "$1" 2> /dev/null | "$FLAMEKIT" collapse --format perf > want.folded
	run env PATH=/nonexistent "$FLAMEKIT" collapse "$1"
	case $err in
	*"symbols need libfksym"*)
		skip "$2" "this flamekit was built without libfksym"
		return ;;
	esac
	printf '%s\n' "$out" > got.folded
	same_file want.folded got.folded "$2: perf script's bytes ($(wc -l < want.folded) stacks)"
	is "$rc:$(printf '%s\n' "$err" | sed '/samples were lost while recording/d')" "0:" \
		"$2: read natively with no perf in PATH, nothing said"
}

# the stubs sampled, as perf script names them: the comparison is about
# them only if there are some (.plt's range from readelf)
set -- $(readelf -SW plt | awk '$2 == ".plt" { print $4, $6 }')
lo=$((0x$1)) hi=$((0x$1 + 0x$2))
perf script -i plt.data -F ip,sym,dso 2> /dev/null | while read -r ip sym dso; do
	case $dso in
	"($TMP/plt)") [ $((0x$ip)) -ge $lo ] && [ $((0x$ip)) -lt $hi ] && printf '%s\n' "$sym" ;;
	esac
done | sort | uniq -c > stubs.txt
test -s stubs.txt
ok $? "plt.data: perf script has samples in .plt ($(awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }' stubs.txt))"
compare plt.data "PLT stubs of a lazily bound PIE"

if [ -s strip.data ]; then
	compare strip.data "PLT stubs of a stripped PIE (no PLT names)"
else
	skip "stripped PIE" "perf cannot record the stripped program"
fi
if [ -s ibt.data ]; then
	compare ibt.data "PLT stubs in .plt.sec (IBT)"
else
	skip "IBT" "the compiler or linker makes no .plt.sec (-fcf-protection, -z ibtplt)"
fi
if [ -s dyn.data ]; then
	compare dyn.data "a function only in .dynsym"
	grep -q ';plt_loop' want.folded
	ok $? "dyn.data: perf script names plt_loop from .dynsym"
else
	skip ".dynsym" "perf cannot record the -rdynamic program"
fi
done_testing
