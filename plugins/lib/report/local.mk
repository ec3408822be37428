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
# its own test: encoder and decoder round-trip, forged data
check_PROGRAMS += tests/unit/report.t
TESTS += tests/unit/report.t
tests_unit_report_t_SOURCES = tests/unit/report.c tests/unit/testlib.h
tests_unit_report_t_CPPFLAGS = $(AM_CPPFLAGS) $(FK_REPORT_CPPFLAGS)
tests_unit_report_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_report_t_LDADD = $(FK_REPORT_LIBS) $(TEST_LDADD)
