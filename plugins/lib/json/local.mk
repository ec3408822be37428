# libfkjson: the yajl driver and helpers of the JSON input plugins
# (v8, speedscope, chrome, gecko), a convenience library linked into each.
noinst_LTLIBRARIES += plugins/lib/libfkjson.la
plugins_lib_libfkjson_la_SOURCES = plugins/lib/json/fk_json.c plugins/lib/json/fk_json.h
plugins_lib_libfkjson_la_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
plugins_lib_libfkjson_la_LIBADD = $(YAJL_LIBS)
FK_JSON_CPPFLAGS = -I$(top_srcdir)/plugins/lib/json
