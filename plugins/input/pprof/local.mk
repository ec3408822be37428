# pprof: profile.proto (gzip-compressed or raw), through libfkpprof.
pkglib_LTLIBRARIES += plugins/input-pprof.la
plugins_input_pprof_la_SOURCES = plugins/input/pprof/pprof.c plugins/input/common/time.h
plugins_input_pprof_la_CPPFLAGS = $(AM_CPPFLAGS) $(FK_PPROF_CPPFLAGS)
plugins_input_pprof_la_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
plugins_input_pprof_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_pprof_la_LIBADD = plugins/lib/libfkpprof.la
