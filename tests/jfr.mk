# Input plugin jfr (Java Flight Recorder) against the oracle tests/oracle/jfr.py
# over `jfr print --json`, on a shipped recording, on async-profiler's shipped
# recordings and on recordings made at test time (openjdk-17-jdk-headless;
# skipped without java).
# (TESTS lists tests/jfr.sh first: Makefile.am)
EXTRA_DIST += tests/jfr.sh tests/oracle/jfr.py tests/oracle/jfr-forge.py \
	tests/data/jfr/Busy.java tests/data/jfr/small.jfc tests/data/jfr/regen.sh \
	tests/data/jfr/cases tests/data/jfr/small.jfr.gz \
	tests/data/jfr/async-profiler/README tests/data/jfr/async-profiler/cases \
	tests/data/jfr/async-profiler/record.sh tests/data/jfr/async-profiler/alloc.jfr.gz \
	tests/data/jfr/async-profiler/cpu.jfr.gz tests/data/jfr/async-profiler/cstack.jfr.gz \
	tests/data/jfr/async-profiler/jfrsync.jfr.gz tests/data/jfr/async-profiler/lock.jfr.gz \
	tests/data/jfr/async-profiler/log.jfr.gz \
	tests/data/jfr/async-profiler/nativemem.jfr.gz tests/data/jfr/async-profiler/tlab.jfr.gz \
	tests/data/jfr/async-profiler/trace.jfr.gz tests/data/jfr/async-profiler/wall.jfr.gz \
	tests/data/jfr/expected/alloc.txt tests/data/jfr/expected/alloc.skipped \
	tests/data/jfr/expected/alloc-threads-lines.txt tests/data/jfr/expected/alloc-threads-lines.skipped \
	tests/data/jfr/expected/cpu.txt tests/data/jfr/expected/cpu.skipped \
	tests/data/jfr/expected/cpu-lines-all.txt tests/data/jfr/expected/cpu-lines-all.skipped \
	tests/data/jfr/expected/cpu-runnable.txt tests/data/jfr/expected/cpu-runnable.skipped \
	tests/data/jfr/expected/cpu-threads.txt tests/data/jfr/expected/cpu-threads.skipped \
	tests/data/jfr/expected/monitor.txt tests/data/jfr/expected/monitor.skipped \
	tests/data/jfr/expected/native.txt tests/data/jfr/expected/native.skipped \
	tests/data/jfr/expected/outside.txt tests/data/jfr/expected/outside.skipped \
	tests/data/jfr/expected/park.txt tests/data/jfr/expected/park.skipped \
	tests/data/jfr/expected/park-all.txt tests/data/jfr/expected/park-all.skipped \
	tests/data/jfr/expected/tlab.txt tests/data/jfr/expected/tlab.skipped
