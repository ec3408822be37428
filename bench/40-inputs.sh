#!/bin/sh
# Throughput of the dtrace, stap, pmcstat, instruments, ljp, bpftrace, bcc, callgrind,
# threaddump, sample, speedscope, chrome, gecko, jfr and xctrace input plugins on generated files
# (~40 MB each, under $FK_BENCH_DATA), next to `cat` and
# `wc -l` on the same file.  Figures only.
D="$FK_BENCH_DATA/inputs"
mkdir -p "$D"
SIZE_MB=${FK_BENCH_INPUT_MB:-40}

gen() { # gen FORMAT FILE: about SIZE_MB of records, 2,000 distinct stacks
	LC_ALL=C awk -v fmt="$1" -v mb="$SIZE_MB" 'BEGIN {
		srand(42); bytes = 0
		if (fmt == "dtrace") print "CPU     ID                    FUNCTION:NAME\n  0  1  :tick-60s\n"
		if (fmt == "instruments") print "Weight\tSelf Weight\t\tSymbol Name"
		if (fmt == "sample") print "Analysis of sampling app (pid 4242) every 1 millisecond\n----\n\nCall graph:"
		if (fmt == "callgrind") { # 2,000 functions in chains of 20, then their blocks
			print "# callgrind format\nversion: 1\npositions: line\nevents: Ir Dr\n"
			for (k = 0; k < 2000; k++) printf "fn=(%d) fn_%d_%d\n0 1 0\n", k + 1, k % 97, k
			while (bytes < mb * 1000000) {
				k = int(rand() * 2000); s = sprintf("fl=(1) app.c\nfn=(%d)\n%d 3 1\n", k + 1, k)
				for (i = 0; i < 6; i++) s = s sprintf("+%d %d %d\n", i + 1, 2 + i, i)
				if ((k + 1) % 20) s = s sprintf("cfn=(%d)\ncalls=1 %d\n* %d %d\n", k + 2, k * 10, 40 * (20 - k % 20), 5)
				printf "%s", s; bytes += length(s)
			}
			exit
		}
		while (bytes < mb * 1000000) {
			k = int(rand() * 2000); d = 8 + k % 24; s = ""
			if (fmt == "sample") {
				s = sprintf("    %d Thread_%d\n", d + 1, k)
				for (i = 0; i < d; i++) {
					pad = sprintf("%" (2 * i + 1) "s", ""); pad = substr(pad, 2)
					s = s sprintf("    +%s %d fn_%d_%d  (in libx.dylib) + %d  [0x%x]\n", pad, d - i, k % 97, i, i * 4, 4096 + i)
				}
			} else 			if (fmt == "pmcstat" || fmt == "instruments") {
				for (i = 0; i < d; i++) {
					pad = sprintf("%" (i + 1) "s", ""); pad = substr(pad, 2)
					if (fmt == "pmcstat") line = sprintf("%s100.0%%  [%d]  fn_%d_%d\n", pad, k + 1, k % 97, i)
					else line = sprintf("1.00 ms  1.0%%\t%s\t \t%sfn_%d_%d\n", (i == d - 1 ? "1.00 ms" : "0 ms"), pad, k % 97, i)
					s = s line
				}
			} else {
				for (i = d - 1; i >= 0; i--) {
					if (fmt == "dtrace") line = sprintf("              mod`fn_%d_%d+0x%x\n", k % 97, i, i * 16)
					else if (fmt == "bpftrace") line = sprintf("    fn_%d_%d+%d\n", k % 97, i, i * 16)
					else if (fmt == "bcc") line = sprintf("    fn_%d_%d\n", k % 97, i)
					else if (fmt == "threaddump") line = sprintf("#%d  0x%016x in fn_%d_%d (arg=0x%x) at src/f%d.c:%d\n", d - 1 - i, 4096 + k * 64 + i, k % 97, i, i * 8, k % 13, i + 10)
					else if (fmt == "stap") line = sprintf(" 0x%x : fn_%d_%d+0x%x/0x200 [/usr/lib/libx.so]\n", 4096 + i, k % 97, i, i * 16)
					else if (i == d - 1) line = sprintf("%d %d\tfn_%d_%d(X.java:%d)\n", k + 1, d, k % 97, i, i)
					else line = sprintf("\tfn_%d_%d(X.java:%d)\n", k % 97, i, i)
					s = s line
				}
				if (fmt == "bpftrace") s = "@[\n" s ", \n    __libc_start_call_main+122\n, app]: " (k + 1) "\n"
				if (fmt == "bcc") s = s sprintf("    -                app (%d)\n        %d\n\n", 4000 + k % 7, k + 1)
				if (fmt == "threaddump") s = sprintf("Thread %d (Thread 0x7f3b%08x (LWP %d) \"worker-%d\"):\n", k + 1, k, 4000 + k, k % 7) s "\n"
				if (fmt == "dtrace") s = s sprintf("               %d\n\n", k + 1)
				else if (fmt == "stap") s = s sprintf("\t%d\n", k + 1)
			}
			printf "%s", s; bytes += length(s)
		}
		if (fmt == "ljp") print "Total trace count = 1"
	}' > "$2"
}

