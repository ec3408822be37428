#!/bin/sh
# perf-data's --inline and --srcline, and --no-demangle, on captures
# recorded here and now (skipped where perf cannot record).
#
# Debian's perf 6.1 prints no inline frames, even with --inline
# (doc/SYMBOLIZE.md), so the oracle for them is binutils' addr2line -f -i
# on each address perf script prints: tests/perf-data/inline-oracle.py
# adds to perf script's own text the "ADDR NAME+0xOFF (inlined)" lines
# perf script --inline prints where perf has its inline support, or the
# ":FILE:LINE" stackcollapse-perf.pl --srcline (or --inline --context)
# appends, and `flamekit collapse --format perf` of that text must equal
# `flamekit collapse --inline perf.data`, byte for byte: the samples
# without inlining are perf script's text as it is.
# --no-demangle: a C++ program's capture equals `perf script
# --no-demangle | flamekit collapse --format perf --no-demangle`.
. "$FK_SRCDIR/tests/lib.sh"
perf_home
ORACLE="$FK_SRCDIR/tests/perf-data/inline-oracle.py"

need_perf "perf-data --inline"
for t in addr2line eu-addr2line python3; do
	if ! command -v $t > /dev/null 2>&1; then
		skip_all "perf-data --inline" "$t is not installed (the oracle)"
	fi
done
cat > inl.c <<'CEOF'
static volatile unsigned long sink;
static inline __attribute__((always_inline)) void leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
}
static inline __attribute__((always_inline)) void mid(unsigned long n) { leaf(n); sink ^= n; }
__attribute__((noinline)) static void outer(unsigned long n) { mid(n); mid(n / 2); }
__attribute__((noinline)) static void plain(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
int main(void)
{
	for (int k = 0; k < 20; k++) {
		outer(2000000);
		plain(2000000);
	}
	return 0;
}
CEOF
compile_or_skip "perf-data --inline" -O2 -g -fno-omit-frame-pointer -o inl inl.c
record_or_skip "perf-data --inline" -q -g -o inl.data ./inl
perf script -i inl.data > plain.txt 2> /dev/null

for mode in inline srcline both; do
	case $mode in
	inline) opts=--inline ;;
	srcline) opts=--srcline ;;
	both) opts="--inline --srcline" ;;
	esac
	python3 "$ORACLE" $mode ./inl < plain.txt > exp.$mode.txt
	"$FLAMEKIT" collapse --format perf exp.$mode.txt > exp.$mode 2> /dev/null
	"$FLAMEKIT" collapse $opts inl.data > got.$mode 2> err.$mode
	same_file exp.$mode got.$mode "collapse $opts perf.data: perf script's text with addr2line's frames"
	is "$(cat err.$mode)" "" "collapse $opts: no message"
done
# the oracle's frames are there: the test cannot pass on a capture without inlining
ok $(grep -q ';outer\.constprop\.0;mid;leaf [0-9]*$\|;outer;mid;leaf [0-9]*$' exp.inline; echo $?) \
	"--inline: outer;mid;leaf, the two inlined callees, innermost last"
ok $(grep -q ':inl\.c:8;mid:inl\.c:7;leaf:inl\.c:[45] [0-9]*$' exp.both; echo $?) \
	"--inline --srcline: each frame with its own line"
ok $(grep -q ';plain\(\.constprop\.0\)\{0,1\}:inl\.c:1[12] [0-9]*$' exp.srcline; echo $?) \
	"--srcline: the address's own line"
# without the options, perf script's text (perf 6.1 prints no inline frames)
"$FLAMEKIT" collapse --format perf plain.txt > exp.none
"$FLAMEKIT" collapse inl.data > got.none
same_file exp.none got.none "collapse perf.data without --inline: perf script's frames"
# samples without a callchain: perf script prints the function alone, never its inline frames
if perf record -q -o nog.data ./inl > /dev/null 2>&1; then
	perf script -i nog.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > exp.nog
	"$FLAMEKIT" collapse --inline nog.data > got.nog 2> /dev/null
	same_file exp.nog got.nog "--inline on samples without callchains: perf script's one frame"
else
	skip "--inline without callchains" "perf cannot record without -g here"
fi
# --no-demangle, --demangle: a C++ capture against perf script with the same
cat > cx.cc <<'CEOF'
#include <vector>
namespace ns {
template <typename T> struct Box {
	std::vector<T> v;
	__attribute__((noinline)) T sum(int rounds)
	{
		T s = 0;
		for (int r = 0; r < rounds; r++)
			for (auto x : v)
				s += x * r;
		return s;
	}
};
__attribute__((noinline)) long work(int n)
{
	Box<long> b;
	for (int i = 0; i < 1000; i++)
		b.v.push_back(i);
	return b.sum(n);
}
}
volatile long out;
int main()
{
	for (int k = 0; k < 30; k++)
		out += ns::work(20000);
	return 0;
}
CEOF
if ! ${CXX:-c++} -O2 -g -fno-omit-frame-pointer -o cx cx.cc > cxx.log 2>&1 ||
   ! perf record -q -g -o cx.data ./cx > /dev/null 2>&1; then
	skip_all "perf-data --no-demangle" "cannot build or record the C++ program: $(head -1 cxx.log)"
fi
perf script --no-demangle -i cx.data 2> /dev/null | "$FLAMEKIT" collapse --format perf --no-demangle > exp.nodm
"$FLAMEKIT" collapse --no-demangle cx.data > got.nodm 2> /dev/null
same_file exp.nodm got.nodm "--no-demangle: perf script --no-demangle's names"
ok $(grep -q ';_ZN2ns3BoxIlE3sumEi [0-9]*$' got.nodm; echo $?) "--no-demangle: the mangled name of ns::Box<long>::sum"
"$FLAMEKIT" collapse --demangle=no cx.data > got.dmno 2> /dev/null
same_file exp.nodm got.dmno "--demangle=no: the same"
perf script -i cx.data 2> /dev/null | "$FLAMEKIT" collapse --format perf > exp.dm
"$FLAMEKIT" collapse cx.data > got.dm 2> /dev/null
same_file exp.dm got.dm "by default: perf script's demangled names"
perf script -i cx.data 2> /dev/null | "$FLAMEKIT" collapse --format perf --demangle > exp.dmfull
"$FLAMEKIT" collapse --demangle cx.data > got.dmfull 2> /dev/null
same_file exp.dmfull got.dmfull "--demangle: as perf script | flamekit collapse --demangle"
"$FLAMEKIT" collapse --via-perf-script --no-demangle cx.data > got.vianodm 2> /dev/null
same_file exp.nodm got.vianodm "--via-perf-script --no-demangle: perf script is run with --no-demangle"
printf 'inputs:\n  - path: cx.data\n    demangle: no\noutputs:\n  - plugin: folded\n    path: job.out\n' > job.yaml
"$FLAMEKIT" run job.yaml > /dev/null 2>&1
same_file exp.nodm job.out "a job input's demangle: no"
done_testing
