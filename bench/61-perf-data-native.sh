#!/bin/sh
# perf.data read natively: `flamekit collapse perf.data` (1 and 2 threads)
# next to `perf script -i perf.data > /dev/null` alone, on a system-wide -g
# capture of at least 100,000 samples of deep stacks that this script
# records itself (two processes recursing 10-50 frames deep, -a -g -F
# 20000; kept in $FK_BENCH_DATA).  Where the test build of the plugin
# exists (make check builds tests/modules/nullsym, whose libfksym resolves
# nothing), the reader alone is measured too, against perf script with no
# symbols either (--symfs EMPTY --kallsyms EMPTY), and its bytes compared
# with that pipeline's.  Target (issue 24; reported, not asserted): the
# native collapse on one thread >= 10x faster than perf script alone,
# two threads >= 1.7x faster than one, peak RSS <= the capture's size plus
# the symbol tables (printed beside the capture's and kallsyms' sizes);
# the same for `flamekit graph perf.data` to SVG and to HTML.
# The same load recorded with perf record -z, and its sched_switch and
# sched_wakeup tracepoints (--offcpu), are read natively and through perf
# script (--via-perf-script, what the plugin ran for them before).
# Wall time best of 3, and CPU time (user + sys), which a shared machine
# does not inflate.
set -e
: "${FLAMEKIT:?run through make bench}"
OUT=$FK_BENCH_DATA/perf-data-native.data
# 3 s left the 2-core VM 74,813 to 93,112 samples (perf throttles -F 20000
# as the machine's load asks): 5 s keeps above 100,000 with room
SECS=${FK_PERF_NATIVE_SECS:-5}

if ! command -v perf > /dev/null 2>&1; then
	echo "perf-data native: perf is not installed (Debian: linux-perf); skipped"
	exit 0
fi
mkdir -p "$FK_BENCH_DATA/native-empty"
: > "$FK_BENCH_DATA/native-nokall"
if [ ! -s "$OUT" ]; then
	cat > "$FK_BENCH_DATA/deep.c" <<'EOF'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long s;
__attribute__((noinline)) static unsigned long rec(int d)
{
	if (d == 0) {
		for (int i = 0; i < 2000; i++)
			s += i;
		return s;
	}
	return rec(d - 1) + 1;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);
	for (long k = 0; time(NULL) < end; k++)
		rec(10 + k % 40);
	return 0;
}
EOF
	${CC:-cc} -O1 -fno-omit-frame-pointer -o "$FK_BENCH_DATA/deep" "$FK_BENCH_DATA/deep.c"
	if ! perf record -q -a -g -F 20000 -o "$OUT.tmp" -- sh -c "'$FK_BENCH_DATA/deep' $SECS &
		'$FK_BENCH_DATA/deep' $SECS & wait" > "$OUT.log" 2>&1; then
		echo "perf-data native: perf cannot record here: $(head -1 "$OUT.log"); skipped"
		rm -f "$OUT.tmp" "$OUT.log"
		exit 0
	fi
	mv "$OUT.tmp" "$OUT"
	rm -f "$OUT.log"
fi
# the same load compressed (perf record -z), and its sched tracepoints:
# read natively since issue 24's second round, by perf script before
for kind in z sched; do
	[ -s "$OUT.$kind" ] && continue
	case $kind in
	z) ev="-z -F 20000" ;;
	sched) ev="-e sched:sched_switch -e sched:sched_wakeup" ;;
	esac
	# shellcheck disable=SC2086
	perf record -q -a -g $ev -o "$OUT.$kind.tmp" -- sh -c "'$FK_BENCH_DATA/deep' $SECS &
		'$FK_BENCH_DATA/deep' $SECS & sleep $SECS & wait" > /dev/null 2>&1 &&
		mv "$OUT.$kind.tmp" "$OUT.$kind" || rm -f "$OUT.$kind.tmp"
done

"${PYTHON3:-python3}" - "$FLAMEKIT" "$OUT" "$FK_BUILDDIR/tests/modules/nullsym" "$FK_BENCH_DATA" <<'PY'
import os, subprocess, sys, time
flamekit, path, nullsym, data = sys.argv[1:5]
empty, nokall = os.path.join(data, "native-empty"), os.path.join(data, "native-nokall")

def measure(argv, keep=False):
    """Best wall time of 3, with that run's CPU time (user + sys) and peak
    RSS (from wait4, so the python process stays small: outputs go to a
    file or /dev/null), its stdout if keep, and its stderr."""
    best = None
    for _ in range(3):
        with open(os.path.join(data, "native.out"), "w+b") as o, \
             open(os.path.join(data, "native.err"), "w+b") as e:
            t0 = time.monotonic()
            p = subprocess.Popen(argv, stdout=o if keep else subprocess.DEVNULL, stderr=e)
            _, st, ru = os.wait4(p.pid, 0)
            dt = time.monotonic() - t0
            p.returncode = 0
            if st != 0:
                sys.exit("bench: %s failed (status %d)" % (argv, st))
            o.seek(0)
            e.seek(0)
            if best is None or dt < best[0]:
                best = (dt, ru.ru_utime + ru.ru_stime, o.read() if keep else b"", e.read(),
                        ru.ru_maxrss)
    return best

def pipeline(perf_args, fk_args):
    p = subprocess.run("perf script -i '%s' %s 2>/dev/null | '%s' collapse --format perf %s"
                       % (path, perf_args, flamekit, fk_args), shell=True, stdout=subprocess.PIPE)
    return p.stdout

