# xctrace: Instruments' `xctrace export` XML of the Time and CPU Profilers' tables, through libxml2's xmlTextReader.
pkglib_LTLIBRARIES += plugins/input-xctrace.la
plugins_input_xctrace_la_SOURCES = plugins/input/xctrace/xctrace.c plugins/input/xctrace/reader.c \
	plugins/input/xctrace/xctrace.h plugins/input/common/limit.h plugins/input/common/stack.h \
	plugins/input/common/time.h
plugins_input_xctrace_la_CFLAGS = $(AM_CFLAGS) $(XML2_CFLAGS)
plugins_input_xctrace_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_xctrace_la_LIBADD = $(XML2_LIBS)
