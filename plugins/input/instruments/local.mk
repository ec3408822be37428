pkglib_LTLIBRARIES += plugins/input-instruments.la
plugins_input_instruments_la_SOURCES = plugins/input/instruments/instruments.c plugins/input/common/probe.h plugins/input/common/stack.h
plugins_input_instruments_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_instruments_la_LIBADD = $(LIBM)
