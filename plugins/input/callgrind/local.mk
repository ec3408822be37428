# callgrind: valgrind's callgrind.out/cachegrind.out and Xdebug's profiler files.
pkglib_LTLIBRARIES += plugins/input-callgrind.la
plugins_input_callgrind_la_SOURCES = plugins/input/callgrind/callgrind.c plugins/input/common/probe.h plugins/input/common/stack.h
plugins_input_callgrind_la_LDFLAGS = $(PLUGIN_LDFLAGS)
