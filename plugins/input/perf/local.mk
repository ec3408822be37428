# perf: `perf script` text (stackcollapse-perf.pl), with --offcpu.
pkglib_LTLIBRARIES += plugins/input-perf.la
plugins_input_perf_la_SOURCES = plugins/input/perf/perf.c
plugins_input_perf_la_LDFLAGS = $(PLUGIN_LDFLAGS)

TESTS += tests/perf-conformance.sh tests/perf.sh
EXTRA_DIST += tests/perf-conformance.sh tests/perf.sh \
	tests/data/perf/names.txt tests/data/perf/events.txt \
	tests/data/perf/offcpu.txt tests/data/perf/truncated.txt
EXTRA_DIST += examples/profiles/README.md examples/profiles/demo.c \
	examples/profiles/demo.perf.txt.gz examples/profiles/blocking.c \
	examples/profiles/blocking-cpu.perf.txt.gz examples/profiles/blocking-off.perf.txt.gz

check_PROGRAMS += tests/unit/perf.t
TESTS += tests/unit/perf.t
tests_unit_perf_t_SOURCES = tests/unit/perf.c tests/unit/testlib.h
tests_unit_perf_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_perf_t_LDADD = $(TEST_LDADD)
