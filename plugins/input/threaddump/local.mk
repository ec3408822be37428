# threaddump: gdb's thread apply all bt, eu-stack and jstack dumps.
pkglib_LTLIBRARIES += plugins/input-threaddump.la
plugins_input_threaddump_la_SOURCES = plugins/input/threaddump/threaddump.c plugins/input/common/probe.h plugins/input/common/stack.h plugins/input/common/line_sync.h
plugins_input_threaddump_la_LDFLAGS = $(PLUGIN_LDFLAGS)
