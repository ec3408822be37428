# v8: Chrome and Node .cpuprofile JSON, parsed with cJSON.
pkglib_LTLIBRARIES += plugins/input-v8.la
plugins_input_v8_la_SOURCES = plugins/input/v8/v8.c
plugins_input_v8_la_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
plugins_input_v8_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_v8_la_LIBADD = $(CJSON_LIBS) $(LIBM)
