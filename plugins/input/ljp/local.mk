pkglib_LTLIBRARIES += plugins/input-ljp.la
plugins_input_ljp_la_SOURCES = plugins/input/ljp/ljp.c plugins/input/common/probe.h plugins/input/common/stack.h
plugins_input_ljp_la_LDFLAGS = $(PLUGIN_LDFLAGS)