samples = subprocess.run("perf script -F time -i '%s' 2>/dev/null | wc -l" % path, shell=True,
                         capture_output=True, text=True).stdout.strip()
subprocess.run(["cat", path], stdout=subprocess.DEVNULL)
print("perf-data native: %s, %.1f MB, %s samples" % (os.path.basename(path), os.path.getsize(path) / 1e6, samples))
if samples.isdigit() and int(samples) < 100000:
    print("  (fewer than the 100,000 samples the targets are set for: remove the capture and"
          " run again with a larger FK_PERF_NATIVE_SECS)")
print("  (wall: best of 3; CPU: user + sys; RSS: peak)")
pt, pc, _, _, prss = measure(["perf", "script", "-i", path])
print("  %-52s %6.2f s  CPU %5.2f s  RSS %4d MB" % ("perf script -i perf.data > /dev/null", pt, pc, prss // 1024))
by_threads = {}
for t in ("1", "2"):
    ft, fc, out, err, rss = measure([flamekit, "collapse", "--threads", t, path], True)
    by_threads[t] = (ft, fc, rss)
    how = "fell back: " + err.decode(errors="replace").split("not read natively: ")[1].split(";")[0] \
        if b"not read natively" in err else "native"
    print("  %-52s %6.2f s  CPU %5.2f s  RSS %4d MB  %.1fx wall, %.1fx CPU (target >= 10x)  %s"
          % ("flamekit collapse perf.data --threads " + t, ft, fc, rss // 1024, pt / ft, pc / fc, how))
# the kernel's symbols from /proc/kallsyms, as perf script reads them,
# instead of perf record's copy of this boot in the build-id cache
kt, kc, _, _, krss = measure([flamekit, "collapse", "--threads", "1", "--kallsyms", "/proc/kallsyms", path])
print("  %-52s %6.2f s  CPU %5.2f s  RSS %4d MB  %.1fx wall, %.1fx CPU"
      % ("  the same, --kallsyms /proc/kallsyms", kt, kc, krss // 1024, pt / kt, pc / kc))
# issue 24's other two targets: two threads >= 1.7x one; peak RSS <= the
# file plus the symbol tables (/proc/kallsyms's size given for scale)
print("  %-52s %.2fx wall (target >= 1.7x)" % ("--threads 1 / --threads 2", by_threads["1"][0] / by_threads["2"][0]))
# the same figures for graph, to SVG and to the HTML report (the render
# is in them: perf script alone renders nothing)
for plugin in ("svg", "html"):
    g = {}
    for t in ("1", "2"):
        gt, gc, _, _, grss = measure([flamekit, "graph", "--threads", t, "--output-plugin", plugin,
                                      "-o", os.path.join(data, "native." + plugin), path])
        g[t] = gt
        print("  %-52s %6.2f s  CPU %5.2f s  RSS %4d MB  %.1fx wall, %.1fx CPU (target >= 10x)"
              % ("flamekit graph --output-plugin %s --threads %s" % (plugin, t), gt, gc, grss // 1024,
                 pt / gt, pc / gc))
    print("  %-52s %.2fx wall (target >= 1.7x)" % ("  --threads 1 / --threads 2", g["1"] / g["2"]))
kall = len(open("/proc/kallsyms", "rb").read())
print("  %-52s %d MB (perf.data %.1f MB, /proc/kallsyms text %.1f MB)"
      % ("peak RSS, one thread", by_threads["1"][2] // 1024, os.path.getsize(path) / 1e6, kall / 1e6))
# perf record -z and tracepoints: natively, and through perf script (what
# the plugin ran for them before it read them itself)
for kind, opts in (("z", []), ("sched", ["--offcpu"])):
    kpath = path + "." + kind
    if not os.path.exists(kpath):
        continue
    kt, kc, _, _, krss = measure(["perf", "script", "-i", kpath])
    print("  %-52s %6.2f s  CPU %5.2f s  RSS %4d MB" % ("perf script -i %s.data > /dev/null" % kind, kt, kc, krss // 1024))
    for how in (["--via-perf-script"], []):
        ft, fc, _, err, rss = measure([flamekit, "collapse", "--threads", "1"] + opts + how + [kpath])
        print("  %-52s %6.2f s  CPU %5.2f s  RSS %4d MB  %.1fx wall, %.1fx CPU" % (
            " ".join(["flamekit collapse"] + opts + how + [kind + ".data"]), ft, fc, rss // 1024,
            kt / ft, kc / fc))
if os.path.exists(os.path.join(nullsym, "input-perf-data.la")):
    st, sc, _, _, srss = measure(["perf", "script", "-i", path, "--symfs", empty, "--kallsyms", nokall])
    print("  %-52s %6.2f s  CPU %5.2f s  RSS %4d MB" % ("perf script --symfs EMPTY --kallsyms EMPTY", st, sc, srss // 1024))
    want = pipeline("--symfs '%s' --kallsyms '%s'" % (empty, nokall), "--addrs")
    for t in ("1", "2"):
        nt, nc, out, _, rss = measure([flamekit, "collapse", "--plugin-dir", nullsym, "--threads", t, "--addrs", path], True)
        print("  %-52s %6.2f s  CPU %5.2f s  RSS %4d MB  %.1fx / %.1fx perf script's wall, CPU  same bytes: %s"
              % ("the reader alone (no symbols) --threads " + t, nt, nc, rss // 1024, pt / nt, pc / nc,
                 "yes" if out == want else "NO"))
PY
