# perf-data: perf.data files, read natively (pdfile.c: the records;
# window.c: a file's records read through a buffer; zdata.c: COMPRESSED
# records, libzstd; trace.c: tracepoint payloads, libtraceevent; machine.c:
# threads and maps; chains.c: callchains met before; symtext.c: frames
# through libfksym; unwind.c: --call-graph dwarf user stacks, libdwfl;
# native.c: perf's order and perf script's text) into the perf parser
# (libperfscript), or by running `perf script` (N processes on N time
# slices) through host->parse_streams.
PD_SOURCES = plugins/input/perf-data/perf-data.c \
	plugins/input/perf-data/header.c plugins/input/perf-data/header.h \
	plugins/input/perf-data/pdfile.c plugins/input/perf-data/pdfile.h \
	plugins/input/perf-data/machine.c plugins/input/perf-data/machine.h \
	plugins/input/perf-data/chains.c plugins/input/perf-data/chains.h \
	plugins/input/perf-data/native.c plugins/input/perf-data/native.h \
	plugins/input/perf-data/symtext.c plugins/input/perf-data/symtext.h \
	plugins/input/perf-data/zdata.c plugins/input/perf-data/zdata.h \
	plugins/input/perf-data/trace.c plugins/input/perf-data/trace.h \
	plugins/input/perf-data/unwind.c plugins/input/perf-data/unwind.h \
	plugins/input/perf-data/window.c plugins/input/perf-data/window.h \
	plugins/input/perf-data/obuf.h plugins/lib/symbolize/symbolize.h
pkglib_LTLIBRARIES += plugins/input-perf-data.la
plugins_input_perf_data_la_SOURCES = $(PD_SOURCES)
plugins_input_perf_data_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_perf_data_la_LIBADD = plugins/lib/perfscript/libperfscript.la $(ZSTD_LIBS) \
	$(TRACEEVENT_LIBS)
plugins_input_perf_data_la_CPPFLAGS = $(AM_CPPFLAGS) $(PD_FKSYM_CPPFLAGS) $(ZSTD_CFLAGS) \
	$(TRACEEVENT_CFLAGS)
PD_FKSYM_CPPFLAGS =
if HAVE_FKSYM
PD_FKSYM_CPPFLAGS += -DHAVE_LIBFKSYM -DPD_UNWIND $(LIBDW_CFLAGS)
plugins_input_perf_data_la_LIBADD += plugins/lib/symbolize/libfksym.la $(LIBDW_LIBS) $(LIBELF_LIBS)
endif

TESTS += tests/perf-data.sh tests/perf-data-slices.sh
EXTRA_DIST += tests/perf-data.sh tests/perf-data-slices.sh

# the read window against the file's bytes
check_PROGRAMS += tests/unit/perf-window.t
TESTS += tests/unit/perf-window.t
tests_unit_perf_window_t_SOURCES = tests/unit/perf-window.c tests/unit/testlib.h \
	plugins/input/perf-data/window.c plugins/input/perf-data/window.h \
	plugins/input/perf-data/pdfile.c plugins/input/perf-data/pdfile.h
tests_unit_perf_window_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_perf_window_t_LDADD = $(TEST_LDADD)

# host->parse_parts, the engine service this plugin uses, on its own
check_PROGRAMS += tests/unit/parts.t
TESTS += tests/unit/parts.t
tests_unit_parts_t_SOURCES = tests/unit/parts.c tests/unit/testlib.h
tests_unit_parts_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_parts_t_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/data/perf-data/three-seconds.data tests/data/perf-data/catperf
