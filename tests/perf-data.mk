# perf-data's native reader against perf script, with captures recorded at
# test time.  The reader is tested with its symbols left unresolved, so
# that the oracle is `perf script --symfs EMPTY --kallsyms EMPTY`: a test
# build of the plugin (tests/modules/nullsym/input-perf-data.la, loaded
# first with --plugin-dir) links tests/perf-data/nullsym.c, a libfksym
# whose every lookup is unresolved, in place of the library.  With
# libfksym in the tree, tests/perf-data-native.sh also compares the real
# plugin, symbols and all.  tests/perf-data-dwarf.sh compares the real
# plugin's --call-graph dwarf unwinding with perf script (no perf in PATH).
check_LTLIBRARIES += tests/modules/nullsym/input-perf-data.la
tests_modules_nullsym_input_perf_data_la_SOURCES = $(PD_SOURCES) tests/perf-data/nullsym.c
tests_modules_nullsym_input_perf_data_la_CPPFLAGS = $(AM_CPPFLAGS) -DHAVE_LIBFKSYM $(ZSTD_CFLAGS) \
	$(TRACEEVENT_CFLAGS)
tests_modules_nullsym_input_perf_data_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_nullsym_input_perf_data_la_LIBADD = plugins/lib/perfscript/libperfscript.la $(ZSTD_LIBS) \
	$(TRACEEVENT_LIBS)
TESTS += tests/perf-data-native.sh tests/perf-data-dwarf.sh
EXTRA_DIST += tests/perf-data-native.sh tests/perf-data-dwarf.sh
# --inline, --srcline and --no-demangle against perf script and addr2line
TESTS += tests/perf-data-inline.sh
EXTRA_DIST += tests/perf-data-inline.sh tests/perf-data/inline-oracle.py
# the files a capture names: planted links, FIFOs (tests/trust.sh's rules)
TESTS += tests/perf-data-trust.sh
EXTRA_DIST += tests/perf-data-trust.sh
# samples in PLT stubs: _init or NAME@plt as perf 6.1's rbtree gives them,
# a stripped PIE, a function only in .dynsym
TESTS += tests/perf-data-plt.sh
EXTRA_DIST += tests/perf-data-plt.sh
# the kernel's symbols from perf record's copy of kallsyms, when it is of
# this boot: perf script's bytes; older, another user's, cut short
TESTS += tests/perf-data-kcache.sh
EXTRA_DIST += tests/perf-data-kcache.sh
# code in memory that is no file: an executable [heap], //anon, /SYSV and
# memfd, named as perf 6.1's map__new names them
TESTS += tests/perf-data-maps.sh
EXTRA_DIST += tests/perf-data-maps.sh
