# perf: `perf script` text (stackcollapse-perf.pl), with --offcpu.  The
# parser is the perfscript library (plugins/lib/perfscript/), which
# perf-data links too; this plugin is its descriptor, probe and shard
# boundary.
pkglib_LTLIBRARIES += plugins/input-perf.la
plugins_input_perf_la_SOURCES = plugins/input/perf/perf.c \
	plugins/input/perf/probe.c plugins/input/perf/probe.h \
	plugins/input/common/probe.h
plugins_input_perf_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_perf_la_LIBADD = plugins/lib/perfscript/libperfscript.la

TESTS += tests/perf-conformance.sh tests/perf.sh
EXTRA_DIST += tests/perf-conformance.sh tests/perf.sh \
	tests/data/perf/names.txt tests/data/perf/events.txt \
	tests/data/perf/offcpu.txt tests/data/perf/truncated.txt \
	tests/data/perf/exiting.txt tests/data/perf/exiting.c tests/data/perf/exiting.folded \
	tests/data/perf/system-wide.txt tests/data/perf/system-wide.folded \
	tests/data/perf/system-wide-tid.folded tests/data/perf/onechar.txt \
	tests/data/perf/onechar.folded tests/data/perf/spin.c \
	tests/data/perf/modules.txt tests/data/perf/no-callchain.txt
# --weight-field and --series-by-event (weights.c)
TESTS += tests/perf-weights.sh
EXTRA_DIST += tests/perf-weights.sh tests/data/perf/weights.c \
	tests/data/perf/weights-series.txt tests/data/perf/weights-kmalloc.txt \
	tests/data/perf/weights-mmap.txt
check_PROGRAMS += tests/unit/perf-weights.t
TESTS += tests/unit/perf-weights.t
tests_unit_perf_weights_t_SOURCES = tests/unit/perf-weights.c tests/unit/testlib.h
tests_unit_perf_weights_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_perf_weights_t_LDADD = plugins/lib/perfscript/libperfscript.la $(TEST_LDADD)
# the fast paths (body.c, header.c) against their references
check_PROGRAMS += tests/unit/perf-scan.t
TESTS += tests/unit/perf-scan.t
tests_unit_perf_scan_t_SOURCES = tests/unit/perf-scan.c tests/unit/testlib.h
tests_unit_perf_scan_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_perf_scan_t_LDADD = plugins/lib/perfscript/libperfscript.la $(TEST_LDADD)
# the tracepoint field reader (fields.c)
check_PROGRAMS += tests/unit/perf-fields.t
TESTS += tests/unit/perf-fields.t
tests_unit_perf_fields_t_SOURCES = tests/unit/perf-fields.c tests/unit/testlib.h
tests_unit_perf_fields_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_perf_fields_t_LDADD = plugins/lib/perfscript/libperfscript.la $(TEST_LDADD)
# --wakeups and --leak (pairing.c, wakeups.c, leak.c)
TESTS += tests/perf-pairing.sh
EXTRA_DIST += tests/perf-pairing.sh tests/data/perf/pipepair.c tests/data/perf/kmalloc.c \
	tests/data/perf/mallocs.c tests/data/perf/wakeups.txt tests/data/perf/wakeups.folded \
	tests/data/perf/leak.txt tests/data/perf/leak.folded tests/data/perf/leak-uprobe.txt \
	tests/data/perf/hostile-wakeups.txt tests/data/perf/hostile-leak.txt \
	tests/data/perf/leak-lost-free.txt
EXTRA_DIST += examples/profiles/README.md examples/profiles/demo.c \
	examples/profiles/demo.perf.txt.gz examples/profiles/blocking.c \
	examples/profiles/blocking-cpu.perf.txt.gz examples/profiles/blocking-off.perf.txt.gz

check_PROGRAMS += tests/unit/perf.t
TESTS += tests/unit/perf.t
tests_unit_perf_t_SOURCES = tests/unit/perf.c tests/unit/testlib.h
tests_unit_perf_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_perf_t_LDADD = $(TEST_LDADD)
