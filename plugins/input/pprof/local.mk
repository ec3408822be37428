# pprof: profile.proto (gzip-compressed or raw), through libfkpprof;
# locations without lines named from local binaries through libfksym.
pkglib_LTLIBRARIES += plugins/input-pprof.la
plugins_input_pprof_la_SOURCES = plugins/input/pprof/pprof.c plugins/input/pprof/localsym.c \
	plugins/input/pprof/localsym.h plugins/input/common/time.h
plugins_input_pprof_la_CPPFLAGS = $(AM_CPPFLAGS) $(FK_PPROF_CPPFLAGS) $(FK_SYM_CPPFLAGS)
plugins_input_pprof_la_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
plugins_input_pprof_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_pprof_la_LIBADD = plugins/lib/libfkpprof.la plugins/lib/symbolize/libfksym.la
