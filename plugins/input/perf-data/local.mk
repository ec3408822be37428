# perf-data: perf.data files, read by running `perf script` (N processes on
# N time slices) into the perf parser (libperfscript) through host->parse_streams.
pkglib_LTLIBRARIES += plugins/input-perf-data.la
plugins_input_perf_data_la_SOURCES = plugins/input/perf-data/perf-data.c \
	plugins/input/perf-data/header.c plugins/input/perf-data/header.h
plugins_input_perf_data_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_perf_data_la_LIBADD = plugins/lib/perfscript/libperfscript.la

TESTS += tests/perf-data.sh tests/perf-data-slices.sh
EXTRA_DIST += tests/perf-data.sh tests/perf-data-slices.sh

# host->parse_parts, the engine service this plugin uses, on its own
check_PROGRAMS += tests/unit/parts.t
TESTS += tests/unit/parts.t
tests_unit_parts_t_SOURCES = tests/unit/parts.c tests/unit/testlib.h
tests_unit_parts_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_parts_t_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/data/perf-data/three-seconds.data tests/data/perf-data/catperf
