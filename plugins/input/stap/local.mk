pkglib_LTLIBRARIES += plugins/input-stap.la
plugins_input_stap_la_SOURCES = plugins/input/stap/stap.c plugins/input/common/probe.h plugins/input/common/count_sync.h plugins/input/common/stack.h
plugins_input_stap_la_LDFLAGS = $(PLUGIN_LDFLAGS)
