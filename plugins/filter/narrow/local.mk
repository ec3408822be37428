# narrow: pprof's focus/ignore/hide/show, inferno's base/skip-after, a time
# window, a thread and recursion collapsing, in one pass per sample (the
# command's --focus, --ignore, ... flags add it to the chain).
pkglib_LTLIBRARIES += plugins/filter-narrow.la
plugins_filter_narrow_la_SOURCES = plugins/filter/narrow/narrow.c
plugins_filter_narrow_la_CPPFLAGS = $(FRAMECACHE_CPPFLAGS)
plugins_filter_narrow_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_filter_narrow_la_LIBADD = $(FRAMECACHE_LIBS) $(LIBM)
