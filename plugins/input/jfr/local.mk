# jfr: Java Flight Recorder recordings (the JDK's and async-profiler's),
# read chunk by chunk as their metadata describes them.
pkglib_LTLIBRARIES += plugins/input-jfr.la
plugins_input_jfr_la_SOURCES = plugins/input/jfr/jfr.c plugins/input/jfr/chunk.c \
	plugins/input/jfr/log.c \
	plugins/input/jfr/jfr.h plugins/input/common/limit.h
plugins_input_jfr_la_LDFLAGS = $(PLUGIN_LDFLAGS)
