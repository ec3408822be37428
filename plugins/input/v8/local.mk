# v8: Chrome and Node .cpuprofile JSON, streamed through yajl (libfkjson).
pkglib_LTLIBRARIES += plugins/input-v8.la
plugins_input_v8_la_SOURCES = plugins/input/v8/v8.c plugins/input/v8/json.c plugins/input/v8/v8.h \
	plugins/input/common/time.h
plugins_input_v8_la_CPPFLAGS = $(AM_CPPFLAGS) $(FK_JSON_CPPFLAGS) $(FK_CPUHEAD_CPPFLAGS)
plugins_input_v8_la_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
plugins_input_v8_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_v8_la_LIBADD = plugins/lib/libfkcpuhead.la plugins/lib/libfkjson.la $(YAJL_LIBS) $(LIBM)
