# gecko: the Firefox Profiler's Gecko and processed formats (samply), through libfkjson.
pkglib_LTLIBRARIES += plugins/input-gecko.la
plugins_input_gecko_la_SOURCES = plugins/input/gecko/gecko.c plugins/input/gecko/read.c \
	plugins/input/gecko/gecko.h plugins/input/common/time.h
plugins_input_gecko_la_CPPFLAGS = $(AM_CPPFLAGS) $(FK_JSON_CPPFLAGS)
plugins_input_gecko_la_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
plugins_input_gecko_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_gecko_la_LIBADD = plugins/lib/libfkjson.la $(YAJL_LIBS) $(LIBM)
