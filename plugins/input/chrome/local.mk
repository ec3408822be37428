# chrome: Trace Event Format JSON, streamed through yajl (libfkjson).
pkglib_LTLIBRARIES += plugins/input-chrome.la
plugins_input_chrome_la_SOURCES = plugins/input/chrome/chrome.c plugins/input/chrome/read.c \
	plugins/input/chrome/chrome.h plugins/input/common/time.h
plugins_input_chrome_la_CPPFLAGS = $(AM_CPPFLAGS) $(FK_JSON_CPPFLAGS) $(FK_CPUHEAD_CPPFLAGS)
plugins_input_chrome_la_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
plugins_input_chrome_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_input_chrome_la_LIBADD = plugins/lib/libfkcpuhead.la plugins/lib/libfkjson.la $(YAJL_LIBS) $(LIBM)
