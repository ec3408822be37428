# pprof: gzip-compressed profile.proto, through libfkpprof.
pkglib_LTLIBRARIES += plugins/output-pprof.la
plugins_output_pprof_la_SOURCES = plugins/output/pprof/pprof.c
plugins_output_pprof_la_CPPFLAGS = $(AM_CPPFLAGS) $(FK_PPROF_CPPFLAGS)
plugins_output_pprof_la_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) $(ZLIB_CFLAGS)
plugins_output_pprof_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_output_pprof_la_LIBADD = plugins/lib/libfkpprof.la $(ZLIB_LIBS) $(LIBM)
