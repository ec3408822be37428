# bpftrace: the maps bpftrace prints, with kstack/ustack keys.
pkglib_LTLIBRARIES += plugins/input-bpftrace.la
plugins_input_bpftrace_la_SOURCES = plugins/input/bpftrace/bpftrace.c plugins/input/common/probe.h plugins/input/common/stack.h plugins/input/common/line_sync.h
plugins_input_bpftrace_la_LDFLAGS = $(PLUGIN_LDFLAGS)