measure() { # measure FORMAT FILE
	"${PYTHON3:-python3}" - "$FLAMEKIT" "$1" "$2" <<'PY'
import os, resource, subprocess, sys, time
fk, fmt, f = sys.argv[1:4]
mb = os.path.getsize(f) / 1e6
def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
t_cat = timed(["cat", f])
t_wc = timed(["wc", "-l", f])
t_fk = timed([fk, "collapse", "--format", fmt, f])
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{fmt:12s} {mb:6.1f} MB  collapse {t_fk:6.2f} s = {mb / t_fk:7.1f} MB/s  "
      f"(cat {t_cat:.2f} s, wc -l {t_wc:.2f} s)  peak RSS {rss:.0f} MB")
PY
}

# the JSON inputs' files come from bench/json-gen.py: the same 2,000 stacks
for fmt in dtrace stap pmcstat instruments ljp bpftrace bcc callgrind threaddump sample speedscope chrome gecko; do
	case $fmt in
	speedscope | chrome | gecko)
		f="$D/$fmt.json"
		[ -s "$f" ] || "${PYTHON3:-python3}" "$(dirname "$0")/json-gen.py" "$fmt" "$SIZE_MB" "$f" ;;
	*)
		f="$D/$fmt.txt"
		[ -s "$f" ] || gen $fmt "$f" ;;
	esac
	measure $fmt "$f"
done

# jfr: the largest recording tests/ ships (the JDK's small.jfr.gz, one
# 167 KB chunk, 60% of it metadata, the slowest part to read; then the
# largest of async-profiler's, a JDK chunk and async-profiler's) repeated as
# chunks up to SIZE_MB: a worst case, as a real recording holds one
# metadata event per chunk of about 12 MB.  "cpu" is the reader's own time
# (user + system): its MB/s per thread, whatever else the machine runs.
jfr_measure() { # jfr_measure LABEL FILE.jfr.gz...: the largest FILE, repeated
	f="$D/$1.jfr"
	shift
	big=$(for g in "$@"; do echo "$(gzip -dc "$g" | wc -c) $g"; done | sort -n | tail -1)
	n=$(( SIZE_MB * 1000000 / ${big%% *} + 1 ))
	echo "jfr: $(basename "${big#* }"), ${big%% *} bytes, as $n chunks"
	if [ ! -s "$f" ]; then
		gzip -dc "${big#* }" > "$D/one.jfr"
		i=0
		while [ $i -lt $n ]; do cat "$D/one.jfr"; i=$((i + 1)); done > "$f"
		rm -f "$D/one.jfr"
	fi
	measure jfr "$f"
	"${PYTHON3:-python3}" - "$FLAMEKIT" "$f" <<'PY'
import os, resource, subprocess, sys
fk, f = sys.argv[1:3]
mb = os.path.getsize(f) / 1e6
subprocess.run([fk, "collapse", "--format", "jfr", f], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = r.ru_utime + r.ru_stime
print(f"{'jfr':12s} {mb:6.1f} MB  cpu      {cpu:6.2f} s = {mb / cpu:7.1f} MB/s per thread")
PY
}
jfr_measure jfr-jdk "$FK_SRCDIR"/tests/data/jfr/*.jfr.gz
jfr_measure jfr-asprof "$FK_SRCDIR"/tests/data/jfr/async-profiler/*.jfr.gz

# xctrace: the same stacks as an xctrace export, from bench/xctrace-gen.py
f="$D/xctrace.xml"
[ -s "$f" ] || "${PYTHON3:-python3}" "$(dirname "$0")/xctrace-gen.py" "$SIZE_MB" "$f"
measure xctrace "$f"
