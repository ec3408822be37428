#!/bin/sh
# perf script text: collapse speed with 1 and 2 threads against `wc -l` and
# `cat` on the same file, and peak RSS.  Builds a >= 200 MB input under
# $FK_BENCH_DATA from the real captures in shared/data, each copy with its
# comms and pids renamed so there are thousands of distinct stacks.  Each
# command runs FK_BENCH_RUNS times (default 3); the best wall time counts,
# since the machine may be shared.
# Targets (issue 14; reported, not asserted): 1 thread within 5x `wc -l`;
# 2 threads >= 1.7x faster than 1; peak RSS < 100 MB.
set -e
: "${FLAMEKIT:?run through make bench}"
DATA=${FK_PERF_DATA:-$FK_SRCDIR/../shared/data}
MB=${FK_PERF_BENCH_MB:-210}
OUT=$FK_BENCH_DATA/perf-${MB}m.txt

if [ ! -d "$DATA" ]; then
	echo "perf: no captures at $DATA (set FK_PERF_DATA); skipped"
	exit 0
fi
if [ ! -f "$OUT" ] || [ "$(wc -c < "$OUT")" -lt $((MB * 1000000)) ]; then
	# the on-CPU captures (the off-CPU one would be dropped by the first-event rule)
	for f in "$DATA"/stairs.perf.txt.gz "$DATA"/waits-cpu.perf.txt.gz; do gzip -dc "$f"; done > "$OUT.one"
	one=$(wc -c < "$OUT.one")
	copies=$(( (MB * 1000000 + one - 1) / one ))
	# copy i renames each comm to comm-i-(record % 20) and shifts pids
	awk -v n="$copies" '
		{ line[NR] = $0 }
		END {
			for (i = 0; i < n; i++)
				for (k = 1; k <= NR; k++) {
					l = line[k]
					if (l ~ /^[^ \t#]/ && match(l, /^[^ ]+ +[0-9]+/)) {
						split(substr(l, 1, RLENGTH), a, / +/)
						l = a[1] "-" i "-" (k % 20) " " (a[2] + 100000 * i) substr(l, RLENGTH + 1)
					}
					print l
				}
		}' "$OUT.one" > "$OUT.tmp"
	mv "$OUT.tmp" "$OUT"
	rm -f "$OUT.one"
fi

"${PYTHON3:-python3}" - "$FLAMEKIT" "$OUT" "${FK_BENCH_RUNS:-3}" <<'PY'
import os, subprocess, sys, time
flamekit, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
size = os.path.getsize(path) / 1e6

def measure(argv):
    """Wall time, CPU time (user + sys) and peak RSS (MB) of one run."""
    with open(os.devnull, "wb") as null:
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdout=null)
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.monotonic() - t0
    if status != 0:
        sys.exit("bench: %s failed (status %d)" % (" ".join(argv), status))
    return dt, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0

def best(argv):
    """The best of `runs` runs (wall time; its CPU; the largest peak RSS)."""
    rs = [measure(argv) for _ in range(runs)]
    t, c, _ = min(rs)
    return t, c, max(r[2] for r in rs)

subprocess.run(["cat", path], stdout=subprocess.DEVNULL)  # warm the page cache
cat_t, cat_c, _ = best(["cat", path])
wc_t, wc_c, _ = best(["wc", "-l", path])
t1, c1, rss1 = best([flamekit, "collapse", "--format", "perf", "--threads", "1", path])
t2, c2, rss2 = best([flamekit, "collapse", "--format", "perf", "--threads", "2", path])
t0, c0, _ = best([flamekit, "collapse", "--format", "perf", "--threads", "2", os.devnull])
stacks = len(subprocess.run([flamekit, "collapse", "--format", "perf", path],
                            capture_output=True).stdout.splitlines())
print("perf: %s, %.0f MB, %d distinct stacks, best of %d runs" % (os.path.basename(path), size, stacks, runs))
print("  (wall time; CPU = user + sys, which a busy machine does not inflate)")
print("  cat          %6.2f s  %7.0f MB/s  CPU %5.2f s" % (cat_t, size / cat_t, cat_c))
print("  wc -l        %6.2f s  %7.0f MB/s  CPU %5.2f s" % (wc_t, size / wc_t, wc_c))
print("  collapse -t1 %6.2f s  %7.0f MB/s  CPU %5.2f s  peak RSS %5.1f MB  %.2fx wc -l (target <= 5; CPU %.2fx)"
      % (t1, size / t1, c1, rss1, t1 / wc_t, c1 / max(wc_c, 1e-3)))
print("  collapse -t2 %6.2f s  %7.0f MB/s  CPU %5.2f s  peak RSS %5.1f MB  %.2fx faster than -t1 (target >= 1.7)"
      % (t2, size / t2, c2, rss2, t1 / t2))
print("  start-up      %6.3f s (an empty input: exec and loading the plugins, on either thread count)" % t0)
print("  peak RSS target < 100 MB: %s" % ("met" if max(rss1, rss2) < 100 else "NOT met"))
PY
