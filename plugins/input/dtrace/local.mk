pkglib_LTLIBRARIES += plugins/input-dtrace.la
plugins_input_dtrace_la_SOURCES = plugins/input/dtrace/dtrace.c plugins/input/common/probe.h plugins/input/common/count_sync.h plugins/input/common/stack.h
plugins_input_dtrace_la_LDFLAGS = $(PLUGIN_LDFLAGS)
