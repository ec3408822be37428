# libfkreport: the html report's format (report.h), its encoder and its
# decoder, a convenience library linked into the html output plugin (which
# writes reports) and the html input plugin (which reads them back).
noinst_LTLIBRARIES += plugins/lib/libfkreport.la
plugins_lib_libfkreport_la_SOURCES = plugins/lib/report/report.h plugins/lib/report/encode.c \
	plugins/lib/report/decode.c plugins/lib/report/b64.c plugins/lib/report/b64.h
plugins_lib_libfkreport_la_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)
plugins_lib_libfkreport_la_LIBADD = $(ZLIB_LIBS) $(LIBM)
# The flags a module using the library compiles with.
FK_REPORT_CPPFLAGS = -I$(top_srcdir)/plugins/lib/report
FK_REPORT_LIBS = plugins/lib/libfkreport.la
