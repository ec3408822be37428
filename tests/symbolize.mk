# libfksym (plugins/lib/symbolize): cmocka tests against perf script,
# objdump, nm and addr2line on programs compiled at test time.
check_PROGRAMS += tests/unit/symbolize.t
TESTS += tests/unit/symbolize.t
tests_unit_symbolize_t_SOURCES = tests/unit/symbolize.c
tests_unit_symbolize_t_CPPFLAGS = $(AM_CPPFLAGS) $(FK_SYM_CPPFLAGS)
tests_unit_symbolize_t_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_symbolize_t_LDADD = plugins/lib/symbolize/libfksym.la $(CMOCKA_LIBS)

# The program bench/65-symbolize.sh times (built by it, not run by make check).
EXTRA_PROGRAMS = tests/symbolize-bench
tests_symbolize_bench_SOURCES = tests/symbolize-bench.c
tests_symbolize_bench_CPPFLAGS = $(AM_CPPFLAGS) $(FK_SYM_CPPFLAGS)
tests_symbolize_bench_LDADD = plugins/lib/symbolize/libfksym.la
CLEANFILES += tests/symbolize-bench
