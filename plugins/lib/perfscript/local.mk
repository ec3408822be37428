# perfscript: the `perf script` text parser (perfscript.h), a convenience
# library that the perf and perf-data input plugins link, so neither
# compiles the other's files.
noinst_LTLIBRARIES += plugins/lib/perfscript/libperfscript.la
plugins_lib_perfscript_libperfscript_la_SOURCES = \
	plugins/lib/perfscript/perfscript.h \
	plugins/lib/perfscript/internal.h \
	plugins/lib/perfscript/hash.h \
	plugins/lib/perfscript/lines.h \
	plugins/lib/perfscript/header.c \
	plugins/lib/perfscript/frames.c \
	plugins/lib/perfscript/cache.c \
	plugins/lib/perfscript/pairing.c \
	plugins/lib/perfscript/offcpu.c \
	plugins/lib/perfscript/pairstate.c \
	plugins/lib/perfscript/push.c \
	plugins/lib/perfscript/wakeups.c \
	plugins/lib/perfscript/leak.c \
	plugins/lib/perfscript/body.c \
	plugins/lib/perfscript/scan.c \
	plugins/lib/perfscript/driver.c \
	plugins/lib/perfscript/weights.c \
	plugins/lib/perfscript/fields.c \
	plugins/lib/perfscript/events.c \
	plugins/input/common/time.h
