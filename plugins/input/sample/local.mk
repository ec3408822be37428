# sample: macOS /usr/bin/sample call graphs.
pkglib_LTLIBRARIES += plugins/input-sample.la
plugins_input_sample_la_SOURCES = plugins/input/sample/sample.c plugins/input/common/probe.h plugins/input/common/stack.h
plugins_input_sample_la_LDFLAGS = $(PLUGIN_LDFLAGS)
