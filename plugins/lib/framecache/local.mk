# framecache: the per-frame answer cache (by interned id) and the name
# buffer the grep and narrow filters share.
noinst_LTLIBRARIES += plugins/lib/framecache/libframecache.la
plugins_lib_framecache_libframecache_la_SOURCES = \
	plugins/lib/framecache/framecache.c plugins/lib/framecache/framecache.h
FRAMECACHE_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/lib/framecache
FRAMECACHE_LIBS = plugins/lib/framecache/libframecache.la
