# grep: the native sample filter (POSIX regex, one test per distinct frame).
pkglib_LTLIBRARIES += plugins/filter-grep.la
plugins_filter_grep_la_SOURCES = plugins/filter/grep/grep.c
plugins_filter_grep_la_CPPFLAGS = $(FRAMECACHE_CPPFLAGS)
plugins_filter_grep_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugins_filter_grep_la_LIBADD = $(FRAMECACHE_LIBS)
