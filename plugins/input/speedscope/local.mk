# speedscope: speedscope's JSON file format, streamed through yajl (libfkjson).
pkglib_LTLIBRARIES += plugins/input-speedscope.la
plugins_input_speedscope_la_SOURCES = plugins/input/speedscope/speedscope.c plugins/input/common/time.h
plugins_input_speedscope_la_CPPFLAGS = $(AM_CPPFLAGS) $(FK_JSON_CPPFLAGS)
plugins_input_speedscope_la_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
plugins_input_speedscope_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_speedscope_la_LIBADD = plugins/lib/libfkjson.la $(YAJL_LIBS) $(LIBM)
