#!/bin/sh
# Folded collapse throughput: a >= 200 MB folded file with thousands of
# distinct stacks, collapsed by flamekit, next to cat and wc -l on the same
# file in the same run.  Prints figures; asserts nothing.
set -e
D="$FK_BENCH_DATA"
F="$D/bench-200m.folded"
if [ ! -s "$F" ]; then
	# 6,000 distinct stacks, 4 to 40 frames deep, realistic names, shuffled
	awk 'BEGIN {
		srand(42);
		split("main start_thread clone worker_loop run_task process_request parse_header " \
		      "std::vector<int>::push_back malloc free memcpy __libc_write sys_write_[k] " \
		      "vfs_write_[k] ext4_file_write_iter_[k] java/util/HashMap.get_[j] " \
		      "Interpreter_[j] json_decode sha256_block deflate_slow inflate_fast " \
		      "pthread_mutex_lock futex_wait_[k] schedule_[k] __schedule_[k]", names, " ");
		n = 0; for (k in names) n++;
		for (s = 0; s < 6000; s++) {
			d = 4 + int(rand() * 37); st = "app" (s % 7);
			for (i = 0; i < d; i++) st = st ";" names[1 + int(rand() * n)] "_" int(rand() * 50);
			stack[s] = st;
		}
		total = 0;
		while (total < 210000000) {
			s = int(rand() * 6000); line = stack[s] " " (1 + int(rand() * 100));
			print line; total += length(line) + 1;
		}
	}' > "$F.tmp"
	mv "$F.tmp" "$F"
fi
python3 - "$F" "$FLAMEKIT" <<'PY'
import os, resource, subprocess, sys, time
f, fk = sys.argv[1], sys.argv[2]
size = os.path.getsize(f) / 1e6
def run(cmd):
    best = None
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        e = time.perf_counter() - t
        best = e if best is None or e < best else best
    return best
cat = run(["cat", f]); wc = run(["wc", "-l", f])
before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
for threads in ("1", "2"):
    t = run([fk, "collapse", "--format", "folded", "--threads", threads, f])
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print("folded collapse, %s thread(s): %.3f s, %.0f MB/s, %.2fx wc -l, peak RSS %.1f MB"
          % (threads, t, size / t, t / wc, rss))
print("input: %.1f MB; cat %.3f s (%.0f MB/s); wc -l %.3f s (%.0f MB/s)" % (size, cat, size / cat, wc, size / wc))
PY
