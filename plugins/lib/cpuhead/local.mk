# libfkcpuhead: the old .cpuprofile's "head" tree, read through libfkjson
# (the v8 and chrome inputs), a convenience library linked into each.
noinst_LTLIBRARIES += plugins/lib/libfkcpuhead.la
plugins_lib_libfkcpuhead_la_SOURCES = plugins/lib/cpuhead/cpuhead.c plugins/lib/cpuhead/cpuhead.h
plugins_lib_libfkcpuhead_la_CPPFLAGS = $(AM_CPPFLAGS) $(FK_JSON_CPPFLAGS)
plugins_lib_libfkcpuhead_la_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
FK_CPUHEAD_CPPFLAGS = -I$(top_srcdir)/plugins/lib/cpuhead
