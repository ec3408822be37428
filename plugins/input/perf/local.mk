# perf: `perf script` text (stackcollapse-perf.pl), with --offcpu.
pkglib_LTLIBRARIES += plugins/input-perf.la
plugins_input_perf_la_SOURCES = plugins/input/perf/perf.c
plugins_input_perf_la_LDFLAGS = $(PLUGIN_LDFLAGS)
